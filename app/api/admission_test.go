package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/pocketbase/pocketbase/core"
)

func turnEvent(ctx context.Context) (*core.RequestEvent, *httptest.ResponseRecorder) {
	rec := httptest.NewRecorder()
	e := &core.RequestEvent{}
	e.Response = rec
	e.Request = httptest.NewRequest(http.MethodGet, "/api/v1/worlds/w/search?q=x", nil).WithContext(ctx)
	return e, rec
}

// A response made in a turn reaches the client whole once the turn is given back.
func TestTurnSendsTheResponseAfterTheTurn(t *testing.T) {
	ts := make(turns, 1)
	e, rec := turnEvent(context.Background())
	err := ts.run(e, func(e *core.RequestEvent) error {
		if len(ts) != 1 {
			t.Error("the handler runs without holding a turn")
		}
		e.Response.Header().Set("X-Test", "yes")
		return e.JSON(http.StatusCreated, map[string]string{"a": "b"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 0 {
		t.Fatal("the turn was not given back")
	}
	if rec.Code != http.StatusCreated || rec.Header().Get("X-Test") != "yes" || rec.Body.String() != "{\"a\":\"b\"}\n" {
		t.Fatalf("got %d %v %q", rec.Code, rec.Header(), rec.Body.String())
	}
	if e.Response != rec {
		t.Fatal("the event's response was not put back")
	}
}

// A request that ends while every turn is taken leaves without running.
func TestTurnWaitEndsWithTheRequest(t *testing.T) {
	ts := make(turns, 1)
	ts <- struct{}{} // taken
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e, _ := turnEvent(ctx)
	ran := false
	if err := ts.run(e, func(*core.RequestEvent) error { ran = true; return nil }); err == nil || ran {
		t.Fatalf("err %v, ran %v", err, ran)
	}
}

// A handler that panics gives its turn back.
func TestTurnGivenBackOnPanic(t *testing.T) {
	ts := make(turns, 1)
	e, rec := turnEvent(context.Background())
	func() {
		defer func() { _ = recover() }()
		_ = ts.run(e, func(*core.RequestEvent) error { panic("boom") })
	}()
	if len(ts) != 0 || e.Response != rec {
		t.Fatalf("turns held %d, response put back %v", len(ts), e.Response == rec)
	}
}
