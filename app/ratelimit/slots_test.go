package ratelimit_test

import (
	"net/http"
	"testing"

	"github.com/loreweave/loreweave/app/ratelimit"
)

func TestSlots(t *testing.T) {
	s := ratelimit.NewSlots(2, "streams", "for this user")
	r1, err := s.Take("ann")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take("ann"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Take("ann")
	if err == nil || err.Status != http.StatusTooManyRequests || err.Code != "rate_limited" || err.Header.Get("Retry-After") == "" {
		t.Fatalf("third slot: %v", err)
	}
	if err.Message != "2 streams are already open for this user, the most allowed at once is 2; close one and retry" {
		t.Fatalf("message %q", err.Message)
	}
	if _, err := s.Take("bob"); err != nil {
		t.Fatalf("another key: %v", err)
	}
	// A release counts once, however often it is called.
	r1()
	r1()
	if n := s.Held("ann"); n != 1 {
		t.Fatalf("held after a double release: %d", n)
	}
	// 0 is no limit.
	off := ratelimit.NewSlots(0, "streams", "for this user")
	for range 10 {
		if _, err := off.Take("ann"); err != nil {
			t.Fatal(err)
		}
	}
}
