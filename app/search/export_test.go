package search

import (
	"os"
	"testing"
)

// SetFailpoint runs fn at each failpoint the index's work reaches ("query", "apply",
// "rebuild") until the test ends: fn may panic there, as Bleve may on a damaged index, or
// block.
func SetFailpoint(t testing.TB, fn func(point string)) {
	failpoint.Store(&fn)
	t.Cleanup(func() { failpoint.Store(nil) })
}

// VerifySegment checks a segment file against the checksum in its footer.
func VerifySegment(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return verifySegment(f)
}
