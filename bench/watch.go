package main

import (
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loreweave/loreweave/app/live"
)

// watchSide is one system under the write-to-watcher measurement.
type watchSide struct {
	open  func(c *http.Client, i int) (watch, error) // the i-th watcher
	match func(ev sseEvent) bool
	write func(j int) error
}

// deliveries measures, for writes sent one at a time, the time from sending each write to
// each of n watchers receiving its event, and each write request's own round trip. The next
// write is sent once every watcher got the previous one.
func deliveries(n int, d time.Duration, minWrites int, side watchSide) (deliver, rtt stats, err error) {
	hc := streamClient()
	defer hc.CloseIdleConnections()
	ws, err := openMany(n, func(i int) (watch, error) { return side.open(hc, i) })
	if err != nil {
		return deliver, rtt, err
	}
	defer func() {
		for _, w := range ws {
			w.close()
		}
	}()

	const maxWrites = 2000
	t0 := time.Now()
	var (
		sent    [maxWrites]time.Duration
		arrived [maxWrites]atomic.Int32
		done    [maxWrites]chan struct{}
	)
	for j := range done {
		done[j] = make(chan struct{})
	}
	recv := make([][]time.Duration, n)
	var wg sync.WaitGroup
	for i, w := range ws {
		recv[i] = make([]time.Duration, 0, 256)
		wg.Add(1)
		go func(i int, w watch) {
			defer wg.Done()
			for {
				ev, err := w.rd.next()
				if err != nil {
					return
				}
				if !side.match(ev) {
					continue
				}
				j := len(recv[i])
				if j >= maxWrites {
					continue
				}
				recv[i] = append(recv[i], time.Since(t0))
				if arrived[j].Add(1) == int32(n) {
					close(done[j])
				}
			}
		}(i, w)
	}

	// A few writes nobody measures warm the path up.
	writes := 0
	end := time.Now().Add(d)
	for j := 0; j < maxWrites && (j < minWrites || time.Now().Before(end)); j++ {
		sent[j] = time.Since(t0)
		start := time.Now()
		if err := side.write(j); err != nil {
			return deliver, rtt, err
		}
		rtt.lat = append(rtt.lat, time.Since(start))
		select {
		case <-done[j]:
		case <-time.After(15 * time.Second):
			return deliver, rtt, fmt.Errorf("write %d reached %d of %d watchers within 15s", j, arrived[j].Load(), n)
		}
		writes++
		time.Sleep(time.Millisecond)
	}
	rtt.elapsed = time.Since(t0)
	for _, w := range ws {
		w.close()
	}
	wg.Wait()
	const skip = 3 // warm-up writes
	for i := range recv {
		for j := skip; j < min(writes, len(recv[i])); j++ {
			deliver.lat = append(deliver.lat, recv[i][j]-sent[j])
		}
	}
	if writes > skip {
		rtt.lat = rtt.lat[skip:]
	}
	deliver.sort()
	rtt.sort()
	return deliver, rtt, nil
}

// watchFixture is one card document watched on our side and one bench record on
// PocketBase's.
type watchFixture struct {
	world, doc, record string
	// keys are the API keys the watchers of our side take turns with: one user may hold only
	// live.MaxStreamsPerUser streams, so locally they are editors of the world of their own
	// (on the owner's kind of stream, as the bench user); remotely, the bench's key.
	keys []string
}

func (t *target) watchFixture() (watchFixture, error) {
	var f watchFixture
	var err error
	if f.world, err = t.world("Watch bench"); err != nil {
		return f, err
	}
	docs, err := t.documents(f.world, "card", 1)
	if err != nil {
		return f, err
	}
	f.doc = docs[0]
	if err := t.c.do(http.MethodPost, f.contentPath(), bearer(t.key), setPropertyOps(10, 0), http.StatusOK, nil); err != nil {
		return f, err
	}
	f.keys = []string{t.key}
	if !t.remote() {
		recs, err := t.srv.createBenchRecords(1, map[string]any{"properties": properties(0)})
		if err != nil {
			return f, err
		}
		f.record = recs[0]
		perUser := live.MaxStreamsPerUser - 10
		f.keys = nil
		for i := range (1000 + perUser - 1) / perUser {
			u, err := t.srv.newUser(fmt.Sprintf("watch%d", i))
			if err != nil {
				return f, err
			}
			if _, err := t.srv.LW.Store.AddMember(f.world, u.ID, "editor"); err != nil {
				return f, err
			}
			f.keys = append(f.keys, u.Key)
		}
	}
	return f, nil
}

func (f watchFixture) eventsPath() string {
	return "/api/v1/worlds/" + f.world + "/documents/" + f.doc + "/events"
}

func (f watchFixture) contentPath() string {
	return "/api/v1/worlds/" + f.world + "/documents/" + f.doc + "/content"
}

func (f watchFixture) topic() string { return benchCollection + "/" + f.record }

// Hocuspocus's published figures (issue 4), the goals of the watcher scenario.
var hocuspocus = map[int]struct {
	p50, p95 float64
	text     string
}{
	1:    {2.4, 0, "p50 < 2.4 ms (Hocuspocus)"},
	100:  {7.7, 0, "p50 < 7.7 ms (Hocuspocus 7.7–9.9)"},
	1000: {27, 60, "p50 < 27, p95 < 60 ms (Hocuspocus)"},
}

