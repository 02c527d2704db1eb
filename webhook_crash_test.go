package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/webhooks"
)

// TestWebhookSurvivesKill: changes committed while the receiver is down, each followed at
// once by kill -9, are still delivered after a restart, once each, signed. The dispatcher
// creates a delivery in the transaction that moves its cursor, so a kill before, during or
// after that leaves either the outbox row unread or the delivery pending, never neither.
func TestWebhookSurvivesKill(t *testing.T) {
	t.Setenv("LOREWEAVE_WEBHOOKS_ALLOW_PRIVATE", "true")
	t.Setenv("LOREWEAVE_WEBHOOKS_RETRY_BASE", "50ms")
	var mu sync.Mutex
	up, secret := false, ""
	got := map[string]int{} // document id -> deliveries answered 2xx
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if !up {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		if err := webhooks.Verify(secret, r.Header.Get(webhooks.SignatureHeader), body, time.Minute); err != nil {
			t.Errorf("signature: %v", err)
		}
		var p webhooks.Payload
		_ = json.Unmarshal(body, &p)
		got[p.Document]++
	}))
	defer recv.Close()

	bin := binary(t)
	dir := t.TempDir()
	cmd, base := start(t, bin, dir)
	if _, err := run(t, bin, "users", "create", "--dir", dir, "--email", "hook@example.test", "--password", "long enough pw"); err != nil {
		t.Fatal(err)
	}
	out, _ := run(t, bin, "keys", "create", "--dir", dir, "--email", "hook@example.test", "--name", "hooks")
	key := strings.TrimSpace(out)
	_, w := call(t, "POST", base+"/api/v1/worlds", key, `{"name":"Hook world"}`)
	world := w["id"].(string)
	status, h := call(t, "POST", base+"/api/v1/worlds/"+world+"/webhooks", key, fmt.Sprintf(`{"url":%q,"events":["document.created"]}`, recv.URL))
	if status != http.StatusCreated {
		t.Fatalf("create webhook: %d %v", status, h)
	}
	mu.Lock()
	secret = h["secret"].(string)
	mu.Unlock()

	var docs []string
	for round := range 4 {
		if round > 0 {
			cmd, base = start(t, bin, dir)
		}
		status, d := call(t, "POST", base+"/api/v1/worlds/"+world+"/documents", key, fmt.Sprintf(`{"name":"Kept %d","documentType":"card"}`, round))
		if status != http.StatusCreated {
			t.Fatalf("round %d: create document: %d", round, status)
		}
		docs = append(docs, d["id"].(string))
		time.Sleep(time.Duration(round*15) * time.Millisecond) // 0 ms: before the dispatcher, most likely; later: after it
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
	}

	mu.Lock()
	up = true
	mu.Unlock()
	cmd, base = start(t, bin, dir)
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= len(docs) || time.Now().After(deadline) {
			break
		}
	}
	time.Sleep(500 * time.Millisecond) // a duplicate would come by now
	mu.Lock()
	defer mu.Unlock()
	for _, d := range docs {
		if got[d] != 1 {
			t.Errorf("document %s was delivered %d times, want once", d, got[d])
		}
	}
	if len(got) != len(docs) {
		t.Errorf("deliveries for %d documents, want %d: %v", len(got), len(docs), got)
	}
	_, log := call(t, "GET", base+"/api/v1/worlds/"+world+"/webhooks/"+h["id"].(string)+"/deliveries", key, "")
	if log["totalItems"] != float64(len(docs)) {
		t.Errorf("delivery log: %v", log)
	}
}
