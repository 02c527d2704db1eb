package search_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/loreweave/loreweave/app"
	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/search"
)

// lore is "lantern" and n pseudo-random words: documents that all match one query, each
// different, that fill segments of some size.
func lore(rng *rand.Rand, n int) string {
	syllables := []string{"ka", "lo", "ven", "dra", "mir", "tha", "os", "quen", "zul", "rae", "bor", "eth"}
	var b strings.Builder
	b.WriteString("lantern")
	for range n {
		b.WriteByte(' ')
		for range 2 + rng.Intn(3) {
			b.WriteString(syllables[rng.Intn(len(syllables))])
		}
	}
	return b.String()
}

// searchStatus asks for q and checks the answer is results or, while the index is rebuilt,
// 503 search_rebuilding with Retry-After; it returns the number of results (-1 while
// rebuilding).
func (w world) searchStatus(t *testing.T, q string) int {
	t.Helper()
	res := w.s.Get(w.ann.Key, "/api/v1/worlds/"+w.id+"/search?q="+q)
	switch {
	case res.Status == http.StatusOK:
		var r results
		res.JSON(t, &r)
		return r.TotalItems
	case res.Status == http.StatusServiceUnavailable && res.ErrorCode() == "search_rebuilding" && res.Header.Get("Retry-After") != "":
		return -1
	}
	t.Fatalf("search answered %d: %s", res.Status, res.Body)
	return 0
}

// keepServing writes a card every 50 ms for d while reading documents and searching, and
// checks every answer; it returns how many cards it wrote.
func (w world) keepServing(t *testing.T, d time.Duration, existing string) int {
	t.Helper()
	n := 0
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		w.card(t, fmt.Sprintf("Written meanwhile %d", n), "lantern light number "+fmt.Sprint(n), "")
		n++
		w.s.Must(w.s.Get(w.ann.Key, "/api/v1/worlds/"+w.id+"/documents/"+existing), http.StatusOK)
		w.searchStatus(t, "lantern")
	}
	return n
}

// waitFound polls until a search for q finds want documents, allowing for the rebuild.
func (w world) waitFound(t *testing.T, q string, want int) {
	t.Helper()
	got := 0
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got = w.searchStatus(t, q); got == want {
			return
		}
	}
	t.Fatalf("search for %q finds %d documents, want %d", q, got, want)
}

// overwrite puts 4 KB of garbage in a file, centred on the middle of what part returns (the
// offsets of a part of the file, given its bytes).
func overwrite(t *testing.T, path string, part func(b []byte) (from, to int64)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	from, to := part(b)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	garbage := bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 1024)
	if _, err := f.WriteAt(garbage, max(0, (from+to)/2-2048)); err != nil {
		t.Fatal(err)
	}
}

// whole is all of a file.
func whole(b []byte) (int64, int64) { return 0, int64(len(b)) }

// storedDocuments is the part of a segment (zap v17, Bleve 2.6's) that holds the stored
// documents, which every start reads to reconcile the index: from the start of the file to
// the stored index, whose offset the footer keeps 28 bytes from the end.
func storedDocuments(b []byte) (int64, int64) {
	return 0, int64(binary.BigEndian.Uint64(b[len(b)-28:]))
}

// segments lists the index's .zap segment files.
func segments(t *testing.T, index string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(index, "store", "*.zap"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no segment in %s (%v)", index, err)
	}
	return paths
}

// damageSegments overwrites 4 KB in the part of every segment that part returns (whichever
// of them the index uses is damaged).
func damageSegments(part func(b []byte) (from, to int64)) func(t *testing.T, index string) {
	return func(t *testing.T, index string) {
		for _, p := range segments(t, index) {
			overwrite(t, p, part)
		}
	}
}

