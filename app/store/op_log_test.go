package store_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/pocketbase/dbx"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/store"
)

// The op log keeps the newest 1,000 versions of a document in each era, older rows going as
// new ones come. An era sees its parent's log up to where it forked: once the parent's rows
// of those versions are gone, the era's history starts at its own first write, and its op
// log and streams say so.
func TestOpLogKeepsTheNewestVersions(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "Annals", "timeline")
	path := "/api/v1/worlds/" + w + "/documents/" + tl
	add := func(i int) map[string]any {
		return map[string]any{"ops": []any{map[string]any{"op": "timeline.addEvent", "label": fmt.Sprint("e", i), "dateMs": i}}}
	}
	s.Must(s.Post(ann.Key, path+"/content", add(1)), http.StatusOK)
	s.Must(s.Post(ann.Key, path+"/content", add(2)), http.StatusOK)
	var era struct{ ID string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/eras", map[string]any{"name": "Second Age"}), http.StatusCreated).JSON(t, &era)
	s.Must(s.Post(ann.Key, path+"/content?era="+era.ID, add(3)), http.StatusOK) // the era's version 3

	d, err := s.LW.Store.DocumentByID(tl)
	if err != nil {
		t.Fatal(err)
	}
	const writes = 1055 // main: versions 1..1057, trimmed last at 1050
	for i := range writes {
		op, _ := json.Marshal(map[string]any{"op": "timeline.addEvent", "label": "m", "dateMs": i})
		if _, err := s.LW.Store.ApplyOps(store.WriteRequest{Document: d, Ops: []json.RawMessage{op}, Actor: store.Actor{UserID: ann.ID}}); err != nil {
			t.Fatal(err)
		}
	}
	var rows, oldest int
	if err := s.PB.DB().NewQuery("SELECT COUNT(*), MIN(version) FROM document_ops WHERE document = '"+tl+"' AND era = ''").Row(&rows, &oldest); err != nil {
		t.Fatal(err)
	}
	if rows != 1007 || oldest != 51 {
		t.Fatalf("main line op log after 1,057 versions: %d rows from %d, want 1007 from 51 (1000 kept at the trim of version 1050)", rows, oldest)
	}
	if n := s.Count("document_ops", "document = '"+tl+"' AND era = '"+era.ID+"'"); n != 1 {
		t.Fatalf("the era's own op log: %d rows, want 1", n)
	}

	var page struct {
		OldestVersion int
		Truncated     bool
		Items         []struct{ Version int }
	}
	s.Must(s.Get(ann.Key, path+"/ops?era="+era.ID), http.StatusOK).JSON(t, &page)
	if !page.Truncated || page.OldestVersion != 3 || len(page.Items) != 1 || page.Items[0].Version != 3 {
		t.Fatalf("the era's op log once the main line's versions 1-2 are gone: %+v", page)
	}
	resume := func(from string) apptest.Event {
		st := s.StreamRequest(path+"/events?era="+era.ID, http.Header{"Authorization": {"Bearer " + ann.Key}, "Last-Event-ID": {from}}, nil)
		defer st.Close()
		return st.Expect(t, "")
	}
	if ev := resume("1"); ev.Event != "snapshot" || ev.ID != "3" {
		t.Fatalf("era stream resumed from a version whose change is gone: %s %s, want a snapshot", ev.Event, ev.ID)
	}
	if ev := resume("2"); ev.Event != "ops" || ev.ID != "3" {
		t.Fatalf("era stream resumed from its fork: %s %s, want ops 3", ev.Event, ev.ID)
	}
}

// Every entry's total is the previous entry's plus its own size, in the main line and in an
// era whose log starts at its fork (the op log's bound is counted from them).
func TestOpLogTotals(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "Annals", "timeline")
	path := "/api/v1/worlds/" + w + "/documents/" + tl
	add := func(era string, i int) {
		label := strings.Repeat("x", 1+i*37%200)
		q := ""
		if era != "" {
			q = "?era=" + era
		}
		s.Must(s.Post(ann.Key, path+"/content"+q, map[string]any{"ops": []any{map[string]any{"op": "timeline.addEvent", "label": label, "dateMs": i}}}), http.StatusOK)
	}
	for i := range 30 {
		add("", i)
	}
	var era struct{ ID string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/eras", map[string]any{"name": "Second Age"}), http.StatusCreated).JSON(t, &era)
	for i := range 30 {
		add(era.ID, i)
		add("", 30+i)
	}
	for e, want := range map[string]int{"": 60, era.ID: 30} {
		var rows []struct {
			Version, Total, Size int64
		}
		if err := s.PB.DB().NewQuery("SELECT version, total, octet_length(ops) AS size FROM document_ops WHERE document = {:d} AND era = {:e} ORDER BY version").
			Bind(dbx.Params{"d": tl, "e": e}).All(&rows); err != nil {
			t.Fatal(err)
		}
		if len(rows) != want {
			t.Fatalf("era %q: %d entries, want %d", e, len(rows), want)
		}
		sum := int64(0)
		for _, r := range rows {
			sum += r.Size
			if r.Total != sum {
				t.Fatalf("era %q, version %d: total %d, want %d", e, r.Version, r.Total, sum)
			}
		}
	}
}
