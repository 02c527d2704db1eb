package api_test

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
)

func patch(key, path string, body any) apptest.Request {
	return apptest.Request{Method: "PATCH", Path: path, Key: key, Body: body}
}

func TestRenameAndMoveDocuments(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	base := "/api/v1/worlds/" + w + "/documents/"
	people := s.Document(ann, w, "People", "folder")
	heroes := s.Document(ann, w, "Heroes", "folder")
	card := s.Document(ann, w, "Aerendyl", "card")
	tl := s.Document(ann, w, "History", "timeline")

	var d struct{ ID, Name, ParentID string }
	s.Must(s.Do(patch(ann.Key, base+card, map[string]any{"name": "Aerendyl the Bold", "parentId": heroes})), http.StatusOK).JSON(t, &d)
	if d.Name != "Aerendyl the Bold" || d.ParentID != heroes {
		t.Fatalf("patched %+v", d)
	}
	s.Must(s.Do(patch(ann.Key, base+heroes, map[string]any{"parentId": people})), http.StatusOK)
	// Cycles are refused: People cannot go into Heroes (its child), nor into itself.
	for _, target := range []string{heroes, people} {
		res := s.Do(patch(ann.Key, base+people, map[string]any{"parentId": target}))
		if res.Status != 422 || res.ErrorCode() != "invalid_field" {
			t.Fatalf("cycle into %s: %d %s", target, res.Status, res.Body)
		}
	}
	if res := s.Do(patch(ann.Key, base+card, map[string]any{"parentId": tl})); res.Status != 422 {
		t.Fatalf("non-folder parent: %d", res.Status)
	}
	if res := s.Do(patch(ann.Key, base+card, map[string]any{})); res.Status != 400 || res.ErrorCode() != "nothing_to_change" {
		t.Fatalf("empty patch: %d", res.Status)
	}
	if res := s.Do(patch(ann.Key, base+card, map[string]any{"name": ""})); res.Status != 422 {
		t.Fatalf("empty name: %d", res.Status)
	}
	// Back to the top level.
	s.Must(s.Do(patch(ann.Key, base+card, map[string]any{"parentId": ""})), http.StatusOK).JSON(t, &d)
	if d.ParentID != "" {
		t.Fatalf("top level %+v", d)
	}
	if n := s.Count("outbox", "kind IN ('document.renamed','document.moved') AND document = '"+card+"'"); n != 3 {
		t.Fatalf("outbox rows %d", n)
	}
	viewer := s.NewUser("Viewer")
	s.AddMember(ann, w, viewer, "viewer")
	if res := s.Do(patch(viewer.Key, base+card, map[string]any{"name": "x"})); res.Status != 403 {
		t.Fatalf("viewer rename: %d", res.Status)
	}
}

