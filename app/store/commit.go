package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/background"
)

// maxGroup bounds how many writes share one transaction.
const maxGroup = 128

// errStopped is returned by writes that arrive after the store stopped.
var errStopped = errors.New("store: stopped")

// committer runs content writes on one goroutine and groups the writes that are waiting into
// one SQLite transaction (group commit). One failing write rolls back alone (see commit);
// every write learns its own outcome only after the shared transaction committed.
type committer struct {
	app   core.App
	db    *sql.DB
	st    *statements
	queue chan *commitJob
	done  chan struct{}

	mu      sync.RWMutex
	stopped bool

	// checkpointer
	ckptStop, ckptDone chan struct{}
}

type commitJob struct {
	write func(w *writeTx) error
	err   chan error
}

// statements are the write path's statements, prepared once: parsing SQL was a fifth of
// the committer's time. They resolve conflicts with FAIL, not the default ABORT: a failed
// write is always undone whole (its transaction or its savepoint), so SQLite need not keep
// a statement journal to undo one statement alone.
type statements struct {
	docExists, updateState, insertState, insertOp, insertOutbox *sql.Stmt
	// document create (see Store.CreateDocument) and the world event it counts (see
	// writeTx.nextWorldSeq)
	insertDocument, countWorldEvent, worldSeq, setWorldSeq, insertWorldOutbox *sql.Stmt
	// the backlinks table (see links.go)
	deleteLinks, insertLink *sql.Stmt
	// the op log's bound (see writeTx.appendOp)
	opTotal, opsAfter, trimOps *sql.Stmt
	// snapshots (see SnapshotEvery)
	insertSnapshot, trimSnapshots *sql.Stmt
}

func prepare(db *sql.DB) (*statements, error) {
	var st statements
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&st.docExists, "SELECT 1 FROM documents WHERE id = ?"},
		{&st.updateState, "UPDATE OR FAIL document_states SET data = ?, text = ?, version = ?, updated = ? WHERE id = ? AND version = ?"},
		{&st.insertState, "INSERT OR FAIL INTO document_states (id, document, era, data, text, version, forkedVersion, deleted, updated) VALUES (?, ?, ?, ?, ?, ?, ?, FALSE, ?)"},
		{&st.insertOp, "INSERT OR FAIL INTO document_ops (document, era, version, total, ops, actor, credential, created, client, clientSeq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"},
		{&st.opTotal, "SELECT total FROM document_ops WHERE document = ? AND era = ? AND version = ?"},
		{&st.opsAfter, "SELECT version, total FROM document_ops WHERE document = ? AND era = ? AND version > ? ORDER BY version"},
		{&st.trimOps, "DELETE FROM document_ops WHERE document = ? AND era = ? AND version <= ?"},
		{&st.deleteLinks, "DELETE FROM document_links WHERE source = ? AND era = ?"},
		{&st.insertLink, "INSERT OR FAIL INTO document_links (source, era, world, position, target, targetName, context, secret) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"},
		{&st.insertSnapshot, "INSERT OR REPLACE INTO document_snapshots (document, era, version, data, created) VALUES (?, ?, ?, ?, ?)"},
		{&st.trimSnapshots, "DELETE FROM document_snapshots WHERE document = ? AND era = ? AND version < ?"},
		{&st.insertOutbox, "INSERT OR FAIL INTO outbox (kind, world, document, era, subject, created) VALUES (?, ?, ?, ?, ?, ?)"},
		{&st.insertDocument, "INSERT OR FAIL INTO documents (id, world, name, documentType, parent, era, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"},
		{&st.countWorldEvent, "INSERT INTO world_event_seqs (world, seq) VALUES (?, 1) ON CONFLICT (world) DO UPDATE SET seq = seq + 1 RETURNING seq"},
		{&st.worldSeq, "SELECT seq FROM world_event_seqs WHERE world = ?"},
		{&st.setWorldSeq, "INSERT INTO world_event_seqs (world, seq) VALUES (?, ?) ON CONFLICT (world) DO UPDATE SET seq = excluded.seq"},
		{&st.insertWorldOutbox, "INSERT OR FAIL INTO outbox (kind, world, document, era, subject, created, worldSeq) VALUES (?, ?, ?, ?, ?, ?, ?)"},
	} {
		s, err := db.Prepare(p.sql)
		if err != nil {
			return nil, fmt.Errorf("store: prepare %q: %w", p.sql, err)
		}
		*p.dst = s
	}
	return &st, nil
}

