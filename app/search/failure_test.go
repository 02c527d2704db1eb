package search

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// A panic Bleve recovers on its own goroutines (its merger, persister or introducer then
// stop for good) marks the index broken; other background errors, which Bleve retries, do
// not.
func TestBleveBackgroundPanicsBreakTheIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.bleve")
	ix, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := os.Stat(filepath.Join(storePath(path), "root.bolt")); err != nil {
		t.Fatalf("Bleve keeps the index elsewhere than storePath says: %v", err)
	}
	report := scorch.RegistryAsyncErrorCallbacks[asyncErrors]
	report(scorch.NewScorchError("persister", "no space left on device", scorch.ErrPersist), storePath(path))
	if ix.broken.Err() != nil {
		t.Fatal("a persist error, which Bleve retries, broke the index")
	}
	report(scorch.NewScorchError("merger", "panic: boom", scorch.ErrAsyncPanic), storePath(path))
	if !isFailure(context.Cause(ix.broken)) {
		t.Fatalf("after a panic in the merger: %v", context.Cause(ix.broken))
	}
}
