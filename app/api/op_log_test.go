package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/loreweave/loreweave/app/api"
	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/store"
)

// opLogPage is a page of GET …/ops as a test reads it.
type opLogPage struct {
	Version       int
	Since         int
	OldestVersion int
	Truncated     bool
	HasMore       bool
	Items         []struct {
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
		if p.Truncated || p.OldestVersion != 1 {
			t.Fatalf("nothing was compacted, yet a page says truncated=%v oldestVersion=%d", p.Truncated, p.OldestVersion)
		}
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

// The op log keeps the newest 16 MiB of each document's history (in each era): older
// entries are deleted as new ones come. A page that starts before what is kept starts at the
// oldest kept version and says so; a stream resuming from there gets a snapshot; an edit
// based on a version whose changes are gone is stale.
func TestOpLogIsCompacted(t *testing.T) {
	f := bigHistory(t, start(t), 24) // about 24 MB

	var rows, oldest, newest int
	var bytes int64
	if err := f.s.PB.DB().NewQuery("SELECT COUNT(*), COALESCE(SUM(LENGTH(CAST(ops AS BLOB))), 0), COALESCE(MIN(version), 0), COALESCE(MAX(version), 0) FROM document_ops WHERE document = '"+f.card+"'").
		Row(&rows, &bytes, &oldest, &newest); err != nil {
		t.Fatal(err)
	}
	if bytes > store.OpLogKeepBytes+1<<20 || newest != f.version || rows != newest-oldest+1 || oldest <= 2 {
		t.Fatalf("op log of %d versions (about 24 MB): %d rows, %d..%d, %.1f MiB; want the newest up to 16 MiB (plus one entry)",
			f.version, rows, oldest, newest, float64(bytes)/(1<<20))
	}

	pages := f.readLog(t, 0)
	first := pages[0]
	if !first.Truncated || first.OldestVersion != oldest || len(first.Items) == 0 || first.Items[0].Version != oldest {
		t.Fatalf("page from 0: truncated=%v oldestVersion=%d first item %+v, want truncated from %d", first.Truncated, first.OldestVersion, first.Items, oldest)
	}
	last := pages[len(pages)-1]
	if last.Items[len(last.Items)-1].Version != f.version {
		t.Fatalf("paging on from the oldest kept version did not reach %d", f.version)
	}
	var p opLogPage
	f.s.Must(f.s.Get(f.ann.Key, f.path()+"/ops?limit=1&since="+strconv.Itoa(oldest-1)), http.StatusOK).JSON(t, &p)
	if p.Truncated || p.Items[0].Version != oldest {
		t.Fatalf("page from the oldest kept version: %+v", p)
	}

	st := f.s.StreamRequest(f.path()+"/events", http.Header{"Authorization": {"Bearer " + f.ann.Key}, "Last-Event-ID": {"1"}}, nil)
	if ev := st.Expect(t, ""); ev.Event != "snapshot" || ev.ID != strconv.Itoa(f.version) {
		t.Fatalf("resume from a compacted version: %s %s, want a snapshot", ev.Event, ev.ID)
	}

	var card struct {
		Content struct {
			Data struct{ Sections []struct{ ID string } }
		}
	}
	f.s.Must(f.s.Get(f.ann.Key, f.path()), http.StatusOK).JSON(t, &card)
	edit := func(base int) map[string]any {
		return ops(map[string]any{"op": "card.editSectionText", "id": card.Content.Data.Sections[0].ID, "baseVersion": base,
			"splices": []any{map[string]any{"pos": 0, "del": 0, "ins": "Once "}}})
	}
	if res := f.s.Post(f.ann.Key, f.path()+"/content", edit(1)); res.Status != http.StatusUnprocessableEntity || res.ErrorCode() != "stale_base_version" {
		t.Fatalf("edit based on a compacted version: %d %s", res.Status, res.Body)
	}
	f.s.Must(f.s.Post(f.ann.Key, f.path()+"/content", edit(f.version-1)), http.StatusOK)
}
