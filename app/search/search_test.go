package search_test

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app"
	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/search"
)

type results struct {
	Items []struct {
		ID, Name, DocumentType, Snippet string
		Score                           float64
	}
	Page, PerPage, TotalItems int
}

type world struct {
	s   *apptest.Server
	ann apptest.User
	id  string
}

func newWorld(t *testing.T) world {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	return world{s: s, ann: ann, id: s.World(ann, "Eldoria")}
}

func (w world) doc(name, typ string) string { return w.s.Document(w.ann, w.id, name, typ) }

func (w world) card(t *testing.T, name, body string, era string) string {
	t.Helper()
	id := w.doc(name, "card")
	w.section(t, id, body, era)
	return id
}

func (w world) section(t *testing.T, doc, body, era string) {
	t.Helper()
	path := "/api/v1/worlds/" + w.id + "/documents/" + doc + "/content"
	if era != "" {
		path += "?era=" + era
	}
	w.s.Must(w.s.Post(w.ann.Key, path, map[string]any{"ops": []any{map[string]any{"op": "card.addSection", "title": "Notes", "body": body}}}), http.StatusOK)
}

// search polls until want(results) holds or a second has passed, and returns the last
// results: a write is searchable within one second.
func (w world) search(t *testing.T, q string, want func(results) bool) results {
	t.Helper()
	var r results
	for deadline := time.Now().Add(time.Second); ; time.Sleep(20 * time.Millisecond) {
		w.s.Must(w.s.Get(w.ann.Key, "/api/v1/worlds/"+w.id+"/search?q="+q), http.StatusOK).JSON(t, &r)
		if want(r) || time.Now().After(deadline) {
			return r
		}
	}
}

func total(n int) func(results) bool { return func(r results) bool { return r.TotalItems == n } }

func ids(r results) []string {
	var out []string
	for _, it := range r.Items {
		out = append(out, it.ID)
	}
	return out
}

func TestSearchBasics(t *testing.T) {
	w := newWorld(t)
	dragon := w.card(t, "Vharnagal", "An ancient red dragon who burns the fleets of Qo'noS.", "")
	tale := w.card(t, "Harbour tales", "Sailors whisper that Vharnagal sleeps beneath the harbour; the dragon dreams.", "")
	never := w.doc("Aerendyl", "card") // never written: found by its name

	cases := []struct {
		name string
		q    string
		want []string
	}{
		{"exact word", "vharnagal", []string{dragon, tale}},
		{"name ranks above content", "Vharnagal", []string{dragon, tale}},
		{"prefix of the last word", "Vharna", []string{dragon, tale}},
		{"short prefix", "harb", []string{tale}},
		{"two letters", "vh", []string{dragon, tale}},
		{"three letters", "Har", []string{tale}},
		{"fuzzy for 5+ letters", "Vharnagel", []string{dragon, tale}},
		{"stemming", "burning", []string{dragon}},
		{"invented word with apostrophe", "Qo'noS", []string{dragon}},
		{"phrase in order", `"red dragon"`, []string{dragon}},
		{"phrase out of order", `"dragon red"`, nil},
		{"all words must match", "dragon sailors", []string{tale}},
		{"never written, by name", "Aerendyl", []string{never}},
		{"no fuzzy for short words", "rad ", nil},
		{"no prefix after a space", "Vharna ", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := w.search(t, url.QueryEscape(tc.q), total(len(tc.want)))
			if fmt.Sprint(ids(r)) != fmt.Sprint(tc.want) {
				t.Fatalf("q=%q: got %v (%+v), want %v", tc.q, ids(r), r.Items, tc.want)
			}
		})
	}
	// Names outrank content by score, not only by order.
	r := w.search(t, "vharnagal", total(2))
	if r.Items[0].Score <= r.Items[1].Score || r.Items[0].Name != "Vharnagal" || r.Items[0].DocumentType != "card" {
		t.Fatalf("ranking %+v", r.Items)
	}
}

func TestSnippetsAreEscapedAndHighlighted(t *testing.T) {
	w := newWorld(t)
	w.card(t, "Trap", "Beware: <script>alert('pwned')</script> the cursed idol of Ixtal & its `<b>guardians</b>`.", "")
	r := w.search(t, "ixtal", total(1))
	snip := r.Items[0].Snippet
	if strings.Contains(snip, "<script") || strings.Contains(snip, "<b>") {
		t.Fatalf("snippet not escaped: %s", snip)
	}
	if !strings.Contains(snip, "&lt;b&gt;guardians") || !strings.Contains(snip, "<mark>Ixtal</mark>") || !strings.Contains(snip, "&amp;") {
		t.Fatalf("snippet: %s", snip)
	}
	// A prefix hit marks the whole word.
	r = w.search(t, "Ixt", total(1))
	if !strings.Contains(r.Items[0].Snippet, "<mark>Ixtal</mark>") {
		t.Fatalf("prefix snippet: %s", r.Items[0].Snippet)
	}
}

