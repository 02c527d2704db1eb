package api_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/search"
	"github.com/loreweave/loreweave/app/store"
)

// lifecycleWorld is a world with one member per role.
type lifecycleWorld struct {
	id                                  string
	owner, admin, editor, viewer, other apptest.User
}

func newLifecycleWorld(s *apptest.Server, name string) lifecycleWorld {
	w := lifecycleWorld{owner: s.NewUser(name + " Owner"), admin: s.NewUser(name + " Admin"), editor: s.NewUser(name + " Editor"),
		viewer: s.NewUser(name + " Viewer"), other: s.NewUser(name + " Stranger")}
	w.id = s.World(w.owner, name)
	s.AddMember(w.owner, w.id, w.admin, "admin")
	s.AddMember(w.owner, w.id, w.editor, "editor")
	s.AddMember(w.owner, w.id, w.viewer, "viewer")
	return w
}

func TestUpdateWorld(t *testing.T) {
	s := start(t)
	w := newLifecycleWorld(s, "Eldoria")
	path := "/api/v1/worlds/" + w.id
	var before struct{ Slug, Name, Genre, Theme string }
	s.Must(s.Get(w.owner.Key, path), http.StatusOK).JSON(t, &before)

	// The owner renames and changes the genre: the theme follows it, the slug stays.
	var got struct{ Slug, Name, Genre, Theme, Role string }
	s.Must(s.Do(patch(w.owner.Key, path, map[string]any{"name": "  New Eldoria ", "genre": "Sci-Fi"})), http.StatusOK).JSON(t, &got)
	if got.Name != "New Eldoria" || got.Genre != "Sci-Fi" || got.Theme != "starlight" || got.Slug != before.Slug || got.Role != "owner" {
		t.Fatalf("after rename: %+v (before %+v)", got, before)
	}
	// An admin may too; one member alone changes only what it names.
	s.Must(s.Do(patch(w.admin.Key, path, map[string]any{"genre": ""})), http.StatusOK).JSON(t, &got)
	if got.Name != "New Eldoria" || got.Genre != "" || got.Theme != store.DefaultTheme || got.Role != "admin" {
		t.Fatalf("after admin's change: %+v", got)
	}
	// Every member reads the new name at once (the world cache forgot the old one).
	s.Must(s.Get(w.viewer.Key, path), http.StatusOK).JSON(t, &got)
	if got.Name != "New Eldoria" {
		t.Fatalf("viewer reads %+v", got)
	}

	for _, c := range []struct {
		name   string
		key    string
		body   any
		status int
		code   string
	}{
		{"editor", w.editor.Key, map[string]any{"name": "X"}, http.StatusForbidden, "forbidden"},
		{"viewer", w.viewer.Key, map[string]any{"name": "X"}, http.StatusForbidden, "forbidden"},
		{"non-member", w.other.Key, map[string]any{"name": "X"}, http.StatusNotFound, "not_found"},
		{"empty body", w.owner.Key, map[string]any{}, http.StatusBadRequest, "nothing_to_change"},
		{"blank name", w.owner.Key, map[string]any{"name": "  ", "genre": "horror"}, http.StatusUnprocessableEntity, "invalid_field"},
		{"name not a string", w.owner.Key, map[string]any{"name": 3}, http.StatusUnprocessableEntity, "invalid_field"},
		{"unknown member", w.owner.Key, map[string]any{"slug": "mine"}, http.StatusUnprocessableEntity, "invalid_field"},
		{"not JSON", w.owner.Key, "{", http.StatusBadRequest, "malformed_json"},
	} {
		res := s.Do(patch(c.key, path, c.body))
		if res.Status != c.status || res.ErrorCode() != c.code {
			t.Errorf("%s: %d %s", c.name, res.Status, res.Body)
		}
	}
	// A refused change changed nothing.
	s.Must(s.Get(w.owner.Key, path), http.StatusOK).JSON(t, &got)
	if got.Name != "New Eldoria" || got.Genre != "" {
		t.Fatalf("a refused change changed the world: %+v", got)
	}
}

