package api_test

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestSlowHeadersAreCut: a client that never finishes its request headers (slow loris) is
// disconnected instead of holding a connection forever.
func TestSlowHeadersAreCut(t *testing.T) {
	s := start(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /api/v1/me HTTP/1.1\r\nHost: x\r\n"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err = io.ReadAll(conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server kept a half-sent request open for %s", time.Since(start))
	}
}
