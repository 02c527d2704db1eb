package live_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/live"
)

const wait = 5 * time.Second

func addEvent(label string, date int) map[string]any {
	return map[string]any{"ops": []any{map[string]any{"op": "timeline.addEvent", "label": label, "dateMs": date}}}
}

type fixture struct {
	s   *apptest.Server
	ann apptest.User
	w   string
	tl  string
}

func setup(t *testing.T) fixture {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	return fixture{s: s, ann: ann, w: w, tl: s.Document(ann, w, "History", "timeline")}
}

func (f fixture) docPath(doc string) string { return "/api/v1/worlds/" + f.w + "/documents/" + doc }

func (f fixture) write(t *testing.T, doc string, body any) int {
	t.Helper()
	var r struct{ Version int }
	f.s.Must(f.s.Post(f.ann.Key, f.docPath(doc)+"/content", body), http.StatusOK).JSON(t, &r)
	return r.Version
}

func decode[T any](t *testing.T, ev apptest.Event) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(ev.Data), &v); err != nil {
		t.Fatalf("decode %s event %q: %v", ev.Event, ev.Data, err)
	}
	return v
}

func TestSnapshotThenOps(t *testing.T) {
	f := setup(t)
	f.write(t, f.tl, addEvent("Before", 1))

	st := f.s.Stream(f.ann.Key, f.docPath(f.tl)+"/events")
	if st.Status != 200 || st.Header.Get("Content-Type") != "text/event-stream" || st.Header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("stream: %d %v", st.Status, st.Header)
	}
	ev := st.Expect(t, "")
	snap := decode[live.SnapshotEvent](t, ev)
	if ev.Event != "snapshot" || ev.ID != "1" || snap.Version != 1 || snap.Text != "History Before" || snap.DocumentType != "timeline" {
		t.Fatalf("snapshot %+v", ev)
	}
	ev = st.Expect(t, "")
	if ev.Event != "presence" || ev.ID != "1" {
		t.Fatalf("presence %+v", ev)
	}

	for i := 2; i <= 4; i++ {
		f.write(t, f.tl, addEvent(fmt.Sprint("Event ", i), i))
	}
	for i := 2; i <= 4; i++ {
		ev := st.Expect(t, "ops")
		op := decode[live.OpsEvent](t, ev)
		if ev.ID != strconv.Itoa(i) || op.Version != int64(i) || op.Actor.ID != f.ann.ID || op.Actor.Name != "Ann" || len(op.Ops) != 1 || op.DocumentType != "timeline" {
			t.Fatalf("ops event %d: %+v", i, ev)
		}
		var applied struct{ Op, ID, Label string }
		_ = json.Unmarshal(op.Ops[0], &applied)
		if applied.Op != "timeline.addEvent" || applied.Label != fmt.Sprint("Event ", i) || applied.ID == "" {
			t.Fatalf("applied op %s", op.Ops[0])
		}
	}

	// The animator's active clip reaches watchers too.
	an := f.s.Document(f.ann, f.w, "Dragon", "animator")
	f.write(t, an, map[string]any{"ops": []any{map[string]any{"op": "animator.setClips", "clips": []any{map[string]any{"id": "idle"}, map[string]any{"id": "fly"}}}}})
	ast := f.s.Stream(f.ann.Key, f.docPath(an)+"/events")
	ast.Expect(t, "snapshot")
	f.write(t, an, map[string]any{"ops": []any{map[string]any{"op": "animator.setActiveClip", "clipId": "fly"}}})
	op := decode[live.OpsEvent](t, ast.Expect(t, "ops"))
	if op.Version != 2 || string(op.Ops[0]) != `{"op":"animator.setActiveClip","clipId":"fly"}` {
		t.Fatalf("active clip event %+v %s", op, op.Ops[0])
	}
}

