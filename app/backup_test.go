package app_test

import (
	"archive/zip"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pocketbase/pocketbase/tools/archive"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestBackupAndRestore takes a backup of a running instance with PocketBase's backups while
// it is being written to, restores it into a fresh data directory, and checks that the new
// instance has the data and rebuilds its search index (which backups leave out, with any
// failed index set aside).
func TestBackupAndRestore(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	content := "/api/v1/worlds/" + w + "/documents/" + tl + "/content"
	s.Must(s.Post(ann.Key, content, map[string]any{"ops": []any{map[string]any{"op": "timeline.addEvent", "label": "Backed up", "dateMs": 1}}}), 200)

	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // writes keep coming while the backup runs
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			s.Post(ann.Key, content, map[string]any{"ops": []any{map[string]any{"op": "timeline.addEvent", "label": "during", "dateMs": i}}})
		}
	}()
	// A failed index set aside is left out too.
	if err := os.MkdirAll(filepath.Join(s.Dir, "search.bleve.broken-1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir, "search.bleve.broken-1", "index_meta.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if err := s.PB.CreateBackup(context.Background(), "lw_test.zip"); err != nil {
		t.Fatal(err)
	}
	close(stop)
	<-done

	zipPath := filepath.Join(s.Dir, "backups", "lw_test.zip")
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "search.bleve") {
			t.Fatalf("the backup holds the search index: %s", f.Name)
		}
	}
	zr.Close()

	restored := t.TempDir()
	if err := archive.Extract(zipPath, restored); err != nil {
		t.Fatal(err)
	}
	r := apptest.StartIn(t, restored)
	var d struct {
		Version int
		Content struct{ Text string }
	}
	r.Must(r.Get(ann.Key, "/api/v1/worlds/"+w+"/documents/"+tl), http.StatusOK).JSON(t, &d)
	if d.Version < 1 || !strings.Contains(d.Content.Text, "Backed up") {
		t.Fatalf("restored document %+v", d)
	}
	var hits struct{ TotalItems int }
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r.Must(r.Get(ann.Key, "/api/v1/worlds/"+w+"/search?q=%22backed+up%22"), http.StatusOK).JSON(t, &hits)
		if hits.TotalItems == 1 || time.Now().After(deadline) {
			break
		}
	}
	if hits.TotalItems != 1 {
		t.Fatalf("the restored instance did not rebuild its search index: %+v", hits)
	}
}
