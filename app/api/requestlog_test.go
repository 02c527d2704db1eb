package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/pocketbase/pocketbase/tools/router"

	"github.com/loreweave/loreweave/app/api"
	"github.com/loreweave/loreweave/app/apptest"
)

// The API's requests reach the dashboard's request log (auxiliary.db's _logs), one row each,
// with what PocketBase's own logger records and never a credential; the dashboard's log
// settings apply: none while Logs.MaxDays is 0, no addresses once LogIP is off.
func TestRequestLog(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Logged") // the log is off (apptest sets MaxDays 0)

	logs := &s.PB.Settings().Logs
	logs.MaxDays = 5
	docs := "/api/v1/worlds/" + w + "/documents"
	s.Must(s.Post(ann.Key, docs, map[string]any{"name": "Ledger", "documentType": "card"}), http.StatusCreated)
	s.Must(s.Get(ann.Key, "/api/v1/worlds/nosuchworld00"), http.StatusNotFound)
	logs.LogIP = false
	s.Must(s.Get(ann.Key, docs+"?perPage=5"), http.StatusOK)

	type row struct {
		ID      string `db:"id"`
		Level   int    `db:"level"`
		Message string `db:"message"`
		Data    string `db:"data"`
	}
	var rows []row
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		rows = nil
		if err := s.PB.AuxDB().NewQuery("SELECT id, level, message, data FROM _logs WHERE message LIKE {:api} ORDER BY created, rowid").
			Bind(dbx.Params{"api": "% /api/v1/%"}).All(&rows); err != nil {
			t.Fatal(err)
		}
		if len(rows) >= 3 || time.Now().After(deadline) {
			break
		}
	}
	if len(rows) != 3 {
		t.Fatalf("want one row for each of the 3 requests made with the log on, got %d: %+v", len(rows), rows)
	}
	want := []struct {
		message string
		status  int
		ip      bool
	}{
		{"POST " + docs, 201, true},
		{"GET /api/v1/worlds/nosuchworld00", 404, true},
		{"GET " + docs + "?perPage=5", 200, false},
	}
	for i, r := range rows {
		var d map[string]any
		if err := json.Unmarshal([]byte(r.Data), &d); err != nil {
			t.Fatalf("row %d: %v: %s", i, err, r.Data)
		}
		if r.Message != want[i].message || r.Level != 0 || d["status"] != float64(want[i].status) ||
			d["type"] != "request" || d["method"] != strings.Fields(want[i].message)[0] || d["url"] != strings.Fields(want[i].message)[1] {
			t.Errorf("row %d: %+v, want %+v", i, r, want[i])
		}
		if len(r.ID) != 15 || strings.Trim(r.ID, "0123456789abcdefghijklmnopqrstuvwxyz") != "" || (i > 0 && r.ID <= rows[i-1].ID) {
			t.Errorf("row %d: id %q is not 15 of [0-9a-z] after %q", i, r.ID, rows[max(i-1, 0)].ID)
		}
		if _, ok := d["execTime"].(float64); !ok {
			t.Errorf("row %d has no execTime: %s", i, r.Data)
		}
		if _, ok := d["userIP"]; ok != want[i].ip {
			t.Errorf("row %d: userIP logged %v, want %v (LogIP): %s", i, ok, want[i].ip, r.Data)
		}
		if strings.Contains(r.Data+r.Message, ann.Key) || strings.Contains(r.Data, "lw_live_") {
			t.Errorf("row %d holds a credential: %s", i, r.Data)
		}
	}
}

// A request whose handler panics, or returns an error it did not answer, is logged at error
// level with the status PocketBase answers (500, or the error's own) and the error.
func TestRequestLogFailures(t *testing.T) {
	s := apptest.Start(t)
	s.PB.Settings().Logs.MaxDays = 5
	l := api.NewRequestLog(s.PB)
	run := func(path string, h func(e *core.RequestEvent) error) {
		hooks := &hook.Hook[*core.RequestEvent]{}
		hooks.BindFunc(l.LogMiddleware)
		hooks.BindFunc(h)
		e := &core.RequestEvent{App: s.PB}
		e.Request, e.Response = httptest.NewRequest(http.MethodGet, path, nil), httptest.NewRecorder()
		defer func() { _ = recover() }()
		_ = hooks.Trigger(e)
	}
	run("/api/v1/boom", func(*core.RequestEvent) error { panic("boom") })
	run("/api/v1/gone", func(*core.RequestEvent) error { return router.NewNotFoundError("nothing here", nil) })
	l.Stop() // writes what waits

	var rows []struct {
		Level   int    `db:"level"`
		Message string `db:"message"`
		Data    string `db:"data"`
	}
	if err := s.PB.AuxDB().NewQuery("SELECT level, message, data FROM _logs WHERE message IN ('GET /api/v1/boom', 'GET /api/v1/gone') ORDER BY rowid").All(&rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("want the 2 failed requests logged, got %+v", rows)
	}
	for i, want := range []struct {
		status float64
		err    string
	}{{500, "panicked"}, {404, "Nothing here"}} {
		var d map[string]any
		if err := json.Unmarshal([]byte(rows[i].Data), &d); err != nil {
			t.Fatal(err)
		}
		if rows[i].Level != 8 || d["status"] != want.status || !strings.Contains(fmt.Sprint(d["error"]), want.err) {
			t.Errorf("row %d: %+v, want level 8 (error), status %v, an error with %q", i, rows[i], want.status, want.err)
		}
	}
}