func TestResume(t *testing.T) {
	f := setup(t)
	for i := 1; i <= 5; i++ {
		f.write(t, f.tl, addEvent(fmt.Sprint("E", i), i))
	}
	for name, h := range map[string]func(v string) (string, http.Header){
		"header": func(v string) (string, http.Header) {
			return "", http.Header{"Last-Event-ID": {v}}
		},
		"query": func(v string) (string, http.Header) { return "?lastEventId=" + v, http.Header{} },
	} {
		t.Run(name, func(t *testing.T) {
			q, hd := h("2")
			hd.Set("Authorization", "Bearer "+f.ann.Key)
			st := f.s.StreamRequest(f.docPath(f.tl)+"/events"+q, hd, nil)
			for want := 3; want <= 5; want++ {
				ev := st.Expect(t, "")
				if ev.Event != "ops" || ev.ID != strconv.Itoa(want) {
					t.Fatalf("replay: want version %d, got %+v", want, ev)
				}
			}
			st.Expect(t, "presence")
			f.write(t, f.tl, addEvent("live", 9))
			ev := st.Expect(t, "ops")
			n, _ := strconv.Atoi(ev.ID)
			var r struct{ Version int }
			f.s.Must(f.s.Get(f.ann.Key, f.docPath(f.tl)), 200).JSON(t, &r)
			if n != r.Version {
				t.Fatalf("live event %s, version %d", ev.ID, r.Version)
			}
		})
	}
	// Up to date: no replay, no snapshot.
	var r struct{ Version int }
	f.s.Must(f.s.Get(f.ann.Key, f.docPath(f.tl)), 200).JSON(t, &r)
	st := f.s.StreamRequest(f.docPath(f.tl)+"/events", http.Header{"Authorization": {"Bearer " + f.ann.Key}, "Last-Event-ID": {strconv.Itoa(r.Version)}}, nil)
	if ev := st.Expect(t, ""); ev.Event != "presence" {
		t.Fatalf("up to date: %+v", ev)
	}
	// Ahead of the document, or not a number: a fresh snapshot.
	for _, id := range []string{"999", "abc"} {
		st := f.s.StreamRequest(f.docPath(f.tl)+"/events", http.Header{"Authorization": {"Bearer " + f.ann.Key}, "Last-Event-ID": {id}}, nil)
		if ev := st.Expect(t, ""); ev.Event != "snapshot" || ev.ID != strconv.Itoa(r.Version) {
			t.Fatalf("Last-Event-ID %s: %+v", id, ev)
		}
	}
}

func TestResumeTooFarBehindGetsSnapshot(t *testing.T) {
	f := setup(t)
	ops := make([]any, 1)
	for i := 0; i < live.MaxResume+3; i++ {
		ops[0] = map[string]any{"op": "timeline.addEvent", "label": "e", "dateMs": i}
		f.s.Must(f.s.Post(f.ann.Key, f.docPath(f.tl)+"/content", map[string]any{"ops": ops}), 200)
	}
	st := f.s.StreamRequest(f.docPath(f.tl)+"/events", http.Header{"Authorization": {"Bearer " + f.ann.Key}, "Last-Event-ID": {"1"}}, nil)
	ev := st.Expect(t, "")
	if ev.Event != "snapshot" || ev.ID != strconv.Itoa(live.MaxResume+3) {
		t.Fatalf("too far behind: %s %s", ev.Event, ev.ID)
	}
	st = f.s.StreamRequest(f.docPath(f.tl)+"/events", http.Header{"Authorization": {"Bearer " + f.ann.Key}, "Last-Event-ID": {"3"}}, nil)
	if ev := st.Expect(t, ""); ev.Event != "ops" || ev.ID != "4" {
		t.Fatalf("1000 behind is replayed: %s %s", ev.Event, ev.ID)
	}
}

