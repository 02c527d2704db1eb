package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/store"
)

// pastRead is GET …/documents/{id}?version=N as a test reads it.
type pastRead struct {
	Version        int
	CurrentVersion int
	VersionActor   struct{ ID string }
	VersionCreated string
	Content        struct {
		Data   json.RawMessage
		Source string
		Text   string
	}
}

// compact returns JSON without insignificant space, for comparing.
func compact(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// contentNow reads a document's current data.
func contentNow(t *testing.T, s *apptest.Server, key, path string) (int, string) {
	t.Helper()
	var d docRead
	s.Must(s.Get(key, path), http.StatusOK).JSON(t, &d)
	return d.Version, compact(t, d.Content.Data)
}

// Reading ?version=N gives the content as it was at N, for a timeline and for a card whose
// section two people typed in at once (text edits transformed on the server).
func TestReadPastVersions(t *testing.T) {
	s := start(t)
	ann, bob := s.NewUser("Ann"), s.NewUser("Bob")
	w := s.World(ann, "Eldoria")
	s.AddMember(ann, w, bob, "editor")

	tl := "/api/v1/worlds/" + w + "/documents/" + s.Document(ann, w, "Ages", "timeline")
	seen := map[int]string{0: `{"events":[]}`}
	for i := range 5 {
		s.Must(s.Post(ann.Key, tl+"/content", ops(map[string]any{"op": "timeline.addEvent", "label": fmt.Sprintf("Event %d", i), "dateMs": i * 1000})), http.StatusOK)
		v, data := contentNow(t, s, ann.Key, tl)
		seen[v] = data
	}
	var r opsResult
	s.Must(s.Post(ann.Key, tl+"/content", ops(map[string]any{"op": "timeline.addEvent", "label": "Last", "dateMs": 1})), http.StatusOK).JSON(t, &r)
	id := r.Ops[0]["id"]
	s.Must(s.Post(ann.Key, tl+"/content", ops(map[string]any{"op": "timeline.removeEvent", "id": id})), http.StatusOK)
	for v, want := range seen {
		var p pastRead
		s.Must(s.Get(ann.Key, tl+"?version="+strconv.Itoa(v)), http.StatusOK).JSON(t, &p)
		if got := compact(t, p.Content.Data); got != want || p.Version != v || p.CurrentVersion != 7 || p.Content.Source != "history" {
			t.Errorf("timeline v%d: got version %d of %d (%s) %s, want %s", v, p.Version, p.CurrentVersion, p.Content.Source, got, want)
		}
		if v > 0 && p.VersionActor.ID != ann.ID {
			t.Errorf("timeline v%d made by %q, want Ann", v, p.VersionActor.ID)
		}
	}

	card := "/api/v1/worlds/" + w + "/documents/" + s.Document(ann, w, "Aerendyl", "card")
	s.Must(s.Post(ann.Key, card+"/content", ops(map[string]any{"op": "card.addSection", "title": "Biography", "body": "Born."})), http.StatusOK).JSON(t, &r)
	sec := r.Ops[0]["id"]
	cardSeen := map[int]string{}
	v, data := contentNow(t, s, ann.Key, card)
	cardSeen[v] = data
	// Both type at the end of "Born." as read at version 1: the second is rebased.
	for i, u := range []apptest.User{ann, bob, ann} {
		edit := map[string]any{"op": "card.editSectionText", "id": sec, "baseVersion": 1, "splices": []any{map[string]any{"pos": 5, "del": 0, "ins": fmt.Sprintf(" %s%d", u.Name, i)}}}
		s.Must(s.Post(u.Key, card+"/content", ops(edit)), http.StatusOK)
		v, data := contentNow(t, s, ann.Key, card)
		cardSeen[v] = data
	}
	s.Must(s.Post(bob.Key, card+"/content", ops(map[string]any{"op": "card.rename", "name": "Aerendyl the Grey"})), http.StatusOK)
	for v, want := range cardSeen {
		var p pastRead
		s.Must(s.Get(bob.Key, card+"?version="+strconv.Itoa(v)), http.StatusOK).JSON(t, &p)
		if got := compact(t, p.Content.Data); got != want {
			t.Errorf("card v%d: got %s, want %s", v, got, want)
		}
	}

	for _, q := range []string{"99", "-1", "x"} {
		res := s.Get(ann.Key, card+"?version="+q)
		if want := map[string]int{"99": 404, "-1": 422, "x": 422}[q]; res.Status != want {
			t.Errorf("?version=%s: %d %s, want %d", q, res.Status, res.ErrorCode(), want)
		}
	}
}

// A restore makes a new version whose content equals the old one, through the write path:
// a watcher of the document sees it, search finds the restored text, the op log lists it.
// Viewers may not restore; a viewer reading a past version gets no secret section.
func TestRestoreVersion(t *testing.T) {
	s := start(t)
	ann, vic := s.NewUser("Ann"), s.NewUser("Vic")
	w := s.World(ann, "Eldoria")
	s.AddMember(ann, w, vic, "viewer")
	card := "/api/v1/worlds/" + w + "/documents/" + s.Document(ann, w, "Aerendyl", "card")
	var r opsResult
	s.Must(s.Post(ann.Key, card+"/content", ops(
		map[string]any{"op": "card.addSection", "title": "Biography", "body": "Sailed to quorvandel."},
		map[string]any{"op": "card.addSection", "title": "Plot", "body": "Is the traitor.", "secret": true},
	)), http.StatusOK).JSON(t, &r)
	sec := r.Ops[0]["id"]
	_, old := contentNow(t, s, ann.Key, card)
	s.Must(s.Post(ann.Key, card+"/content", ops(map[string]any{"op": "card.updateSection", "id": sec, "body": "Stayed home."})), http.StatusOK)
	s.Must(s.Post(ann.Key, card+"/content", ops(map[string]any{"op": "card.rename", "name": "Aerendyl"})), http.StatusOK)

	var p pastRead
	s.Must(s.Get(vic.Key, card+"?version=1"), http.StatusOK).JSON(t, &p)
	if strings.Contains(string(p.Content.Data), "traitor") || strings.Contains(p.Content.Text, "traitor") {
		t.Fatalf("a viewer's past version shows a secret section: %s", p.Content.Data)
	}

	if res := s.Post(vic.Key, card+"/restore", map[string]any{"version": 1}); res.Status != http.StatusForbidden {
		t.Fatalf("a viewer's restore: %d, want 403", res.Status)
	}
	outsider := s.NewUser("Olga")
	if res := s.Post(outsider.Key, card+"/restore", map[string]any{"version": 1}); res.Status != http.StatusNotFound {
		t.Fatalf("a non-member's restore: %d, want 404", res.Status)
	}
	if res := s.Post(ann.Key, card+"/restore", map[string]any{"version": 3}); res.Status != 422 || res.ErrorCode() != "nothing_to_restore" {
		t.Fatalf("restoring the current version: %d %s, want 422 nothing_to_restore", res.Status, res.ErrorCode())
	}
	if res := s.Post(ann.Key, card+"/content", ops(map[string]any{"op": "document.restore", "version": 1, "data": map[string]any{}})); res.Status != 422 || res.ErrorCode() != "unsupported_operation" {
		t.Fatalf("a client's document.restore op: %d %s, want 422 unsupported_operation", res.Status, res.ErrorCode())
	}

	st := s.Stream(ann.Key, card+"/events")
	defer st.Close()
	st.Expect(t, "snapshot")

	s.Must(s.Post(ann.Key, card+"/restore", map[string]any{"version": 1}), http.StatusOK).JSON(t, &r)
	if r.Version != 4 || len(r.Ops) != 1 || r.Ops[0]["op"] != "document.restore" {
		t.Fatalf("restore answered %+v, want version 4 with one document.restore op", r)
	}
	if v, now := contentNow(t, s, ann.Key, card); v != 4 || now != old {
		t.Fatalf("after the restore: version %d %s, want version 4 %s", v, now, old)
	}

	ev := st.Expect(t, "ops")
	var got struct {
		Version int
		Ops     []struct {
			Op      string
			Version int
			Data    json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(ev.Data), &got); err != nil {
		t.Fatal(err)
	}
	if ev.ID != "4" || got.Version != 4 || len(got.Ops) != 1 || got.Ops[0].Op != "document.restore" || got.Ops[0].Version != 1 || compact(t, got.Ops[0].Data) != old {
		t.Fatalf("the watcher got %s (id %s), want version 4 restoring version 1's data %s", ev.Data, ev.ID, old)
	}

	s.WaitSearchable(ann.Key, w, "quorvandel")

	// The restore is a version like any other: its history can be read, and restored over.
	var p4 pastRead
	s.Must(s.Get(ann.Key, card+"?version=4"), http.StatusOK).JSON(t, &p4)
	s.Must(s.Get(ann.Key, card+"?version=3"), http.StatusOK).JSON(t, &p)
	if compact(t, p4.Content.Data) != old || strings.Contains(string(p.Content.Data), "quorvandel") {
		t.Fatalf("history after a restore: v4 %s, v3 %s", p4.Content.Data, p.Content.Data)
	}
}

// Reading a past version in an era: versions from before the fork are the parent's, later
// ones the era's own; the parent is untouched by the era's restore.
func TestPastVersionsInAnEra(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	base := "/api/v1/worlds/" + w
	tl := base + "/documents/" + s.Document(ann, w, "Ages", "timeline")
	s.Must(s.Post(ann.Key, tl+"/content", ops(map[string]any{"op": "timeline.addEvent", "label": "First", "dateMs": 0})), http.StatusOK)
	_, v1 := contentNow(t, s, ann.Key, tl)
	s.Must(s.Post(ann.Key, tl+"/content", ops(map[string]any{"op": "timeline.addEvent", "label": "Second", "dateMs": 1})), http.StatusOK)
	_, v2 := contentNow(t, s, ann.Key, tl)

	var era struct{ ID string }
	s.Must(s.Post(ann.Key, base+"/eras", map[string]any{"name": "Second Age"}), http.StatusCreated).JSON(t, &era)
	inEra := "?era=" + era.ID
	// Nothing written in the era yet: its history is the main line's.
	var p pastRead
	s.Must(s.Get(ann.Key, tl+inEra+"&version=1"), http.StatusOK).JSON(t, &p)
	if compact(t, p.Content.Data) != v1 {
		t.Fatalf("inherited v1 in the era: %s, want %s", p.Content.Data, v1)
	}
	s.Must(s.Post(ann.Key, tl+"/content"+inEra, ops(map[string]any{"op": "timeline.addEvent", "label": "Era only", "dateMs": 2})), http.StatusOK)
	s.Must(s.Post(ann.Key, tl+"/content", ops(map[string]any{"op": "timeline.addEvent", "label": "Main only", "dateMs": 3})), http.StatusOK)
	_, mainNow := contentNow(t, s, ann.Key, tl)

	for v, want := range map[int]string{1: v1, 2: v2} {
		s.Must(s.Get(ann.Key, tl+inEra+"&version="+strconv.Itoa(v)), http.StatusOK).JSON(t, &p)
		if compact(t, p.Content.Data) != want {
			t.Errorf("era v%d (from the main line): %s, want %s", v, p.Content.Data, want)
		}
	}
	s.Must(s.Get(ann.Key, tl+inEra+"&version=3"), http.StatusOK).JSON(t, &p)
	if !strings.Contains(string(p.Content.Data), "Era only") || strings.Contains(string(p.Content.Data), "Main only") {
		t.Fatalf("era v3: %s", p.Content.Data)
	}

	var r opsResult
	s.Must(s.Post(ann.Key, tl+"/restore"+inEra, map[string]any{"version": 1}), http.StatusOK).JSON(t, &r)
	if v, now := contentNow(t, s, ann.Key, tl+inEra); v != 4 || now != v1 {
		t.Fatalf("era after restoring v1: version %d %s, want 4 %s", v, now, v1)
	}
	if _, now := contentNow(t, s, ann.Key, tl); now != mainNow {
		t.Fatalf("the main line changed with the era's restore: %s", now)
	}
}

// A version older than the history reaches gets a clear error saying how far back it goes;
// past the op log's oldest entries, a snapshot still rebuilds the versions after it.
func TestVersionPastTheHorizon(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	doc := s.Document(ann, w, "Ages", "timeline")
	tl := "/api/v1/worlds/" + w + "/documents/" + doc
	seen := map[int]string{}
	n := store.SnapshotEvery + 30
	for i := range n {
		s.Must(s.Post(ann.Key, tl+"/content", ops(map[string]any{"op": "timeline.addEvent", "label": fmt.Sprintf("E%d", i), "dateMs": i})), http.StatusOK)
		if i+1 == store.SnapshotEvery+10 {
			_, seen[i+1] = contentNow(t, s, ann.Key, tl)
		}
	}
	if got := s.Count("document_snapshots", "document = '"+doc+"'"); got != 1 {
		t.Fatalf("%d versions left %d snapshots, want 1", n, got)
	}
	// As if the op log had been trimmed (see store.OpLogKeepVersions) up to version 95: versions 96 to 99 are listed but have no base to rebuild them from.
	if _, err := s.PB.DB().NewQuery("DELETE FROM document_ops WHERE document = '" + doc + "' AND version <= 95").Execute(); err != nil {
		t.Fatal(err)
	}
	var p pastRead
	s.Must(s.Get(ann.Key, tl+"?version="+strconv.Itoa(store.SnapshotEvery+10)), http.StatusOK).JSON(t, &p)
	if got := compact(t, p.Content.Data); got != seen[store.SnapshotEvery+10] {
		t.Fatalf("v%d from the snapshot: %s, want %s", store.SnapshotEvery+10, got, seen[store.SnapshotEvery+10])
	}
	if res := s.Get(ann.Key, tl+"?version=97"); res.Status != http.StatusGone {
		t.Fatalf("v97, before the oldest snapshot: %d, want 410", res.Status)
	}
	res := s.Get(ann.Key, tl+"?version=50")
	if res.Status != http.StatusGone || res.ErrorCode() != "version_unavailable" {
		t.Fatalf("v50 past the horizon: %d %s, want 410 version_unavailable", res.Status, res.ErrorCode())
	}
	var e struct {
		Error struct {
			Message       string
			OldestVersion int
		}
	}
	res.JSON(t, &e)
	if e.Error.OldestVersion != store.SnapshotEvery || !strings.Contains(e.Error.Message, "from 100 on") {
		t.Fatalf("the error says %+v, want that versions from %d on can be shown", e.Error, store.SnapshotEvery)
	}
	if res := s.Post(ann.Key, tl+"/restore", map[string]any{"version": 50}); res.Status != http.StatusGone {
		t.Fatalf("restoring v50 past the horizon: %d, want 410", res.Status)
	}
}
