package apptest

import (
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"time"
)

// Allocated returns how many bytes the whole process allocated while fn ran: the runtime's
// running total, so what fn allocated and freed again counts too. The server runs in the
// test's process, so this is what one request costs it (plus the test's own client); run it
// when nothing else is going on (see WaitSearchable).
func Allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// BigCardWrite is a card content request of about 1 MB of ops that leaves the card small:
// 500 card.setProperty ops rewriting ten keys with 1,900-character values. n varies the
// values, so every request changes the card.
func BigCardWrite(n int) map[string]any {
	value := strings.Repeat(string(rune('a'+n%26)), 1900)
	batch := make([]any, 500)
	for i := range batch {
		batch[i] = map[string]any{"op": "card.setProperty", "key": fmt.Sprintf("k%d", i%10), "value": value}
	}
	return map[string]any{"ops": batch}
}

// WaitSearchable waits until a search of the world for word finds something: the search
// indexer has then caught up with the write that added it (and every write before).
func (s *Server) WaitSearchable(key, worldID, word string) {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var r struct{ TotalItems int }
		res := s.Get(key, "/api/v1/worlds/"+worldID+"/search?q="+url.QueryEscape(word))
		if res.Status == http.StatusOK {
			res.JSON(s.t, &r)
			if r.TotalItems > 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("apptest: %q is not searchable after 10s", word)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