// runWatch: write-to-watcher latency with 1, 100 and 1,000 watchers of one document, next
// to PocketBase realtime on the same instance and to the write request alone; then server
// memory per idle watcher.
func (b *bench) runWatch() error {
	t, err := b.newTarget()
	if err != nil {
		return err
	}
	defer t.close()
	f, err := t.watchFixture()
	if err != nil {
		return err
	}
	ours := watchSide{
		open: func(c *http.Client, i int) (watch, error) {
			return openOurs(c, t.c.base, f.keys[i%len(f.keys)], f.eventsPath())
		},
		match: func(ev sseEvent) bool { return ev.event == "ops" },
		write: func(j int) error {
			return t.c.do(http.MethodPost, f.contentPath(), bearer(t.key), setPropertyOps(1, j), http.StatusOK, nil)
		},
	}
	pb := watchSide{
		open:  func(c *http.Client, _ int) (watch, error) { return openPB(c, t.c.base, t.pbAuth, f.topic()) },
		match: func(ev sseEvent) bool { return ev.event == f.topic() },
		write: func(j int) error {
			body := mustJSON(map[string]any{"data": map[string]any{"properties": properties(j)}})
			return t.c.do(http.MethodPatch, pbRecords+"/"+f.record, t.pbAuth, body, http.StatusOK, nil)
		},
	}
	counts := []int{1, 100, 1000}
	minWrites := 50
	if b.quick {
		counts, minWrites = []int{1, 100}, 15
	}
	for _, n := range counts {
		logf("watch: %d watchers (ours)", n)
		deliver, rtt, err := deliveries(n, b.dur, minWrites, ours)
		if err != nil {
			return fmt.Errorf("%d watchers: %w", n, err)
		}
		var pbDeliver, pbRTT stats
		pbName, pbWriteName := "-", "-"
		if !t.remote() {
			logf("watch: %d watchers (PocketBase realtime)", n)
			if pbDeliver, pbRTT, err = deliveries(n, b.dur, minWrites, pb); err != nil {
				return fmt.Errorf("%d PocketBase realtime watchers: %w", n, err)
			}
			pbName, pbWriteName = "PB realtime: update→subscriber", "PB record update alone"
		}
		r := latencyRow(fmt.Sprintf("write→watcher, %d watchers", n), n, deliver, pbName, pbDeliver)
		r.Clients = n
		r.Rate, r.BaseRate, r.RateRatio = nanf(), nanf(), nanf()
		if g, ok := hocuspocus[n]; ok {
			met := r.P50 < g.p50 && (g.p95 == 0 || r.P95 < g.p95)
			r.goal(g.text, met)
		}
		where := "the watchers are goroutines of the bench in the server's own process, sharing its cores"
		if t.remote() {
			where = "the watchers are goroutines of the bench process"
		}
		r.Note = fmt.Sprintf("%d watchers × %d writes, each sent once every watcher had the previous one; %s", n, rtt.ops(), where)
		b.add(r)
		wr := latencyRow(fmt.Sprintf("write request alone, %d watchers", n), 1, rtt, pbWriteName, pbRTT)
		wr.Rate, wr.BaseRate, wr.RateRatio = nanf(), nanf(), nanf()
		b.add(wr)
	}
	if t.remote() {
		return nil // memory is read from the server's own process
	}
	return b.idleWatcherMemory(t, f)
}

// idleWatcherMemory: the server's RSS growth for idle watchers held by a child process
// (so the clients' own memory is not counted), per watcher, ours and PocketBase realtime's.
func (b *bench) idleWatcherMemory(t *target, f watchFixture) error {
	n := 1000
	if b.quick {
		n = 100
	}
	// perWatcher returns KiB per watcher: RSS, and of it Go heap and goroutine stacks; and
	// the server goroutines per watcher.
	perWatcher := func(c watcherChild) (rss, heap, stack, goroutines float64, err error) {
		before, err := settledRSS()
		if err != nil {
			return 0, 0, 0, 0, err
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		g0 := runtime.NumGoroutine()
		p, err := spawnWatchers(c)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		defer p.stop()
		time.Sleep(time.Second)
		after, err := settledRSS()
		if err != nil {
			return 0, 0, 0, 0, err
		}
		runtime.ReadMemStats(&m1)
		g := float64(runtime.NumGoroutine()-g0) / float64(n)
		per := func(a, b uint64) float64 { return (float64(b) - float64(a)) / 1024 / float64(n) }
		return (after - before) / float64(n), per(m0.HeapInuse, m1.HeapInuse), per(m0.StackInuse, m1.StackInuse), g, nil
	}
	logf("watch: memory of %d idle watchers (ours)", n)
	ours, oursHeap, oursStack, oursG, err := perWatcher(watcherChild{URL: t.c.base, Kind: "ours", Auths: f.keys, Paths: []string{f.eventsPath()}, N: n})
	if err != nil {
		return err
	}
	time.Sleep(time.Second) // let the server notice the closed streams
	logf("watch: memory of %d idle watchers (PocketBase realtime)", n)
	pbm, pbHeap, pbStack, pbG, err := perWatcher(watcherChild{URL: t.c.base, Kind: "pb", Auth: t.pbAuth, Topic: f.topic(), N: n})
	if err != nil {
		return err
	}
	r := valueRow(fmt.Sprintf("memory per idle watcher (%d)", n), ours, "KiB", "PB realtime idle subscriber", pbm)
	r.Clients = n
	r.goal("≤ 30 KiB (Hocuspocus ~32)", ours <= 30)
	r.Note = fmt.Sprintf("server RSS growth (VmRSS after runtime.GC + debug.FreeOSMemory) ÷ watchers, watchers held by a child process so client memory is not counted; "+
		"of it Go heap %.1f and goroutine stacks %.1f KiB, %.1f goroutines per watcher (PocketBase: %.1f, %.1f KiB, %.1f goroutines)",
		oursHeap, oursStack, oursG, pbHeap, pbStack, pbG)
	b.add(r)
	return nil
}
