package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
)

// editorPost sends a JSON write as the browser editor does: the session's cookies, the
// page's CSRF token in X-CSRF-Token (none when token is empty), same-origin headers.
func editorPost(s *apptest.Server, b *http.Client, token, path string, body any) *apptest.Response {
	h := http.Header{"Origin": {s.URL}, "Sec-Fetch-Site": {"same-origin"}}
	if token != "" {
		h.Set("X-CSRF-Token", token)
	}
	return s.Do(apptest.Request{Method: http.MethodPost, Path: path, Body: body, Header: h, Client: b})
}

func TestEditorContentWrite(t *testing.T) {
	s := apptest.Start(t)
	ann, bob, cat := s.NewUser("Ann"), s.NewUser("Bob"), s.NewUser("Cat")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, bob, "viewer")
	card := w.doc(t, "Vharn", "card", "", "")
	api := "/api/v1/worlds/" + w.ID + "/documents/" + card
	path := "/w/" + w.Slug + "/d/" + card
	stream := s.Stream(ann.Key, api+"/events")
	defer stream.Close()
	stream.Expect(t, "snapshot")

	b := s.SignIn(ann)
	token := s.CSRFToken(b, "/")
	body := map[string]any{"ops": []any{map[string]any{"op": "card.addSection", "title": "Life", "body": "Born\r\nat sea"}}, "clientId": "tab-1", "clientSeq": 7}
	var res struct {
		Version   int64
		ClientID  string
		ClientSeq int64
		Created   []struct{ ID string }
	}
	s.Must(editorPost(s, b, token, path+"/content", body), http.StatusOK).JSON(t, &res)
	if res.Version != 1 || res.ClientID != "tab-1" || res.ClientSeq != 7 || len(res.Created) != 1 {
		t.Fatalf("answer = %+v", res)
	}

	// The same client and sequence number again (a retry after a lost answer) is answered
	// from the op log, not applied twice.
	var again struct{ Version int64 }
	s.Must(editorPost(s, b, token, path+"/content", body), http.StatusOK).JSON(t, &again)
	if again.Version != 1 {
		t.Fatalf("a retry answered version %d, want 1", again.Version)
	}

	// The ops event and the op log both carry the client's id and sequence number.
	ev, err := stream.NextOf("ops", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var opsEv struct {
		Version   int64
		ClientID  string
		ClientSeq int64
		Actor     struct{ Name string }
	}
	if err := json.Unmarshal([]byte(ev.Data), &opsEv); err != nil || opsEv.ClientID != "tab-1" || opsEv.ClientSeq != 7 || opsEv.Actor.Name != "Ann" {
		t.Fatalf("ops event = %s (%v)", ev.Data, err)
	}
	var log struct {
		Items []struct {
			ClientID  string
			ClientSeq int64
		}
	}
	s.Must(s.Get(ann.Key, api+"/ops"), http.StatusOK).JSON(t, &log)
	if len(log.Items) != 1 || log.Items[0].ClientID != "tab-1" || log.Items[0].ClientSeq != 7 {
		t.Fatalf("op log = %+v", log)
	}
	// Line endings were made \n.
	var doc struct {
		Content struct {
			Data struct{ Sections []struct{ Body string } }
		}
	}
	s.Must(s.Get(ann.Key, api), http.StatusOK).JSON(t, &doc)
	if got := doc.Content.Data.Sections[0].Body; got != "Born\nat sea" {
		t.Fatalf("body = %q", got)
	}

	// Refusals change nothing and answer in the API's error shape.
	one := map[string]any{"ops": []any{map[string]any{"op": "card.rename", "name": "X"}}}
	bobB := s.SignIn(bob)
	catB := s.SignIn(cat)
	cases := []struct {
		name   string
		client *http.Client
		token  string
		body   any
		status int
		code   string
	}{
		{"no CSRF token", b, "", one, http.StatusForbidden, "csrf_failed"},
		{"wrong CSRF token", b, strings.Repeat("x", 43), one, http.StatusForbidden, "csrf_failed"},
		{"viewer, even with a valid token", bobB, s.CSRFToken(bobB, "/"), one, http.StatusForbidden, "forbidden"},
		{"not a member", catB, s.CSRFToken(catB, "/"), one, http.StatusNotFound, "not_found"},
		{"signed out", s.Browser(), "", one, http.StatusForbidden, "csrf_failed"},
		{"bad client id", b, token, map[string]any{"ops": one["ops"], "clientId": "a b"}, http.StatusUnprocessableEntity, "invalid_field"},
		{"seq without id", b, token, map[string]any{"ops": one["ops"], "clientSeq": 1}, http.StatusUnprocessableEntity, "invalid_field"},
		{"no ops", b, token, map[string]any{"ops": []any{}}, http.StatusUnprocessableEntity, "invalid_field"},
		{"bad op", b, token, map[string]any{"ops": []any{map[string]any{"op": "card.nope"}}}, http.StatusUnprocessableEntity, "unsupported_operation"},
	}
	for _, tc := range cases {
		res := editorPost(s, tc.client, tc.token, path+"/content", tc.body)
		if res.Status != tc.status || res.ErrorCode() != tc.code {
			t.Errorf("%s: %d %s, want %d %s", tc.name, res.Status, res.Body, tc.status, tc.code)
		}
	}
	var after struct{ Version int64 }
	s.Must(s.Get(ann.Key, api), http.StatusOK).JSON(t, &after)
	if after.Version != 1 {
		t.Fatalf("a refused write changed the document: version %d", after.Version)
	}
}

