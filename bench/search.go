package main

import (
	"database/sql"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"

	"github.com/loreweave/loreweave/app"
	"github.com/loreweave/loreweave/app/search"
	"github.com/loreweave/loreweave/app/store"
)

// ftsIndex is the SQLite FTS5 baseline: the same corpus in one FTS5 table (porter stemming,
// prefix indexes for 2 and 3 characters), opened like PocketBase opens its database.
type ftsIndex struct {
	db   *sql.DB
	dir  string
	stmt *sql.Stmt
}

func buildFTS(c *corpus, worldIDs []string) (*ftsIndex, time.Duration, error) {
	dir, err := os.MkdirTemp("", "lwbench-fts-")
	if err != nil {
		return nil, 0, err
	}
	db, err := openSQLite(filepath.Join(dir, "fts.db"))
	if err != nil {
		return nil, 0, err
	}
	f := &ftsIndex{db: db, dir: dir}
	if _, err := db.Exec(`CREATE VIRTUAL TABLE docs USING fts5(world, name, text, tokenize='porter unicode61', prefix='2 3')`); err != nil {
		f.close()
		return nil, 0, fmt.Errorf("fts5: %w", err)
	}
	docs := make([][]seedDoc, len(c.docs))
	for w := range docs {
		docs[w] = c.seedDocs(w) // the same text projection the search index gets
	}
	start := time.Now()
	n := 0
	var tx *sql.Tx
	var ins *sql.Stmt
	for w := range docs {
		for _, d := range docs[w] {
			if n%5000 == 0 { // the same batch size as the Bleve reconcile
				if tx != nil {
					if err := tx.Commit(); err != nil {
						return nil, 0, err
					}
				}
				if tx, err = db.Begin(); err != nil {
					return nil, 0, err
				}
				if ins, err = tx.Prepare(`INSERT INTO docs (world, name, text) VALUES (?, ?, ?)`); err != nil {
					return nil, 0, err
				}
			}
			if _, err := ins.Exec(worldIDs[w], d.Name, d.Text); err != nil {
				return nil, 0, err
			}
			n++
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, 0, err
	}
	took := time.Since(start)
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return nil, 0, err
	}
	// One page of 50 hits, best first, with a highlighted snippet: what a search page shows.
	f.stmt, err = db.Prepare(`SELECT rowid, name, snippet(docs, 2, '<mark>', '</mark>', '…', 24) FROM docs WHERE docs MATCH ? ORDER BY rank LIMIT 50`)
	return f, took, err
}

// match scopes an FTS5 expression to one world's names and text.
func match(worldID, expr string) string {
	return `world : ` + ftsTerm(worldID) + ` AND {name text} : (` + expr + `)`
}

func (f *ftsIndex) query(worldID, expr string) error {
	rows, err := f.stmt.Query(match(worldID, expr))
	if err != nil {
		return err
	}
	defer rows.Close()
	var id int64
	var name, snip string
	for rows.Next() {
		if err := rows.Scan(&id, &name, &snip); err != nil {
			return err
		}
	}
	return rows.Err()
}

// count is the number of FTS5 matches of expr in a world.
func (f *ftsIndex) count(worldID, expr string) (int, error) {
	var n int
	err := f.db.QueryRow(`SELECT count(*) FROM docs WHERE docs MATCH ?`, match(worldID, expr)).Scan(&n)
	return n, err
}

func (f *ftsIndex) close() {
	if f.stmt != nil {
		f.stmt.Close()
	}
	f.db.Close()
	os.RemoveAll(f.dir)
}

// buildBareBleve indexes the corpus into the simplest Bleve index that could serve it (one
// standard-analysed text field with positions, stored) with the batches and workers the
// reconcile uses, and returns how long that took until every document was in.
func buildBareBleve(c *corpus) (time.Duration, error) {
	dir, err := os.MkdirTemp("", "lwbench-bleve-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	im := bleve.NewIndexMapping()
	dm := bleve.NewDocumentStaticMapping()
	f := bleve.NewTextFieldMapping()
	f.Analyzer = standard.Name
	f.IncludeInAll = false
	f.DocValues = false
	dm.AddFieldMappingsAt("text", f)
	im.DefaultMapping = dm
	idx, err := bleve.New(filepath.Join(dir, "bare.bleve"), im)
	if err != nil {
		return 0, err
	}
	defer idx.Close()
	batches := make(chan *bleve.Batch)
	errs := make(chan error, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				if err := idx.Batch(b); err != nil {
					errs <- err
				}
			}
		}()
	}
	start := time.Now()
	b := idx.NewBatch()
	for w := range c.docs {
		for i, d := range c.docs[w] {
			if err := b.Index(fmt.Sprintf("%d/%d", w, i), map[string]any{"text": d.name + "\n" + d.body}); err != nil {
				return 0, err
			}
			if b.Size() >= 5000 {
				batches <- b
				b = idx.NewBatch()
			}
		}
	}
	batches <- b
	close(batches)
	wg.Wait()
	took := time.Since(start)
	select {
	case err := <-errs:
		return 0, err
	default:
	}
	return took, nil
}

