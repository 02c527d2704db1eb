package ratelimit

import (
	"sync"
	"time"
)

// Window allows each key at most max events in any span of one window. It keeps the time of
// each event (at most max per key), so it suits rare events that must be counted exactly and
// sometimes given back: failed sign-ins, sign-ups, client registrations.
type Window struct {
	max    int
	window time.Duration
	now    func() time.Time // time.Now; tests move it

	mu     sync.Mutex
	events map[string][]time.Time // per key, oldest first, none older than window
	swept  time.Time
}

// NewWindow returns a window of max events per key per window; 0 allows everything.
func NewWindow(max int, window time.Duration) *Window {
	return &Window{max: max, window: window, now: time.Now, events: map[string][]time.Time{}}
}

// Take records an event of key, unless key already has max events in the window; then it
// records nothing, and retryAfter says when the oldest of them leaves the window.
func (w *Window) Take(key string) (ok bool, retryAfter time.Duration) {
	if w == nil || w.max <= 0 {
		return true, 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now()
	if now.Sub(w.swept) > w.window {
		for k := range w.events {
			w.recent(k, now)
		}
		w.swept = now
	}
	events := w.recent(key, now)
	if len(events) >= w.max {
		return false, max(events[0].Add(w.window).Sub(now), time.Second)
	}
	w.events[key] = append(events, now)
	return true, 0
}

// Give takes back the latest event of key: an attempt that, it turned out, does not count.
func (w *Window) Give(key string) {
	if w == nil || w.max <= 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if events := w.events[key]; len(events) > 1 {
		w.events[key] = events[:len(events)-1]
	} else {
		delete(w.events, key)
	}
}

// Forget clears every event of key.
func (w *Window) Forget(key string) {
	if w == nil || w.max <= 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.events, key)
}

// recent drops the events of key that left the window and returns the others.
func (w *Window) recent(key string, now time.Time) []time.Time {
	events := w.events[key]
	i := 0
	for i < len(events) && now.Sub(events[i]) >= w.window {
		i++
	}
	if i == len(events) {
		delete(w.events, key)
		return nil
	}
	w.events[key] = events[i:]
	return events[i:]
}
