package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// loneFor is how long the lone writer runs before the load, and again after it.
func loneFor(b *bench) time.Duration {
	if b.quick {
		return time.Second
	}
	return 3 * time.Second
}

// loadTarget is the load's server: --url's, or a server in a child process of its own (the
// bench re-executes itself), as the clients of a real server are other processes on other
// machines. In the bench's own process the server's goroutines would queue behind 100
// clients' in one Go scheduler, and a request's wait there would count as the server's.
func (b *bench) loadTarget() (*target, error) {
	if b.url != "" {
		return b.newTarget()
	}
	p, err := spawnServer(serverChildConfig{RequestLog: b.requestLog})
	if err != nil {
		return nil, err
	}
	return &target{c: newClient(p.ready.URL), key: p.ready.Key, child: p}, nil
}

// runLoad is the load test of issue 7: 100 concurrent clients for 60 s (10 s with --quick)
// mixing single-document reads, content writes, searches, document lists and creates, while
// some of them watch documents over SSE (reconnecting now and then). It prints a latency row
// per kind of request and checks the two goals: no 5xx at all, and every acknowledged write
// present afterwards.
func (b *bench) runLoad() error {
	t, err := b.loadTarget()
	if err != nil {
		return err
	}
	defer t.close()
	w, err := t.world("Load world")
	if err != nil {
		return err
	}
	const docs = 50
	ids, err := t.documents(w, "timeline", docs)
	if err != nil {
		return err
	}
	clients, d := 100, 60*time.Second
	if b.quick {
		d = 10 * time.Second
	}
	const watchers = 20 // of the 100 clients

	kinds := []string{"read", "write", "search", "list", "create", "watch"}
	lat := map[string]*stats{}
	for _, k := range kinds {
		lat[k] = &stats{}
	}
	var mu sync.Mutex
	var fivexx, other atomic.Int64
	var firstBad atomic.Value
	acked := make([][]string, docs)

	// send makes one request and reports its status (0 when the request failed).
	send := func(method, path string, body []byte) (int, []byte) {
		var rd io.Reader
		if body != nil {
			rd = strings.NewReader(string(body))
		}
		req, _ := http.NewRequest(method, t.c.base+path, rd)
		req.Header.Set("Authorization", bearer(t.key))
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := t.c.http.Do(req)
		if err != nil {
			return 0, nil
		}
		defer res.Body.Close()
		data, _ := io.ReadAll(res.Body)
		return res.StatusCode, data
	}
	record := func(kind string, start time.Time, status int, data []byte) bool {
		ok := status >= 200 && status < 300
		switch {
		case status >= 500:
			fivexx.Add(1)
			firstBad.CompareAndSwap(nil, fmt.Sprintf("%s: %d %.200s", kind, status, data))
		case !ok:
			other.Add(1)
			firstBad.CompareAndSwap(nil, fmt.Sprintf("%s: %d %.200s", kind, status, data))
		}
		mu.Lock()
		if ok {
			lat[kind].lat = append(lat[kind].lat, time.Since(start))
		} else {
			lat[kind].errors++
		}
		mu.Unlock()
		return ok
	}

	// addEvent sends one timeline.addEvent with a unique label to document doc and records
	// it under kind; an acknowledged label is checked for afterwards.
	addEvent := func(kind string, doc int, label string, dateMs int) {
		start := time.Now()
		body := mustJSON(map[string]any{"ops": []any{map[string]any{"op": "timeline.addEvent", "label": label, "dateMs": dateMs}}})
		status, data := send(http.MethodPost, "/api/v1/worlds/"+w+"/documents/"+ids[doc]+"/content", body)
		if record(kind, start, status, data) {
			mu.Lock()
			acked[doc] = append(acked[doc], label)
			mu.Unlock()
		}
	}
	// The baseline of the write row: the same write sent alone by one client to the same
	// server, half before the load and half after it (when the timelines hold the load's
	// events too).
	lone := func(part string) {
		rng := rand.New(rand.NewPCG(uint64(len(part)), 11))
		end := time.Now().Add(loneFor(b))
		for i := 0; time.Now().Before(end); i++ {
			addEvent("lone", rng.IntN(docs), fmt.Sprintf("lone-%s-%d", part, i), i)
		}
	}
	lat["lone"] = &stats{}
	lone("before")

	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			if c < watchers {
				watchLoop(b, t, w, ids, c, rng, deadline, func(start time.Time, ok bool) {
					status := 200
					if !ok {
						status = 0
					}
					record("watch", start, status, nil)
				})
				return
			}
			for i := 0; time.Now().Before(deadline); i++ {
				doc := rng.IntN(docs)
				start := time.Now()
				switch p := rng.IntN(100); {
				case p < 40:
					status, data := send(http.MethodGet, "/api/v1/worlds/"+w+"/documents/"+ids[doc], nil)
					record("read", start, status, data)
				case p < 70:
					addEvent("write", doc, fmt.Sprintf("c%d-n%d", c, i), i)
				case p < 85:
					q := url.QueryEscape(fmt.Sprintf("c%d", rng.IntN(clients)))
					status, data := send(http.MethodGet, "/api/v1/worlds/"+w+"/search?q="+q, nil)
					record("search", start, status, data)
				case p < 95:
					status, data := send(http.MethodGet, "/api/v1/worlds/"+w+"/documents?perPage=50", nil)
					record("list", start, status, data)
				default:
					status, data := send(http.MethodPost, "/api/v1/worlds/"+w+"/documents", createDocBody)
					record("create", start, status, data)
				}
			}
		}(c)
	}
	wg.Wait()
	elapsed := d
	lone("after")
	alone := lat["lone"]
	alone.sort()

	// Every acknowledged write must be in its document.
	dropped, total := 0, 0
	for i, id := range ids {
		var doc struct {
			Content struct {
				Data struct{ Events []struct{ Label string } }
			}
		}
		if err := t.c.do(http.MethodGet, "/api/v1/worlds/"+w+"/documents/"+id, bearer(t.key), nil, http.StatusOK, &doc); err != nil {
			return err
		}
		have := map[string]bool{}
		for _, e := range doc.Content.Data.Events {
			have[e.Label] = true
		}
		for _, l := range acked[i] {
			total++
			if !have[l] {
				dropped++
			}
		}
	}

	for _, k := range kinds {
		s := lat[k]
		s.elapsed = elapsed
		s.sort()
		nan := math.NaN()
		r := Row{Scenario: "load: " + k, Clients: clients, Ops: s.ops(), Errors: s.errors, P50: s.pct(50), P95: s.pct(95), P99: s.pct(99),
			Rate: s.throughput(), Unit: "ops/s", BaseP50: nan, BaseP95: nan, BaseRate: nan, LatRatio: nan, RateRatio: nan}
		if k == "watch" {
			r.Note = "latency = stream open to snapshot"
		}
		if k == "write" {
			// Judged against the same write alone: waiting behind 99 other clients' requests
			// on 2 cores is expected, a write's own cost growing under load is not.
			r.Baseline, r.BaseOps, r.BaseP50, r.BaseP95 = "the same write alone, 1 client", alone.ops(), alone.pct(50), alone.pct(95)
			r.LatRatio = r.P50 / r.BaseP50
			p99 := r.P99 / r.BaseP50
			r.goal("p50 ≤ 10x, p99 ≤ 40x lone p50", r.LatRatio <= 10 && p99 <= 40)
			r.Note = fmt.Sprintf("p99 %.1fx the lone write's p50; lone: %d writes, half before the load and half after", p99, alone.ops())
		}
		b.add(r)
	}
	nan := math.NaN()
	summary := Row{Scenario: "load: 5xx answers", Clients: clients, Ops: int(fivexx.Load()), P50: nan, P95: nan, P99: nan, Rate: float64(fivexx.Load()), Unit: "5xx",
		BaseP50: nan, BaseP95: nan, BaseRate: nan, LatRatio: nan, RateRatio: nan,
		Note: fmt.Sprintf("%s with %d clients (%d watching); other non-2xx: %d", d, clients, watchers, other.Load())}
	if v := firstBad.Load(); v != nil {
		summary.Note = joinNote(summary.Note, "first: "+v.(string))
	}
	summary.goal("zero 5xx", fivexx.Load() == 0)
	b.add(summary)
	lost := Row{Scenario: "load: acknowledged writes lost", Clients: clients, Ops: total, P50: nan, P95: nan, P99: nan, Rate: float64(dropped), Unit: "lost",
		BaseP50: nan, BaseP95: nan, BaseRate: nan, LatRatio: nan, RateRatio: nan, Note: fmt.Sprintf("%d writes acknowledged", total)}
	lost.goal("zero lost", dropped == 0)
	b.add(lost)
	return nil
}

// watchLoop watches random documents, reading their events for a few seconds at a time,
// until the deadline; each stream opened is reported with the time to its snapshot.
func watchLoop(b *bench, t *target, w string, ids []string, c int, rng *rand.Rand, deadline time.Time, report func(time.Time, bool)) {
	sc := streamClient()
	defer sc.CloseIdleConnections()
	for time.Now().Before(deadline) {
		start := time.Now()
		wt, err := openOurs(sc, t.c.base, t.key, "/api/v1/worlds/"+w+"/documents/"+ids[rng.IntN(len(ids))]+"/events")
		report(start, err == nil)
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		stay := time.Duration(2+rng.IntN(5)) * time.Second
		timer := time.AfterFunc(min(stay, time.Until(deadline)), wt.close)
		for {
			if _, err := wt.rd.next(); err != nil {
				break
			}
		}
		timer.Stop()
		wt.close()
	}
}