func TestDeleteDocuments(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	base := "/api/v1/worlds/" + w + "/documents/"
	folder := s.Document(ann, w, "People", "folder")
	var c struct{ ID string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/documents", map[string]any{"name": "Aerendyl", "documentType": "card", "parentId": folder}), 201).JSON(t, &c)
	s.Must(s.Post(ann.Key, base+c.ID+"/content", ops(map[string]any{"op": "card.rename", "name": "A"})), 200)

	// A folder that still holds documents cannot go.
	if res := s.Do(del(ann.Key, base+folder)); res.Status != 409 || res.ErrorCode() != "folder_not_empty" || !strings.Contains(string(res.Body), "still holds a document; move or delete it first") {
		t.Fatalf("non-empty folder: %d %s", res.Status, res.Body)
	}

	// In an era: hidden there and in eras forked from it; the main line and sibling eras keep it.
	var era, child, sibling struct{ ID string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/eras", map[string]any{"name": "Dark age"}), 201).JSON(t, &era)
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/eras", map[string]any{"name": "Darker age", "parentId": era.ID}), 201).JSON(t, &child)
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/eras", map[string]any{"name": "Golden age"}), 201).JSON(t, &sibling)
	s.Must(s.Do(del(ann.Key, base+c.ID+"?era="+era.ID)), http.StatusNoContent)
	for eraID, visible := range map[string]bool{"": true, era.ID: false, child.ID: false, sibling.ID: true} {
		q := ""
		if eraID != "" {
			q = "&era=" + eraID
		}
		res := s.Get(ann.Key, base+c.ID+"?"+q)
		if (res.Status == 200) != visible {
			t.Errorf("era %q: status %d, visible should be %v", eraID, res.Status, visible)
		}
		var l struct{ TotalItems int }
		s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w+"/documents?documentType=card"+q), 200).JSON(t, &l)
		if (l.TotalItems == 1) != visible {
			t.Errorf("era %q: list has %d cards", eraID, l.TotalItems)
		}
	}
	if res := s.Post(ann.Key, base+c.ID+"/content?era="+era.ID, ops(map[string]any{"op": "card.rename", "name": "B"})); res.Status != 404 {
		t.Fatalf("write to a document deleted in the era: %d", res.Status)
	}
	// The folder is empty in the era's view, so it can be deleted there.
	s.Must(s.Do(del(ann.Key, base+folder+"?era="+era.ID)), http.StatusNoContent)

	// On the main line: gone everywhere, with its states and op log.
	s.Must(s.Do(del(ann.Key, base+c.ID)), http.StatusNoContent)
	if res := s.Get(ann.Key, base+c.ID+"?era="+sibling.ID); res.Status != 404 {
		t.Fatalf("deleted doc in sibling era: %d", res.Status)
	}
	if s.Count("document_states", "document = '"+c.ID+"'") != 0 || s.Count("document_ops", "document = '"+c.ID+"'") != 0 {
		t.Fatal("states or op log left behind")
	}
	if s.Count("outbox", "kind = 'document.deleted'") != 3 {
		t.Fatal("deletes must write outbox rows")
	}
	s.Must(s.Do(del(ann.Key, base+folder)), http.StatusNoContent)
	if res := s.Do(del(ann.Key, base+folder)); res.Status != 404 {
		t.Fatalf("second delete: %d", res.Status)
	}
}

func TestOpLogAndNestedEras(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	doc := "/api/v1/worlds/" + w + "/documents/" + tl
	for i := 1; i <= 3; i++ {
		s.Must(s.Post(ann.Key, doc+"/content", ops(map[string]any{"op": "timeline.addEvent", "label": "main", "dateMs": i})), 200)
	}
	var age, sub struct{ ID string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/eras", map[string]any{"name": "Age"}), 201).JSON(t, &age)
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/eras", map[string]any{"name": "Sub-age", "parentId": age.ID}), 201).JSON(t, &sub)
	// Age forks at v3 and writes v4; the sub-age inherits Age's v4, then writes v5.
	s.Must(s.Post(ann.Key, doc+"/content?era="+age.ID, ops(map[string]any{"op": "timeline.addEvent", "label": "age", "dateMs": 4})), 200)
	var d docRead
	s.Must(s.Get(ann.Key, doc+"?era="+sub.ID), 200).JSON(t, &d)
	if d.Version != 4 || d.Content.Text != "History main main main age" {
		t.Fatalf("sub-age inherits from age: %+v", d)
	}
	var r opsResult
	s.Must(s.Post(ann.Key, doc+"/content?era="+sub.ID, ops(map[string]any{"op": "timeline.addEvent", "label": "sub", "dateMs": 5})), 200).JSON(t, &r)
	if r.Version != 5 {
		t.Fatalf("sub-age version %d", r.Version)
	}
	s.Must(s.Get(ann.Key, doc+"?era="+age.ID), 200).JSON(t, &d)
	if d.Version != 4 || d.Content.Text != "History main main main age" {
		t.Fatalf("age changed by its sub-age: %+v", d)
	}

	type logJSON struct {
		DocumentType string
		Version      int
		Items        []struct {
			Version int
			Ops     []map[string]any
			Actor   struct{ ID string }
		}
		HasMore bool
	}
	var l logJSON
	s.Must(s.Get(ann.Key, doc+"/ops?era="+sub.ID), 200).JSON(t, &l)
	if l.Version != 5 || len(l.Items) != 5 || l.HasMore {
		t.Fatalf("sub-age log %+v", l)
	}
	for i, it := range l.Items {
		want := []string{"main", "main", "main", "age", "sub"}[i]
		if it.Version != i+1 || it.Ops[0]["label"] != want || it.Actor.ID != ann.ID {
			t.Fatalf("log entry %d: %+v", i, it)
		}
	}
	s.Must(s.Get(ann.Key, doc+"/ops?since=2&limit=2"), 200).JSON(t, &l)
	if len(l.Items) != 1 || l.Items[0].Version != 3 || l.HasMore || l.Version != 3 {
		t.Fatalf("main log since 2: %+v", l)
	}
	s.Must(s.Get(ann.Key, doc+"/ops?since=0&limit=2"), 200).JSON(t, &l)
	if len(l.Items) != 2 || !l.HasMore {
		t.Fatalf("limited log: %+v", l)
	}
	for _, q := range []string{"since=-1", "since=x", "limit=0", "limit=1001"} {
		if res := s.Get(ann.Key, doc+"/ops?"+q); res.Status != 422 {
			t.Fatalf("%s: %d", q, res.Status)
		}
	}
}

// together sends the requests at the same moment and returns their responses in order.
func together(s *apptest.Server, reqs ...apptest.Request) []*apptest.Response {
	out := make([]*apptest.Response, len(reqs))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = s.Do(r)
		}()
	}
	close(start)
	wg.Wait()
	return out
}