func TestSearchIsScopedToTheWorld(t *testing.T) {
	w := newWorld(t)
	mine := w.card(t, "Moonwell", "silver water", "")
	other := world{s: w.s, ann: w.ann, id: w.s.World(w.ann, "Other")}
	other.card(t, "Moonwell", "silver water", "")
	r := w.search(t, "moonwell", total(1))
	if len(r.Items) != 1 || r.Items[0].ID != mine {
		t.Fatalf("leak across worlds: %+v", r)
	}
	// A stranger cannot search the world at all.
	bob := w.s.NewUser("Bob")
	if res := w.s.Get(bob.Key, "/api/v1/worlds/"+w.id+"/search?q=moonwell"); res.Status != 404 {
		t.Fatalf("stranger: %d", res.Status)
	}
}

func TestSearchFollowsEras(t *testing.T) {
	w := newWorld(t)
	keep := w.card(t, "Old keep", "granite walls", "")
	var era struct{ ID string }
	w.s.Must(w.s.Post(w.ann.Key, "/api/v1/worlds/"+w.id+"/eras", map[string]any{"name": "Ruin age"}), 201).JSON(t, &era)
	inEra := func(q string, want func(results) bool) results {
		var r results
		for deadline := time.Now().Add(time.Second); ; time.Sleep(20 * time.Millisecond) {
			w.s.Must(w.s.Get(w.ann.Key, "/api/v1/worlds/"+w.id+"/search?era="+era.ID+"&q="+q), 200).JSON(t, &r)
			if want(r) || time.Now().After(deadline) {
				return r
			}
		}
	}
	// Inherited: the era finds the main line's content.
	if r := inEra("granite", total(1)); r.TotalItems != 1 {
		t.Fatalf("inherited %+v", r)
	}
	// The era's own version replaces the parent's copy in the era, and only there.
	w.section(t, keep, "overgrown with ivy", era.ID)
	if r := inEra("ivy", total(1)); r.TotalItems != 1 || r.Items[0].ID != keep {
		t.Fatalf("era's own version %+v", r)
	}
	if r := w.search(t, "ivy", total(0)); r.TotalItems != 0 {
		t.Fatalf("era text visible on main %+v", r)
	}
	// "granite" is in both copies (the era copied main's section): one hit, not two.
	if r := inEra("granite", total(1)); r.TotalItems != 1 {
		t.Fatalf("overridden copy counted: %+v", r)
	}
	// Main changes no longer reach the era's copy.
	w.section(t, keep, "a new moat", "")
	if r := w.search(t, "moat", total(1)); r.TotalItems != 1 {
		t.Fatalf("main %+v", r)
	}
	if r := inEra("moat", total(0)); r.TotalItems != 0 {
		t.Fatalf("era sees a main write after forking: %+v", r)
	}
	// Documents created in the era are found only there.
	var d struct{ ID string }
	w.s.Must(w.s.Post(w.ann.Key, "/api/v1/worlds/"+w.id+"/documents?era="+era.ID, map[string]any{"name": "Squatter camp", "documentType": "card"}), 201).JSON(t, &d)
	if r := inEra("squatter", total(1)); r.TotalItems != 1 {
		t.Fatalf("era doc %+v", r)
	}
	if r := w.search(t, "squatter", total(0)); r.TotalItems != 0 {
		t.Fatalf("era doc on main %+v", r)
	}
	// A type filter in the era covers its own documents and the inherited ones.
	w.doc("Granite quarry", "timeline")
	if r := inEra("granite&documentType=card", total(1)); r.TotalItems != 1 || r.Items[0].ID != keep {
		t.Fatalf("cards in the era: %+v", r)
	}
	if r := inEra("granite&documentType=timeline", total(1)); r.TotalItems != 1 || r.Items[0].Name != "Granite quarry" {
		t.Fatalf("timelines in the era: %+v", r)
	}
	if r := inEra("sq&documentType=card", total(1)); r.TotalItems != 1 || r.Items[0].ID != d.ID {
		t.Fatalf("cards by prefix in the era: %+v", r)
	}
	if r := inEra("sq&documentType=timeline", total(0)); r.TotalItems != 0 {
		t.Fatalf("timelines by prefix in the era: %+v", r)
	}
}

