package api_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

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
	// A refusal changed nothing and is not remembered: the retry runs again, and a corrected
	// one (here, the missing label added) under the same key is applied.
	bad := map[string]any{"ops": []any{map[string]any{"op": "timeline.addEvent", "dateMs": 2}}}
	if r1, r2 := idem("bad-1", bad), idem("bad-1", bad); r1.Status != 422 || r2.Status != 422 || r2.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("error replay: %d %d %q", r1.Status, r2.Status, r2.Header.Get("Idempotent-Replayed"))
	}
	fixed := map[string]any{"ops": []any{map[string]any{"op": "timeline.addEvent", "label": "Fixed", "dateMs": 2}}}
	s.Must(idem("bad-1", fixed), http.StatusOK)
	// So is a body sent with the wrong Content-Type (the fingerprint does not cover it).
	raw, _ := json.Marshal(map[string]any{"ops": []any{map[string]any{"op": "timeline.addEvent", "label": "Typed", "dateMs": 3}}})
	typed := func(contentType string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, s.URL+content, bytes.NewReader(raw))
		req.Header.Set("Authorization", "Bearer "+ann.Key)
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Idempotency-Key", "typed-1")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := typed("text/plain"); res.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("text/plain: %d", res.StatusCode)
	}
	if res := typed("application/json"); res.StatusCode != http.StatusOK || res.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("the corrected retry: %d (replayed %q)", res.StatusCode, res.Header.Get("Idempotent-Replayed"))
	}
	if n := s.Count("document_ops", "document = '"+tl+"'"); n != 6 {
		t.Fatalf("op rows %d after the corrected retries", n)
	}
}

// A key whose first request died with its process (kill -9 or SIGTERM mid-request) must not
// answer idempotency_in_progress for a day: the retry runs, once.
func TestIdempotencyKeyStrandedByCrash(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	content := "/api/v1/worlds/" + w + "/documents/" + tl + "/content"
	body := []byte(`{"ops":[{"op":"timeline.addEvent","label":"Once","dateMs":1}]}`)
	s.Stop()
	// The mark the first request left behind when its process died, as that process wrote it.
	sum := sha256.Sum256(append([]byte("POST "+content+"\n"), body...))
	dead := core.NewBaseApp(core.BaseAppConfig{DataDir: s.Dir})
	if err := dead.Bootstrap(); err != nil {
		t.Fatal(err)
	}
	if _, err := dead.DB().NewQuery("INSERT INTO idempotency_keys (principal, key, fingerprint, status, body, created) VALUES ({:p}, 'crash-1', {:f}, 0, '', {:t})").
		Bind(dbx.Params{"p": ann.ID, "f": hex.EncodeToString(sum[:]), "t": time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")}).Execute(); err != nil {
		t.Fatal(err)
	}
	if err := dead.ResetBootstrapState(); err != nil {
		t.Fatal(err)
	}

	s = apptest.StartIn(t, s.Dir)
	s.OnResponse = checkResponse
	idem := func() *apptest.Response {
		return s.Do(apptest.Request{Method: "POST", Path: content, Key: ann.Key, Body: body, Header: http.Header{"Idempotency-Key": {"crash-1"}}})
	}
	if res := s.Must(idem(), http.StatusOK); res.Header.Get("Idempotent-Replayed") != "" {
		t.Fatal("the stranded key was replayed")
	}
	if res := s.Must(idem(), http.StatusOK); res.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatal("the retry's answer is not remembered")
	}
	if n := s.Count("document_ops", "document = '"+tl+"'"); n != 1 {
		t.Fatalf("applied %d times", n)
	}
}

// Two requests with the same key at the same time: one runs, the other waits its turn (409)
// or gets the first one's answer; the write happens once.
func TestIdempotencyKeyConcurrent(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	content := "/api/v1/worlds/" + w + "/documents/" + tl + "/content"
	body := map[string]any{"ops": []any{map[string]any{"op": "timeline.addEvent", "label": "Once", "dateMs": 1}}}
	var wg sync.WaitGroup
	statuses := make([]int, 8)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = s.Do(apptest.Request{Method: "POST", Path: content, Key: ann.Key, Body: body, Header: http.Header{"Idempotency-Key": {"same"}}}).Status
		}()
	}
	wg.Wait()
	for _, st := range statuses {
		if st != http.StatusOK && st != http.StatusConflict {
			t.Fatalf("statuses %v", statuses)
		}
	}
	if n := s.Count("document_ops", "document = '"+tl+"'"); n != 1 {
		t.Fatalf("applied %d times (statuses %v)", n, statuses)
	}
}
