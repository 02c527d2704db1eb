package api_test

import (
	"net/http"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

func TestIdempotencyKey(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	content := "/api/v1/worlds/" + w + "/documents/" + tl + "/content"
	body := map[string]any{"ops": []any{map[string]any{"op": "timeline.addEvent", "label": "Once", "dateMs": 1}}}
	idem := func(key string, b any) *apptest.Response {
		return s.Do(apptest.Request{Method: "POST", Path: content, Key: ann.Key, Body: b, Header: http.Header{"Idempotency-Key": {key}}})
	}

	first := s.Must(idem("retry-1", body), http.StatusOK)
	again := s.Must(idem("retry-1", body), http.StatusOK)
	if string(again.Body) != string(first.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay differs:\n%s\n%s", first.Body, again.Body)
	}
	if n := s.Count("document_ops", "document = '"+tl+"'"); n != 1 {
		t.Fatalf("applied %d times", n)
	}
	// The same key with another body is refused and changes nothing.
	other := map[string]any{"ops": []any{map[string]any{"op": "timeline.addEvent", "label": "Twice", "dateMs": 2}}}
	if res := idem("retry-1", other); res.Status != 422 || res.ErrorCode() != "idempotency_key_reused" {
		t.Fatalf("different body: %d %s", res.Status, res.Body)
	}
	// A new key is a new request; keys belong to their user.
	s.Must(idem("retry-2", body), http.StatusOK)
	bob := s.NewUser("Bob")
	s.AddMember(ann, w, bob, "editor")
	if res := s.Do(apptest.Request{Method: "POST", Path: content, Key: bob.Key, Body: body, Header: http.Header{"Idempotency-Key": {"retry-1"}}}); res.Status != 200 || res.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("another user's key: %d", res.Status)
	}
	if n := s.Count("document_ops", "document = '"+tl+"'"); n != 3 {
		t.Fatalf("op rows %d", n)
	}
	// Creates are replayed too, with their status.
	c1 := s.Do(apptest.Request{Method: "POST", Path: "/api/v1/worlds", Key: ann.Key, Body: map[string]any{"name": "Once"}, Header: http.Header{"Idempotency-Key": {"world-1"}}})
	c2 := s.Do(apptest.Request{Method: "POST", Path: "/api/v1/worlds", Key: ann.Key, Body: map[string]any{"name": "Once"}, Header: http.Header{"Idempotency-Key": {"world-1"}}})
	if c1.Status != 201 || c2.Status != 201 || string(c1.Body) != string(c2.Body) || s.Count("worlds", "name = 'Once'") != 1 {
		t.Fatalf("create replay: %d %d", c1.Status, c2.Status)
	}
	// After IdempotencyTTL the key is forgotten: the same key is a new request, whatever its body.
	if _, err := s.PB.DB().NewQuery("UPDATE idempotency_keys SET created = '2000-01-01T00:00:00.000000Z' WHERE key = 'retry-1'").Execute(); err != nil {
		t.Fatal(err)
	}
	if res := s.Must(idem("retry-1", other), http.StatusOK); res.Header.Get("Idempotent-Replayed") != "" {
		t.Fatal("an expired key was replayed")
	}
	if res := idem("retry-1", other); res.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the key's new first use is not remembered: %d", res.Status)
	}
	if n := s.Count("document_ops", "document = '"+tl+"'"); n != 4 {
		t.Fatalf("op rows %d after the expired key's reuse", n)
	}
	// Errors the client caused are remembered like any answer.
	bad := map[string]any{"ops": []any{map[string]any{"op": "timeline.addEvent", "dateMs": 2}}}
	if r1, r2 := idem("bad-1", bad), idem("bad-1", bad); r1.Status != 422 || r2.Status != 422 || r2.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("error replay: %d %d", r1.Status, r2.Status)
	}
}