func TestWorldStream(t *testing.T) {
	f := setup(t)
	st := f.s.Stream(f.ann.Key, "/api/v1/worlds/"+f.w+"/events")
	ready := st.Expect(t, "")
	if ready.Event != "ready" {
		t.Fatalf("first event %+v", ready)
	}
	folder := f.s.Document(f.ann, f.w, "People", "folder")
	ev := st.Expect(t, "")
	we := decode[live.WorldEvent](t, ev)
	if ev.Event != "document.created" || we.Document == nil || we.Document.ID != folder || we.Document.Name != "People" || we.Document.DocumentType != "folder" {
		t.Fatalf("document event %+v", ev)
	}
	f.s.Must(f.s.Post(f.ann.Key, "/api/v1/worlds/"+f.w+"/eras", map[string]any{"name": "Second Age"}), 201)
	ev = st.Expect(t, "")
	if we := decode[live.WorldEvent](t, ev); ev.Event != "era.created" || we.Era == nil || we.Era.Name != "Second Age" {
		t.Fatalf("era event %+v", ev)
	}
	f.s.Must(f.s.Post(f.ann.Key, "/api/v1/worlds/"+f.w+"/projects", map[string]any{"name": "Wiki", "kind": "wiki"}), 201)
	ev = st.Expect(t, "")
	if we := decode[live.WorldEvent](t, ev); ev.Event != "project.created" || we.Project == nil || we.Project.Kind != "wiki" {
		t.Fatalf("project event %+v", ev)
	}
	bob := f.s.NewUser("Bob")
	f.s.AddMember(f.ann, f.w, bob, "viewer")
	ev = st.Expect(t, "")
	if we := decode[live.WorldEvent](t, ev); ev.Event != "member.added" || we.UserID != bob.ID || we.Role != "viewer" {
		t.Fatalf("member event %+v", ev)
	}
	f.s.Must(f.s.Do(apptest.Request{Method: "DELETE", Path: "/api/v1/worlds/" + f.w + "/members/" + bob.ID, Key: f.ann.Key}), 204)
	ev = st.Expect(t, "")
	if ev.Event != "member.removed" {
		t.Fatalf("member removed %+v", ev)
	}
	// Renames, moves and deletes carry the document's metadata.
	f.s.Must(f.s.Do(apptest.Request{Method: "PATCH", Path: f.docPath(f.tl), Key: f.ann.Key, Body: map[string]any{"name": "Annals", "parentId": folder}}), 200)
	for _, kind := range []string{"document.renamed", "document.moved"} {
		ev = st.Expect(t, "")
		we := decode[live.WorldEvent](t, ev)
		if ev.Event != kind || we.Document.ID != f.tl || we.Document.Name != "Annals" || we.Document.ParentID != folder {
			t.Fatalf("%s event %+v", kind, ev)
		}
	}
	gone := f.s.Document(f.ann, f.w, "Doomed", "card")
	st.Expect(t, "document.created")
	f.s.Must(f.s.Do(apptest.Request{Method: "DELETE", Path: f.docPath(gone), Key: f.ann.Key}), 204)
	ev = st.Expect(t, "")
	if we := decode[live.WorldEvent](t, ev); ev.Event != "document.deleted" || we.Document.ID != gone {
		t.Fatalf("delete event %+v", ev)
	}
	// Content writes are not world events; another world's changes never show.
	f.write(t, f.tl, addEvent("x", 1))
	other := f.s.World(f.ann, "Other")
	f.s.Document(f.ann, other, "Elsewhere", "card")
	last := ev.ID
	if ev, err := st.Next(500 * time.Millisecond); err == nil {
		t.Fatalf("unexpected world event %+v", ev)
	}

	// Resume replays what was missed.
	f.s.Document(f.ann, f.w, "Missed", "card")
	st2 := f.s.StreamRequest("/api/v1/worlds/"+f.w+"/events", http.Header{"Authorization": {"Bearer " + f.ann.Key}, "Last-Event-ID": {last}}, nil)
	ev = st2.Expect(t, "")
	if we := decode[live.WorldEvent](t, ev); ev.Event != "document.created" || we.Document.Name != "Missed" {
		t.Fatalf("world resume %+v", ev)
	}
}

func TestEraStreamFollowsInheritedWrites(t *testing.T) {
	f := setup(t)
	f.write(t, f.tl, addEvent("one", 1))
	var era struct{ ID string }
	f.s.Must(f.s.Post(f.ann.Key, "/api/v1/worlds/"+f.w+"/eras", map[string]any{"name": "Age"}), 201).JSON(t, &era)
	st := f.s.Stream(f.ann.Key, f.docPath(f.tl)+"/events?era="+era.ID)
	st.Expect(t, "snapshot")
	f.write(t, f.tl, addEvent("two", 2)) // on main: the era still inherits it
	if ev := st.Expect(t, "ops"); ev.ID != "2" {
		t.Fatalf("inherited write %+v", ev)
	}
	f.s.Must(f.s.Post(f.ann.Key, f.docPath(f.tl)+"/content?era="+era.ID, addEvent("era", 3)), 200)
	if ev := st.Expect(t, "ops"); ev.ID != "3" {
		t.Fatalf("era write %+v", ev)
	}
	f.write(t, f.tl, addEvent("main three", 4)) // main v3: the era has its own copy now
	if ev, err := st.NextOf("ops", 700*time.Millisecond); err == nil {
		t.Fatalf("era stream got a main write after forking: %+v", ev)
	}
}