// A damaged index (its segments or its metadata overwritten) does not stop the server: it
// starts, answers reads and writes throughout, search answers results or search_rebuilding,
// and once rebuilt, search finds every document again, those written meanwhile included.
// No damaged segment stays in use, and at most one copy of a damaged index is kept aside
// (there is one when the index could not be used: Bleve itself drops a snapshot it cannot
// load, and the reconcile repairs what it lacked).
func TestDamagedIndexIsRebuilt(t *testing.T) {
	cases := []struct {
		name     string
		damage   func(t *testing.T, index string)
		setAside bool
	}{
		{"segment", damageSegments(whole), false},
		{"segment's stored documents", damageSegments(storedDocuments), true},
		{"index metadata", func(t *testing.T, index string) {
			if err := os.WriteFile(filepath.Join(index, "index_meta.json"), []byte("{not json"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := apptest.StartIn(t, dir)
			ann := s.NewUser("Ann")
			w := world{s: s, ann: ann, id: s.World(ann, "Eldoria")}
			rng := rand.New(rand.NewSource(1))
			const docs = 40
			var first string
			for i := range docs {
				id := w.card(t, fmt.Sprintf("Chronicle %d", i), lore(rng, 400), "")
				if first == "" {
					first = id
				}
			}
			w.search(t, "lantern", total(docs))
			s.Stop()
			// An earlier failure's copy, to be replaced rather than kept beside a new one.
			index := app.SearchPath(s.PB)
			if err := os.MkdirAll(index+".broken-1", 0o755); err != nil {
				t.Fatal(err)
			}
			tc.damage(t, index)

			s2 := apptest.StartIn(t, dir)
			w2 := world{s: s2, ann: ann, id: w.id}
			written := w2.keepServing(t, 3*time.Second, first)
			w2.waitFound(t, "lantern", docs+written)
			w2.waitFound(t, "meanwhile", written)

			aside, _ := filepath.Glob(index + ".broken-*")
			if len(aside) > 1 || tc.setAside && (len(aside) != 1 || strings.HasSuffix(aside[0], ".broken-1")) {
				t.Fatalf("kept aside: %v", aside)
			}
			var damaged error
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				if damaged = firstDamaged(index); damaged == nil {
					break
				}
				w2.card(t, "Nudge", "lantern", "") // a persist lets Bleve delete segments no longer used
			}
			if damaged != nil {
				t.Fatalf("a damaged segment is still in the index: %v", damaged)
			}
		})
	}
}

// firstDamaged checks the segments in an index directory, returning the first failure.
func firstDamaged(index string) error {
	paths, _ := filepath.Glob(filepath.Join(index, "store", "*.zap"))
	for _, p := range paths {
		if err := search.VerifySegment(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// panicOnce panics the first time the index's work reaches point.
func panicOnce(point string) func(string) {
	var fired atomic.Bool
	return func(p string) {
		if p == point && fired.CompareAndSwap(false, true) {
			panic("search: injected panic at " + point)
		}
	}
}

// A panic in the index (as Bleve may raise on a damaged one), in a query or while indexing a
// write, does not end the process: search answers search_rebuilding while the index is
// rebuilt, then finds every document, the one written when it panicked included.
func TestPanicInTheIndexRebuildsIt(t *testing.T) {
	for _, point := range []string{"query", "apply"} {
		t.Run(point, func(t *testing.T) {
			w := newWorld(t)
			first := w.card(t, "Lamplighter", "lantern oil", "")
			w.search(t, "lantern", total(1))

			search.SetFailpoint(t, panicOnce(point))
			if point == "query" {
				if n := w.searchStatus(t, "lantern"); n != -1 {
					t.Fatalf("the query that panicked found %d documents, want search_rebuilding", n)
				}
			}
			w.card(t, "Lantern festival", "paper lanterns", "") // indexing it panics at "apply"
			written := w.keepServing(t, time.Second, first)
			w.waitFound(t, "lantern", 2+written)
		})
	}
}

// While the index is rebuilt, every way to search says so: the REST API with 503
// search_rebuilding and Retry-After, the web search page with 503 and a notice, its htmx
// fragment with the notice (htmx swaps in only successful answers). Reads and writes carry
// on, and the writes made meanwhile are found once the rebuild ends.
func TestSearchSaysItIsRebuilding(t *testing.T) {
	w := newWorld(t)
	first := w.card(t, "Lamplighter", "lantern oil", "")
	w.search(t, "lantern", total(1))
	var world struct{ Slug string }
	w.s.Must(w.s.Get(w.ann.Key, "/api/v1/worlds/"+w.id), http.StatusOK).JSON(t, &world)
	browser := w.s.SignIn(w.ann)

	// A query panics, and the rebuild it starts waits until released.
	hold := make(chan struct{})
	var release sync.Once
	t.Cleanup(func() { release.Do(func() { close(hold) }) }) // before the server stops
	query := panicOnce("query")
	search.SetFailpoint(t, func(point string) {
		query(point)
		if point == "rebuild" {
			<-hold
		}
	})
	for range 2 { // the query that panicked, then one during the rebuild
		res := w.s.Must(w.s.Get(w.ann.Key, "/api/v1/worlds/"+w.id+"/search?q=lantern"), http.StatusServiceUnavailable)
		if res.ErrorCode() != "search_rebuilding" || res.Header.Get("Retry-After") == "" || res.Map(t)["error"].(map[string]any)["retryAfter"] == nil {
			t.Fatalf("while rebuilding: %v %s", res.Header, res.Body)
		}
	}
	web := func(header http.Header, status int) {
		t.Helper()
		res := w.s.Must(w.s.Do(apptest.Request{Method: http.MethodGet, Path: "/w/" + world.Slug + "/search?q=lantern", Client: browser, Header: header}), status)
		d, err := goquery.NewDocumentFromReader(bytes.NewReader(res.Body))
		if err != nil {
			t.Fatal(err)
		}
		if d.Find(`[data-testid="search-rebuilding"]`).Length() != 1 || d.Find(`[data-testid="no-results"]`).Length() != 0 {
			t.Fatalf("web search while rebuilding: %s", res.Body)
		}
	}
	web(nil, http.StatusServiceUnavailable)
	web(http.Header{"HX-Request": {"true"}}, http.StatusOK)
	written := w.keepServing(t, 500*time.Millisecond, first)

	release.Do(func() { close(hold) })
	w.waitFound(t, "lantern", 1+written)
}