func TestEditorCursor(t *testing.T) {
	s := apptest.Start(t)
	ann, bob := s.NewUser("Ann"), s.NewUser("Bob")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, bob, "viewer")
	card := w.doc(t, "Vharn", "card", "", "")
	w.apply(t, card, "", map[string]any{"op": "card.addSection", "title": "Life", "body": "Born at sea"})
	api := "/api/v1/worlds/" + w.ID + "/documents/" + card
	path := "/w/" + w.Slug + "/d/" + card
	stream := s.Stream(bob.Key, api+"/events")
	defer stream.Close()
	stream.Expect(t, "snapshot")

	b := s.SignIn(ann)
	token := s.CSRFToken(b, "/")
	cur := map[string]any{"clientId": "tab-1", "field": "sec-x", "anchor": 2, "head": 5, "version": 1}
	s.Must(editorPost(s, b, token, path+"/cursor", cur), http.StatusNoContent)
	ev, err := stream.NextOf("cursor", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		ClientID, Field string
		Anchor, Head    int
		Version         int64
		User            struct{ Name, Colour string }
	}
	if err := json.Unmarshal([]byte(ev.Data), &c); err != nil || c.ClientID != "tab-1" || c.Head != 5 || c.User.Name != "Ann" || c.User.Colour == "" || ev.ID != "1" {
		t.Fatalf("cursor event %q = %s (%v)", ev.ID, ev.Data, err)
	}
	// Nothing was written.
	if n := s.Count("document_ops", "document = '"+card+"'"); n != 1 {
		t.Fatalf("%d op-log rows, want 1", n)
	}
	for name, bad := range map[string]map[string]any{
		"future version":  {"clientId": "tab-1", "field": "sec-x", "anchor": 0, "head": 0, "version": 9},
		"negative":        {"clientId": "tab-1", "field": "sec-x", "anchor": -1, "head": 0, "version": 1},
		"no client id":    {"field": "sec-x", "anchor": 0, "head": 0, "version": 1},
		"unknown member":  {"clientId": "tab-1", "field": "sec-x", "anchor": 0, "head": 0, "version": 1, "colour": "red"},
		"field not an id": {"clientId": "tab-1", "field": "<b>", "anchor": 0, "head": 0, "version": 1},
	} {
		if res := editorPost(s, b, token, path+"/cursor", bad); res.Status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s", name, res.Status, res.Body)
		}
	}
	bobB := s.SignIn(bob)
	if res := editorPost(s, bobB, s.CSRFToken(bobB, "/"), path+"/cursor", cur); res.Status != http.StatusForbidden {
		t.Errorf("viewer's cursor: %d %s", res.Status, res.Body)
	}
}

// TestEditorInputHygiene: the editor's writes are held to the REST API's input rules (one
// decoder): lone surrogates, duplicate or differently cased members, and control characters
// in titles are refused.
func TestEditorInputHygiene(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := newWorld(t, s, ann, "Tidewater")
	path := "/w/" + w.Slug + "/d/" + w.doc(t, "Vharn", "card", "", "") + "/content"
	b := s.SignIn(ann)
	token := s.CSRFToken(b, "/")
	for body, want := range map[string]string{
		`{"ops": [{"op": "card.addSection", "title": "Life\udfff"}]}`:                 "malformed_json",
		`{"ops": [{"op": "card.addSection", "title": "Life"}], "ops": []}`:            "invalid_field",
		`{"OPS": [{"op": "card.addSection", "title": "Life"}]}`:                       "invalid_field",
		`{"ops": [{"op": "card.addSection", "title": "Li\u001b[8mfe"}]}`:              "invalid_field",
		`{"ops": [{"op": "card.addSection", "title": "Life", "Title": "Death"}]}`:     "invalid_field",
		`{"ops": [{"op": "card.setProperty", "key": "a\u202eb", "value": "unsafe"}]}`: "invalid_field",
	} {
		if res := editorPost(s, b, token, path, body); res.ErrorCode() != want {
			t.Errorf("%s: %d %s, want %s", body, res.Status, res.Body, want)
		}
	}
}

// TestReadDate: the date reader answers how pages will print a date, or why it cannot read it.
func TestReadDate(t *testing.T) {
	s := apptest.Start(t)
	b := s.SignIn(s.NewUser("Ann"))
	var got struct {
		DateMs    int64
		Precision string
		Shown     string
	}
	s.Must(s.Do(apptest.Request{Method: http.MethodGet, Path: "/dates?text=12+March+512+BCE", Client: b}), http.StatusOK).JSON(t, &got)
	if got.Precision != "day" || got.Shown != "12 March 512 BCE" || got.DateMs >= 0 {
		t.Fatalf("read %+v", got)
	}
	s.Must(s.Do(apptest.Request{Method: http.MethodGet, Path: "/dates?text=12+March+512+BCE&precision=century", Client: b}), http.StatusOK).JSON(t, &got)
	if got.Precision != "century" || got.Shown != "6th century BCE" {
		t.Fatalf("read at a precision %+v", got)
	}
	for path, code := range map[string]string{
		"/dates?text=31+February+1999":         "invalid_date",
		"/dates?text=1999&precision=fortnight": "invalid_field",
	} {
		if res := s.Do(apptest.Request{Method: http.MethodGet, Path: path, Client: b}); res.Status != http.StatusUnprocessableEntity || res.ErrorCode() != code {
			t.Errorf("%s: %d %s", path, res.Status, res.Body)
		}
	}
	if res := s.Do(apptest.Request{Method: http.MethodGet, Path: "/dates?text=1999", Client: s.Browser()}); res.Status != http.StatusUnauthorized {
		t.Errorf("signed out: %d", res.Status)
	}
}
