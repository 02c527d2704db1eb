// Package ratelimit limits clients per key (a credential, a client address): token buckets
// for requests (a client may spend its whole minute's allowance at once, then earns it back
// steadily) and counting windows for rare, costly events (Window).
package ratelimit

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/loreweave/loreweave/app/apierr"
)

// Limiter limits requests per key (a credential id, a client address).
type Limiter struct {
	perMinute int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	swept   time.Time
}

// New returns a limiter of perMinute requests a minute per key; 0 allows everything.
func New(perMinute int) *Limiter {
	return &Limiter{perMinute: perMinute, buckets: map[string]*rate.Limiter{}, swept: time.Now()}
}

// Allow spends one request of key. When refused, retryAfter says when one is available.
func (l *Limiter) Allow(key string) (ok bool, retryAfter time.Duration) {
	if l == nil || l.perMinute <= 0 {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if now.Sub(l.swept) > 10*time.Minute {
		// Forget full buckets: they are indistinguishable from new ones.
		for k, b := range l.buckets {
			if b.TokensAt(now) >= float64(l.perMinute) {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b := l.buckets[key]
	if b == nil {
		b = rate.NewLimiter(rate.Limit(float64(l.perMinute)/60), l.perMinute)
		l.buckets[key] = b
	}
	if b.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - b.TokensAt(now)
	wait := time.Duration(math.Ceil(missing / (float64(l.perMinute) / 60) * float64(time.Second)))
	return false, max(wait, time.Second)
}

// Error is the 429 answer: code rate_limited with Retry-After in whole seconds.
func Error(retryAfter time.Duration) *apierr.Error {
	secs := Seconds(retryAfter)
	e := apierr.New(http.StatusTooManyRequests, "rate_limited", "too many requests; retry in %d s", secs).With("retryAfter", secs)
	e.Header = http.Header{"Retry-After": {strconv.Itoa(secs)}}
	return e
}

// Seconds is retryAfter in whole seconds, rounded up, as the Retry-After header wants it.
func Seconds(retryAfter time.Duration) int { return int(math.Ceil(retryAfter.Seconds())) }
