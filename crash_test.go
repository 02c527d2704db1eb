package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

// start runs `loreweave serve` and waits until it answers; the caller kills it.
func start(t *testing.T, bin, dir string) (*exec.Cmd, string) {
	t.Helper()
	addr := freePort(t)
	cmd := exec.Command(bin, "serve", "--dir", dir, "--http", addr)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if res, err := http.Get(base + "/api/health"); err == nil {
			res.Body.Close()
			return cmd, base
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("server did not start:\n%s", out.String())
		}
	}
}

// TestCrashSafety kills the server with SIGKILL at random moments while clients write, and
// checks that every acknowledged write survives, versions stay contiguous, each document's
// op log rebuilds its state exactly, and search catches up. LW_CRASH_KILLS sets the number
// of kills (default 20). Three more rounds stop it with SIGTERM instead: it must exit cleanly
// (status 0) with the same guarantees.
func TestCrashSafety(t *testing.T) {
	kills := 20
	const terms = 3
	if v, err := strconv.Atoi(os.Getenv("LW_CRASH_KILLS")); err == nil && v > 0 {
		kills = v
	}
	bin := binary(t)
	dir := t.TempDir()
	cmd, base := start(t, bin, dir)
	if _, err := run(t, bin, "users", "create", "--dir", dir, "--email", "ann@example.test", "--password", "long enough pw"); err != nil {
		t.Fatal(err)
	}
	out, _ := run(t, bin, "keys", "create", "--dir", dir, "--email", "ann@example.test", "--name", "crash")
	key := strings.TrimSpace(out)
	_, w := call(t, "POST", base+"/api/v1/worlds", key, `{"name":"Crash world"}`)
	world := w["id"].(string)
	// Each writer has a few documents and moves on to the next after maxVersions
	// acknowledged writes, so that no document outgrows the versions its op log keeps
	// (store.OpLogKeepVersions) and every op log still rebuilds its state from version 1. A
	// write in flight at a kill may commit unacknowledged: at most one per writer and round.
	const writers, docsPerWriter = 6, 4
	maxVersions := max(store.OpLogKeepVersions-(kills+terms)-1, 100)
	docIDs := make([]string, writers*docsPerWriter)
	for i := range docIDs {
		_, d := call(t, "POST", base+"/api/v1/worlds/"+world+"/documents", key, fmt.Sprintf(`{"name":"Chronicle %d","documentType":"timeline"}`, i))
		docIDs[i] = d["id"].(string)
	}

	var mu sync.Mutex
	acked := map[string][]string{} // doc -> labels acknowledged
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	client := &http.Client{Timeout: 5 * time.Second}
	for round := 0; round < kills+terms; round++ {
		if round > 0 {
			cmd, base = start(t, bin, dir)
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for i := range writers {
			wg.Add(1)
			go func(i int, mine []string) {
				defer wg.Done()
				for n := 0; ; n++ {
					select {
					case <-stop:
						return
					default:
					}
					mu.Lock()
					doc := ""
					for _, d := range mine {
						if len(acked[d]) < maxVersions {
							doc = d
							break
						}
					}
					mu.Unlock()
					if doc == "" {
						return // all of its documents are full
					}
					label := fmt.Sprintf("r%d-w%d-n%d", round, i, n)
					body := fmt.Sprintf(`{"ops":[{"op":"timeline.addEvent","label":%q,"dateMs":%d}]}`, label, n)
					req, _ := http.NewRequest("POST", base+"/api/v1/worlds/"+world+"/documents/"+doc+"/content", strings.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+key)
					req.Header.Set("Content-Type", "application/json")
					res, err := client.Do(req)
					if err != nil {
						return // the server is gone
					}
					res.Body.Close()
					if res.StatusCode == http.StatusOK {
						mu.Lock()
						acked[doc] = append(acked[doc], label)
						mu.Unlock()
					}
				}
			}(i, docIDs[i*docsPerWriter:(i+1)*docsPerWriter])
		}
		time.Sleep(time.Duration(50+rng.Intn(400)) * time.Millisecond)
		if round < kills {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
		} else {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("round %d: SIGTERM exit: %v", round, err)
				}
			case <-time.After(15 * time.Second):
				_ = cmd.Process.Kill()
				t.Errorf("round %d: the server did not stop within 15 s of SIGTERM", round)
			}
		}
		close(stop)
		wg.Wait()
	}

	cmd, base = start(t, bin, dir)
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	total, lost := 0, 0
	for _, doc := range docIDs {
		status, d := call(t, "GET", base+"/api/v1/worlds/"+world+"/documents/"+doc, key, "")
		if status != 200 {
			t.Fatalf("read %s: %d", doc, status)
		}
		content := d["content"].(map[string]any)
		present := map[string]bool{}
		for _, ev := range content["data"].(map[string]any)["events"].([]any) {
			present[ev.(map[string]any)["label"].(string)] = true
		}
		for _, label := range acked[doc] {
			total++
			if !present[label] {
				lost++
				t.Errorf("acknowledged write %s of %s is lost", label, doc)
			}
		}
		// The op log has every version from 1 to the state's, and replaying it rebuilds
		// the state byte for byte.
		version := int64(d["version"].(float64))
		type entry struct {
			Version int64
			Ops     []json.RawMessage
		}
		var log struct{ Items []entry }
		for since := int64(0); ; {
			var page struct {
				Items   []entry
				HasMore bool
			}
			req, _ := http.NewRequest("GET", fmt.Sprintf("%s/api/v1/worlds/%s/documents/%s/ops?limit=1000&since=%d", base, world, doc, since), nil)
			req.Header.Set("Authorization", "Bearer "+key)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = json.NewDecoder(res.Body).Decode(&page)
			res.Body.Close()
			log.Items = append(log.Items, page.Items...)
			if !page.HasMore || len(page.Items) == 0 {
				break
			}
			since = page.Items[len(page.Items)-1].Version
		}
		replayed := ops.Empty("timeline")
		for i, it := range log.Items {
			if it.Version != int64(i+1) {
				t.Fatalf("%s: op log version %d at position %d", doc, it.Version, i)
			}
			var err error
			if replayed, err = ops.Replay(replayed, it.Version-1, it.Ops); err != nil {
				t.Fatalf("%s: replay v%d: %v", doc, it.Version, err)
			}
		}
		if int64(len(log.Items)) != version {
			t.Fatalf("%s: %d log entries for version %d", doc, len(log.Items), version)
		}
		data, _ := json.Marshal(content["data"])
		if !bytes.Equal(canonical(t, data), canonical(t, replayed.JSON())) {
			t.Fatalf("%s: the op log does not rebuild the state", doc)
		}
	}
	t.Logf("crash safety: %d kills and %d graceful stops, %d acknowledged writes, %d lost", kills, terms, total, lost)
	if total == 0 {
		t.Fatal("no write was acknowledged: the test proved nothing")
	}
	// Search reconciles after the crashes: the last acknowledged label of each document is
	// found.
	for _, doc := range docIDs {
		labels := acked[doc]
		if len(labels) == 0 {
			continue
		}
		q := labels[len(labels)-1]
		found := false
		for deadline := time.Now().Add(10 * time.Second); !found && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			_, r := call(t, "GET", base+"/api/v1/worlds/"+world+"/search?q=%22"+q+"%22", key, "")
			found = r["totalItems"] == float64(1)
		}
		if !found {
			t.Errorf("search does not find %q after the crashes", q)
		}
	}
}

func canonical(t *testing.T, b []byte) []byte {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return out
}
