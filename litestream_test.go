package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// litestreamVersion is the Litestream release the README documents and .ci/run installs.
// It builds without cgo.
const litestreamVersion = "v0.5.18"

// TestLitestreamReplicaRestores replicates a running server's data.db with Litestream to a
// file replica while clients write, kills the server with SIGKILL, restores the replica
// into an empty data directory and starts a server there: every acknowledged write is
// present and search, whose index is not replicated, finds the documents again once it is
// rebuilt. It needs `litestream` on the PATH; it skips without it, except under CI=true.
func TestLitestreamReplicaRestores(t *testing.T) {
	litestream, err := exec.LookPath("litestream")
	if err != nil {
		msg := "litestream is not on the PATH; install it with `go install github.com/benbjohnson/litestream/cmd/litestream@" + litestreamVersion + "`"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	// The load is the point here, not the limits.
	t.Setenv("LOREWEAVE_RATE_LIMIT_KEY", "0")
	t.Setenv("LOREWEAVE_RATE_LIMIT_IP", "0")
	bin := binary(t)
	dir, replica, work := t.TempDir(), t.TempDir(), t.TempDir()
	cmd, base := start(t, bin, dir)
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	db := filepath.Join(dir, "data.db")
	sock := filepath.Join(work, "litestream.sock")
	config := filepath.Join(work, "litestream.yml")
	// The README's configuration, with a shorter sync interval and the control socket that
	// `litestream sync -wait` talks to.
	yml := fmt.Sprintf("socket:\n  enabled: true\n  path: %s\ndbs:\n  - path: %s\n    replica:\n      type: file\n      path: %s\n      sync-interval: 100ms\n", sock, db, replica)
	if err := os.WriteFile(config, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	repl := exec.Command(litestream, "replicate", "-config", config)
	replOut := &lockedBuffer{}
	repl.Stdout, repl.Stderr = replOut, replOut
	if err := repl.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = repl.Process.Kill(); _ = repl.Wait() }()

	if _, err := run(t, bin, "users", "create", "--dir", dir, "--email", "lit@example.test", "--password", "long enough pw"); err != nil {
		t.Fatal(err)
	}
	out, _ := run(t, bin, "keys", "create", "--dir", dir, "--email", "lit@example.test", "--name", "litestream")
	key := strings.TrimSpace(out)
	_, w := call(t, "POST", base+"/api/v1/worlds", key, `{"name":"Replicated world"}`)
	world, _ := w["id"].(string)
	if world == "" {
		t.Fatalf("create world: %v", w)
	}

	// Each writer creates documents during the load and adds events to them; every
	// creation and write answered 2xx is recorded.
	const writers, docsPerWriter = 6, 3
	var mu sync.Mutex
	names := map[string]string{}   // document id -> name, creations acknowledged
	acked := map[string][]string{} // document id -> event labels acknowledged
	client := &http.Client{Timeout: 5 * time.Second}
	post := func(path, body string) (int, map[string]any) {
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			return 0, nil
		}
		defer res.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(res.Body).Decode(&m)
		return res.StatusCode, m
	}
	stop := time.Now().Add(3 * time.Second)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for d := range docsPerWriter {
				name := fmt.Sprintf("Chronicle w%d d%d", i, d)
				status, m := post("/api/v1/worlds/"+world+"/documents", fmt.Sprintf(`{"name":%q,"documentType":"timeline"}`, name))
				id, _ := m["id"].(string)
				if status != http.StatusCreated && status != http.StatusOK || id == "" {
					t.Errorf("create %s: %d %v", name, status, m)
					return
				}
				mu.Lock()
				names[id] = name
				mu.Unlock()
				for n := 0; time.Now().Before(stop.Add(-time.Duration(docsPerWriter-1-d) * time.Second)); n++ {
					label := fmt.Sprintf("w%d-d%d-n%d", i, d, n)
					body := fmt.Sprintf(`{"ops":[{"op":"timeline.addEvent","label":%q,"dateMs":%d}]}`, label, n)
					if status, _ := post("/api/v1/worlds/"+world+"/documents/"+id+"/content", body); status == http.StatusOK {
						mu.Lock()
						acked[id] = append(acked[id], label)
						mu.Unlock()
					}
				}
			}
		}(i)
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	// Litestream ships a write within its sync interval; waiting for the sync is what makes
	// "every acknowledged write" exact here. Then the machine is gone: both processes die
	// without a chance to flush anything.
	began := time.Now()
	if out, err := exec.Command(litestream, "sync", "-wait", "-timeout", "30", "-socket", sock, db).CombinedOutput(); err != nil {
		t.Fatalf("litestream sync: %v\n%s\nreplicate's log:\n%s", err, out, replOut.String())
	}
	synced := time.Since(began)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	_ = repl.Process.Signal(syscall.SIGKILL)
	_ = repl.Wait()

	restored := t.TempDir()
	if out, err := exec.Command(litestream, "restore", "-o", filepath.Join(restored, "data.db"), "file://"+replica).CombinedOutput(); err != nil {
		t.Fatalf("litestream restore: %v\n%s", err, out)
	}
	entries, _ := os.ReadDir(restored)
	for _, e := range entries {
		if e.Name() != "data.db" {
			t.Fatalf("the restore wrote %s besides data.db", e.Name())
		}
	}

	cmd2, base2 := start(t, bin, restored)
	defer func() { _ = cmd2.Process.Signal(os.Interrupt); _ = cmd2.Wait() }()
	total := 0
	for id, name := range names {
		status, d := call(t, "GET", base2+"/api/v1/worlds/"+world+"/documents/"+id, key, "")
		if status != http.StatusOK {
			t.Errorf("acknowledged document %s (%s) is lost: %d", id, name, status)
			continue
		}
		present := map[string]bool{}
		content, _ := d["content"].(map[string]any)
		data, _ := content["data"].(map[string]any)
		events, _ := data["events"].([]any)
		for _, ev := range events {
			label, _ := ev.(map[string]any)["label"].(string)
			present[label] = true
		}
		for _, label := range acked[id] {
			total++
			if !present[label] {
				t.Errorf("acknowledged write %s of %s is lost", label, name)
			}
		}
	}
	if total == 0 {
		t.Fatal("no write was acknowledged: the test proved nothing")
	}

	// No search.bleve came back: the server rebuilds the index from the restored database.
	// Each document is found by its name, and by its last acknowledged event.
	for id, name := range names {
		queries := []string{name}
		if labels := acked[id]; len(labels) > 0 {
			queries = append(queries, labels[len(labels)-1])
		}
		for _, q := range queries {
			found := false
			for deadline := time.Now().Add(30 * time.Second); !found && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				_, r := call(t, "GET", base2+"/api/v1/worlds/"+world+"/search?q="+url.QueryEscape(`"`+q+`"`), key, "")
				items, _ := r["items"].([]any)
				for _, it := range items {
					if m, _ := it.(map[string]any); m["id"] == id {
						found = true
					}
				}
			}
			if !found {
				t.Errorf("search on the restored server does not find %q (document %s)", q, id)
			}
		}
	}
	t.Logf("litestream %s: %d documents and %d writes acknowledged, all restored; sync -wait took %v", litestreamVersion, len(names), total, synced.Round(time.Millisecond))
}