func TestPresence(t *testing.T) {
	f := setup(t)
	bob := f.s.NewUser("Bob")
	f.s.AddMember(f.ann, f.w, bob, "viewer")
	a := f.s.Stream(f.ann.Key, f.docPath(f.tl)+"/events")
	a.Expect(t, "snapshot")
	type pres struct {
		Viewers []struct{ ID, Name, Colour string }
	}
	p := decode[pres](t, a.Expect(t, "presence"))
	if len(p.Viewers) != 1 || p.Viewers[0].ID != f.ann.ID || p.Viewers[0].Colour == "" {
		t.Fatalf("own presence %+v", p)
	}
	b := f.s.Stream(bob.Key, f.docPath(f.tl)+"/events")
	p = decode[pres](t, a.Expect(t, "presence"))
	if len(p.Viewers) != 2 || p.Viewers[0].Name != "Ann" || p.Viewers[1].Name != "Bob" {
		t.Fatalf("join %+v", p)
	}
	if p.Viewers[1].Colour != live.Colour(bob.ID) {
		t.Fatal("colour is not stable")
	}
	b.Close()
	p = decode[pres](t, a.Expect(t, "presence"))
	if len(p.Viewers) != 1 {
		t.Fatalf("leave %+v", p)
	}
}

func TestStreamAccess(t *testing.T) {
	f := setup(t)
	bob := f.s.NewUser("Bob")
	if st := f.s.Stream("", f.docPath(f.tl)+"/events"); st.Status != 401 {
		t.Fatalf("no key: %d", st.Status)
	}
	if st := f.s.Stream(bob.Key, f.docPath(f.tl)+"/events"); st.Status != 404 {
		t.Fatalf("non-member: %d", st.Status)
	}
	if st := f.s.Stream(bob.Key, "/api/v1/worlds/"+f.w+"/events"); st.Status != 404 {
		t.Fatalf("non-member world stream: %d", st.Status)
	}

	// Revoking the key closes its streams at once; removing a member closes theirs.
	keyStream := f.s.Stream(f.ann.Key, f.docPath(f.tl)+"/events")
	keyStream.Expect(t, "presence")
	f.s.AddMember(f.ann, f.w, bob, "editor")
	bobStream := f.s.Stream(bob.Key, f.docPath(f.tl)+"/events")
	bobStream.Expect(t, "presence")
	browser := f.s.SignIn(f.ann)
	cookieStream := f.s.StreamRequest(f.docPath(f.tl)+"/events", nil, browser)
	if cookieStream.Status != 200 {
		t.Fatalf("cookie stream: %d", cookieStream.Status)
	}
	cookieStream.Expect(t, "presence")

	// A free plan closes key streams but not the web session's.
	if err := f.s.LW.Store.SetPlan(f.w, "free"); err != nil {
		t.Fatal(err)
	}
	if err := keyStream.Closed(time.Second + 500*time.Millisecond); err != nil {
		t.Fatalf("free plan: %v", err)
	}
	if st := f.s.Stream(f.ann.Key, f.docPath(f.tl)+"/events"); st.Status != 403 {
		t.Fatalf("free plan stream: %d", st.Status)
	}
	if err := f.s.LW.Store.SetPlan(f.w, "studio"); err != nil {
		t.Fatal(err)
	}
	keyStream = f.s.Stream(f.ann.Key, f.docPath(f.tl)+"/events")
	keyStream.Expect(t, "presence")

	f.s.Must(f.s.Do(apptest.Request{Method: "DELETE", Path: "/api/v1/worlds/" + f.w + "/members/" + bob.ID, Key: f.ann.Key}), 204)
	if err := bobStream.Closed(time.Second + 500*time.Millisecond); err != nil {
		t.Fatalf("member removed: %v", err)
	}
	if err := f.s.LW.Keys.Revoke(f.ann.ID, f.ann.KeyID); err != nil {
		t.Fatal(err)
	}
	if err := keyStream.Closed(time.Second + 500*time.Millisecond); err != nil {
		t.Fatalf("key revoked: %v", err)
	}
	// The session stream was never affected.
	key2, _, _ := f.s.LW.Keys.Create(f.ann.ID, "second")
	f.s.Must(f.s.Post(key2, f.docPath(f.tl)+"/content", addEvent("still here", 1)), 200)
	if _, err := cookieStream.NextOf("ops", wait); err != nil {
		t.Fatalf("session stream: %v", err)
	}
}
