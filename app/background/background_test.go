package background

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestCatchTurnsAPanicIntoAnError(t *testing.T) {
	want := errors.New("plain")
	if err := Catch(func() error { return want }); err != want {
		t.Fatalf("an error passes through: got %v", err)
	}
	err := Catch(func() error { panic("boom") })
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value != "boom" || !bytes.Contains(pe.Stack, []byte("TestCatchTurnsAPanicIntoAnError")) {
		t.Fatalf("got %#v", err)
	}
}

// Loop runs a loop again after it panics, logging the panic with its stack, until ctx ends.
func TestLoopRestartsAfterAPanic(t *testing.T) {
	restartDelay = time.Millisecond
	t.Cleanup(func() { restartDelay = time.Second })
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	runs := 0
	Loop(ctx, log, "test loop", func(ctx context.Context) {
		runs++
		if runs < 3 {
			panic("boom")
		}
		cancel()
		<-ctx.Done()
	})
	if runs != 3 {
		t.Fatalf("%d runs, want 3", runs)
	}
	if n := strings.Count(logs.String(), "restarting the loop"); n != 2 || !strings.Contains(logs.String(), "goroutine=\"test loop\"") || !strings.Contains(logs.String(), "stack=") {
		t.Fatalf("logs:\n%s", logs.String())
	}
}

// Recover ends a goroutine quietly when it panics, after logging the panic.
func TestRecoverEndsTheGoroutineQuietly(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer Recover(log, "worker")
		panic("boom")
	}()
	<-done
	if !strings.Contains(logs.String(), "panic: boom") || !strings.Contains(logs.String(), "goroutine=worker") {
		t.Fatalf("logs:\n%s", logs.String())
	}
}