func TestWorldTrashRestoreAndPurge(t *testing.T) {
	s := start(t)
	w := newLifecycleWorld(s, "Atlantis")
	keep := s.World(w.owner, "Kept") // another world of the owner: the purge leaves it be
	keepDoc := s.Document(w.owner, keep, "Kept card", "card")
	base := "/api/v1/worlds/" + w.id
	doc := s.Document(w.owner, w.id, "Sunken Temple", "card")
	s.Must(s.Post(w.owner.Key, base+"/documents/"+doc+"/content", ops(map[string]any{"op": "card.setProperty", "key": "lore", "value": "zephyrine tides"})), http.StatusOK)
	s.Must(s.Post(w.owner.Key, "/api/v1/worlds/"+keep+"/documents/"+keepDoc+"/content", ops(map[string]any{"op": "card.setProperty", "key": "lore", "value": "zephyrine kept"})), http.StatusOK)
	var asset struct{ ID string }
	s.Must(uploadAs(t, s, w.owner.Key, w.id, upload{"map.png", pngBytes(t, 4, 4)}), http.StatusCreated).JSON(t, &asset)
	var era struct{ ID string }
	s.Must(s.Post(w.owner.Key, base+"/eras", map[string]any{"name": "Second Age"}), http.StatusCreated).JSON(t, &era)
	s.Must(s.Post(w.owner.Key, base+"/documents/"+doc+"/content?era="+era.ID, ops(map[string]any{"op": "card.setProperty", "key": "age", "value": "second"})), http.StatusOK)
	s.Must(s.Post(w.owner.Key, base+"/projects", map[string]any{"name": "Wiki", "kind": "wiki"}), http.StatusCreated)
	s.WaitSearchable(w.owner.Key, w.id, "zephyrine")
	assetDir := filepath.Join(s.PB.DataDir(), "storage", assetsCollection(t, s), asset.ID)
	if _, err := os.Stat(assetDir); err != nil {
		t.Fatalf("the asset's file is not where expected: %v", err)
	}

	// A pending invitation: hidden from the invitee while the world is in the trash, purged
	// with it.
	invitee := s.NewUser("Ivy")
	s.Must(s.Post(w.owner.Key, base+"/members", map[string]any{"email": invitee.Email, "role": "viewer"}), http.StatusCreated)
	var invitations struct{ TotalItems int }
	s.Must(s.Get(invitee.Key, "/api/v1/invitations"), http.StatusOK).JSON(t, &invitations)
	if invitations.TotalItems != 1 {
		t.Fatalf("invitations before the trash: %+v", invitations)
	}

	// Only the owner deletes.
	for _, u := range []apptest.User{w.admin, w.editor, w.viewer} {
		s.Must(s.Do(del(u.Key, base)), http.StatusForbidden)
	}
	s.Must(s.Do(del(w.other.Key, base)), http.StatusNotFound)
	var trashed struct{ ID, Name, Role, Deleted, PurgeAt string }
	s.Must(s.Do(del(w.owner.Key, base)), http.StatusOK).JSON(t, &trashed)
	s.Must(s.Get(invitee.Key, "/api/v1/invitations"), http.StatusOK).JSON(t, &invitations)
	if invitations.TotalItems != 0 {
		t.Errorf("invitations to a trashed world: %+v", invitations)
	}
	deleted, err1 := time.Parse(time.RFC3339, trashed.Deleted)
	purgeAt, err2 := time.Parse(time.RFC3339, trashed.PurgeAt)
	if err1 != nil || err2 != nil || trashed.ID != w.id || trashed.Role != "owner" || purgeAt.Sub(deleted) != store.TrashKeep {
		t.Fatalf("trashed = %+v", trashed)
	}

	// Gone for everyone, owner included, on every route.
	for _, u := range []apptest.User{w.owner, w.admin, w.viewer} {
		for _, p := range []string{base, base + "/documents", base + "/documents/" + doc, base + "/eras", base + "/projects",
			base + "/assets/" + asset.ID + "/file", base + "/search?q=zephyrine", base + "/members", base + "/events"} {
			if res := s.Get(u.Key, p); res.Status != http.StatusNotFound {
				t.Errorf("GET %s as %s after delete: %d", p, u.Email, res.Status)
			}
		}
		var l struct{ TotalItems int }
		s.Must(s.Get(u.Key, "/api/v1/worlds"), http.StatusOK).JSON(t, &l)
		if want := map[bool]int{true: 1, false: 0}[u.ID == w.owner.ID]; l.TotalItems != want {
			t.Errorf("%s lists %d worlds, want %d", u.Email, l.TotalItems, want)
		}
	}
	s.Must(s.Do(patch(w.owner.Key, base, map[string]any{"name": "X"})), http.StatusNotFound)
	s.Must(s.Do(del(w.owner.Key, base)), http.StatusNotFound)

	// The trash: the owner's only.
	var trash struct {
		Items      []struct{ ID, Deleted, PurgeAt string }
		TotalItems int
	}
	s.Must(s.Get(w.owner.Key, "/api/v1/trash"), http.StatusOK).JSON(t, &trash)
	if trash.TotalItems != 1 || trash.Items[0].ID != w.id || trash.Items[0].PurgeAt != trashed.PurgeAt {
		t.Fatalf("owner's trash = %+v", trash)
	}
	s.Must(s.Get(w.admin.Key, "/api/v1/trash"), http.StatusOK).JSON(t, &trash)
	if trash.TotalItems != 0 {
		t.Fatalf("admin's trash = %+v", trash)
	}
	for _, u := range []apptest.User{w.admin, w.viewer, w.other} {
		s.Must(s.Post(u.Key, base+"/restore", nil), http.StatusNotFound)
	}

	// Restored as it was: its documents, eras, members and search entries.
	var restored struct{ ID, Name, Role string }
	s.Must(s.Post(w.owner.Key, base+"/restore", nil), http.StatusOK).JSON(t, &restored)
	if restored.ID != w.id || restored.Name != "Atlantis" || restored.Role != "owner" {
		t.Fatalf("restored = %+v", restored)
	}
	s.Must(s.Post(w.owner.Key, base+"/restore", nil), http.StatusNotFound) // no longer in the trash
	s.Must(s.Get(w.viewer.Key, base+"/documents/"+doc+"?era="+era.ID), http.StatusOK)
	s.Must(s.Get(w.viewer.Key, base+"/assets/"+asset.ID+"/file"), http.StatusOK)
	s.WaitSearchable(w.viewer.Key, w.id, "zephyrine")

	// Trashed again, the purge waits for its 30 days...
	s.Must(s.Do(del(w.owner.Key, base)), http.StatusOK)
	if n, err := s.LW.Store.PurgeWorlds(time.Now().Add(store.TrashKeep - time.Hour)); err != nil || n != 0 {
		t.Fatalf("purge before time: %d %v", n, err)
	}
	s.Must(s.Get(w.owner.Key, "/api/v1/trash"), http.StatusOK).JSON(t, &trash)
	if trash.TotalItems != 1 {
		t.Fatalf("trash after an early purge = %+v", trash)
	}
	// ...then removes everything of the world.
	if n, err := s.LW.Store.PurgeWorlds(time.Now().Add(store.TrashKeep + time.Hour)); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	for table, where := range map[string]string{
		"worlds": "id = '" + w.id + "'", "documents": "world = '" + w.id + "'", "document_states": "document = '" + doc + "'",
		"document_ops": "document = '" + doc + "'", "document_snapshots": "document = '" + doc + "'", "document_links": "world = '" + w.id + "'",
		"eras": "world = '" + w.id + "'", "projects": "world = '" + w.id + "'", "tools": "world = '" + w.id + "'",
		"world_members": "world = '" + w.id + "'", "invitations": "world = '" + w.id + "'", "assets": "world = '" + w.id + "'", "world_event_seqs": "world = '" + w.id + "'",
	} {
		if n := s.Count(table, where); n != 0 {
			t.Errorf("%s keeps %d rows of the purged world", table, n)
		}
	}
	if _, err := os.Stat(assetDir); !os.IsNotExist(err) {
		t.Errorf("the asset's file is still stored: %v", err)
	}
	s.Must(s.Get(w.owner.Key, "/api/v1/trash"), http.StatusOK).JSON(t, &trash)
	if trash.TotalItems != 0 {
		t.Fatalf("trash after the purge = %+v", trash)
	}
	s.Must(s.Post(w.owner.Key, base+"/restore", nil), http.StatusNotFound)
	s.Must(s.Get(w.owner.Key, base+"/documents/"+doc), http.StatusNotFound)
	s.Must(s.Get(w.owner.Key, base+"/assets/"+asset.ID+"/file"), http.StatusNotFound)
	// The search index forgets the world's documents; the other world's stay.
	waitSearch(t, s, w.id, "", "zephyrine", false)
	s.WaitSearchable(w.owner.Key, keep, "zephyrine")
	s.Must(s.Get(w.owner.Key, "/api/v1/worlds/"+keep+"/documents/"+keepDoc), http.StatusOK)
}

