package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"time"

	"github.com/loreweave/loreweave/app/live"
)

// runRSS: peak resident memory of the server with 10,000 documents in 100 worlds and 1,000
// watchers, while writes and searches run. The documents are inserted directly with their
// outbox rows, so the running indexer indexes them the way it indexes new documents. The
// watchers live in a child process; the bench's own clients (10 writers, 1 searcher) stay in
// this one and are counted. The baseline is the same process right after the server
// started, empty.
func (b *bench) runRSS() error {
	worlds, perWorld, watchers := 100, 100, 1000
	if b.quick {
		worlds, perWorld, watchers = 10, 100, 100
	}
	t, err := b.newTarget()
	if err != nil {
		return err
	}
	defer t.close()
	idle, err := settledRSS()
	if err != nil {
		return err
	}
	peakReset := resetPeakRSS() == nil
	var peak float64
	var peakMu sync.Mutex
	ctx, cancel := context.WithCancel(context.Background())
	sampled := make(chan struct{})
	go func() { // sampling backs up VmHWM where clear_refs is not allowed
		defer close(sampled)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if v, err := rssKiB("VmRSS"); err == nil {
				peakMu.Lock()
				peak = max(peak, v)
				peakMu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	defer func() { cancel(); <-sampled }()

	c := newCorpus(worlds, perWorld)
	type watched struct{ world, doc string }
	var targets []watched
	for w := range worlds {
		wid, err := t.world(fmt.Sprintf("World %d", w))
		if err != nil {
			return err
		}
		ids, err := bulkInsert(t.srv.PB, wid, c.seedDocs(w), true)
		if err != nil {
			return err
		}
		for _, id := range ids[:max(1, watchers/worlds)] {
			targets = append(targets, watched{wid, id})
		}
	}
	head, err := t.srv.LW.Store.OutboxHead()
	if err != nil {
		return err
	}
	logf("rss: %d documents inserted; waiting for the indexer", worlds*perWorld)
	if err := waitIndexed(t.srv.LW, uint64(worlds*perWorld), head); err != nil {
		return err
	}
	paths := make([]string, len(targets))
	for i, tg := range targets {
		paths[i] = "/api/v1/worlds/" + tg.world + "/documents/" + tg.doc + "/events"
	}
	// One user may hold only live.MaxStreamsPerUser streams: the watchers are readers of their
	// own (watcher i is user i mod len(keys), a viewer of the world it watches), as a
	// thousand people watching would be.
	perUser := live.MaxStreamsPerUser - 10
	keys := make([]string, (watchers+perUser-1)/perUser)
	users := make([]benchUser, len(keys))
	for i := range keys {
		if users[i], err = t.srv.newUser(fmt.Sprintf("watcher%d", i)); err != nil {
			return err
		}
		keys[i] = users[i].Key
	}
	member := map[[2]string]bool{}
	for i := range watchers {
		u, w := users[i%len(users)].ID, targets[i%len(targets)].world
		if !member[[2]string{u, w}] {
			member[[2]string{u, w}] = true
			if _, err := t.srv.LW.Store.AddMember(w, u, "viewer"); err != nil {
				return err
			}
		}
	}
	logf("rss: opening %d watchers (%d users)", watchers, len(keys))
	child, err := spawnWatchers(watcherChild{URL: t.c.base, Kind: "ours", Auths: keys, Paths: paths, N: watchers})
	if err != nil {
		return err
	}
	defer child.stop()

	logf("rss: writes and searches for %s", b.dur)
	rngs := workerRands(11)
	queries := c.queries(0, 20)
	s := load(11, b.dur, func(w, i int) error {
		if w == 10 {
			tg := targets[rngs[w].IntN(len(targets))]
			q := queries[i%len(queries)].ours[i%20]
			return t.c.do(http.MethodGet, "/api/v1/worlds/"+tg.world+"/search?q="+url.QueryEscape(q), bearer(t.key), nil, http.StatusOK, nil)
		}
		tg := targets[rngs[w].IntN(len(targets))]
		return t.c.do(http.MethodPost, "/api/v1/worlds/"+tg.world+"/documents/"+tg.doc+"/content", bearer(t.key),
			setPropertyOps(1+rand.IntN(3), i), http.StatusOK, nil)
	})
	if s.errors > 0 {
		logf("rss: %d errors under load, first: %v", s.errors, s.firstEr)
	}
	if b.memprofile != "" {
		b.writeHeapProfile()
	}
	// Where the memory is at the end of the load: anonymous (Go heap and stacks, SQLite's
	// page caches) or file-backed (Bleve's memory-mapped segments).
	anon, _ := rssKiB("RssAnon")
	file, _ := rssKiB("RssFile")
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	const mib = 1 << 20
	where := fmt.Sprintf("at the end of the load RSS was %.0f MiB anonymous + %.0f MiB file-backed (mapped index segments); Go heap in use %.0f MiB, stacks %.0f MiB, %d goroutines",
		anon/1024, file/1024, float64(m.HeapInuse)/mib, float64(m.StackInuse)/mib, runtime.NumGoroutine())
	cancel()
	<-sampled
	how := "sampled VmRSS every 20 ms"
	if peakReset {
		if hwm, err := rssKiB("VmHWM"); err == nil {
			peak, how = max(peak, hwm), "VmHWM (reset when the scenario started)"
		}
	}
	const kib = 1024
	r := valueRow(fmt.Sprintf("peak RSS: %d docs, %d worlds, %d watchers", worlds*perWorld, worlds, watchers), peak/kib, "MiB", "same process, empty server idle", idle/kib)
	r.Clients = watchers
	r.Ops = s.ops()
	r.Note = fmt.Sprintf("%s; includes the bench's own clients and the indexing of the new documents; %d writes and searches ran (%d errors); %s", how, s.ops(), s.errors, where)
	b.add(r)
	return nil
}
