package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// A long read transaction (an export of a big world) pins the write-ahead log: the log cannot
// start over until it ends. The checkpointer must not then run a RESTART checkpoint, which
// holds up every writer while it waits for that reader (up to the busy timeout, 10 s).
func TestLongReadDoesNotHoldUpWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	conns := make([]*dbx.DB, 3)
	for i := range conns {
		db, err := core.DefaultDBConnect(path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		conns[i] = db
	}
	writer, reader, export := conns[0], conns[1], conns[2]
	writer.DB().SetMaxOpenConns(1)
	if _, err := writer.DB().Exec("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)"); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.DB().Exec("INSERT INTO t (k, v) VALUES ('first', '')"); err != nil {
		t.Fatal(err)
	}
	// The export's snapshot: a read transaction that has read.
	tx, err := export.DB().BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow("SELECT COUNT(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}

	c := &committer{db: writer.DB(), st: &statements{}, queue: make(chan *commitJob, maxGroup), done: make(chan struct{})}
	go c.run()
	defer c.stop()
	c.startCheckpoints(reader.DB())
	pad := strings.Repeat("x", 20_000) // about five pages a row
	var slowest time.Duration
	for i := range 3 * walLimit / 5 {
		start := time.Now()
		if err := c.do(func(w *writeTx) error {
			_, err := w.tx.Exec("INSERT INTO t (k, v) VALUES (?, ?)", fmt.Sprint(i), pad)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		slowest = max(slowest, time.Since(start))
		if slowest > 2*time.Second {
			t.Fatalf("write %d took %s while a long read was open", i, slowest)
		}
	}
	t.Logf("slowest write %s", slowest)
}

// A reader on the newest snapshot that is still reading the log (Litestream copying it to its
// replica) lets the passive checkpoint copy every frame, so a RESTART runs and waits for that
// reader while it holds the writer's lock: it must give up after restartWait, not hold every
// write until the reader ends.
func TestReaderOfNewestLogDoesNotHoldUpWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	conns := make([]*dbx.DB, 3)
	for i := range conns {
		db, err := core.DefaultDBConnect(path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		conns[i] = db
	}
	writer, reader, replica := conns[0], conns[1], conns[2]
	writer.DB().SetMaxOpenConns(1)
	if _, err := writer.DB().Exec("PRAGMA wal_autocheckpoint=0; CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)"); err != nil {
		t.Fatal(err)
	}
	c := &committer{db: writer.DB(), st: &statements{}, queue: make(chan *commitJob, maxGroup), done: make(chan struct{})}
	go c.run()
	defer c.stop()
	write := func(k string) time.Duration {
		start := time.Now()
		if err := c.do(func(w *writeTx) error {
			_, err := w.tx.Exec("INSERT INTO t (k, v) VALUES (?, ?)", k, strings.Repeat("x", 20_000))
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	// A log past walLimit, before the checkpointer starts.
	for i := range walLimit/5 + 100 {
		write(fmt.Sprint(i))
	}
	// The replica's read of the newest snapshot, held for 3 s.
	tx, err := replica.DB().BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow("SELECT COUNT(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	released := time.AfterFunc(3*time.Second, func() { _ = tx.Rollback() })
	defer released.Stop()
	c.startCheckpoints(reader.DB())
	time.Sleep(3 * checkpointEvery) // the passive checkpoint copies the log; a RESTART waits
	var slowest time.Duration
	for i := range 20 {
		slowest = max(slowest, write(fmt.Sprint("after ", i)))
	}
	if slowest > time.Second {
		t.Fatalf("a write took %s while a reader of the newest log was open", slowest)
	}
	t.Logf("slowest write %s", slowest)
}
