package cli_test

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// `loreweave export` writes a world's archive by id or by slug, says what it holds, and
// leaves no file behind when it fails.
func TestExportCommand(t *testing.T) {
	s := apptest.Start(t)
	r := s.RichWorld("Saltmarsh")
	w, err := s.LW.Store.World(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, ref := range []string{r.ID, w.Slug} {
		file := filepath.Join(dir, ref+".zip")
		out := mustRun(t, s.PB, "export", ref, "--out", file)
		if !strings.Contains(out, "exported Saltmarsh ("+r.ID+") to "+file) || !strings.Contains(out, ": 7 documents (9 states") {
			t.Fatalf("export said %q", out)
		}
		z, err := zip.OpenReader(file)
		if err != nil {
			t.Fatal(err)
		}
		if last := z.File[len(z.File)-1].Name; last != "manifest.json" {
			t.Fatalf("the archive ends with %s", last)
		}
		z.Close()
		if _, err := os.Stat(file + ".tmp"); !os.IsNotExist(err) {
			t.Fatalf("%s.tmp is left: %v", file, err)
		}
	}

	file := filepath.Join(dir, "none.zip")
	if _, _, err := run(t, s.PB, "export", "nosuchworld", "--out", file); err == nil || !strings.Contains(err.Error(), `no world with id or slug "nosuchworld"`) {
		t.Fatalf("exporting an unknown world: %v", err)
	}
	if _, _, err := run(t, s.PB, "export", r.ID); err == nil || !strings.Contains(err.Error(), "--out is required") {
		t.Fatalf("export without --out: %v", err)
	}
	// A directory that cannot be written: nothing is left, half or whole.
	if _, _, err := run(t, s.PB, "export", r.ID, "--out", filepath.Join(dir, "missing", "x.zip")); err == nil {
		t.Fatal("exporting into a missing directory worked")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") || e.Name() == "none.zip" {
			t.Fatalf("%s is left behind", e.Name())
		}
	}
}
