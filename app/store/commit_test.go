package store

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pocketbase/pocketbase/core"
)

// testCommitter is a committer on a fresh database with one table, its queue filled with
// writes before it starts, so that they all share its first transaction.
func testCommitter(t *testing.T, writes ...func(w *writeTx) error) ([]error, *sql.DB) {
	t.Helper()
	db, err := core.DefaultDBConnect(filepath.Join(t.TempDir(), "data.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.DB().Exec("CREATE TABLE t (k TEXT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	c := &committer{db: db.DB(), st: &statements{}, queue: make(chan *commitJob, maxGroup), done: make(chan struct{})}
	jobs := make([]*commitJob, len(writes))
	for i, w := range writes {
		jobs[i] = &commitJob{write: w, err: make(chan error, 1)}
		c.queue <- jobs[i]
	}
	go c.run()
	results := make([]error, len(jobs))
	for i, j := range jobs {
		results[i] = <-j.err
	}
	c.stop()
	return results, db.DB()
}

func insert(keys ...string) func(w *writeTx) error {
	return func(w *writeTx) error {
		for _, k := range keys {
			if _, err := w.tx.Exec("INSERT OR FAIL INTO t (k) VALUES (?)", k); err != nil {
				return err
			}
		}
		return nil
	}
}

func keys(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query("SELECT k FROM t ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		out = append(out, k)
	}
	return out
}

// TestCommitterIsolatesFailedWrites: in a group, a failed write (one that errs or panics)
// leaves nothing behind and the others commit; alone, it leaves nothing either.
func TestCommitterIsolatesFailedWrites(t *testing.T) {
	boom := errors.New("boom")
	failAfterInsert := func(w *writeTx) error {
		if err := insert("x")(w); err != nil {
			return err
		}
		return boom
	}
	panicAfterInsert := func(w *writeTx) error {
		if err := insert("x")(w); err != nil {
			return err
		}
		panic("boom")
	}
	for _, tc := range []struct {
		name   string
		writes []func(w *writeTx) error
		failed []bool
		keys   []string
	}{
		{"all succeed", []func(w *writeTx) error{insert("a"), insert("b"), insert("c")}, []bool{false, false, false}, []string{"a", "b", "c"}},
		{"one fails after a statement", []func(w *writeTx) error{insert("a"), failAfterInsert, insert("c")}, []bool{false, true, false}, []string{"a", "c"}},
		{"a statement fails", []func(w *writeTx) error{insert("a"), insert("y", "a"), insert("c")}, []bool{false, true, false}, []string{"a", "c"}},
		{"first and last fail", []func(w *writeTx) error{failAfterInsert, insert("b"), insert("b")}, []bool{true, false, true}, []string{"b"}},
		{"alone", []func(w *writeTx) error{failAfterInsert}, []bool{true}, nil},
		{"one panics", []func(w *writeTx) error{insert("a"), panicAfterInsert, insert("c")}, []bool{false, true, false}, []string{"a", "c"}},
		{"panics alone", []func(w *writeTx) error{panicAfterInsert}, []bool{true}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			results, db := testCommitter(t, tc.writes...)
			for i, err := range results {
				if (err != nil) != tc.failed[i] {
					t.Errorf("write %d: err = %v, want failed %v", i, err, tc.failed[i])
				}
				if errors.Is(err, errWriteFailed) {
					t.Errorf("write %d: got the internal %v", i, err)
				}
			}
			if got := keys(t, db); !slices.Equal(got, tc.keys) {
				t.Errorf("rows = %v, want %v", got, tc.keys)
			}
		})
	}
}

// The write connection never checkpoints; the checkpointer copies the log into the database
// file from a reading connection, so the file grows while writes go on.
func TestCheckpointsRunBesideTheWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	writer, err := core.DefaultDBConnect(path)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	writer.DB().SetMaxOpenConns(1)
	reader, err := core.DefaultDBConnect(path)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if _, err := writer.DB().Exec("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)"); err != nil {
		t.Fatal(err)
	}
	if _, err := checkpoint(reader.DB(), "TRUNCATE"); err != nil {
		t.Fatal(err)
	}
	size := func() int64 {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	before := size()

	c := &committer{db: writer.DB(), st: &statements{}, queue: make(chan *commitJob, maxGroup), done: make(chan struct{})}
	go c.run()
	defer c.stop()
	pad := strings.Repeat("x", 2000)
	for i := range 2000 {
		if err := c.do(func(w *writeTx) error {
			_, err := w.tx.Exec("INSERT INTO t (k, v) VALUES (?, ?)", fmt.Sprint(i), pad)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	// Over 1,000 pages were written: SQLite's automatic checkpoint would have copied them.
	if got := size(); got != before {
		t.Fatalf("the writer checkpointed: database file %d -> %d bytes", before, got)
	}
	c.startCheckpoints(reader.DB())
	for deadline := time.Now().Add(10 * time.Second); size() <= before; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no checkpoint copied the log into the database file")
		}
	}
}