// Metadata changes sent together are checked and applied one after the other: two folders
// moved into each other never both succeed (a cycle would leave both unreachable), and a
// rename and a move of one document both stay.
func TestConcurrentMetadataWrites(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	base := "/api/v1/worlds/" + w + "/documents/"
	parentOf := func(id string) string {
		var d struct{ ParentID string }
		s.Must(s.Get(ann.Key, base+id), http.StatusOK).JSON(t, &d)
		return d.ParentID
	}
	for trial := range 40 {
		x := s.Document(ann, w, fmt.Sprintf("X%d", trial), "folder")
		y := s.Document(ann, w, fmt.Sprintf("Y%d", trial), "folder")
		res := together(s, patch(ann.Key, base+x, map[string]any{"parentId": y}), patch(ann.Key, base+y, map[string]any{"parentId": x}))
		ok := 0
		for _, r := range res {
			switch {
			case r.Status == http.StatusOK:
				ok++
			case r.Status != 422 || r.ErrorCode() != "invalid_field":
				t.Fatalf("trial %d: %d %s", trial, r.Status, r.Body)
			}
		}
		if ok != 1 {
			t.Fatalf("trial %d: %d moves succeeded (%d %d)", trial, ok, res[0].Status, res[1].Status)
		}
		if parentOf(x) == y && parentOf(y) == x {
			t.Fatalf("trial %d: X and Y are in each other", trial)
		}
	}
	folder := s.Document(ann, w, "Heroes", "folder")
	for trial := range 100 {
		card := s.Document(ann, w, fmt.Sprintf("Card %d", trial), "card")
		name := fmt.Sprintf("Renamed %d", trial)
		for _, r := range together(s, patch(ann.Key, base+card, map[string]any{"name": name}), patch(ann.Key, base+card, map[string]any{"parentId": folder})) {
			s.Must(r, http.StatusOK)
		}
		var d struct{ Name, ParentID string }
		s.Must(s.Get(ann.Key, base+card), http.StatusOK).JSON(t, &d)
		if d.Name != name || d.ParentID != folder {
			t.Fatalf("trial %d: rename and move together left %+v", trial, d)
		}
	}
}

