package live

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"
)

var errStreamClosed = errors.New("live: stream closed")

// streamWriter sits between r3labs/sse and the connection. It is where the sharp edges of
// r3labs are filed off:
//   - every write gets a short deadline; a write that fails cancels the request, so r3labs
//     drops the subscriber and a stalled reader holds up its stream for at most one deadline;
//   - the replay (snapshot or missed versions) is written on r3labs' first Flush, which comes
//     right after the subscriber is registered, so nothing falls between replay and live;
//   - events are parsed back into blocks: an event whose id is at or below what this client
//     already has is dropped (no duplicates), and a jump in ids is filled from the op log
//     before the event is written (no gaps, even when TryPublish dropped events).
type streamWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	cancel  context.CancelFunc
	timeout time.Duration

	// replay writes the initial events and returns the version the client then has.
	replay func(w *streamWriter) (int64, error)
	// fill writes the events of versions (from, to] and returns the version reached.
	fill func(w *streamWriter, from, to int64) (int64, error)
	// ready runs once the replay is written, when live events already reach this client.
	ready func()
	// versioned streams (documents) have ids that are document versions: ops events are
	// de-duplicated and gap-filled. Other streams (the world) only drop ids already sent.
	versioned bool

	mu       sync.Mutex
	pending  []byte
	last     int64
	replayed bool
	failed   bool
}

// Header implements http.ResponseWriter.
func (s *streamWriter) Header() http.Header { return s.w.Header() }

// WriteHeader implements http.ResponseWriter.
func (s *streamWriter) WriteHeader(code int) { s.w.WriteHeader(code) }

// Write receives r3labs' output and passes it on event by event.
func (s *streamWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed {
		return 0, errStreamClosed
	}
	s.pending = append(s.pending, p...)
	for {
		i := bytes.Index(s.pending, []byte("\n\n"))
		if i < 0 {
			break
		}
		block := s.pending[:i+2]
		s.emit(block)
		s.pending = s.pending[i+2:]
		if s.failed {
			return 0, errStreamClosed
		}
	}
	return len(p), nil
}

// Flush writes the replay the first time, then flushes with a deadline.
func (s *streamWriter) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed {
		return
	}
	if !s.replayed {
		s.replayed = true
		last, err := s.replay(s)
		if err != nil {
			s.fail()
			return
		}
		s.last = last
		if s.ready != nil {
			s.ready()
		}
	}
	s.flush()
}

// emit writes one complete event block, dropping duplicates and filling gaps.
func (s *streamWriter) emit(block []byte) {
	if !s.versioned {
		if id, ok := eventID(block); ok {
			if id <= s.last {
				return // the replay already covered it
			}
			s.last = id
		}
	} else {
		if id, ok := eventID(block); ok {
			isOps := bytes.Contains(block, []byte("\nevent: ops\n"))
			if bytes.Contains(block, []byte("\nevent: snapshot\n")) {
				// A live snapshot (a viewer's public form of a write) holds every version
				// up to its own: nothing to fill before it, and nothing older after it.
				if id > s.last {
					s.last = id
					s.write(block)
				}
				return
			}
			switch {
			case isOps && id <= s.last:
				return // already sent by the replay or a gap fill
			case isOps && id > s.last+1, !isOps && id > s.last:
				to := id
				if isOps {
					to = id - 1
				}
				reached, err := s.fill(s, s.last, to)
				if err != nil {
					s.fail()
					return
				}
				s.last = reached
				if isOps && id <= s.last {
					return // the fill was a fresh snapshot that already holds this event
				}
			}
			if isOps {
				s.last = id
			}
		}
	}
	s.write(block)
}

// eventID reads the "id:" line of an event block.
func eventID(block []byte) (int64, bool) {
	for _, line := range bytes.Split(block, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("id: ")); ok {
			n, err := strconv.ParseInt(string(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// write sends bytes to the client under a deadline; the caller holds mu.
func (s *streamWriter) write(b []byte) {
	if s.failed {
		return
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	if _, err := s.w.Write(b); err != nil {
		s.fail()
	}
}

func (s *streamWriter) flush() {
	if s.failed {
		return
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	if err := s.rc.Flush(); err != nil {
		s.fail()
	}
}

func (s *streamWriter) fail() {
	s.failed = true
	s.cancel()
}

// send writes one event (for replays, fills and shutdown notices) and flushes; the caller
// holds mu.
func (s *streamWriter) send(event string, id int64, data []byte) {
	var b bytes.Buffer
	if id >= 0 {
		b.WriteString("id: " + strconv.FormatInt(id, 10) + "\n")
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteString("event: " + event + "\n\n")
	s.write(b.Bytes())
}

// finish marks the response as done: the handler returned, so nothing may touch the
// connection any more.
func (s *streamWriter) finish() {
	s.mu.Lock()
	s.failed = true
	s.mu.Unlock()
}

// end sends a last event (with no id: the client's resume point stays), then ends the
// stream. Before the replay it does nothing: the response has not started, and the replay
// (which reads the current state) is left to say why the stream ends.
func (s *streamWriter) end(event string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed || !s.replayed {
		return
	}
	s.send(event, -1, data)
	s.flush()
	s.fail()
}

// close tells the client when to reconnect, then ends the stream.
func (s *streamWriter) close(retry time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if retry > 0 {
		s.write([]byte("retry: " + strconv.FormatInt(retry.Milliseconds(), 10) + "\n\n"))
		s.flush()
	}
	s.fail()
}
