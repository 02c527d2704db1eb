// Package store owns Loreweave's persistent state: worlds, members, documents, eras, projects,
// document states and the op log, all in PocketBase's SQLite database. ApplyOps is the one
// write path for document content; REST, the web editor and MCP all call it.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loreweave/loreweave/ops"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/background"
)

// Store is the handle every surface uses to read and change Loreweave's data.
type Store struct {
	app core.App

	// DefaultPlan is the plan of worlds ImportWorld makes (the server's default plan for new
	// worlds); "free" when empty.
	DefaultPlan string

	commits *committer
	locks   *lockTable

	mu        sync.RWMutex
	listeners []*listener
	followers []func([]OutboxRow)
	eraChains sync.Map // era id -> []string chain, immutable once created

	cache  *metaCache
	tools  *toolCache
	states *stateCache
	cancel context.CancelFunc
	done   chan struct{}

	outboxOnce sync.Once
	outboxStmt *sql.Stmt
	outboxErr  error
}

// New returns a Store on app's database. Start must be called before writes (Setup does).
func New(app core.App) *Store {
	s := &Store{app: app, locks: newLockTable(), cache: newMetaCache(), tools: newToolCache(), states: newStateCache()}
	s.OnOutbox(s.cache.forget)
	s.OnOutbox(s.tools.forget)
	s.watchRecords()
	return s
}

// OutboxPoll bounds how late a change committed by another process (the command line) is
// seen by this one.
const OutboxPoll = 250 * time.Millisecond

// followGap is the least time between two reads of the outbox follower: a few milliseconds
// later for world streams and revocations, and at a thousand creates a second one read in
// ten instead of one a commit (each a query and a wake-up: ~7% of a create's CPU).
const followGap = 10 * time.Millisecond

// Start starts the committer, the outbox follower, the outbox's pruning and the trash's purge.
func (s *Store) Start() error {
	commits, err := newCommitter(s.app)
	if err != nil {
		return err
	}
	s.commits = commits
	head, err := s.OutboxHead()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel, s.done = cancel, make(chan struct{})
	log := s.app.Logger()
	pruned, purged := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(pruned)
		background.Loop(ctx, log, "outbox pruning", s.pruneOutbox)
	}()
	go func() {
		defer close(purged)
		background.Loop(ctx, log, "trash purge", s.purgeTrash)
	}()
	go func() {
		defer close(s.done)
		defer func() { <-pruned; <-purged }()
		// Content writes reach their watchers through OnChange; the followers of the outbox
		// (caches, access checks, world streams) need waking only for the other changes.
		notContent := func(c Change) bool { return c.Kind != "document.content" }
		background.Loop(ctx, log, "outbox follower", func(ctx context.Context) {
			s.TailOutbox(ctx, head, OutboxPoll, followGap, notContent, func(rows []OutboxRow) {
				s.mu.RLock()
				fs := s.followers
				s.mu.RUnlock()
				for _, fn := range fs {
					// One follower's panic neither ends the others' feed nor the process.
					if err := background.Catch(func() error { fn(rows); return nil }); err != nil {
						background.Log(log, "store: an outbox follower panicked", err)
					}
				}
				head = rows[len(rows)-1].Seq // a restarted tail resumes after these
			})
		})
	}()
	return nil
}

// Stop stops the outbox follower, pruning and purge, then drains and stops the committer; later writes fail.
func (s *Store) Stop() {
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
	if s.commits != nil {
		s.commits.stop()
	}
}

// OnOutbox registers fn to receive, in order, every outbox row committed after Start, by
// this process (at once) or another one (within OutboxPoll). fn runs on the follower's
// goroutine and must not block for long.
func (s *Store) OnOutbox(fn func([]OutboxRow)) {
	s.mu.Lock()
	s.followers = append(s.followers, fn)
	s.mu.Unlock()
}

// App returns the PocketBase app the store writes to.
func (s *Store) App() core.App { return s.app }

// Change is one committed change, handed to subscribers (live streams, the search indexer)
// after its transaction committed. Subscribers must not block.
type Change struct {
	Seq          int64  // outbox sequence
	Kind         string // "document.content", "document.created", "era.created", ...
	WorldID      string
	DocumentID   string
	EraID        string
	DocumentType string
	Version      int64
	Ops          []byte // ops as applied (JSON array), for content changes
	Actor        Actor
	Client       Client // the editor that sent a content change, if it said
	// LinkTargets are the documents a content change linked or unlinked (by id): their
	// "Linked from" changed.
	LinkTargets []string
	// Public is true when a content change's ops reveal nothing secret to a viewer of the
	// world and turn the public form of the old content into that of the new
	// (ops.PublicBatch); when false, viewers get the public form of Doc instead of the ops.
	Public bool
	// Doc is the content after a content change (never changed afterwards): what a viewer's
	// public snapshot is made of when Public is false.
	Doc ops.Document
}