// Content writes sent together with a main-line delete either commit before it (and go with
// the document) or answer 404: none leaves a state or op-log row behind.
func TestWritesRacingDelete(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	var era struct{ ID string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/eras", map[string]any{"name": "Dark age"}), 201).JSON(t, &era)
	base := "/api/v1/worlds/" + w + "/documents/"
	for trial := range 20 {
		tl := s.Document(ann, w, fmt.Sprintf("History %d", trial), "timeline")
		var reqs []apptest.Request
		for i := range 6 {
			path := base + tl + "/content"
			if i%3 == 2 {
				path += "?era=" + era.ID
			}
			reqs = append(reqs, apptest.Request{Method: "POST", Path: path, Key: ann.Key,
				Body: map[string]any{"ops": []any{map[string]any{"op": "timeline.addEvent", "label": fmt.Sprint(i), "dateMs": i}}}})
		}
		reqs = append(reqs, apptest.Request{Method: "DELETE", Path: base + tl, Key: ann.Key})
		res := together(s, reqs...)
		s.Must(res[len(res)-1], http.StatusNoContent)
		for _, r := range res[:len(res)-1] {
			if r.Status != http.StatusOK && r.Status != http.StatusNotFound {
				t.Fatalf("trial %d: write %d %s", trial, r.Status, r.Body)
			}
		}
		where := "document = '" + tl + "'"
		if n, m := s.Count("document_states", where), s.Count("document_ops", where); n+m != 0 {
			t.Fatalf("trial %d: %d states and %d op-log rows left of the deleted document", trial, n, m)
		}
		if n := s.Count("outbox", where+" AND kind = 'document.content' AND seq > (SELECT seq FROM outbox WHERE "+where+" AND kind = 'document.deleted')"); n != 0 {
			t.Fatalf("trial %d: %d writes committed after the delete", trial, n)
		}
	}
}

// Deletes are checked in their own transaction: a document moved into a folder while the
// folder is deleted is never left in a deleted folder, and a document deleted on the main line
// and in an era at the same time leaves no tombstone behind.
func TestDeleteRacingMetadataWrites(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	var era struct{ ID string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/eras", map[string]any{"name": "Dark age"}), 201).JSON(t, &era)
	base := "/api/v1/worlds/" + w + "/documents/"
	del := func(path string) apptest.Request { return apptest.Request{Method: "DELETE", Path: path, Key: ann.Key} }
	for trial := range 40 {
		folder := s.Document(ann, w, fmt.Sprintf("Folder %d", trial), "folder")
		card := s.Document(ann, w, fmt.Sprintf("Card %d", trial), "card")
		res := together(s, patch(ann.Key, base+card, map[string]any{"parentId": folder}), del(base+folder))
		moved, deleted := res[0].Status == http.StatusOK, res[1].Status == http.StatusNoContent
		if moved == deleted {
			t.Fatalf("trial %d: move %d %s, delete %d %s", trial, res[0].Status, res[0].Body, res[1].Status, res[1].Body)
		}

		doc := s.Document(ann, w, fmt.Sprintf("Doc %d", trial), "card")
		for _, r := range together(s, del(base+doc), del(base+doc+"?era="+era.ID)) {
			if r.Status != http.StatusNoContent && r.Status != http.StatusNotFound {
				t.Fatalf("trial %d: delete %d %s", trial, r.Status, r.Body)
			}
		}
		if n := s.Count("document_states", "document = '"+doc+"'"); n != 0 {
			t.Fatalf("trial %d: %d states left of the deleted document", trial, n)
		}
	}
}

// TestEmptyChangeIsNothingToChange: a PATCH that names nothing to change answers 400
// nothing_to_change with the members it may send, whatever it would change.
func TestEmptyChangeIsNothingToChange(t *testing.T) {
	s := start(t, privateWebhooks(time.Minute))
	ann, bob := s.NewUser("Ann"), s.NewUser("Bob")
	w := s.World(ann, "Eldoria")
	s.AddMember(ann, w, bob, "editor")
	base := "/api/v1/worlds/" + w
	doc := s.Document(ann, w, "History", "timeline")
	var era, project struct{ ID string }
	s.Must(s.Post(ann.Key, base+"/eras", map[string]any{"name": "Second Age"}), http.StatusCreated).JSON(t, &era)
	s.Must(s.Post(ann.Key, base+"/projects", map[string]any{"kind": "wiki", "name": "Lore"}), http.StatusCreated).JSON(t, &project)
	hook := createHook(t, s, ann, w, "http://127.0.0.1:9/hook", "document.created")
	for path, fields := range map[string][]any{
		base:                             {"name", "genre"},
		base + "/eras/" + era.ID:         {"name"},
		base + "/documents/" + doc:       {"name", "parentId"},
		base + "/projects/" + project.ID: {"name", "config"},
		base + "/webhooks/" + hook.ID:    {"url", "events", "enabled", "rotateSecret"},
		base + "/members/" + bob.ID:      {"role"},
	} {
		res := s.Do(patch(ann.Key, path, map[string]any{}))
		e, _ := res.Map(t)["error"].(map[string]any)
		if res.Status != http.StatusBadRequest || res.ErrorCode() != "nothing_to_change" || !reflect.DeepEqual(e["fields"], fields) {
			t.Errorf("PATCH %s {}: %d %s", path, res.Status, res.Body)
		}
	}
}
