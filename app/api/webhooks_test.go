package api_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/config"
	"github.com/loreweave/loreweave/app/webhooks"
)

// receiver is a test webhook receiver: it checks every request's signature and answers with
// what answer says (200 by default).
type receiver struct {
	t      *testing.T
	mu     sync.Mutex
	secret string
	got    []received
	calls  int
	answer func(call int) int
	srv    *httptest.Server
}

type received struct {
	Delivery, Event string
	Payload         webhooks.Payload
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{t: t}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.calls++
		if err := webhooks.Verify(r.secret, req.Header.Get(webhooks.SignatureHeader), body, 5*time.Minute); err != nil {
			t.Errorf("delivery %s: %v", req.Header.Get(webhooks.DeliveryHeader), err)
		}
		// The same check as the README's, by hand: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>.
		var ts, sig string
		if _, err := fmt.Sscanf(strings.Replace(req.Header.Get("Loreweave-Signature"), ",", " ", 1), "t=%s v1=%s", &ts, &sig); err != nil {
			t.Errorf("signature header %q: %v", req.Header.Get("Loreweave-Signature"), err)
		}
		mac := hmac.New(sha256.New, []byte(r.secret))
		mac.Write([]byte(ts + "." + string(body)))
		if hex.EncodeToString(mac.Sum(nil)) != sig {
			t.Errorf("signature %q does not match the body", sig)
		}
		if ct := req.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		status := 200
		if r.answer != nil {
			status = r.answer(r.calls)
		}
		if status < 300 {
			var p webhooks.Payload
			if err := json.Unmarshal(body, &p); err != nil {
				t.Errorf("payload: %v: %s", err, body)
			}
			r.got = append(r.got, received{req.Header.Get(webhooks.DeliveryHeader), req.Header.Get(webhooks.EventHeader), p})
		}
		if status >= 300 && status < 400 {
			w.Header().Set("Location", "http://10.0.0.1/elsewhere")
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) received() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func privateWebhooks(retryBase time.Duration) apptest.Option {
	return func(c *config.Config) { c.WebhooksAllowPrivate, c.WebhookRetryBase = true, retryBase }
}

type webhookAnswer struct {
	ID, URL, Secret, DisabledReason string
	Events                          []string
	Enabled                         bool
	ConsecutiveFailures             int
}

type deliveryAnswer struct {
	ID, Event, Status, LastError, Delivered string
	Attempts, LastStatus                    int
	ResponseMs                              int64
}

func createHook(t *testing.T, s *apptest.Server, u apptest.User, world, url string, events ...string) webhookAnswer {
	t.Helper()
	var h webhookAnswer
	s.Must(s.Post(u.Key, "/api/v1/worlds/"+world+"/webhooks", map[string]any{"url": url, "events": events}), http.StatusCreated).JSON(t, &h)
	return h
}

func deliveries(t *testing.T, s *apptest.Server, u apptest.User, world, hook string) []deliveryAnswer {
	t.Helper()
	var l struct{ Items []deliveryAnswer }
	s.Must(s.Get(u.Key, "/api/v1/worlds/"+world+"/webhooks/"+hook+"/deliveries"), http.StatusOK).JSON(t, &l)
	return l.Items
}

// TestWebhookDeliversEachEventOnce: a receiver on 127.0.0.1 (private targets allowed) gets
// each change of the kinds it asked for once, signed; the log says so.
func TestWebhookDeliversEachEventOnce(t *testing.T) {
	s := start(t, privateWebhooks(10*time.Millisecond))
	owner := s.NewUser("Hook owner")
	world := s.World(owner, "Hooked")
	// A change made while no webhook exists is passed, and never delivered.
	s.Document(owner, world, "Before", "card")
	time.Sleep(300 * time.Millisecond)
	r := newReceiver(t)
	h := createHook(t, s, owner, world, r.srv.URL+"/hook", "document.created", "document.renamed", "document.content", "era.created")
	r.secret = h.Secret
	if !strings.HasPrefix(h.Secret, "whsec_") || len(h.Secret) < 40 {
		t.Fatalf("secret %q", h.Secret)
	}
	var again webhookAnswer
	s.Must(s.Get(owner.Key, "/api/v1/worlds/"+world+"/webhooks/"+h.ID), http.StatusOK).JSON(t, &again)
	if again.Secret == h.Secret || !strings.HasSuffix(again.Secret, h.Secret[len(h.Secret)-4:]) {
		t.Errorf("the secret is not masked after creation: %q", again.Secret)
	}

	doc := s.Document(owner, world, "Harbour", "timeline")
	s.Must(s.Do(apptest.Request{Method: "PATCH", Path: "/api/v1/worlds/" + world + "/documents/" + doc, Key: owner.Key, Body: map[string]any{"name": "Old harbour"}}), http.StatusOK)
	s.Must(s.Post(owner.Key, "/api/v1/worlds/"+world+"/documents/"+doc+"/content",
		map[string]any{"ops": []any{map[string]any{"op": "timeline.addEvent", "label": "Founding", "dateMs": 1}}}), http.StatusOK)
	s.Must(s.Post(owner.Key, "/api/v1/worlds/"+world+"/eras", map[string]any{"name": "Age of sail"}), http.StatusCreated)
	s.Must(s.Post(owner.Key, "/api/v1/worlds/"+world+"/projects", map[string]any{"name": "Wiki", "kind": "wiki"}), http.StatusCreated) // not asked for

	want := []string{"document.created", "document.renamed", "document.content", "era.created"}
	waitFor(t, "four deliveries", func() bool { return len(r.received()) >= len(want) })
	time.Sleep(300 * time.Millisecond) // nothing more comes
	got := r.received()
	if len(got) != len(want) {
		t.Fatalf("got %d deliveries, want %d: %+v", len(got), len(want), got)
	}
	seen := map[string]bool{}
	for i, g := range got {
		if g.Event != want[i] || g.Payload.Type != want[i] || g.Payload.World != world || g.Payload.ID != g.Delivery {
			t.Errorf("delivery %d: %+v, want %s", i, g, want[i])
		}
		if seen[g.Delivery] {
			t.Errorf("delivery %s came twice", g.Delivery)
		}
		seen[g.Delivery] = true
		if strings.HasPrefix(g.Event, "document.") && (g.Payload.Document != doc || g.Payload.Data.Document == nil || g.Payload.Data.Document.DocumentType != "timeline") {
			t.Errorf("%s: document missing from %+v", g.Event, g.Payload)
		}
	}
	if got[1].Payload.Data.Document.Name != "Old harbour" {
		t.Errorf("renamed: %+v", got[1].Payload.Data.Document)
	}
	if got[3].Payload.Data.Era == nil || got[3].Payload.Data.Era.Name != "Age of sail" {
		t.Errorf("era.created: %+v", got[3].Payload.Data)
	}
	log := deliveries(t, s, owner, world, h.ID)
	if len(log) != 4 {
		t.Fatalf("log: %+v", log)
	}
	for _, d := range log {
		if d.Status != "succeeded" || d.Attempts != 1 || d.LastStatus != 200 || d.Delivered == "" || !seen[d.ID] {
			t.Errorf("log entry %+v", d)
		}
	}

	// A rotated secret signs what follows; the test button pings at once.
	var rotated webhookAnswer
	s.Must(s.Do(apptest.Request{Method: "PATCH", Path: "/api/v1/worlds/" + world + "/webhooks/" + h.ID, Key: owner.Key, Body: map[string]any{"rotateSecret": true}}), http.StatusOK).JSON(t, &rotated)
	if rotated.Secret == h.Secret || !strings.HasPrefix(rotated.Secret, "whsec_") || len(rotated.Secret) != len(h.Secret) {
		t.Fatalf("rotated secret %q", rotated.Secret)
	}
	r.mu.Lock()
	r.secret = rotated.Secret
	r.mu.Unlock()
	var ping deliveryAnswer
	s.Must(s.Post(owner.Key, "/api/v1/worlds/"+world+"/webhooks/"+h.ID+"/test", nil), http.StatusOK).JSON(t, &ping)
	if ping.Event != "ping" || ping.Status != "succeeded" || ping.LastStatus != 200 {
		t.Errorf("ping: %+v", ping)
	}
	if got := r.received(); got[len(got)-1].Event != "ping" {
		t.Errorf("the receiver did not get the ping: %+v", got[len(got)-1])
	}

	// An editor may not see the webhooks; deleting one ends its deliveries.
	editor := s.NewUser("Editor")
	s.AddMember(owner, world, editor, "editor")
	if code := s.Get(editor.Key, "/api/v1/worlds/"+world+"/webhooks").ErrorCode(); code != "forbidden" {
		t.Errorf("editor: %s", code)
	}
	s.Must(s.Do(apptest.Request{Method: "DELETE", Path: "/api/v1/worlds/" + world + "/webhooks/" + h.ID, Key: owner.Key}), http.StatusNoContent)
	n := len(r.received())
	s.Document(owner, world, "After", "card")
	time.Sleep(400 * time.Millisecond)
	if len(r.received()) != n {
		t.Errorf("a deleted webhook still delivers")
	}
}

// TestWebhookRetriesUntilDelivered: a receiver that fails three times then succeeds gets the
// event on the fourth attempt, once.
func TestWebhookRetriesUntilDelivered(t *testing.T) {
	s := start(t, privateWebhooks(10*time.Millisecond))
	owner := s.NewUser("Retry owner")
	world := s.World(owner, "Retried")
	r := newReceiver(t)
	r.answer = func(call int) int {
		if call <= 3 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	}
	h := createHook(t, s, owner, world, r.srv.URL, "document.created")
	r.secret = h.Secret
	s.Document(owner, world, "Lighthouse", "card")
	waitFor(t, "the delivery", func() bool { return len(r.received()) == 1 })
	// The log says so once the attempt's answer is back at the server, a moment after the
	// receiver got the event.
	var log []deliveryAnswer
	waitFor(t, "the delivery logged", func() bool {
		log = deliveries(t, s, owner, world, h.ID)
		return len(log) == 1 && log[0].Status != "pending"
	})
	if len(log) != 1 || log[0].Status != "succeeded" || log[0].Attempts != 4 || log[0].LastStatus != 200 {
		t.Fatalf("log: %+v", log)
	}
	time.Sleep(300 * time.Millisecond)
	if got := r.received(); len(got) != 1 || got[0].Payload.Data.Document.Name != "Lighthouse" {
		t.Errorf("received %+v", got)
	}
}

// TestWebhookDisabledAfterRepeatedFailure: five deliveries that each fail for good disable
// the webhook with the reason; enabling it again clears that. A redirect is a failure.
func TestWebhookDisabledAfterRepeatedFailure(t *testing.T) {
	s := start(t, privateWebhooks(time.Millisecond)) // retried for 2.88 s
	owner := s.NewUser("Failing owner")
	world := s.World(owner, "Failing")
	r := newReceiver(t)
	r.answer = func(int) int { return http.StatusFound }
	h := createHook(t, s, owner, world, r.srv.URL, "document.created")
	r.secret = h.Secret
	for _, n := range []string{"A", "B", "C", "D", "E"} {
		s.Document(owner, world, n, "card")
	}
	var got webhookAnswer
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		s.Must(s.Get(owner.Key, "/api/v1/worlds/"+world+"/webhooks/"+h.ID), http.StatusOK).JSON(t, &got)
		if !got.Enabled || time.Now().After(deadline) {
			break
		}
	}
	if got.Enabled || !strings.Contains(got.DisabledReason, "5 deliveries in a row failed") || !strings.Contains(got.DisabledReason, "redirects are not followed") {
		t.Fatalf("webhook after five failed deliveries: %+v", got)
	}
	log := deliveries(t, s, owner, world, h.ID)
	for _, d := range log {
		if d.Status != "failed" || d.LastStatus != 302 || !strings.Contains(d.LastError, "redirect") {
			t.Errorf("log entry %+v", d)
		}
	}
	s.Must(s.Do(apptest.Request{Method: "PATCH", Path: "/api/v1/worlds/" + world + "/webhooks/" + h.ID, Key: owner.Key, Body: map[string]any{"enabled": true}}), http.StatusOK).JSON(t, &got)
	if !got.Enabled || got.DisabledReason != "" || got.ConsecutiveFailures != 0 {
		t.Errorf("re-enabled: %+v", got)
	}
}

