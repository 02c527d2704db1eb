package live

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/pocketbase/pocketbase/core"
)

// rawResponse writes an HTTP/1.1 response straight to a connection taken over from net/http.
// An idle stream then costs no net/http goroutines, buffers or handler stack: only its own
// small goroutines (see Hub.serve). The body is delimited by closing the connection.
type rawResponse struct {
	conn   net.Conn
	header http.Header
	wrote  bool
	err    error
}

// hijack takes the connection over when the server allows it (HTTP/1.x); ok is false
// otherwise (HTTP/2), and nothing has changed then.
func hijack(e *core.RequestEvent) (*rawResponse, bool) {
	if e.Request.ProtoMajor != 1 {
		return nil, false
	}
	conn, brw, err := http.NewResponseController(e.Response).Hijack()
	if err != nil {
		return nil, false
	}
	if brw != nil && brw.Reader.Buffered() > 0 {
		// The client sent more than the request (pipelining): not a plain stream client.
		_ = conn.Close()
		return nil, false
	}
	return &rawResponse{conn: conn, header: e.Response.Header().Clone()}, true
}

// Header implements http.ResponseWriter.
func (r *rawResponse) Header() http.Header { return r.header }

// WriteHeader writes the status line and headers.
func (r *rawResponse) WriteHeader(code int) {
	if r.wrote {
		return
	}
	r.wrote = true
	r.header.Del("Content-Length")
	r.header.Del("Transfer-Encoding")
	r.header.Set("Connection", "close")
	if r.header.Get("Date") == "" {
		r.header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", code, http.StatusText(code))
	_ = r.header.Write(&b)
	b.WriteString("\r\n")
	_, r.err = r.conn.Write(b.Bytes())
}

// Write implements http.ResponseWriter.
func (r *rawResponse) Write(p []byte) (int, error) {
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	if r.err != nil {
		return 0, r.err
	}
	return r.conn.Write(p)
}

// FlushError is what http.ResponseController calls: writes are not buffered.
func (r *rawResponse) FlushError() error { return r.err }

// SetWriteDeadline is what http.ResponseController calls.
func (r *rawResponse) SetWriteDeadline(t time.Time) error { return r.conn.SetWriteDeadline(t) }

// watchClose cancels the stream when the client closes its side (or sends anything, which a
// stream client never does).
func watchClose(conn net.Conn, cancel func()) {
	var b [1]byte
	_, _ = conn.Read(b[:])
	cancel()
}
