package store

import (
	"errors"
	"fmt"
	"sync"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// maxGroup bounds how many writes share one transaction.
const maxGroup = 128

// errStopped is returned by writes that arrive after the store stopped.
var errStopped = errors.New("store: stopped")

// committer runs content writes on one goroutine and groups the writes that are waiting into
// one SQLite transaction (group commit). Each write runs inside its own savepoint, so one
// failing write rolls back alone; every write learns its own outcome only after the shared
// transaction committed.
type committer struct {
	app   core.App
	queue chan *commitJob
	done  chan struct{}

	mu      sync.RWMutex
	stopped bool
}

type commitJob struct {
	write func(db dbx.Builder) error
	err   chan error
}

func newCommitter(app core.App) *committer {
	c := &committer{app: app, queue: make(chan *commitJob, maxGroup), done: make(chan struct{})}
	go c.run()
	return c
}

// do runs write in a transaction and returns once that transaction committed or failed.
func (c *committer) do(write func(db dbx.Builder) error) error {
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
	if !c.stopped {
		c.stopped = true
		close(c.queue)
	}
	c.mu.Unlock()
	<-c.done
}

func (c *committer) run() {
	defer close(c.done)
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

func (c *committer) commit(batch []*commitJob) {
	results := make([]error, len(batch))
	txErr := c.app.RunInTransaction(func(tx core.App) error {
		db := tx.DB()
		if len(batch) == 1 {
			results[0] = batch[0].write(db)
			return results[0]
		}
		for i, j := range batch {
			sp := fmt.Sprintf("w%d", i)
			if _, err := db.NewQuery("SAVEPOINT " + sp).Execute(); err != nil {
				return err
			}
			if results[i] = j.write(db); results[i] != nil {
				if _, err := db.NewQuery("ROLLBACK TO " + sp).Execute(); err != nil {
					return err
				}
			}
			if _, err := db.NewQuery("RELEASE " + sp).Execute(); err != nil {
				return err
			}
		}
		return nil
	})
	for i, j := range batch {
		if txErr != nil && results[i] == nil {
			results[i] = txErr
		}
		j.err <- results[i]
	}
}