func (st *statements) close() {
	for _, s := range []*sql.Stmt{st.docExists, st.updateState, st.insertState, st.insertOp, st.insertOutbox, st.insertDocument, st.countWorldEvent, st.worldSeq, st.setWorldSeq, st.insertWorldOutbox, st.opTotal, st.opsAfter, st.trimOps, st.deleteLinks, st.insertLink, st.insertSnapshot, st.trimSnapshots} {
		if s != nil {
			_ = s.Close()
		}
	}
}

// writeTx is one write's view of the shared transaction.
type writeTx struct {
	tx *sql.Tx
	st *statements
	// worldSeqs are the worlds' event counts as this transaction leaves them, stored at its
	// end (nil: each write stores its own; see nextWorldSeq).
	worldSeqs map[string]int64
}

func (w *writeTx) exec(s *sql.Stmt, args ...any) (sql.Result, error) {
	return w.tx.Stmt(s).Exec(args...)
}

// errDeleted fails a write to a document deleted since the write resolved it.
var errDeleted = errors.New("store: the document was deleted")

// documentExists fails with errDeleted if the document is gone: a content write checks it
// in its own transaction, so that it cannot commit after a main-line delete that committed
// while it waited (which would leave state and op-log rows of no document). Call it after
// the write's first statement, which makes the transaction a writing one.
func (w *writeTx) documentExists(id string) error {
	var one int
	err := w.tx.Stmt(w.st.docExists).QueryRow(id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return errDeleted
	}
	if err != nil {
		return fmt.Errorf("store: document %s: %w", id, err)
	}
	return nil
}

// outbox appends one change row and returns its sequence.
func (w *writeTx) outbox(kind, world, document, era, subject string) (int64, error) {
	res, err := w.exec(w.st.insertOutbox, kind, world, document, era, subject, now())
	if err != nil {
		return 0, fmt.Errorf("store: write outbox %s: %w", kind, err)
	}
	return res.LastInsertId()
}

// worldOutbox appends one change row that its world's event stream relays, numbered among
// the world's events (as WriteOutbox does), and returns its sequence.
func (w *writeTx) worldOutbox(kind, world, document, era, subject string) (int64, error) {
	worldSeq, err := w.nextWorldSeq(world)
	if err != nil {
		return 0, fmt.Errorf("store: count world event %s: %w", kind, err)
	}
	res, err := w.exec(w.st.insertWorldOutbox, kind, world, document, era, subject, now(), worldSeq)
	if err != nil {
		return 0, fmt.Errorf("store: write outbox %s: %w", kind, err)
	}
	return res.LastInsertId()
}

// nextWorldSeq takes the next number of world's events. In a transaction without savepoints
// (where one failed write rolls back all) the numbers are counted in memory and stored once
// a world, at the end (saveWorldSeqs): a group of creates in one world counted each with an
// upsert that returned its row, a sixth of a create's time in the committer. With savepoints,
// each write stores its own count, so that one rolled back takes its number with it.
func (w *writeTx) nextWorldSeq(world string) (int64, error) {
	var seq int64
	if w.worldSeqs == nil {
		err := w.tx.Stmt(w.st.countWorldEvent).QueryRow(world).Scan(&seq)
		return seq, err
	}
	seq, ok := w.worldSeqs[world]
	if !ok {
		if err := w.tx.Stmt(w.st.worldSeq).QueryRow(world).Scan(&seq); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, err
		}
	}
	seq++
	w.worldSeqs[world] = seq
	return seq, nil
}

// saveWorldSeqs stores the event counts nextWorldSeq kept in memory.
func (w *writeTx) saveWorldSeqs() error {
	for world, seq := range w.worldSeqs {
		if _, err := w.exec(w.st.setWorldSeq, world, seq); err != nil {
			return fmt.Errorf("store: count world events: %w", err)
		}
	}
	return nil
}

