package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// binary builds the loreweave command once per test run.
func binary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "loreweave")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// serve starts `loreweave serve` on a data dir and returns its base URL, a function that stops
// it (as SIGINT would; it also stops when the test ends) and one that returns its output.
func serve(t *testing.T, bin, dir string, env ...string) (string, func(), func() string) {
	t.Helper()
	addr := freePort(t)
	cmd := exec.Command(bin, "serve", "--dir", dir, "--http", addr)
	cmd.Env = append(os.Environ(), env...)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = cmd.Process.Signal(os.Interrupt)
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
			}
		})
	}
	t.Cleanup(stop)
	base := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); ; {
		if res, err := http.Get(base + "/api/health"); err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not start:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return base, stop, out.String
}

// lockedBuffer collects a process's output for reading while it runs.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func run(t *testing.T, bin string, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		return stdout.String(), fmt.Errorf("%v: %s", err, stderr.String())
	}
	return stdout.String(), nil
}

func call(t *testing.T, method, url, key, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m
}

// TestCommandLine runs the real binary: serve, then manage users, keys and plans from a
// second process, and checks the running server obeys at once.
func TestCommandLine(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	base, _, output := serve(t, bin, dir, "LOREWEAVE_DEFAULT_PLAN=pro")
	// The announcement follows the server's start: it may come a moment after the first answer.
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(output(), base+"/signup") && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(output(), base+"/signup") {
		t.Errorf("first start does not print the sign-up URL:\n%s", output())
	}

	if _, err := run(t, bin, "users", "create", "--dir", dir, "--email", "ann@example.test", "--password", "long enough pw", "--name", "Ann"); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, bin, "users", "create", "--dir", dir, "--email", "ann@example.test", "--password", "long enough pw"); err == nil {
		t.Fatal("duplicate user accepted")
	}
	out, err := run(t, bin, "keys", "create", "--dir", dir, "--email", "ann@example.test", "--name", "cli")
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(out)
	if !strings.HasPrefix(key, "lw_live_") || strings.Contains(key, "\n") || len(key) != 46 {
		t.Fatalf("keys create printed %q", out)
	}
	if status, _ := call(t, "GET", base+"/api/v1/me", key, ""); status != 200 {
		t.Fatalf("new key: %d", status)
	}
	status, w := call(t, "POST", base+"/api/v1/worlds", key, `{"name":"Eldoria"}`)
	if status != 201 || w["plan"] != "pro" {
		t.Fatalf("world: %d %v", status, w)
	}
	wid := w["id"].(string)
	_, d := call(t, "POST", base+"/api/v1/worlds/"+wid+"/documents", key, `{"name":"History","documentType":"timeline"}`)
	docURL := base + "/api/v1/worlds/" + wid + "/documents/" + d["id"].(string)
	if status, _ := call(t, "GET", docURL, key, ""); status != 200 {
		t.Fatalf("read on pro: %d", status)
	}

	// Plan changes from the command line apply to the running server at once.
	if out, err := run(t, bin, "worlds", "plan", wid, "free", "--dir", dir); err != nil || !strings.Contains(out, "free") {
		t.Fatalf("worlds plan: %v %s", err, out)
	}
	// The server notices writes made by another process within a second.
	within(t, time.Second, "plan change applies", func() bool {
		status, e := call(t, "GET", docURL, key, "")
		return status == 403 && e["error"].(map[string]any)["code"] == "plan_required"
	})
	if _, err := run(t, bin, "worlds", "plan", wid, "platinum", "--dir", dir); err == nil {
		t.Fatal("unknown plan accepted")
	}
	if _, err := run(t, bin, "worlds", "plan", "nosuchworld0000", "pro", "--dir", dir); err == nil {
		t.Fatal("unknown world accepted")
	}

	out, err = run(t, bin, "keys", "list", "--dir", dir, "--email", "ann@example.test")
	if err != nil || !strings.Contains(out, "cli") || strings.Contains(out, key) {
		t.Fatalf("keys list: %v\n%s", err, out)
	}
	id := strings.Fields(strings.Split(out, "\n")[1])[0]
	if _, err := run(t, bin, "keys", "revoke", id, "--dir", dir); err != nil {
		t.Fatal(err)
	}
	within(t, time.Second, "revocation applies", func() bool {
		status, _ := call(t, "GET", base+"/api/v1/me", key, "")
		return status == 401
	})
	if _, err := run(t, bin, "keys", "revoke", id, "--dir", dir); err == nil {
		t.Fatal("revoking twice succeeded")
	}
	// The search index is held by the running server: reindex says so and does not hang.
	start := time.Now()
	if out, err := run(t, bin, "search", "reindex", "--dir", dir); err == nil || !strings.Contains(err.Error(), "stop it") || time.Since(start) > 10*time.Second {
		t.Fatalf("reindex on a running server: %v %s", err, out)
	}
	for _, args := range [][]string{{"keys", "create", "--email", "ann@example.test"}, {"keys", "revoke"}, {"users", "create", "--email", "x@example.test"}, {"worlds", "plan", wid}} {
		if out, err := run(t, bin, append(args, "--dir", dir)...); err == nil {
			t.Errorf("%v succeeded without a required argument: %s", args, out)
		}
	}

	// A command run on a directory without Loreweave data says so (run from the wrong place
	// without --dir, it would otherwise seem to work on an instance the server never sees).
	empty := t.TempDir()
	for i, want := range []bool{true, false} {
		cmd := exec.Command(bin, "users", "create", "--dir", empty, "--email", fmt.Sprintf("u%d@example.test", i), "--password", "long enough pw")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("users create on a new directory: %v %s", err, stderr.String())
		}
		if got := strings.Contains(stderr.String(), "held no Loreweave data"); got != want {
			t.Errorf("run %d on %s: note %v, want %v (stderr %q)", i+1, empty, got, want, stderr.String())
		}
	}

	// A server that cannot start, or a command that does not exist, exits with status 1
	// (service managers and scripts go by it).
	for _, args := range [][]string{
		{"serve", "--dir", t.TempDir(), "--http", strings.TrimPrefix(base, "http://")}, // the port is taken
		{"serve", "--dir", t.TempDir(), "--http", freePort(t), "--default-plan", "gold"},
		{"bogus"},
	} {
		cmd := exec.Command(bin, args...)
		out, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); err == nil || code != 1 || !strings.Contains(string(out), "Error") {
			t.Errorf("%v: exit status %d (%v), want 1 with an error:\n%s", args, code, err, out)
		}
	}
	if out, err := run(t, bin, "--help"); err != nil || !strings.Contains(out, "serve") {
		t.Errorf("--help: %v\n%s", err, out)
	}
}