// OnChange registers fn to be called after every committed change made through this Store,
// until remove is called. Changes made by other processes arrive through the outbox instead.
func (s *Store) OnChange(fn func(Change)) (remove func()) {
	l := &listener{fn}
	s.mu.Lock()
	s.listeners = append(s.listeners, l)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		// A new slice: publish may be reading the old one.
		s.listeners = slices.DeleteFunc(slices.Clone(s.listeners), func(o *listener) bool { return o == l })
		s.mu.Unlock()
	}
}

// listener is one OnChange registration (a pointer, so that it can be found to remove).
type listener struct{ fn func(Change) }

func (s *Store) publish(c Change) {
	s.mu.RLock()
	ls := s.listeners
	s.mu.RUnlock()
	for _, l := range ls {
		l.fn(c)
	}
}

// Actor is who made a change and with which kind of credential.
type Actor struct {
	UserID     string `json:"id"`
	Name       string `json:"name"`
	Credential string `json:"-"` // "api_key", "session", "oauth", "cli"
}

// Page selects one page of a list; Page starts at 1.
type Page struct {
	Page    int
	PerPage int
}

// offset returns the SQL offset of the page; a page too far out for int64 gets the largest
// offset (an empty page) rather than a wrapped, negative one (which SQLite reads as 0).
func (p Page) offset() int64 {
	if p.Page < 1 || p.PerPage < 1 {
		return 0
	}
	if int64(p.Page-1) > math.MaxInt64/int64(p.PerPage) {
		return math.MaxInt64
	}
	return int64(p.Page-1) * int64(p.PerPage)
}

// Time layout PocketBase uses for its date columns.
const dbTime = "2006-01-02 15:04:05.000Z"

func now() string { return time.Now().UTC().Format(dbTime) }

// ParseTime reads a PocketBase date column; zero time for "".
func ParseTime(s string) time.Time {
	t, err := time.Parse(dbTime, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

func newID() string { return core.GenerateDefaultRandomId() }

// notFound maps sql.ErrNoRows to apierr.ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return apierr.ErrNotFound
	}
	return err
}

// WriteOutbox appends one change row inside tx and returns its sequence. Every change that
// search or live streams must see writes one, in the change's own transaction. A world event
// (IsWorldEvent) also takes the next number of its world's own count: the world stream's
// event ids.
func WriteOutbox(tx dbx.Builder, kind, world, document, era, subject string) (int64, error) {
	var worldSeq int64
	if world != "" && IsWorldEvent(kind) {
		err := tx.NewQuery(`INSERT INTO world_event_seqs (world, seq) VALUES ({:world}, 1)
			ON CONFLICT (world) DO UPDATE SET seq = seq + 1 RETURNING seq`).
			Bind(dbx.Params{"world": world}).Row(&worldSeq)
		if err != nil {
			return 0, fmt.Errorf("store: count world event %s: %w", kind, err)
		}
	}
	res, err := tx.NewQuery(`INSERT INTO outbox (kind, world, document, era, subject, created, worldSeq)
		VALUES ({:kind}, {:world}, {:document}, {:era}, {:subject}, {:created}, {:worldSeq})`).
		Bind(dbx.Params{"kind": kind, "world": world, "document": document, "era": era, "subject": subject, "created": now(), "worldSeq": worldSeq}).
		Execute()
	if err != nil {
		return 0, fmt.Errorf("store: write outbox %s: %w", kind, err)
	}
	return res.LastInsertId()
}

// placeholders returns "{:p0}, {:p1}, ..." and the params binding vals to them.
func placeholders(prefix string, vals []string) (string, dbx.Params) {
	names := make([]string, len(vals))
	params := dbx.Params{}
	for i, v := range vals {
		key := fmt.Sprintf("%s%d", prefix, i)
		names[i] = "{:" + key + "}"
		params[key] = v
	}
	return strings.Join(names, ", "), params
}

// lockTable hands out one mutex per key, dropping mutexes nobody holds or waits for.
type lockTable struct {
	mu    sync.Mutex
	locks map[string]*refLock
}

type refLock struct {
	sync.Mutex
	refs int
}

func newLockTable() *lockTable { return &lockTable{locks: map[string]*refLock{}} }

// lock locks key and returns its unlock function.
func (t *lockTable) lock(key string) func() {
	t.mu.Lock()
	l := t.locks[key]
	if l == nil {
		l = &refLock{}
		t.locks[key] = l
	}
	l.refs++
	t.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		t.mu.Lock()
		l.refs--
		if l.refs == 0 {
			delete(t.locks, key)
		}
		t.mu.Unlock()
	}
}
