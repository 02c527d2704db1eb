package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestMain lets the test binary serve as the watcher child process too, as the bench binary
// does.
func TestMain(m *testing.M) {
	if cfg := os.Getenv(childEnv); cfg != "" {
		runChild(cfg)
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
