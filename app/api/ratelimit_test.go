package api_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

func TestRateLimits(t *testing.T) {
	s := start(t, apptest.WithRateLimits(5, 12))
	ann := s.NewUser("Ann")
	bob := s.NewUser("Bob")
	for i := 0; i < 5; i++ {
		s.Must(s.Get(ann.Key, "/api/v1/me"), http.StatusOK)
	}
	res := s.Get(ann.Key, "/api/v1/me")
	if res.Status != http.StatusTooManyRequests || res.ErrorCode() != "rate_limited" {
		t.Fatalf("6th request: %d %s", res.Status, res.Body)
	}
	if n, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || n < 1 || n > 60 {
		t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	// Another key has its own allowance, until the address runs out.
	for i := 0; i < 5; i++ {
		s.Must(s.Get(bob.Key, "/api/v1/me"), http.StatusOK)
	}
	// 12 per minute per address: 5 + 1 + 5 used; one more, then the address is limited,
	// whatever the credential (or none).
	s.Get("", "/api/v1/me")
	if res := s.Get("", "/api/v1/me"); res.Status != http.StatusTooManyRequests {
		t.Fatalf("address limit: %d", res.Status)
	}
}
