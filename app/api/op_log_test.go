package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/loreweave/loreweave/app/api"
	"github.com/loreweave/loreweave/app/apptest"
)

// opLogPage is a page of GET …/ops as a test reads it.
type opLogPage struct {
	Version int
	Since   int
	HasMore bool
	Items   []struct {
		Version int
		Ops     []json.RawMessage
	}
}

// opsBytes is the size of an entry's ops as the op log stores them (a compact JSON array).
func opsBytes(t *testing.T, ops []json.RawMessage) int {
	t.Helper()
	b, err := json.Marshal(ops)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// historyFixture is a card with a long history of big writes.
type historyFixture struct {
	s       *apptest.Server
	ann     apptest.User
	w, card string
	version int
}

func (f historyFixture) path() string { return "/api/v1/worlds/" + f.w + "/documents/" + f.card }

// bigHistory gives a new card n+2 versions: a section, n writes of about 1 MB of ops each
// (the card stays small), then a marker property; it waits for the search indexer to catch
// up, so that nothing else runs while a test measures.
func bigHistory(t *testing.T, s *apptest.Server, n int) historyFixture {
	t.Helper()
	f := historyFixture{s: s, ann: s.NewUser("Ann")}
	f.w = s.World(f.ann, "Eldoria")
	f.card = s.Document(f.ann, f.w, "Aerendyl", "card")
	s.Must(s.Post(f.ann.Key, f.path()+"/content", ops(map[string]any{"op": "card.addSection", "title": "Life", "body": "Born."})), http.StatusOK)
	for i := range n {
		s.Must(s.Post(f.ann.Key, f.path()+"/content", apptest.BigCardWrite(i)), http.StatusOK)
	}
	var r opsResult
	s.Must(s.Post(f.ann.Key, f.path()+"/content", ops(map[string]any{"op": "card.setProperty", "key": "marker", "value": "zanzibar"})), http.StatusOK).JSON(t, &r)
	f.version = r.Version
	s.WaitSearchable(f.ann.Key, f.w, "zanzibar")
	return f
}

// readLog pages through the op log from since with ?limit=1000 and returns every page,
// checking that no page of more than one entry holds more than api.MaxOpLogPageBytes of ops.
func (f historyFixture) readLog(t *testing.T, since int) []opLogPage {
	t.Helper()
	var pages []opLogPage
	for {
		var p opLogPage
		f.s.Must(f.s.Get(f.ann.Key, f.path()+"/ops?limit=1000&since="+strconv.Itoa(since)), http.StatusOK).JSON(t, &p)
		size := 0
		for _, it := range p.Items {
			size += opsBytes(t, it.Ops)
		}
		if len(p.Items) > 1 && size > api.MaxOpLogPageBytes {
			t.Fatalf("page after %d: %d entries of %.1f MiB of ops, over the %d MiB a page may hold", since, len(p.Items), float64(size)/(1<<20), api.MaxOpLogPageBytes>>20)
		}
		pages = append(pages, p)
		if !p.HasMore {
			return pages
		}
		if len(p.Items) == 0 || len(pages) > 100 {
			t.Fatalf("page after %d says it has more but does not move on: %+v", since, p)
		}
		since = p.Items[len(p.Items)-1].Version
	}
}

// An op-log page is bounded by bytes as well as by count: ?limit=1000 over about 12 MB of
// history answers at most 4 MiB of ops with hasMore, costs the server about a page, and
// paging on with since = the last version reaches the current version, every version once.
func TestOpLogPagesAreBoundedInBytes(t *testing.T) {
	f := bigHistory(t, start(t), 12)

	alloc := apptest.Allocated(func() {
		req, _ := http.NewRequest(http.MethodGet, f.s.URL+f.path()+"/ops?limit=1000", nil)
		req.Header.Set("Authorization", "Bearer "+f.ann.Key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	})
	if alloc > 8*api.MaxOpLogPageBytes {
		t.Fatalf("one page of the op log allocated %.1f MiB, want under 8 times the %d MiB of ops a page holds", float64(alloc)/(1<<20), api.MaxOpLogPageBytes>>20)
	}

	pages := f.readLog(t, 0)
	if len(pages) < 3 {
		t.Fatalf("about 12 MB of history in %d pages, want at least 3 of at most 4 MiB", len(pages))
	}
	next := 1
	for _, p := range pages {
		for _, it := range p.Items {
			if it.Version != next {
				t.Fatalf("paging: version %d, want %d", it.Version, next)
			}
			next++
		}
	}
	if next != f.version+1 {
		t.Fatalf("paging ended before version %d, want %d", next, f.version+1)
	}
}
