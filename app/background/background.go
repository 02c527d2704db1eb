// Package background keeps the server's goroutines from taking it down: a panic in one is
// logged with its stack, and the work it was doing fails or starts over, instead of ending
// the process (Go ends the whole program on a panic no goroutine recovers, and only a
// request's own goroutine is covered by the router's recovery).
package background

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"
)

// PanicError is a panic turned into an error by Catch, with the stack where it happened.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Catch runs fn and returns the panic it raised, if any, as a *PanicError.
func Catch(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	return fn()
}

// Log logs err, with its stack when it is a caught panic.
func Log(log *slog.Logger, msg string, err error, args ...any) {
	args = append(args, "error", err.Error())
	var pe *PanicError
	if errors.As(err, &pe) {
		args = append(args, "stack", string(pe.Stack))
	}
	log.Error(msg, args...)
}

// Recover, deferred first thing in a goroutine, logs a panic that would end the goroutine
// (and with it the process) and lets the goroutine end quietly instead.
func Recover(log *slog.Logger, name string) {
	if r := recover(); r != nil {
		Log(log, "background: recovered a panic; the goroutine ended", &PanicError{Value: r, Stack: debug.Stack()}, "goroutine", name)
	}
}

// restartDelay is how long Loop waits before running a loop again after a panic, so that a
// panic on every run costs a log line a second rather than a busy core.
var restartDelay = time.Second

// Loop runs fn, a loop that runs until ctx ends, on the calling goroutine; should fn panic,
// the panic is logged and fn runs again after a second, until ctx ends.
func Loop(ctx context.Context, log *slog.Logger, name string, fn func(ctx context.Context)) {
	for {
		err := Catch(func() error { fn(ctx); return nil })
		if err == nil || ctx.Err() != nil {
			return
		}
		Log(log, "background: recovered a panic; restarting the loop", err, "goroutine", name)
		select {
		case <-ctx.Done():
			return
		case <-time.After(restartDelay):
		}
	}
}