// newCommitter starts the committer on app's write connection.
func newCommitter(app core.App) (*committer, error) {
	db, ok := app.NonconcurrentDB().(*dbx.DB)
	if !ok {
		return nil, errors.New("store: the write connection is not a *dbx.DB")
	}
	st, err := prepare(db.DB())
	if err != nil {
		return nil, err
	}
	reader, ok := app.ConcurrentDB().(*dbx.DB)
	if !ok {
		return nil, errors.New("store: the read connections are not a *dbx.DB")
	}
	c := &committer{app: app, db: db.DB(), st: st, queue: make(chan *commitJob, maxGroup), done: make(chan struct{})}
	go c.run()
	c.startCheckpoints(reader.DB())
	return c, nil
}

// Checkpoints. A checkpoint copies the write-ahead log into the database file and syncs it;
// run by the writing connection (SQLite's automatic checkpoint, every 1,000 pages), it held
// up every write queued behind it, and under load those were most of the slow commits. The
// write connection therefore never checkpoints (wal_autocheckpoint=0, set in every
// transaction); a goroutine checkpoints from a reading connection instead, in PASSIVE mode,
// which never blocks a writer. Should the log still grow past walLimit pages because writes
// never pause long enough for it to start over, a RESTART checkpoint waits for a moment
// between commits and has the next write start the log from the beginning.
const (
	checkpointEvery = 100 * time.Millisecond
	walLimit        = 8192
)

func (c *committer) startCheckpoints(reader *sql.DB) {
	c.ckptStop, c.ckptDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(c.ckptDone)
		t := time.NewTicker(checkpointEvery)
		var pausedUntil time.Time // no RESTART before, after one gave up
		defer t.Stop()
		for {
			select {
			case <-c.ckptStop:
				return
			case <-t.C:
			}
			err := background.Catch(func() error {
				frames, copied, err := checkpointCopied(reader, "PASSIVE")
				// A RESTART holds up every writer until all readers have left the log. While
				// one reads an older snapshot (an export reads a whole world in one
				// transaction), the passive checkpoint cannot copy the frames written since,
				// and the log cannot start over before that reader ends anyway: waiting for it
				// would only stall the writes, up to the busy timeout, and then fail them.
				if err == nil && frames >= walLimit && copied == frames && time.Now().After(pausedUntil) {
					var busy bool
					if busy, err = restart(reader); busy {
						pausedUntil = time.Now().Add(restartPause)
					}
				}
				return err
			})
			var pe *background.PanicError
			if errors.As(err, &pe) {
				background.Log(c.log(), "store: checkpoint", err)
			} else if err != nil {
				c.log().Warn("store: checkpoint", "error", err.Error())
			}
		}
	}()
}

// restartWait bounds how long a RESTART checkpoint waits for the readers of the log: it
// holds the writer's lock meanwhile, so every write waits too. A reader that is still
// reading the log (Litestream copying it to its replica, a slow page) would otherwise hold up
// the writes for as long as it reads, up to the busy timeout (10 s). Given up, the RESTART
// is not tried again for restartPause, so that the writes run in between.
const (
	restartWait  = 100 * time.Millisecond
	restartPause = time.Second
)

// restart runs a RESTART checkpoint on a connection of db that waits at most restartWait
// for the log's readers, and reports whether it gave up (busy: no failure, the log starts
// over later).
func restart(db *sql.DB) (busy bool, err error) {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	var was int
	if err := conn.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&was); err != nil {
		return false, err
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", restartWait.Milliseconds())); err != nil {
		return false, err
	}
	var gaveUp, frames, copied int
	err = conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(RESTART)").Scan(&gaveUp, &frames, &copied)
	if _, rerr := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", was)); err == nil {
		err = rerr
	}
	return gaveUp != 0, err
}

// checkpoint runs one checkpoint and returns the number of frames in the log.
func checkpoint(db *sql.DB, mode string) (int, error) {
	frames, _, err := checkpointCopied(db, mode)
	return frames, err
}

