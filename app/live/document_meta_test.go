package live_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/live"
)

// TestMetadataEvents: renaming or moving a document, or a folder it is filed under at any
// depth, sends `metadata` (the document and its folder trail as they now are) to its streams
// in every era; other documents' streams hear nothing.
func TestMetadataEvents(t *testing.T) {
	f := setup(t)
	create := func(name, docType, parent string) string {
		var d struct{ ID string }
		f.s.Must(f.s.Post(f.ann.Key, "/api/v1/worlds/"+f.w+"/documents",
			map[string]any{"name": name, "documentType": docType, "parentId": parent}), http.StatusCreated).JSON(t, &d)
		return d.ID
	}
	lore := create("Lore", "folder", "")
	people := create("People", "folder", lore)
	aria := create("Aria", "card", people)
	other := create("Other", "card", "")
	f.write(t, aria, map[string]any{"ops": []any{map[string]any{"op": "card.setAliases", "aliases": []string{"Ari"}}}})
	var age struct{ ID string }
	f.s.Must(f.s.Post(f.ann.Key, "/api/v1/worlds/"+f.w+"/eras", map[string]any{"name": "Age"}), http.StatusCreated).JSON(t, &age)

	open := func(doc, query string) *apptest.Stream {
		st := f.s.Stream(f.ann.Key, f.docPath(doc)+"/events"+query)
		st.Expect(t, "presence")
		return st
	}
	ariaMain, ariaAge, otherMain := open(aria, ""), open(aria, "?era="+age.ID), open(other, "")
	patch := func(doc string, body map[string]any) {
		t.Helper()
		f.s.Must(f.s.Do(apptest.Request{Method: http.MethodPatch, Path: f.docPath(doc), Key: f.ann.Key, Body: body}), http.StatusOK)
	}
	expect := func(how string, st *apptest.Stream, kind, changed, name, parent string, folders ...string) {
		t.Helper()
		ev, err := st.Next(wait)
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		m := decode[live.MetadataEvent](t, ev)
		var trail []string
		for _, fo := range m.Folders {
			trail = append(trail, fo.ID+":"+fo.Name)
		}
		if ev.Event != "metadata" || ev.ID != "1" || m.Kind != kind || m.ChangedID != changed || m.Document.ID != aria ||
			m.Document.Name != name || m.Document.ParentID != parent || m.Document.DocumentType != "card" || fmt.Sprint(trail) != fmt.Sprint(folders) {
			t.Fatalf("%s: got %s id=%s %s\nwant %s of %s, name %q, parent %q, folders %v", how, ev.Event, ev.ID, ev.Data, kind, changed, name, parent, folders)
		}
	}
	quiet := func(how string, st *apptest.Stream) {
		t.Helper()
		if ev, err := st.Next(300 * time.Millisecond); err == nil {
			t.Fatalf("%s: unexpected %s %s", how, ev.Event, ev.Data)
		}
	}

	patch(aria, map[string]any{"name": "Aria the Bold"})
	for _, st := range []*apptest.Stream{ariaMain, ariaAge} {
		expect("the document renamed", st, "document.renamed", aria, "Aria the Bold", people, lore+":Lore", people+":People")
	}
	patch(lore, map[string]any{"name": "Annals"})
	for _, st := range []*apptest.Stream{ariaMain, ariaAge} {
		expect("a folder two levels up renamed", st, "document.renamed", lore, "Aria the Bold", people, lore+":Annals", people+":People")
	}
	patch(people, map[string]any{"parentId": ""})
	for _, st := range []*apptest.Stream{ariaMain, ariaAge} {
		expect("its folder moved", st, "document.moved", people, "Aria the Bold", people, people+":People")
	}
	patch(aria, map[string]any{"parentId": lore})
	expect("the document moved", ariaMain, "document.moved", aria, "Aria the Bold", lore, lore+":Annals")
	quiet("another document's stream", otherMain)

	// A folder it is no longer under, and another document, are none of its business.
	patch(people, map[string]any{"name": "Folk"})
	patch(other, map[string]any{"name": "Someone"})
	quiet("a folder it left renamed", ariaMain)
	if ev := otherMain.Expect(t, "metadata"); decode[live.MetadataEvent](t, ev).Document.Name != "Someone" {
		t.Fatalf("other renamed: %s", ev.Data)
	}
}