// waitSearch waits until the search index finds word in the world's era (found) or no
// longer finds it (!found). It asks the index itself: the API answers 404 for a world that
// is gone.
func waitSearch(t *testing.T, s *apptest.Server, worldID, eraID, word string, found bool) {
	t.Helper()
	searcher := search.Searcher{Indexer: s.LW.Search, Store: s.LW.Store}
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, err := searcher.Search(search.Query{WorldID: worldID, EraID: eraID, Text: word, Secrets: true, Page: store.Page{Page: 1, PerPage: 10}})
		if err == nil && (r.Total > 0) == found {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("search for %q in world %s era %q: %+v %v, want found=%v", word, worldID, eraID, r, err, found)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// assetsCollection returns the id of the assets collection: its files are stored under it.
func assetsCollection(t *testing.T, s *apptest.Server) string {
	c, err := s.PB.FindCollectionByNameOrId("assets")
	if err != nil {
		t.Fatal(err)
	}
	return c.Id
}

func TestRenameAndDeleteEras(t *testing.T) {
	s := start(t)
	w := newLifecycleWorld(s, "Chronos")
	base := "/api/v1/worlds/" + w.id
	old := s.Document(w.owner, w.id, "Old Map", "card")
	s.Must(s.Post(w.owner.Key, base+"/documents/"+old+"/content", ops(map[string]any{"op": "card.setProperty", "key": "k", "value": "mainline"})), http.StatusOK)
	var age, child struct{ ID, Name string }
	s.Must(s.Post(w.owner.Key, base+"/eras", map[string]any{"name": "Bronze Age"}), http.StatusCreated).JSON(t, &age)
	s.Must(s.Post(w.owner.Key, base+"/eras", map[string]any{"name": "Late Bronze", "parentId": age.ID}), http.StatusCreated).JSON(t, &child)

	// Rename: owner and admin; the others are refused.
	var renamed struct{ ID, Name string }
	s.Must(s.Do(patch(w.admin.Key, base+"/eras/"+age.ID, map[string]any{"name": "Iron Age"})), http.StatusOK).JSON(t, &renamed)
	if renamed.ID != age.ID || renamed.Name != "Iron Age" {
		t.Fatalf("renamed = %+v", renamed)
	}
	s.Must(s.Do(patch(w.editor.Key, base+"/eras/"+age.ID, map[string]any{"name": "X"})), http.StatusForbidden)
	s.Must(s.Do(patch(w.viewer.Key, base+"/eras/"+age.ID, map[string]any{"name": "X"})), http.StatusForbidden)
	s.Must(s.Do(patch(w.other.Key, base+"/eras/"+age.ID, map[string]any{"name": "X"})), http.StatusNotFound)
	if res := s.Do(patch(w.owner.Key, base+"/eras/"+age.ID, map[string]any{})); res.Status != http.StatusBadRequest || res.ErrorCode() != "nothing_to_change" {
		t.Fatalf("empty rename: %d %s", res.Status, res.Body)
	}
	if res := s.Do(patch(w.owner.Key, base+"/eras/"+age.ID, map[string]any{"name": ""})); res.Status != http.StatusUnprocessableEntity || res.ErrorCode() != "invalid_field" {
		t.Fatalf("blank rename: %d %s", res.Status, res.Body)
	}
	s.Must(s.Do(patch(w.owner.Key, base+"/eras/nope", map[string]any{"name": "X"})), http.StatusNotFound)

	// Content in the era: a document created there, and the era's own copy of an older one.
	var created struct{ ID string }
	s.Must(s.Post(w.owner.Key, base+"/documents?era="+age.ID, map[string]any{"name": "Forge", "documentType": "card"}), http.StatusCreated).JSON(t, &created)
	s.Must(s.Post(w.owner.Key, base+"/documents/"+created.ID+"/content?era="+age.ID, ops(map[string]any{"op": "card.setProperty", "key": "k", "value": "quenchmark"})), http.StatusOK)
	s.Must(s.Post(w.owner.Key, base+"/documents/"+old+"/content?era="+age.ID, ops(map[string]any{"op": "card.setProperty", "key": "k", "value": "eraonlyword"})), http.StatusOK)
	waitSearch(t, s, w.id, age.ID, "quenchmark", true)
	waitSearch(t, s, w.id, age.ID, "eraonlyword", true)
	index, err := s.LW.Search.Index()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := index.DocCount()
	if err != nil {
		t.Fatal(err)
	}

	// An era with a child era is not deleted, and says which.
	res := s.Do(del(w.owner.Key, base+"/eras/"+age.ID))
	var conflict struct {
		Error struct {
			Code     string
			Message  string
			Children []struct{ ID, Name string }
		}
	}
	res.JSON(t, &conflict)
	if res.Status != http.StatusConflict || conflict.Error.Code != "era_has_children" || len(conflict.Error.Children) != 1 || conflict.Error.Children[0].ID != child.ID {
		t.Fatalf("delete with children: %d %s", res.Status, res.Body)
	}
	if s.Count("eras", "world = '"+w.id+"'") != 2 {
		t.Fatal("a refused delete deleted eras")
	}
	s.Must(s.Do(del(w.editor.Key, base+"/eras/"+child.ID)), http.StatusForbidden)
	s.Must(s.Do(del(w.viewer.Key, base+"/eras/"+child.ID)), http.StatusForbidden)
	s.Must(s.Do(del(w.other.Key, base+"/eras/"+child.ID)), http.StatusNotFound)
	// Nor is an era a wiki publishes.
	var wiki struct{ ID string }
	s.Must(s.Post(w.owner.Key, base+"/projects", map[string]any{"name": "Chronicle", "kind": "wiki", "config": map[string]any{"eraId": child.ID}}), http.StatusCreated).JSON(t, &wiki)
	res = s.Do(del(w.owner.Key, base+"/eras/"+child.ID))
	if res.Status != http.StatusConflict || res.ErrorCode() != "era_published" || !strings.Contains(string(res.Body), wiki.ID) {
		t.Fatalf("delete of a published era: %d %s", res.Status, res.Body)
	}
	s.Must(s.Do(patch(w.owner.Key, base+"/projects/"+wiki.ID, map[string]any{"config": map[string]any{"eraId": ""}})), http.StatusOK)
	s.Must(s.Do(del(w.admin.Key, base+"/eras/"+child.ID)), http.StatusNoContent)
	s.Must(s.Do(del(w.owner.Key, base+"/eras/"+age.ID)), http.StatusNoContent)
	s.Must(s.Do(del(w.owner.Key, base+"/eras/"+age.ID)), http.StatusNotFound)

	// What was made in the era is gone; the main line is as it was.
	for table, where := range map[string]string{
		"documents": "id = '" + created.ID + "'", "document_states": "era = '" + age.ID + "'",
		"document_ops": "era = '" + age.ID + "' OR document = '" + created.ID + "'", "document_links": "era = '" + age.ID + "'",
		"document_snapshots": "era = '" + age.ID + "'",
	} {
		if n := s.Count(table, where); n != 0 {
			t.Errorf("%s keeps %d rows of the deleted era", table, n)
		}
	}
	s.Must(s.Get(w.owner.Key, base+"/documents/"+created.ID), http.StatusNotFound)
	s.Must(s.Get(w.owner.Key, base+"/documents/"+old+"?era="+age.ID), http.StatusNotFound)
	var d docRead
	s.Must(s.Get(w.owner.Key, base+"/documents/"+old), http.StatusOK).JSON(t, &d)
	if d.Version != 1 {
		t.Fatalf("main line after the era's delete: %+v", d)
	}
	// The index drops the era's two entries: the document made in it, and the older one's copy.
	deadline := time.Now().Add(10 * time.Second)
	for n, _ := index.DocCount(); n != entries-2; n, _ = index.DocCount() {
		if time.Now().After(deadline) {
			t.Fatalf("the index holds %d entries, want %d", n, entries-2)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.WaitSearchable(w.owner.Key, w.id, "mainline")
}

func TestLifecycleOnTheWorldStream(t *testing.T) {
	s := start(t)
	w := newLifecycleWorld(s, "Streamland")
	base := "/api/v1/worlds/" + w.id
	var era, project struct{ ID string }
	s.Must(s.Post(w.owner.Key, base+"/eras", map[string]any{"name": "Dawn"}), http.StatusCreated).JSON(t, &era)
	s.Must(s.Post(w.owner.Key, base+"/projects", map[string]any{"name": "Wiki", "kind": "wiki"}), http.StatusCreated).JSON(t, &project)
	doc := s.Document(w.owner, w.id, "Card", "card")

	st := s.Stream(w.viewer.Key, base+"/events")
	defer st.Close()
	st.Expect(t, "ready")
	docStream := s.Stream(w.viewer.Key, base+"/documents/"+doc+"/events")
	defer docStream.Close()
	docStream.Expect(t, "snapshot")

	var ev struct {
		Kind    string
		Seq     int64
		World   *struct{ ID, Name, Genre, Theme string }
		Era     *struct{ ID, Name string }
		Project *struct{ ID, Name string }
	}
	next := func(kind string) {
		t.Helper()
		e := st.Expect(t, kind)
		ev.World, ev.Era, ev.Project = nil, nil, nil
		if err := json.Unmarshal([]byte(e.Data), &ev); err != nil || ev.Kind != kind {
			t.Fatalf("%s event: %s %v", kind, e.Data, err)
		}
	}
	s.Must(s.Do(patch(w.owner.Key, base, map[string]any{"name": "Streamland Reborn", "genre": "horror"})), http.StatusOK)
	next("world.updated")
	if ev.World == nil || ev.World.Name != "Streamland Reborn" || ev.World.Theme != "ash" {
		t.Fatalf("world.updated = %+v", ev.World)
	}
	s.Must(s.Do(patch(w.owner.Key, base+"/eras/"+era.ID, map[string]any{"name": "Dusk"})), http.StatusOK)
	next("era.renamed")
	if ev.Era == nil || ev.Era.ID != era.ID || ev.Era.Name != "Dusk" {
		t.Fatalf("era.renamed = %+v", ev.Era)
	}
	s.Must(s.Do(del(w.owner.Key, base+"/eras/"+era.ID)), http.StatusNoContent)
	next("era.deleted")
	if ev.Era == nil || ev.Era.ID != era.ID || ev.Era.Name != "Dusk" {
		t.Fatalf("era.deleted = %+v", ev.Era)
	}
	s.Must(s.Do(patch(w.owner.Key, base+"/projects/"+project.ID, map[string]any{"name": "Atlas"})), http.StatusOK)
	next("project.updated")
	if ev.Project == nil || ev.Project.ID != project.ID || ev.Project.Name != "Atlas" {
		t.Fatalf("project.updated = %+v", ev.Project)
	}
	s.Must(s.Do(del(w.owner.Key, base+"/projects/"+project.ID)), http.StatusNoContent)
	next("project.deleted")
	if ev.Project == nil || ev.Project.ID != project.ID {
		t.Fatalf("project.deleted = %+v", ev.Project)
	}

	// A resumed stream replays them.
	h := http.Header{"Authorization": {"Bearer " + w.viewer.Key}, "Last-Event-ID": {"0"}}
	replay := s.StreamRequest(base+"/events", h, nil)
	for _, kind := range []string{"world.updated", "era.renamed", "era.deleted", "project.updated", "project.deleted"} {
		if _, err := replay.NextOf(kind, 5*time.Second); err != nil {
			t.Fatalf("replay of %s: %v", kind, err)
		}
	}
	replay.Close()

	// Deleting the world ends its streams with a last world.deleted event; a reconnect gets 404.
	s.Must(s.Do(del(w.owner.Key, base)), http.StatusOK)
	next("world.deleted")
	if err := st.Closed(5 * time.Second); err != nil {
		t.Fatalf("world stream: %v", err)
	}
	if _, err := docStream.NextOf("world.deleted", 5*time.Second); err != nil {
		t.Fatalf("document stream: %v", err)
	}
	if err := docStream.Closed(5 * time.Second); err != nil {
		t.Fatalf("document stream: %v", err)
	}
	again := s.StreamRequest(base+"/events", http.Header{"Authorization": {"Bearer " + w.viewer.Key}}, nil)
	defer again.Close()
	if again.Status != http.StatusNotFound {
		t.Fatalf("reconnect after delete: %d", again.Status)
	}
}