func TestSearchPaginationAndFilters(t *testing.T) {
	w := newWorld(t)
	for i := 0; i < 7; i++ {
		w.card(t, fmt.Sprintf("Tower %d", i), "a lighthouse", "")
	}
	tl := w.doc("Lighthouse history", "timeline")
	w.s.Must(w.s.Post(w.ann.Key, "/api/v1/worlds/"+w.id+"/documents/"+tl+"/content", map[string]any{"ops": []any{map[string]any{"op": "timeline.addEvent", "label": "Lighthouse lit", "dateMs": 5}}}), 200)
	w.search(t, "lighthouse", total(8))
	seen := map[string]bool{}
	for p := 1; p <= 3; p++ {
		var r results
		w.s.Must(w.s.Get(w.ann.Key, fmt.Sprintf("/api/v1/worlds/%s/search?q=lighthouse&perPage=3&page=%d", w.id, p)), 200).JSON(t, &r)
		if r.TotalItems != 8 || r.Page != p || r.PerPage != 3 {
			t.Fatalf("page %d: %+v", p, r)
		}
		for _, it := range r.Items {
			seen[it.ID] = true
		}
	}
	if len(seen) != 8 {
		t.Fatalf("pages covered %d documents", len(seen))
	}
	var r results
	w.s.Must(w.s.Get(w.ann.Key, "/api/v1/worlds/"+w.id+"/search?q=lighthouse&documentType=timeline"), 200).JSON(t, &r)
	if r.TotalItems != 1 || r.Items[0].ID != tl {
		t.Fatalf("type filter %+v", r)
	}
	if res := w.s.Get(w.ann.Key, "/api/v1/worlds/"+w.id+"/search?q=x&perPage=101"); res.Status != 422 {
		t.Fatalf("perPage 101: %d", res.Status)
	}
}

func TestRenameUpdatesTheIndex(t *testing.T) {
	w := newWorld(t)
	id := w.card(t, "Nameless", "a wanderer", "")
	w.s.Must(w.s.Post(w.ann.Key, "/api/v1/worlds/"+w.id+"/documents/"+id+"/content", map[string]any{"ops": []any{map[string]any{"op": "card.rename", "name": "Zephyrine"}}}), 200)
	if r := w.search(t, "zephyrine", total(1)); r.TotalItems != 1 || r.Items[0].Name != "Zephyrine" {
		t.Fatalf("rename %+v", r)
	}
}

// A PATCH rename of a document that has content (in the main line and in an era) is found
// by its new name, not its old one, now and after the index is rebuilt.
func TestPatchRenameOfAWrittenDocumentUpdatesTheIndex(t *testing.T) {
	dir := t.TempDir()
	s := apptest.StartIn(t, dir)
	ann := s.NewUser("Ann")
	w := world{s: s, ann: ann, id: s.World(ann, "Eldoria")}
	id := w.card(t, "Aerendyl", "a drowned prince", "")
	var era struct{ ID string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.id+"/eras", map[string]any{"name": "Second Age"}), http.StatusCreated).JSON(t, &era)
	w.section(t, id, "crowned again", era.ID)
	w.search(t, "aerendyl", total(1))

	s.Must(s.Do(apptest.Request{Method: "PATCH", Path: "/api/v1/worlds/" + w.id + "/documents/" + id, Key: ann.Key, Body: map[string]any{"name": "Zephyrine"}}), http.StatusOK)
	check := func(w world) {
		t.Helper()
		if r := w.search(t, "zephyrine", total(1)); r.TotalItems != 1 || r.Items[0].Name != "Zephyrine" {
			t.Fatalf("new name: %+v", r)
		}
		if r := w.search(t, "aerendyl", total(0)); r.TotalItems != 0 {
			t.Fatalf("old name still found: %+v", r)
		}
		var r results
		w.s.Must(w.s.Get(w.ann.Key, "/api/v1/worlds/"+w.id+"/search?era="+era.ID+"&q=zephyrine+crowned"), http.StatusOK).JSON(t, &r)
		if r.TotalItems != 1 {
			t.Fatalf("new name in the era: %+v", r)
		}
	}
	check(w)

	// Rebuilt from the stored texts, the index says the same.
	s.Stop()
	if err := os.RemoveAll(filepath.Join(dir, "search.bleve")); err != nil {
		t.Fatal(err)
	}
	s = apptest.StartIn(t, dir)
	check(world{s: s, ann: ann, id: w.id})
}

