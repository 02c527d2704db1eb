package search

import "testing"

// SetFailpoint runs fn at each failpoint the index's work reaches ("query", "apply",
// "rebuild") until the test ends: fn may panic there, as Bleve may on a damaged index, or
// block.
func SetFailpoint(t testing.TB, fn func(point string)) {
	failpoint.Store(&fn)
	t.Cleanup(func() { failpoint.Store(nil) })
}
