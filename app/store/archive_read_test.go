package store

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

func zipOf(t *testing.T, n int, method uint16) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for i := range n {
		w, err := z.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("f%06d.txt", i), Method: method})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "file %d: %s", i, strings.Repeat("x", i%50))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readEntries(t *testing.T, data []byte) (map[string]string, error) {
	t.Helper()
	out := map[string]string{}
	var readErr error
	err := readZipDirectory(bytes.NewReader(data), int64(len(data)), func(e *archiveEntry) {
		rc, err := e.Open(bytes.NewReader(data))
		if err != nil {
			readErr = err
			return
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil && readErr == nil {
			readErr = err
		}
		out[e.name] = string(b)
	})
	if err == nil {
		err = readErr
	}
	return out, err
}

// The import's zip reader reads what archive/zip writes, stored, deflated and zip64 (past
// 65,535 files), and refuses a truncated zip and a corrupt file.
func TestReadZipDirectory(t *testing.T) {
	for _, c := range []struct {
		name   string
		n      int
		method uint16
	}{{"stored", 10, zip.Store}, {"deflated", 10, zip.Deflate}, {"zip64", 70_000, zip.Store}} {
		t.Run(c.name, func(t *testing.T) {
			files, err := readEntries(t, zipOf(t, c.n, c.method))
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != c.n || files["f000007.txt"] != "file 7: xxxxxxx" {
				t.Fatalf("%d files, f000007.txt = %q", len(files), files["f000007.txt"])
			}
		})
	}
	data := zipOf(t, 10, zip.Store)
	if _, err := readEntries(t, data[:len(data)-30]); err == nil {
		t.Error("a truncated zip was read")
	}
	corrupt := bytes.Replace(data, []byte("file 3: xxx"), []byte("file 3: xxy"), 1)
	if _, err := readEntries(t, corrupt); err == nil || !strings.Contains(err.Error(), "CRC-32") {
		t.Errorf("a corrupt file: %v", err)
	}
}
