package ratelimit

import (
	"fmt"
	"sync"
	"time"

	"github.com/loreweave/loreweave/app/apierr"
)

// RetryAfterSlots is the Retry-After of a request refused by Slots.
const RetryAfterSlots = 5 * time.Second

// Slots bounds how many of something each key may hold at once: event streams per user,
// open streams per client address. Each holds a connection and a file descriptor until it
// ends, so unlike requests they are counted while they last, not as they start.
type Slots struct {
	max int
	// what names the things and the key in the refusal: "event streams", "for this user".
	what, of string

	mu   sync.Mutex
	held map[string]int
}

// NewSlots returns max slots per key (0: no limit); what and of name the things held and
// whose they are in the refusal's message ("event streams", "for this user").
func NewSlots(max int, what, of string) *Slots {
	return &Slots{max: max, what: what, of: of, held: map[string]int{}}
}

// Take takes one of key's slots, to be given back by calling release once. When key holds
// them all it is refused with 429 rate_limited, saying how many are held and the limit.
func (s *Slots) Take(key string) (release func(), err *apierr.Error) {
	if s == nil || s.max <= 0 {
		return func() {}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.held[key]; n >= s.max {
		err := Error(RetryAfterSlots)
		err.Message = fmt.Sprintf("%d %s are already open %s, the most allowed at once is %d; close one and retry", n, s.what, s.of, s.max)
		return nil, err.With("openStreams", n).With("limit", s.max)
	}
	s.held[key]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.held[key]--; s.held[key] <= 0 {
				delete(s.held, key)
			}
		})
	}, nil
}

// Held returns how many slots key holds.
func (s *Slots) Held(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held[key]
}
