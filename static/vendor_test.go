package static

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"strings"
	"testing"
)

// TestVendorChecksums checks vendor/checksums.txt against the embedded files: every listed
// file has its sha256, and every vendored file is listed.
func TestVendorChecksums(t *testing.T) {
	list, err := Files.ReadFile("vendor/checksums.txt")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(list))
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("bad line %q", sc.Text())
		}
		listed[name] = true
		b, err := Files.ReadFile("vendor/" + name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got := sha256.Sum256(b)
		if hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x, checksums.txt says %s", name, got, sum)
		}
	}
	_ = fs.WalkDir(Files, "vendor", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := strings.TrimPrefix(path, "vendor/")
		if name != "README.md" && name != "checksums.txt" && !listed[name] {
			t.Errorf("%s is not in checksums.txt", name)
		}
		return nil
	})
	if !listed["codemirror/codemirror.js"] {
		t.Error("codemirror/codemirror.js is not listed")
	}
}