// TestReconcileRepairsAfterACrash: content written to the database behind the index's back
// (as if the server died between commit and indexing, and the outbox row were lost) and a
// deleted index are both repaired when the server starts.
func TestReconcileRepairsAfterACrash(t *testing.T) {
	dir := t.TempDir()
	s := apptest.StartIn(t, dir)
	ann := s.NewUser("Ann")
	w := world{s: s, ann: ann, id: s.World(ann, "Eldoria")}
	id := w.card(t, "Lighthouse", "beacon", "")
	w.search(t, "beacon", total(1))
	gone := w.card(t, "Doomed", "ephemeral", "")
	w.search(t, "ephemeral", total(1))
	s.Stop()

	// Behind the index's back: rewrite one document's content (its data and the text derived
	// from it), delete another, no outbox rows.
	pb := core.NewBaseApp(core.BaseAppConfig{DataDir: dir})
	if err := pb.Bootstrap(); err != nil {
		t.Fatal(err)
	}
	if _, err := pb.DB().NewQuery("UPDATE document_states SET data = json_set(data, '$.sections[0].body', 'kraken'), text = 'Lighthouse Notes kraken', version = version + 1 WHERE document = {:id}").Bind(map[string]any{"id": id}).Execute(); err != nil {
		t.Fatal(err)
	}
	if _, err := pb.DB().NewQuery("DELETE FROM documents WHERE id = {:id}").Bind(map[string]any{"id": gone}).Execute(); err != nil {
		t.Fatal(err)
	}
	_ = pb.ResetBootstrapState()

	s2 := apptest.StartIn(t, dir)
	w2 := world{s: s2, ann: ann, id: w.id}
	if r := w2.search(t, "kraken", total(1)); r.TotalItems != 1 {
		t.Fatalf("not repaired: %+v", r)
	}
	if r := w2.search(t, "ephemeral", total(0)); r.TotalItems != 0 {
		t.Fatalf("deleted document still found: %+v", r)
	}
	// A world made after the restart gets its own scope in the index, not a reused one.
	other := world{s: s2, ann: ann, id: s2.World(ann, "Umbar")}
	theirs := other.card(t, "Deep kraken", "tentacles", "")
	if r := other.search(t, "kraken", total(1)); fmt.Sprint(ids(r)) != fmt.Sprint([]string{theirs}) {
		t.Fatalf("new world after restart: %+v", r)
	}
	if r := w2.search(t, "kraken", total(1)); fmt.Sprint(ids(r)) != fmt.Sprint([]string{id}) {
		t.Fatalf("old world after restart: %+v", r)
	}
	s2.Stop()

	// A lost index is rebuilt from the database.
	if err := os.RemoveAll(app.SearchPath(s2.PB)); err != nil {
		t.Fatal(err)
	}
	s3 := apptest.StartIn(t, dir)
	if r := (world{s: s3, ann: ann, id: w.id}).search(t, "kraken", total(1)); r.TotalItems != 1 {
		t.Fatalf("not rebuilt: %+v", r)
	}
}

func TestDeletedDocumentsLeaveTheIndex(t *testing.T) {
	w := newWorld(t)
	keep := w.card(t, "Watchtower", "obsidian spire", "")
	var era struct{ ID string }
	w.s.Must(w.s.Post(w.ann.Key, "/api/v1/worlds/"+w.id+"/eras", map[string]any{"name": "Ash age"}), 201).JSON(t, &era)
	inEra := func() int {
		var r results
		w.s.Must(w.s.Get(w.ann.Key, "/api/v1/worlds/"+w.id+"/search?era="+era.ID+"&q=obsidian"), 200).JSON(t, &r)
		return r.TotalItems
	}
	// Indexed first, and inherited by the era: so that none found below means the deletion
	// reached the index, not that nothing has yet.
	if r := w.search(t, "obsidian", total(1)); r.TotalItems != 1 {
		t.Fatalf("not indexed: %+v", r)
	}
	if n := inEra(); n != 1 {
		t.Fatalf("the era does not inherit it: %d", n)
	}
	w.s.Must(w.s.Do(apptest.Request{Method: "DELETE", Path: "/api/v1/worlds/" + w.id + "/documents/" + keep + "?era=" + era.ID, Key: w.ann.Key}), 204)
	deadline := time.Now().Add(time.Second)
	for inEra() != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := inEra(); n != 0 {
		t.Fatalf("deleted in era but found there: %d", n)
	}
	if r := w.search(t, "obsidian", total(1)); r.TotalItems != 1 {
		t.Fatalf("main lost it: %+v", r)
	}
	w.s.Must(w.s.Do(apptest.Request{Method: "DELETE", Path: "/api/v1/worlds/" + w.id + "/documents/" + keep, Key: w.ann.Key}), 204)
	if r := w.search(t, "obsidian", total(0)); r.TotalItems != 0 {
		t.Fatalf("deleted document still found: %+v", r)
	}
	// Renaming is searchable too.
	id := w.doc("Old name", "folder")
	w.s.Must(w.s.Do(apptest.Request{Method: "PATCH", Path: "/api/v1/worlds/" + w.id + "/documents/" + id, Key: w.ann.Key, Body: map[string]any{"name": "Quillfeather"}}), 200)
	if r := w.search(t, "quillfeather", total(1)); r.TotalItems != 1 {
		t.Fatalf("rename not indexed: %+v", r)
	}
}

