package live_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
)

// bigClips is an animator.setClips op of about 200 KB.
func bigClips(n int) map[string]any {
	clips := make([]any, 1000)
	for i := range clips {
		clips[i] = map[string]any{"id": fmt.Sprintf("%04d-%d-%s", i, n, strings.Repeat("x", 180))}
	}
	return map[string]any{"op": "animator.setClips", "clips": clips}
}

// TestStalledReader: one client opens the stream and never reads. Writes stay acknowledged
// promptly, a healthy watcher keeps receiving every version without a long pause, and the
// stalled client is dropped.
func TestStalledReader(t *testing.T) {
	f := setup(t)
	an := f.s.Document(f.ann, f.w, "Rig", "animator")
	path := f.docPath(an) + "/events"

	// The stalled client: a raw socket with a tiny receive buffer that is never read.
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	stalled, err := d.Dial("tcp", strings.TrimPrefix(f.s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	fmt.Fprintf(stalled, "GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nAccept: text/event-stream\r\n\r\n", path, f.ann.Key)

	healthy := f.s.Stream(f.ann.Key, path)
	healthy.Expect(t, "snapshot")
	deadline := time.Now().Add(5 * time.Second)
	for f.s.LW.Live.Connections() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}

	const writes = 120 // ~200 KB each: more than the socket buffers and r3labs queues hold
	var received []time.Time
	var mu sync.Mutex
	done := make(chan error, 1)
	go func() {
		for v := 1; v <= writes+1; v++ {
			ev, err := healthy.NextOf("ops", 10*time.Second)
			if err != nil {
				done <- err
				return
			}
			if ev.ID != strconv.Itoa(v) {
				done <- fmt.Errorf("healthy watcher got version %s, want %d", ev.ID, v)
				return
			}
			mu.Lock()
			received = append(received, time.Now())
			mu.Unlock()
		}
		done <- nil
	}()
	var slowest time.Duration
	start := time.Now()
	f.write(t, an, map[string]any{"ops": []any{bigClips(0)}})
	for i := 1; i <= writes; i++ {
		t0 := time.Now()
		f.write(t, an, map[string]any{"ops": []any{bigClips(i)}})
		slowest = max(slowest, time.Since(t0))
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	prev := start
	var longest time.Duration
	for _, at := range received {
		longest = max(longest, at.Sub(prev))
		prev = at
	}
	mu.Unlock()
	if longest > 2*time.Second {
		t.Fatalf("the healthy watcher paused for %s", longest)
	}
	if slowest > 2*time.Second {
		t.Fatalf("a write took %s with a stalled reader", slowest)
	}
	// The stalled client was dropped.
	deadline = time.Now().Add(5 * time.Second)
	for f.s.LW.Live.Connections() != 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := f.s.LW.Live.Connections(); n != 1 {
		t.Fatalf("%d connections, want only the healthy one", n)
	}
}

// TestConnectDisconnectLeaksNothing: 1,000 watchers come and go; goroutines return to the
// baseline.
func TestConnectDisconnectLeaksNothing(t *testing.T) {
	f := setup(t)
	path := f.s.URL + f.docPath(f.tl) + "/events"
	tr := &http.Transport{DisableKeepAlives: true}
	client := &http.Client{Transport: tr}
	cycle := func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", path, nil)
		req.Header.Set("Authorization", "Bearer "+f.ann.Key)
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(res.Body).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "id: ") {
			t.Fatalf("first line %q %v", line, err)
		}
		cancel()
		res.Body.Close()
	}
	cycle()
	waitConns(t, f, 0)
	time.Sleep(100 * time.Millisecond)
	base := runtime.NumGoroutine()
	for i := 0; i < 1000; i++ {
		cycle()
	}
	waitConns(t, f, 0)
	tr.CloseIdleConnections()
	var n int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if n = runtime.NumGoroutine(); n <= base+3 {
			return
		}
	}
	buf := make([]byte, 1<<20)
	t.Fatalf("goroutines %d after 1000 cycles, baseline %d\n%s", n, base, buf[:runtime.Stack(buf, true)])
}

func waitConns(t *testing.T, f fixture, want int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if f.s.LW.Live.Connections() == want {
			return
		}
	}
	t.Fatalf("%d stream connections, want %d", f.s.LW.Live.Connections(), want)
}

// TestShutdownTellsClientsToRetry: on SIGTERM every stream gets a retry hint and ends.
func TestShutdownTellsClientsToRetry(t *testing.T) {
	f := setup(t)
	doc := f.s.Stream(f.ann.Key, f.docPath(f.tl)+"/events")
	doc.Expect(t, "presence")
	world := f.s.Stream(f.ann.Key, "/api/v1/worlds/"+f.w+"/events")
	world.Expect(t, "ready")
	f.s.Stop()
	for _, st := range []*apptest.Stream{doc, world} {
		ev, err := st.Next(5 * time.Second)
		if err != nil || ev.Retry == "" {
			t.Fatalf("no retry before close: %+v %v", ev, err)
		}
		if err := st.Closed(5 * time.Second); err != nil {
			t.Fatal(err)
		}
	}
}