// TestSearchReindex rebuilds the index of a stopped server from the database, even a damaged
// one.
func TestSearchReindex(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	base, stop, _ := serve(t, bin, dir)
	if _, err := run(t, bin, "users", "create", "--dir", dir, "--email", "ann@example.test", "--password", "long enough pw"); err != nil {
		t.Fatal(err)
	}
	out, _ := run(t, bin, "keys", "create", "--dir", dir, "--email", "ann@example.test", "--name", "k")
	key := strings.TrimSpace(out)
	_, w := call(t, "POST", base+"/api/v1/worlds", key, `{"name":"Eldoria"}`)
	for i := 0; i < 30; i++ {
		call(t, "POST", base+"/api/v1/worlds/"+w["id"].(string)+"/documents", key, fmt.Sprintf(`{"name":"Beacon %d","documentType":"card"}`, i))
	}
	stop()
	// A damaged index is no obstacle: it is rebuilt from scratch like any other.
	if err := os.WriteFile(filepath.Join(dir, "search.bleve", "index_meta.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, bin, "search", "reindex", "--dir", dir)
	if err != nil || !strings.Contains(out, "30 documents") {
		t.Fatalf("reindex: %v %s", err, out)
	}
	base, _, _ = serve(t, bin, dir)
	if status, r := call(t, "GET", base+"/api/v1/worlds/"+w["id"].(string)+"/search?q=beacon", key, ""); status != 200 || r["totalItems"] != float64(30) {
		t.Fatalf("search after reindex: %d %v", status, r)
	}
}

// within polls cond until it holds, failing the test after d.
func within(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, d)
		}
	}
}

// TestToolCommandsNeedNoDataDirectory runs tools init, validate and test with the real
// binary in an empty directory: they work on files only, so no pb_data appears there, and a
// failure exits non-zero.
func TestToolCommandsNeedNoDataDirectory(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	for _, args := range [][]string{{"tools", "init", "quests", "--example", "quests"}, {"tools", "validate", "quests"}, {"tools", "test", "quests"}} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pb_data")); !os.IsNotExist(err) {
		t.Fatalf("the tool commands made a data directory: %v", err)
	}
	cmd := exec.Command(bin, "tools", "test", "missing")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "missing/tool.json") {
		t.Fatalf("tools test of a missing tool: %v\n%s", err, out)
	}
}
