package store

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"
)

// zipStream's archives read back with archive/zip, names, bytes and times intact, past the
// 65,535 files where the zip64 end records take over.
func TestZipStream(t *testing.T) {
	for _, n := range []int{0, 3, 70_000} {
		var buf bytes.Buffer
		when := time.Date(2026, 11, 24, 21, 13, 32, 0, time.UTC)
		z, err := newZipStream(&buf, when)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := z.Create(fmt.Sprintf("documents/d%d/ü.json", i)); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(z, "{%q: %d}\n", "n", i)
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatalf("%d files: %v", n, err)
		}
		if len(r.File) != n {
			t.Fatalf("%d files read back as %d", n, len(r.File))
		}
		for i, f := range r.File {
			if i%9999 != 0 && i != n-1 {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(rc)
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			if f.Name != fmt.Sprintf("documents/d%d/ü.json", i) || string(body) != fmt.Sprintf("{\"n\": %d}\n", i) || !f.Modified.Equal(when) {
				t.Fatalf("file %d: %s %q %s", i, f.Name, body, f.Modified)
			}
		}
	}
}