// checkpointCopied runs one checkpoint and returns the number of frames in the log and how
// many of them are in the database file.
func checkpointCopied(db *sql.DB, mode string) (frames, copied int, err error) {
	var busy int
	err = db.QueryRow("PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &frames, &copied)
	return frames, copied, err
}

// do runs write in a transaction and returns once that transaction committed or failed.
// write may run more than once (each run but the last rolled back), so it must do nothing
// but its statements.
func (c *committer) do(write func(w *writeTx) error) error {
	if c == nil {
		return errStopped
	}
	job := &commitJob{write: write, err: make(chan error, 1)}
	c.mu.RLock()
	if c.stopped {
		c.mu.RUnlock()
		return errStopped
	}
	c.queue <- job
	c.mu.RUnlock()
	return <-job.err
}

// stop waits for queued writes to finish, then ends the goroutine.
func (c *committer) stop() {
	c.mu.Lock()
	first := !c.stopped
	if first {
		c.stopped = true
		close(c.queue)
	}
	c.mu.Unlock()
	<-c.done
	if first && c.ckptStop != nil {
		close(c.ckptStop)
		<-c.ckptDone
	}
}

func (c *committer) run() {
	defer close(c.done)
	defer c.st.close()
	batch := make([]*commitJob, 0, maxGroup)
	for first := range c.queue {
		batch = append(batch[:0], first)
	drain:
		for len(batch) < maxGroup {
			select {
			case j, ok := <-c.queue:
				if !ok {
					break drain
				}
				batch = append(batch, j)
			default:
				break drain
			}
		}
		c.commit(batch)
	}
}

// commit runs a batch in one transaction and tells each write its outcome. Writes rarely
// fail, so the batch first runs as it is; if a write fails, that attempt is rolled back and
// the batch runs again with a savepoint around each write, so that the failing write rolls
// back alone. (A savepoint around every write, its journal allocated and freed each time,
// cost 5-15% of the committer's time, the more the larger the group.)
func (c *committer) commit(batch []*commitJob) {
	results := make([]error, len(batch))
	txErr := c.transaction(batch, results, false)
	if errors.Is(txErr, errWriteFailed) {
		clear(results)
		txErr = c.transaction(batch, results, true)
	}
	for i, j := range batch {
		if txErr != nil && results[i] == nil {
			results[i] = txErr
		}
		j.err <- results[i]
	}
}

// runWrite runs one write of a transaction. A write that panics fails like one that errs (its
// caller gets a 500), and the committer, which every write goes through, keeps going.
func (c *committer) runWrite(j *commitJob, w *writeTx) error {
	err := background.Catch(func() error { return j.write(w) })
	var pe *background.PanicError
	if errors.As(err, &pe) {
		background.Log(c.log(), "store: a write panicked; it is rolled back", err)
	}
	return err
}

func (c *committer) log() *slog.Logger {
	if c.app == nil {
		return slog.Default()
	}
	return c.app.Logger()
}

// errWriteFailed ends an attempt without savepoints in which one of several writes failed.
var errWriteFailed = errors.New("store: a write of the group failed")

func (c *committer) transaction(batch []*commitJob, results []error, savepoints bool) error {
	tx, err := c.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback() // after Commit, a no-op
	// The write connection leaves checkpoints to the checkpointer (set on every transaction:
	// PocketBase may have replaced the connection after it idled).
	if _, err := tx.Exec("PRAGMA wal_autocheckpoint=0"); err != nil {
		return err
	}
	w := &writeTx{tx: tx, st: c.st}
	if !savepoints {
		w.worldSeqs = map[string]int64{}
	}
	for i, j := range batch {
		if !savepoints {
			if results[i] = c.runWrite(j, w); results[i] != nil {
				if len(batch) == 1 {
					return results[i]
				}
				return errWriteFailed
			}
			continue
		}
		if _, err := tx.Exec("SAVEPOINT write"); err != nil {
			return err
		}
		if results[i] = c.runWrite(j, w); results[i] != nil {
			if _, err := tx.Exec("ROLLBACK TO write"); err != nil {
				return err
			}
		}
		if _, err := tx.Exec("RELEASE write"); err != nil {
			return err
		}
	}
	if err := w.saveWorldSeqs(); err != nil {
		return err
	}
	return tx.Commit()
}
