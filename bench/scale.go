package main

import (
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// runScale: the 10k, 100k and 1M-document instances (10, 100 and 1,000 worlds of 1,000
// documents, generated once and cached under scaleRoot), each served by a server child of
// its own. First the 1M instance restarts without its search index: the rebuild's docs/s
// against SQLite FTS5 building the same corpus, with reads and writes timed while it runs.
// Then all three start with their index (time to the first 200 of /api/health and of a
// document read), and a list page, a read, a content write, searches and era creation are
// measured on each, the 10k and 1M instances interleaved with the 100k one (their
// baseline); last, each child's peak RSS.
func (b *bench) runScale() error {
	big := b.scaleWorlds
	if big == 0 {
		big = 1000
		if b.quick {
			big = 10
		}
	}
	small := max(1, big/100)
	base := max(small+1, big/10)
	sizes := []int{small, base, max(base+1, big)}
	logf("scale: instances cached in %s (delete that directory to free the disk; it is rebuilt on the next run)", scaleRoot())
	inst := make([]*scaleInstance, len(sizes))
	for i, w := range sizes {
		var err error
		if inst[i], err = ensureScaleInstance(w); err != nil {
			return err
		}
	}
	for _, in := range inst[:2] {
		if err := in.ensureIndex(); err != nil {
			return err
		}
	}
	large, mid := inst[2], inst[1]
	label := func(in *scaleInstance) string { return docsLabel(in.Docs) }
	if b.scaleRebuild {
		if err := b.runScaleRebuild(large); err != nil {
			return err
		}
	} else if err := large.ensureIndex(); err != nil {
		return err
	}

	// Start each instance alone, with its index present.
	procs := make([]*scaleProc, len(inst))
	defer func() {
		for _, p := range procs {
			if p != nil {
				p.stop()
			}
		}
	}()
	starts := make([]time.Duration, len(inst))
	for i, in := range inst {
		p, took, err := in.startTimed("")
		if err != nil {
			return err
		}
		procs[i], starts[i] = p, took
		logf("scale: %s started (health and a read answered) in %s", label(in), took.Round(time.Millisecond))
	}
	// What a server does in the background after it answers (the search index's check
	// against the database, segment merges) is timed, then left to finish: the figures
	// below are of the running servers, not of their first minutes.
	quiet := make([]time.Duration, len(procs))
	for i, p := range procs {
		quiet[i] = p.waitQuiet(15 * time.Minute)
		logf("scale: %s quiet %s after it answered", label(inst[i]), quiet[i].Round(time.Second))
	}
	st := valueRow("scale: server start, index present, "+label(large), starts[2].Seconds(), "s", "server start, "+label(mid), starts[1].Seconds())
	st.goal("≤ 5 s", starts[2] <= 5*time.Second)
	st.Note = fmt.Sprintf("from exec of the server process to the first 200 of GET /api/health and then of a document read; then busy in the background (search index check, merges) for %s more (%s: %s)",
		quiet[2].Round(time.Second), label(mid), quiet[1].Round(time.Second))
	b.add(st)

	// The measured operations, on one instance each; the 10k and 1M instances are measured
	// interleaved with the 100k one.
	growth := map[string][]stats{}
	var order []string
	measure := func(name string, mk func(in *scaleInstance, c *client) op, byP95 bool) {
		order = append(order, name)
		cs := make([]*client, len(inst))
		for i, p := range procs {
			cs[i] = newClient(p.URL)
		}
		defer func() {
			for _, c := range cs {
				c.close()
			}
		}()
		small, baseA := pair(1, b.dur, mk(inst[0], cs[0]), mk(mid, cs[1]))
		bigS, baseB := pair(1, b.dur, mk(large, cs[2]), mk(mid, cs[1]))
		baseA.merge(baseB)
		baseA.sort()
		growth[name] = []stats{small, baseA, bigS}
		for _, side := range []struct {
			in *scaleInstance
			s  stats
		}{{inst[0], small}, {large, bigS}} {
			r := latencyRow(fmt.Sprintf("scale: %s, %s", name, label(side.in)), 1, side.s, name+", "+label(mid), baseA)
			if side.in == large {
				if byP95 {
					r.goal("p95 ≤ 1.5x the 100k figure", r.P95 <= 1.5*r.BaseP95)
				} else {
					r.goal("p50 ≤ 1.5x the 100k figure", r.LatRatio <= 1.5)
				}
			}
			b.add(r)
		}
	}
	measure("list page", func(in *scaleInstance, c *client) op {
		w := in.Worlds[in.measuredWorld()]
		return func(int, int) error {
			return c.do(http.MethodGet, "/api/v1/worlds/"+w+"/documents", bearer(in.Key), nil, http.StatusOK, nil)
		}
	}, false)
	measure("single read", func(in *scaleInstance, c *client) op {
		w := in.Worlds[in.measuredWorld()]
		return func(int, int) error {
			return c.do(http.MethodGet, "/api/v1/worlds/"+w+"/documents/"+in.Card, bearer(in.Key), nil, http.StatusOK, nil)
		}
	}, false)
	measure("content write, 1 op", func(in *scaleInstance, c *client) op {
		w := in.Worlds[in.measuredWorld()]
		return func(_, i int) error {
			return c.do(http.MethodPost, "/api/v1/worlds/"+w+"/documents/"+in.Card+"/content", bearer(in.Key), setPropertyOps(1, i), http.StatusOK, nil)
		}
	}, false)
	queries := scaleQueries(inst[0].measuredWorld(), large.measuredWorld(), mid.measuredWorld())
	measure("search", func(in *scaleInstance, c *client) op {
		w := in.Worlds[in.measuredWorld()]
		qs := queries[in.measuredWorld()]
		return func(_, i int) error {
			return c.do(http.MethodGet, "/api/v1/worlds/"+w+"/search?q="+url.QueryEscape(qs[i%len(qs)]), bearer(in.Key), nil, http.StatusOK, nil)
		}
	}, true)
	measure("era creation", func(in *scaleInstance, c *client) op {
		w := in.Worlds[in.measuredWorld()]
		return func(_, i int) error {
			var e struct{ ID string }
			if err := c.do(http.MethodPost, "/api/v1/worlds/"+w+"/eras", bearer(in.Key), mustJSON(map[string]any{"name": fmt.Sprintf("Age %d", i)}), http.StatusCreated, &e); err != nil {
				return err
			}
			// Deleted again (timed too), so the instance keeps its eras from run to run.
			return c.do(http.MethodDelete, "/api/v1/worlds/"+w+"/eras/"+e.ID, bearer(in.Key), nil, http.StatusNoContent, nil)
		}
	}, false)

	for i, p := range procs {
		kib, err := p.peakRSS()
		if err != nil {
			return err
		}
		if i == 2 {
			r := valueRow("scale: peak RSS, "+label(large), kib/1024, "MiB", "peak RSS, "+label(mid), 0)
			base, _ := procs[1].peakRSS()
			r.BaseRate, r.RateRatio = base/1024, kib/base
			r.goal("stated", true)
			anon, _ := p.status("RssAnon")
			file, _ := p.status("RssFile")
			r.Note = fmt.Sprintf("VmHWM of the server process, from start through every measurement above; at the end %.0f MiB anonymous, %.0f MiB file-backed (mapped index segments, SQLite)", anon/1024, file/1024)
			b.add(r)
		}
	}

	var g strings.Builder
	fmt.Fprintf(&g, "growth (p50 ms, search p95 ms; 1 client), %s → %s → %s documents:\n", label(inst[0]), label(mid), label(large))
	fmt.Fprintf(&g, "  %-22s %10s %10s %10s %10s\n", "", label(inst[0]), label(mid), label(large), "1M÷100k")
	fmt.Fprintf(&g, "  %-22s %10.2f %10.2f %10.2f %9.2fx\n", "server start (s)", starts[0].Seconds(), starts[1].Seconds(), starts[2].Seconds(), starts[2].Seconds()/starts[1].Seconds())
	fmt.Fprintf(&g, "  %-22s %10.0f %10.0f %10.0f %9.2fx\n", "busy after start (s)", quiet[0].Seconds(), quiet[1].Seconds(), quiet[2].Seconds(), quiet[2].Seconds()/quiet[1].Seconds())
	for _, name := range order {
		s := growth[name]
		p := 50.0
		if name == "search" {
			p = 95
		}
		fmt.Fprintf(&g, "  %-22s %10.2f %10.2f %10.2f %9.2fx\n", name, s[0].pct(p), s[1].pct(p), s[2].pct(p), s[2].pct(p)/s[1].pct(p))
	}
	var rss [3]float64
	for i, p := range procs {
		rss[i], _ = p.peakRSS()
	}
	fmt.Fprintf(&g, "  %-22s %10.0f %10.0f %10.0f %9.2fx\n", "peak RSS (MiB)", rss[0]/1024, rss[1]/1024, rss[2]/1024, rss[2]/rss[1])
	b.texts = append(b.texts, g.String())
	return nil
}

// docsLabel is 10k, 100k, 1M.
func docsLabel(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func (in *scaleInstance) indexPath() string { return filepath.Join(in.Dir, "search.bleve") }

// ensureIndex builds the instance's search index if it has none (a first run), by starting
// its server and waiting for the start-up reconcile.
func (in *scaleInstance) ensureIndex() error {
	if _, err := os.Stat(in.indexPath()); err == nil {
		return nil
	}
	logf("scale: building the search index of the %s instance", docsLabel(in.Docs))
	p, err := startScaleServer(scaleServer{Dir: in.Dir, Docs: in.Docs})
	if err != nil {
		return err
	}
	defer p.stop()
	select {
	case t := <-p.indexed:
		logf("scale: %s indexed in %s", docsLabel(in.Docs), t.Sub(p.started).Round(time.Millisecond))
		return nil
	case <-time.After(2 * time.Hour):
		return errors.New("scale: index not built after 2 hours")
	}
}

// startTimed starts the instance's server child and returns once GET /api/health and a
// document read both answered 200, with how long that took from the exec.
func (in *scaleInstance) startTimed(cpuprofile string) (*scaleProc, time.Duration, error) {
	p, err := startScaleServer(scaleServer{Dir: in.Dir, Docs: in.Docs, CPUProfile: cpuprofile})
	if err != nil {
		return nil, 0, err
	}
	c := newClient(p.URL)
	defer c.close()
	w := in.Worlds[in.measuredWorld()]
	deadline := time.Now().Add(10 * time.Minute)
	for _, path := range []string{"/api/health", "/api/v1/worlds/" + w + "/documents/" + in.Card} {
		for {
			err := c.do(http.MethodGet, path, bearer(in.Key), nil, http.StatusOK, nil)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				p.stop()
				return nil, 0, fmt.Errorf("scale: %s not answered: %w", path, err)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return p, time.Since(p.started), nil
}

// runScaleRebuild restarts the large instance without its search index: the rebuild's rate
// against FTS5 building the same corpus, and reads and writes timed while it runs.
func (b *bench) runScaleRebuild(in *scaleInstance) error {
	old := in.indexPath() + ".old"
	_ = os.RemoveAll(old)
	if err := os.Rename(in.indexPath(), old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	defer os.RemoveAll(old)
	logf("scale: restarting the %s instance without its search index", docsLabel(in.Docs))
	p, err := startScaleServer(scaleServer{Dir: in.Dir, Docs: in.Docs})
	if err != nil {
		return err
	}
	defer p.stop()
	c := newClient(p.URL)
	defer c.close()
	w := in.Worlds[in.measuredWorld()]
	// Reads and writes, one client each, from the server's first answer to the index's end.
	var mu sync.Mutex
	var reads, writes stats
	var indexedAt time.Time
	stop := make(chan struct{})
	var wg sync.WaitGroup
	loop := func(into *stats, fn func(i int) error) {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			t := time.Now()
			err := fn(i)
			mu.Lock()
			if err != nil {
				into.errors++
				if into.firstEr == nil {
					into.firstEr = err
				}
			} else {
				into.lat = append(into.lat, time.Since(t))
			}
			mu.Unlock()
			if err != nil {
				time.Sleep(5 * time.Millisecond)
			}
		}
	}
	if err := waitHealthy(c, 10*time.Minute); err != nil {
		return err
	}
	wg.Add(2)
	go loop(&reads, func(int) error {
		return c.do(http.MethodGet, "/api/v1/worlds/"+w+"/documents/"+in.Card, bearer(in.Key), nil, http.StatusOK, nil)
	})
	go loop(&writes, func(i int) error {
		return c.do(http.MethodPost, "/api/v1/worlds/"+w+"/documents/"+in.Card+"/content", bearer(in.Key), setPropertyOps(1, i), http.StatusOK, nil)
	})
	select {
	case indexedAt = <-p.indexed:
	case <-time.After(2 * time.Hour):
		close(stop)
		wg.Wait()
		return errors.New("scale: rebuild not done after 2 hours")
	}
	close(stop)
	wg.Wait()
	took := indexedAt.Sub(p.started)
	ours := float64(in.Docs) / took.Seconds()
	logf("scale: rebuilt the index of %d documents in %s (%.0f docs/s)", in.Docs, took.Round(time.Millisecond), ours)
	p.stop()

	logf("scale: building the FTS5 baseline of the same corpus")
	ftsTook, err := scaleFTS(in)
	if err != nil {
		return err
	}
	fts := float64(in.Docs) / ftsTook.Seconds()
	logf("scale: FTS5 indexed %d documents in %s (%.0f docs/s)", in.Docs, ftsTook.Round(time.Millisecond), fts)
	r := valueRow("scale: restart without a search index, "+docsLabel(in.Docs), ours, "docs/s", "SQLite FTS5 build of the same corpus", fts)
	r.goal("≥ 1.0x FTS5's docs/s", r.RateRatio >= 1.0)
	r.Note = "ours: from exec of the server to the index holding every document (the start-up reconcile); FTS5: the documents' text from memory, transactions of 5,000"
	b.add(r)
	reads.sort()
	writes.sort()
	for _, s := range []struct {
		name string
		st   stats
	}{{"single read", reads}, {"content write, 1 op", writes}} {
		r := latencyRow(fmt.Sprintf("scale: %s during the rebuild, %s", s.name, docsLabel(in.Docs)), 1, s.st, "-", stats{})
		r.LatRatio, r.RateRatio = nanf(), nanf()
		r.goal("answered (0 errors)", s.st.errors == 0 && s.st.ops() > 0)
		b.add(r)
	}
	return nil
}

func waitHealthy(c *client, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		err := c.do(http.MethodGet, "/api/health", "", nil, http.StatusOK, nil)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// scaleFTS builds an FTS5 index of the instance's documents (name and text of each main-line
// state, read into memory first) as the search scenario's baseline does, and returns how long
// the inserts took.
func scaleFTS(in *scaleInstance) (time.Duration, error) {
	src, err := sql.Open("sqlite", "file:"+filepath.Join(in.Dir, "data.db")+"?mode=ro")
	if err != nil {
		return 0, err
	}
	rows, err := src.Query(`SELECT d.world, d.name, s.text FROM documents d JOIN document_states s ON s.document = d.id AND s.era = ''`)
	if err != nil {
		src.Close()
		return 0, err
	}
	type doc struct{ world, name, text string }
	var docs []doc
	for rows.Next() {
		var d doc
		if err := rows.Scan(&d.world, &d.name, &d.text); err != nil {
			rows.Close()
			src.Close()
			return 0, err
		}
		docs = append(docs, d)
	}
	rows.Close()
	src.Close()

	dir, err := os.MkdirTemp("", "lwbench-scale-fts-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	db, err := openSQLite(filepath.Join(dir, "fts.db"))
	if err != nil {
		return 0, err
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE VIRTUAL TABLE docs USING fts5(world, name, text, tokenize='porter unicode61', prefix='2 3')`); err != nil {
		return 0, err
	}
	start := time.Now()
	for i := 0; i < len(docs); i += 5000 {
		tx, err := db.Begin()
		if err != nil {
			return 0, err
		}
		ins, err := tx.Prepare(`INSERT INTO docs (world, name, text) VALUES (?, ?, ?)`)
		if err != nil {
			return 0, err
		}
		for _, d := range docs[i:min(i+5000, len(docs))] {
			if _, err := ins.Exec(d.world, d.name, d.text); err != nil {
				return 0, err
			}
		}
		ins.Close()
		if err := tx.Commit(); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// scaleQueries returns, for each of the given worlds, the search scenario's query classes
// (one word, three words, a phrase, prefixes, a misspelt name) drawn from its documents, in
// turn.
func scaleQueries(worlds ...int) map[int][]string {
	out := map[int][]string{}
	c := newCorpus(0, 0)
	for _, w := range worlds {
		c.docs = make([][]corpusDoc, w+1)
		for _, d := range scaleDocs(c, w) {
			c.docs[w] = append(c.docs[w], corpusDoc{name: d.Name, body: d.Text})
		}
		classes := c.queries(w, 5)
		for i := range 5 {
			for _, qc := range classes {
				out[w] = append(out[w], qc.ours[i])
			}
		}
	}
	return out
}
