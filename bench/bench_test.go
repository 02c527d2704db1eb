package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/ops"
)

// TestMain lets the test binary serve as the watcher and server child processes too, as the
// bench binary does.
func TestMain(m *testing.M) {
	if cfg := os.Getenv(childEnv); cfg != "" {
		runChild(cfg)
		return
	}
	if cfg := os.Getenv(serverChildEnv); cfg != "" {
		runServerChild(cfg)
		return
	}
	os.Exit(m.Run())
}

// TestQuickRun runs two cheap scenarios of the quick mode end to end, so CI knows the bench
// still builds, boots the server and measures. It checks that rows come out, never how fast.
func TestQuickRun(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"--quick", "--only", "create,read", "--duration", "200ms", "--json"}, &out); code != 0 {
		t.Fatalf("exit status %d; output:\n%s", code, out.String())
	}
	var res struct {
		Machine machineInfo
		Rows    []struct {
			Scenario string
			Ops      int
			Baseline string
		}
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("decode %s: %v", out.String(), err)
	}
	if res.Machine.Mode != "quick" || res.Machine.RequestLog == "" {
		t.Errorf("machine = %+v", res.Machine)
	}
	seen := map[string]bool{}
	for _, r := range res.Rows {
		if r.Ops == 0 || r.Baseline == "" {
			t.Errorf("row without measurements: %+v", r)
		}
		seen[strings.Fields(r.Scenario)[0]] = true
	}
	if !seen["create"] || !seen["read"] {
		t.Errorf("want create and read rows, got %+v", res.Rows)
	}
}

// TestTable prints rows with figures that do not apply without failing.
func TestTable(t *testing.T) {
	r := valueRow("memory per idle watcher", 12.5, "KiB", "PB realtime idle subscriber", 25)
	r.goal("≤ 30 KiB", true)
	var out bytes.Buffer
	printTable(&out, []Row{r})
	if !strings.Contains(out.String(), "12.5 KiB") || !strings.Contains(out.String(), "0.50x") {
		t.Errorf("table:\n%s", out.String())
	}
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("json: %v", err)
	}
}

// TestEditorQuickRun runs the editor scenario of the quick mode end to end: it fails when the
// typists' texts drift from the server's, and checks that both rows come out with a goal.
func TestEditorQuickRun(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"--quick", "--only", "editor", "--json"}, &out); code != 0 {
		t.Fatalf("exit status %d; output:\n%s", code, out.String())
	}
	var res struct {
		Rows []struct {
			Scenario string
			Clients  int
			Ops      int
			Baseline string
			Goal     string
		}
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("decode %s: %v", out.String(), err)
	}
	goals := map[int]bool{}
	for _, r := range res.Rows {
		if r.Ops == 0 || r.Baseline == "" {
			t.Errorf("row without measurements: %+v", r)
		}
		if r.Goal != "" {
			goals[r.Clients] = true
		}
	}
	if !goals[2] || !goals[10] {
		t.Errorf("want editor rows with goals for 2 and 10 editors, got %+v", res.Rows)
	}
}

// TestUploadTimelineQuickRun runs the upload and timeline scenarios of the quick mode end to
// end: every row measures something, except the browser's, which may say it was skipped
// when Chromium is not installed.
func TestUploadTimelineQuickRun(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"--quick", "--only", "upload,timeline", "--duration", "200ms", "--json"}, &out); code != 0 {
		t.Fatalf("exit status %d; output:\n%s", code, out.String())
	}
	var res struct {
		Rows []struct {
			Scenario string
			Ops      int
			Baseline string
			Note     string
		}
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("decode %s: %v", out.String(), err)
	}
	var upload, render, tti bool
	for _, r := range res.Rows {
		skipped := strings.Contains(r.Scenario, "Chromium") && strings.HasPrefix(r.Note, "skipped: ")
		if (r.Ops == 0 && !skipped) || r.Baseline == "" {
			t.Errorf("row without measurements: %+v", r)
		}
		upload = upload || strings.HasPrefix(r.Scenario, "asset upload")
		render = render || strings.HasPrefix(r.Scenario, "timeline page render")
		tti = tti || strings.HasPrefix(r.Scenario, "timeline page TTI")
	}
	if !upload || !render || !tti {
		t.Errorf("want upload, render and TTI rows, got %+v", res.Rows)
	}
}

// TestRSSQuickRun runs the rss scenario of the quick mode end to end: its server runs in a
// child process of its own (this test binary again), and both rows come out measured, the
// default one with its goal.
func TestRSSQuickRun(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"--quick", "--only", "rss", "--duration", "200ms", "--json"}, &out); code != 0 {
		t.Fatalf("exit status %d; output:\n%s", code, out.String())
	}
	var res struct {
		Rows []struct {
			Scenario string
			Ops      int
			Goal     string
			Note     string
		}
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("decode %s: %v", out.String(), err)
	}
	if len(res.Rows) != 2 || res.Rows[0].Goal == "" || res.Rows[1].Goal != "" {
		t.Fatalf("want the default row with a goal and the limited one without, got %+v", res.Rows)
	}
	for _, r := range res.Rows {
		if r.Ops == 0 || !strings.Contains(r.Note, "of the server's own process") {
			t.Errorf("row without measurements: %+v", r)
		}
	}
}

// TestKeystrokes: every batch applies to the text it was made on, and the text stays near
// its size however long the typing goes on.
func TestKeystrokes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	body := ""
	for i := 0; i < 20000; i++ {
		next, err := ops.ApplySplices(body, keystrokes(rng, body))
		if err != nil {
			t.Fatalf("batch %d on a %d-unit text: %v", i, len(body), err)
		}
		body = next
	}
	if len(body) < 1000 || len(body) > 1400 {
		t.Errorf("after 20,000 batches the text has %d units, want about 1,200", len(body))
	}
}
