package api

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
	"github.com/pocketbase/pocketbase/tools/types"
)

// RequestLog writes one row per /api/v1 request into PocketBase's request log (the _logs
// table of auxiliary.db, the dashboard's Logs page), with the fields PocketBase's activity
// logger writes, which it replaces on these routes. That logger spends a goroutine, an slog
// record and a model save with its hooks on each request, about a sixth of the server's CPU
// for a document create; this one appends the row to a batch that one goroutine inserts with
// one prepared statement every logBatch rows or logEvery. (Each transaction writes the ends
// of the table's four b-trees again: batches of 1,000 rows instead of 200 took the log from
// 15% to 12% of a one-op write's CPU.) The dashboard's settings apply: Logs.MaxDays 0 turns
// it off, and Logs.MinLevel, LogIP and LogAuthId are honoured.
type RequestLog struct {
	app  core.App
	mu   sync.Mutex
	rows []logRow
	full chan struct{}
	stop chan struct{}
	done chan struct{}
	// start starts the writer on the first row; stopped ends it once.
	start, stopped sync.Once
}

const (
	logBatch = 1000
	logEvery = 3 * time.Second
	// logPending bounds the rows waiting while the log's database does not take them.
	logPending = 10_000
)

// logRow is a _logs row.
type logRow struct {
	id, message, created string
	level                int
	data                 []byte
}

// logData is a request row's data, with the members PocketBase's activity logger writes, in
// the order it writes them (alphabetical).
type logData struct {
	Auth      string  `json:"auth"`
	AuthID    string  `json:"authId,omitempty"`
	Error     string  `json:"error,omitempty"`
	ExecTime  float64 `json:"execTime"`
	Method    string  `json:"method"`
	Referer   string  `json:"referer"`
	RemoteIP  string  `json:"remoteIP,omitempty"`
	Status    int     `json:"status"`
	Type      string  `json:"type"`
	URL       string  `json:"url"`
	UserAgent string  `json:"userAgent"`
	UserIP    string  `json:"userIP,omitempty"`
}

// NewRequestLog returns the request log of app; its writer starts with the first row.
func NewRequestLog(app core.App) *RequestLog {
	return &RequestLog{app: app, full: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// middleware logs the request it wraps once it has been answered, or has panicked (the
// panic goes on to PocketBase's recovery, which answers 500).
func (l *RequestLog) middleware(e *core.RequestEvent) error {
	start := time.Now()
	done := false
	defer func() {
		if !done {
			l.log(e, start, errPanicked)
		}
	}()
	err := e.Next()
	done = true
	l.log(e, start, err)
	return err
}

var errPanicked = errors.New("the request's handler panicked")

// log adds the row of a request answered with err.
func (l *RequestLog) log(e *core.RequestEvent, start time.Time, err error) {
	s := l.app.Settings().Logs
	level := slog.LevelInfo
	if e.Status() >= 500 || err != nil {
		level = slog.LevelError
	}
	if s.MaxDays == 0 || int(level) < s.MinLevel {
		return
	}
	uri := cut(e.Request.URL.RequestURI(), 3000)
	d := logData{Type: "request", ExecTime: float64(time.Since(start)) / float64(time.Millisecond),
		Method: cut(strings.ToUpper(e.Request.Method), 50), URL: uri, Status: e.Status(),
		Referer: cut(e.Request.Referer(), 2000), UserAgent: cut(e.Request.UserAgent(), 2000)}
	if err != nil {
		d.Error = err.Error()
		if d.Status == 0 { // not answered yet: PocketBase answers the error
			d.Status = http.StatusInternalServerError
			if apiErr, ok := errors.AsType[*router.ApiError](err); ok {
				d.Status = apiErr.Status
			}
		}
	}
	if e.Auth != nil {
		d.Auth = e.Auth.Collection().Name
		if s.LogAuthId {
			d.AuthID = e.Auth.Id
		}
	}
	if s.LogIP {
		d.UserIP, d.RemoteIP = e.RealIP(), e.RemoteIP()
	}
	path := uri
	if p, uerr := url.PathUnescape(uri); uerr == nil {
		path = p
	}
	data, _ := json.Marshal(d) // plain strings and numbers: cannot fail
	l.add(logRow{id: logID(), level: int(level), message: d.Method + " " + path,
		created: time.Now().UTC().Format(types.DefaultDateLayout), data: data})
}

// logSeq tells apart the ids logID makes in one microsecond.
var logSeq atomic.Uint64

// logID returns a new _logs id: 15 characters of [0-9a-z] like PocketBase's random ones, but
// in time order (ten of the time in microseconds, five of a counter), so that a batch adds
// to the end of the table's id index instead of touching a page of it for each row.
func logID() string {
	b := make([]byte, 0, 15)
	t := strconv.FormatInt(time.Now().UnixMicro(), 36)
	for range 10 - len(t) {
		b = append(b, '0')
	}
	b = append(b, t...)
	n := strconv.FormatUint(logSeq.Add(1)%(36*36*36*36*36), 36)
	for range 5 - len(n) {
		b = append(b, '0')
	}
	return string(append(b, n...))
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

func (l *RequestLog) add(r logRow) {
	l.start.Do(func() { go l.run() })
	l.mu.Lock()
	if len(l.rows) < logPending {
		l.rows = append(l.rows, r)
	}
	n := len(l.rows)
	l.mu.Unlock()
	if n >= logBatch {
		select {
		case l.full <- struct{}{}:
		default:
		}
	}
}

// run writes the batches until Stop.
func (l *RequestLog) run() {
	defer close(l.done)
	tick := time.NewTicker(logEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-l.full:
		case <-l.stop:
			l.flush()
			return
		}
		l.flush()
	}
}

// flush inserts the waiting rows in one transaction.
func (l *RequestLog) flush() {
	l.mu.Lock()
	rows := l.rows
	l.rows = nil
	l.mu.Unlock()
	if len(rows) == 0 {
		return
	}
	err := l.app.AuxRunInTransaction(func(tx core.App) error {
		// OR IGNORE: a clock set back could repeat an id, and that row, not the batch, is lost.
		q := tx.AuxDB().NewQuery("INSERT OR IGNORE INTO {{_logs}} ([[id]], [[level]], [[message]], [[data]], [[created]]) VALUES ({:id}, {:level}, {:message}, {:data}, {:created})").Prepare()
		defer q.Close()
		for _, r := range rows {
			if _, err := q.Bind(dbx.Params{"id": r.id, "level": r.level, "message": r.message, "data": string(r.data), "created": r.created}).Execute(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		// PocketBase's own logger, which does not come back here.
		l.app.Logger().Error("could not write the request log", "error", err.Error(), "rows", len(rows))
	}
}

// Stop writes what is waiting and stops the writer; rows added after it are not written.
func (l *RequestLog) Stop() {
	l.stopped.Do(func() {
		running := true
		l.start.Do(func() { running = false })
		if running {
			close(l.stop)
			<-l.done
		}
	})
}
