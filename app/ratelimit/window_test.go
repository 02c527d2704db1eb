package ratelimit

import (
	"testing"
	"time"
)

func TestWindow(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	w := NewWindow(3, 15*time.Minute)
	w.now = func() time.Time { return now }
	take := func(key string, want bool) time.Duration {
		t.Helper()
		ok, wait := w.Take(key)
		if ok != want {
			t.Fatalf("%s at %s: ok %v, want %v", key, now.Format(time.TimeOnly), ok, want)
		}
		return wait
	}

	take("a", true)
	now = now.Add(time.Minute)
	take("a", true)
	take("a", true)
	// Full: refused until the first event (14 minutes ago) leaves the window, and a refusal
	// is not recorded.
	if wait := take("a", false); wait != 14*time.Minute {
		t.Fatalf("retry after %s, want 14m", wait)
	}
	take("b", true) // keys are independent
	now = now.Add(14 * time.Minute)
	take("a", true)
	take("a", false)

	// Give takes back the latest event; Forget clears the key.
	w.Give("a")
	take("a", true)
	w.Forget("a")
	for range 3 {
		take("a", true)
	}
	take("a", false)

	// Keys whose events all left the window are swept.
	now = now.Add(time.Hour)
	take("c", true)
	if len(w.events) != 1 {
		t.Fatalf("%d keys kept, want 1", len(w.events))
	}

	// 0 allows everything; so does a nil window.
	for _, off := range []*Window{NewWindow(0, time.Minute), nil} {
		for range 10 {
			if ok, _ := off.Take("a"); !ok {
				t.Fatal("an unlimited window refused")
			}
		}
		off.Give("a")
		off.Forget("a")
	}
}