// dirSize is the total size of the files under path.
func dirSize(path string) (int64, error) {
	var n int64
	err := filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	return n, err
}

// runSearch: index 100,000 synthetic documents across 100 worlds, then query one world
// with five query classes, each next to SQLite FTS5 on the same corpus.
//
// Indexing goes through the search package as the server runs it: the documents are
// inserted into the database before the server starts, and the server's indexer indexes
// them in its start-up reconcile (the path of a restart or `loreweave search reindex`,
// reading every document back from SQLite). Queries go through the HTTP endpoint (the
// user-facing truth) and, separately, straight through search.Searcher.
func (b *bench) runSearch() error {
	worlds, perWorld := 100, 1000
	if b.quick {
		worlds, perWorld = 10, 500
	}
	total := worlds * perWorld
	logf("search: generating %d documents", total)
	c := newCorpus(worlds, perWorld)

	var user benchUser
	var worldIDs []string
	var head int64
	var started time.Time
	srv, err := startServer(serverOptions{requestLog: b.requestLog, beforeServe: func(s *server) error {
		var err error
		if user, err = s.newUser("search"); err != nil {
			return err
		}
		for w := range worlds {
			wd, err := s.LW.Store.CreateWorld(user.ID, fmt.Sprintf("World %d", w), "fantasy", "studio")
			if err != nil {
				return err
			}
			worldIDs = append(worldIDs, wd.ID)
			if _, err := bulkInsert(s.PB, wd.ID, c.seedDocs(w), false); err != nil {
				return err
			}
		}
		if head, err = s.LW.Store.OutboxHead(); err != nil {
			return err
		}
		logf("search: %d documents in the database; starting the server (its indexer reconciles them)", total)
		started = time.Now()
		return nil
	}})
	if err != nil {
		return err
	}
	defer srv.stop()
	if err := waitIndexed(srv.LW, uint64(total), head); err != nil {
		return err
	}
	indexTook := time.Since(started)
	ourRate := float64(total) / indexTook.Seconds()
	logf("search: Bleve indexed %d documents in %s (%.0f docs/s)", total, indexTook.Round(time.Millisecond), ourRate)

	// Scorch keeps merging segments after the last batch; let it finish, so that neither the
	// FTS5 build nor the queries compete with it for the cores.
	settled := waitQuiet(5 * time.Minute)
	logf("search: background merging settled after %s", settled.Round(time.Second))

	logf("search: building the FTS5 baseline")
	fts, ftsTook, err := buildFTS(c, worldIDs)
	if err != nil {
		return err
	}
	defer fts.close()
	ftsRate := float64(total) / ftsTook.Seconds()
	logf("search: FTS5 indexed %d documents in %s (%.0f docs/s)", total, ftsTook.Round(time.Millisecond), ftsRate)

	r := valueRow(fmt.Sprintf("search index build, %d docs", total), ourRate, "docs/s", "SQLite FTS5 index build", ftsRate)
	r.goal("≥ 1.0x FTS5's docs/s", ourRate >= ftsRate)
	r.Note = fmt.Sprintf("ours: the server's start-up reconcile until every document is searchable (reads each document back from SQLite, Bleve batches of 5,000 on one worker per core, each returning once searchable, not once on disk), "+
		"then %s of background segment merging; FTS5: inserts from memory in transactions of 5,000", settled.Round(time.Second))
	b.add(r)

	logf("search: building a bare Bleve index of the same corpus (the floor)")
	bareTook, err := buildBareBleve(c)
	if err != nil {
		return err
	}
	bareRate := float64(total) / bareTook.Seconds()
	logf("search: bare Bleve indexed %d documents in %s (%.0f docs/s)", total, bareTook.Round(time.Millisecond), bareRate)
	fl := valueRow(fmt.Sprintf("search index build, %d docs", total), ourRate, "docs/s", "bare Bleve index build (the floor)", bareRate)
	fl.Note = "bare Bleve: the same Bleve version, text and batches, from memory, with one field per document analysed once (standard analyser, stored, with positions) and no world scoping, stems, n-grams or name fields: what Bleve itself costs here"
	b.add(fl)

	qw := worlds / 2
	world := worldIDs[qw]
	hc := newClient(srv.URL)
	defer hc.close()
	searcher := search.Searcher{Indexer: srv.LW.Search, Store: srv.LW.Store}
	for _, qc := range c.queries(qw, 20) {
		httpSide := func(_, i int) error {
			q := qc.ours[i%len(qc.ours)]
			return hc.do(http.MethodGet, "/api/v1/worlds/"+world+"/search?q="+url.QueryEscape(q), bearer(user.Key), nil, http.StatusOK, nil)
		}
		pkgQuery := func(text string) (search.Results, error) {
			return searcher.Search(search.Query{WorldID: world, Text: text, Page: store.Page{Page: 1, PerPage: 50}})
		}
		pkgSide := func(_, i int) error {
			_, err := pkgQuery(qc.ours[i%len(qc.ours)])
			return err
		}
		ftsSide := func(_, i int) error { return fts.query(world, qc.fts[i%len(qc.fts)]) }
		// Both sides should find about the same documents: say how many for the first query.
		res, err := pkgQuery(qc.ours[0])
		if err != nil {
			return err
		}
		n, err := fts.count(world, qc.fts[0])
		if err != nil {
			return fmt.Errorf("fts5 %s: %w", qc.fts[0], err)
		}
		hits := fmt.Sprintf("%d queries in turn; the first, %s, finds %d documents here and %d in FTS5 (%s)", len(qc.ours), quote(qc.ours[0]), res.Total, n, qc.fts[0])
		for _, side := range []struct {
			how string
			fn  op
		}{{"HTTP", httpSide}, {"search package", pkgSide}} {
			a, bs := pair(1, b.dur, side.fn, ftsSide)
			r := latencyRow(fmt.Sprintf("search %s (%s)", qc.name, side.how), 1, a, "SQLite FTS5 MATCH", bs)
			// The goal is judged like for like, in process on both sides; the HTTP row adds
			// the request's round trip (auth, JSON) that the FTS5 side does not make.
			if side.how == "HTTP" {
				r.Note = joinNote(r.Note, "includes the HTTP round trip, which FTS5's side does not make")
			} else {
				r.goal("p95 ≤ FTS5 p95", r.P95 <= r.BaseP95)
			}
			r.Note = joinNote(joinNote(r.Note, hits), qc.note)
			b.add(r)
		}
	}

	bleveSize, err := dirSize(app.SearchPath(srv.PB))
	if err != nil {
		return err
	}
	ftsInfo, err := os.Stat(filepath.Join(fts.dir, "fts.db"))
	if err != nil {
		return err
	}
	const mib = 1 << 20
	sz := valueRow(fmt.Sprintf("search index size, %d docs", total), float64(bleveSize)/mib, "MiB", "SQLite FTS5 file", float64(ftsInfo.Size())/mib)
	sz.goal("≤ 1.0x", bleveSize <= ftsInfo.Size())
	sz.Note = "Bleve: name and text indexed as words (as written plus English stems at the same position), the name also as edge n-grams (2–15), every term starting with a short world/era code, text stored, with positions and offsets (for phrases and snippets), compacted into one segment after the reconcile; FTS5: porter stemming with 2- and 3-letter prefix indexes, its content in the same file"
	b.add(sz)
	return nil
}

// waitIndexed waits until the server's index holds n entries and the outbox sequence head
// (the last batch of the reconcile stores both).
func waitIndexed(lw *app.Loreweave, n uint64, head int64) error {
	deadline := time.Now().Add(30 * time.Minute)
	for time.Now().Before(deadline) {
		if lw.Search != nil {
			if idx, err := lw.Search.Index(); err == nil { // else rebuilding: wait
				count, err := idx.DocCount()
				if err != nil {
					return err
				}
				seq, err := idx.Seq()
				if err != nil {
					return err
				}
				if count >= n && seq >= head {
					return nil
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("search: index not complete after 30 minutes")
}

// quote shows a query as typed.
func quote(q string) string {
	if strings.HasPrefix(q, `"`) {
		return q
	}
	return "«" + q + "»"
}

// waitQuiet waits until this process used less than a tenth of a core over a second (or max
// passed) and returns how long that took.
func waitQuiet(max time.Duration) time.Duration {
	start := time.Now()
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	for time.Since(start) < max {
		c0, t0 := cpu(), time.Now()
		time.Sleep(time.Second)
		if float64(cpu()-c0) < 0.1*float64(time.Since(t0)) {
			break
		}
	}
	return time.Since(start)
}