// Snippets show the text as the page shows it, not its Markdown: no emphasis marks, heading
// markers or link targets; raw HTML, which the page drops, is not searched.
func TestSnippetsShowTextNotMarkdown(t *testing.T) {
	w := newWorld(t)
	w.card(t, "Aria", "## Early life\n\nShe rode the **tide** to [the harbour](https://example.com/harbour).\n\n- [x] learnt the _tide_ tables", "")
	r := w.search(t, "tide", total(1))
	snip := r.Items[0].Snippet
	for _, raw := range []string{"**", "##", "](", "example.com", "[x]", "_"} {
		if strings.Contains(snip, raw) {
			t.Errorf("snippet shows Markdown %q: %s", raw, snip)
		}
	}
	if !strings.Contains(snip, "She rode the <mark>tide</mark> to the harbour.") || !strings.Contains(snip, "Early life") {
		t.Errorf("snippet: %s", snip)
	}
	if r := w.search(t, "example", total(0)); r.TotalItems != 0 {
		t.Errorf("a link target is searched: %+v", r.Items)
	}
}

// A query one typo away from a card's name ranks the card above a document that mentions the
// name exactly: name matches rank first, as the README promises.
func TestOneTypoNameRanksTheNamedCardFirst(t *testing.T) {
	w := newWorld(t)
	card := w.card(t, "Vharnagal", "An ancient red dragon who sleeps under the mountain and dreams of the old kingdoms, long burnt.", "")
	tl := w.doc("Sea battles", "timeline")
	w.s.Must(w.s.Post(w.ann.Key, "/api/v1/worlds/"+w.id+"/documents/"+tl+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "timeline.addEvent", "label": "Vharnagal burns the fleet", "dateMs": 0}}}), http.StatusOK)
	r := w.search(t, "Vharnagel", total(2))
	if fmt.Sprint(ids(r)) != fmt.Sprint([]string{card, tl}) {
		t.Fatalf("q=Vharnagel: got %+v, want the card %s first", r.Items, card)
	}
}

// Changes that pile up while the indexer is busy reach it as one long run of outbox rows,
// which it indexes in several batches (bounded by their text): every document is found, the one written again late
// in the run with its last text.
func TestALongRunOfChangesIsIndexedInBatches(t *testing.T) {
	w := newWorld(t)
	release := make(chan struct{})
	var once sync.Once
	search.SetFailpoint(t, func(point string) {
		if point == "apply" {
			<-release
		}
	})
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	first := w.card(t, "First", "alpha", "")
	// ~400 bytes of text each: 250 of them are more than one batch's text (applyBatchText).
	filler := strings.Repeat(" and some more words", 20)
	for i := range 250 {
		w.card(t, fmt.Sprintf("Card %d", i), "multitude"+filler, "")
	}
	w.section(t, first, "omega", "")
	once.Do(func() { close(release) })
	// 250 documents at once may take longer than the second one write is given.
	for deadline := time.Now().Add(20 * time.Second); ; {
		if r := w.search(t, "multitude", total(250)); r.TotalItems == 250 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("multitude: %d of 250 documents found", r.TotalItems)
		}
	}
	if r := w.search(t, "omega", total(1)); fmt.Sprint(ids(r)) != fmt.Sprint([]string{first}) {
		t.Fatalf("the document written again: %+v", r)
	}
}