// TestWebhookPrivateTargetsRefused: with the default settings a loopback or private target is
// refused when the webhook is made (422 private_target) and, should it get in another way (a
// name that resolves differently later), when connecting.
func TestWebhookPrivateTargetsRefused(t *testing.T) {
	s := start(t)
	owner := s.NewUser("Careful owner")
	world := s.World(owner, "Careful")
	for _, c := range []struct{ url, code string }{
		{"http://127.0.0.1:8080/hook", "private_target"},
		{"http://localhost/hook", "private_target"},
		{"http://10.1.2.3/hook", "private_target"},
		{"http://169.254.169.254/latest/meta-data", "private_target"},
		{"http://[::1]/hook", "private_target"},
		{"http://[fd00::1]/hook", "private_target"},
		{"http://0.0.0.0/hook", "private_target"},
		{"http://224.0.0.1/hook", "private_target"},
		{"ftp://example.com/hook", "invalid_field"},
		{"http://user:pw@93.184.215.14/hook", "invalid_field"},
		{"/relative", "invalid_field"},
	} {
		res := s.Post(owner.Key, "/api/v1/worlds/"+world+"/webhooks", map[string]any{"url": c.url, "events": []string{"document.created"}})
		if res.Status != http.StatusUnprocessableEntity || res.ErrorCode() != c.code {
			t.Errorf("%s: %d %s, want 422 %s", c.url, res.Status, res.Body, c.code)
		}
	}
	if res := s.Post(owner.Key, "/api/v1/worlds/"+world+"/webhooks", map[string]any{"url": "https://93.184.215.14/hook", "events": []string{"no.such"}}); res.ErrorCode() != "invalid_field" {
		t.Errorf("unknown event: %s", res.Body)
	}
	if n := s.Count("webhooks", ""); n != 0 {
		t.Fatalf("%d webhooks made by refused requests", n)
	}

	// Connect time: a webhook whose URL reaches loopback (made through the store, as a name
	// that resolved to a public address when checked would be) is refused when dialled.
	r := newReceiver(t)
	h, err := s.LW.Store.CreateWebhook(world, r.srv.URL, []string{"document.created"})
	if err != nil {
		t.Fatal(err)
	}
	var ping deliveryAnswer
	s.Must(s.Post(owner.Key, "/api/v1/worlds/"+world+"/webhooks/"+h.ID+"/test", nil), http.StatusOK).JSON(t, &ping)
	if ping.Status != "failed" || ping.LastStatus != 0 || !strings.Contains(ping.LastError, "refused to connect to 127.0.0.1, a loopback address") {
		t.Errorf("ping to loopback: %+v", ping)
	}
	s.Document(owner, world, "Secret base", "card")
	waitFor(t, "a refused attempt", func() bool {
		log := deliveries(t, s, owner, world, h.ID)
		return len(log) == 2 && log[0].Attempts > 0
	})
	if log := deliveries(t, s, owner, world, h.ID); !strings.Contains(log[0].LastError, "refused to connect") || log[0].Status != "pending" {
		t.Errorf("delivery to loopback: %+v", log[0])
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls != 0 {
		t.Errorf("the loopback receiver was reached %d times", r.calls)
	}
}
