package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
)

// IdempotencyTTL is how long a key's first response is remembered.
const IdempotencyTTL = 24 * time.Hour

// idempotencyTime is fixed-width, so that times compare as strings.
const idempotencyTime = "2006-01-02T15:04:05.000000Z"

var idempotencyWrites atomic.Int64

// idempotency makes POSTs safe to retry: with an Idempotency-Key header, the first response
// is stored (per user and key) and a retry gets it back without doing anything again. The
// same key with a different request is refused (422 idempotency_key_reused); a retry while
// the first is still running waits its turn (409 idempotency_in_progress); a key whose first
// request died with its process runs again. Only answers of requests that did something
// (2xx) are stored: a refusal changed nothing (4xx: a wrong Content-Type, a bad field, a
// rate limit), and neither did a failure on our side (5xx), so a retry, corrected or not,
// runs again.
func (a *API) idempotency(e *core.RequestEvent) error {
	key := e.Request.Header.Get("Idempotency-Key")
	if e.Request.Method != http.MethodPost || key == "" {
		return e.Next()
	}
	if len(key) > 255 {
		apierr.Write(e.Response, e.Request, e.App.Logger(), apierr.Field("Idempotency-Key", "the Idempotency-Key header may have at most 255 characters"))
		return nil
	}
	// Read the body once for the fingerprint, then hand the handler the same bytes.
	body, err := io.ReadAll(io.LimitReader(e.Request.Body, MaxBody+1))
	if err != nil {
		apierr.Write(e.Response, e.Request, e.App.Logger(), apierr.New(http.StatusBadRequest, "malformed_json", "the request body could not be read"))
		return nil
	}
	if len(body) <= MaxBody {
		e.Request.Body = io.NopCloser(bytes.NewReader(body))
	} else { // too large: decode will say so; keep the rest readable for it to count
		e.Request.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), e.Request.Body))
	}
	sum := sha256.Sum256(append([]byte(e.Request.Method+" "+e.Request.URL.RequestURI()+"\n"), body...))
	fingerprint := hex.EncodeToString(sum[:])
	who := auth.PrincipalOf(e).UserID
	db := e.App.DB()

	// Claim the key in this process, then look for a stored answer (an answer is stored
	// before its claim is released, so a retry sees one or the other).
	claim := who + "\x00" + key
	if prior, running := a.running.claim(claim, fingerprint); running {
		if prior != fingerprint {
			writeKeyReused(e)
			return nil
		}
		err := apierr.New(http.StatusConflict, "idempotency_in_progress", "the first request with this Idempotency-Key is still running; retry shortly")
		err.Header = http.Header{"Retry-After": {"1"}}
		apierr.Write(e.Response, e.Request, e.App.Logger(), err)
		return nil
	}
	defer a.running.release(claim)

	t := time.Now().UTC()
	// Rows with status 0 are in-progress marks an older version of this server stored; the
	// request that left one is no longer running.
	var prior []struct {
		Fingerprint string `db:"fingerprint"`
		Status      int    `db:"status"`
		Body        string `db:"body"`
	}
	if err := db.NewQuery("SELECT fingerprint, status, body FROM idempotency_keys WHERE principal = {:p} AND key = {:k} AND status <> 0 AND created >= {:expired}").
		Bind(dbx.Params{"p": who, "k": key, "expired": t.Add(-IdempotencyTTL).Format(idempotencyTime)}).All(&prior); err != nil {
		return fmt.Errorf("api: idempotency key: %w", err)
	}
	if len(prior) > 0 {
		if prior[0].Fingerprint != fingerprint {
			writeKeyReused(e)
			return nil
		}
		h := e.Response.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Idempotent-Replayed", "true")
		e.Response.WriteHeader(prior[0].Status)
		_, _ = io.WriteString(e.Response, prior[0].Body)
		return nil
	}

	rec := &recorder{ResponseWriter: e.Response}
	e.Response = rec
	err = e.Next()
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	if err != nil || status >= 300 {
		return err
	}
	if _, err := db.NewQuery(`INSERT INTO idempotency_keys (principal, key, fingerprint, status, body, created) VALUES ({:p}, {:k}, {:f}, {:s}, {:b}, {:t})
		ON CONFLICT (principal, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status, body = excluded.body, created = excluded.created`).
		Bind(dbx.Params{"p": who, "k": key, "f": fingerprint, "s": status, "b": rec.body.String(), "t": t.Format(idempotencyTime)}).Execute(); err != nil {
		e.App.Logger().Warn("api: store idempotent response", "error", err.Error())
	}
	if idempotencyWrites.Add(1)%100 == 0 {
		_, _ = db.NewQuery("DELETE FROM idempotency_keys WHERE created < {:t}").
			Bind(dbx.Params{"t": time.Now().Add(-IdempotencyTTL).UTC().Format(idempotencyTime)}).Execute()
	}
	return nil
}

func writeKeyReused(e *core.RequestEvent) {
	apierr.Write(e.Response, e.Request, e.App.Logger(), apierr.New(http.StatusUnprocessableEntity, "idempotency_key_reused",
		"this Idempotency-Key was already used for a different request; use a new key for a new request").With("field", "Idempotency-Key"))
}

// runningKeys holds the idempotency keys whose first request is running in this process,
// with the request's fingerprint. They live in memory only, so that a key whose request died
// with its process (kill -9, SIGTERM mid-request) is free again when the server restarts:
// only finished answers are stored.
type runningKeys struct {
	mu   sync.Mutex
	keys map[string]string
}

// claim marks key as running with fingerprint, unless it already is: then it returns the
// running request's fingerprint and true.
func (r *runningKeys) claim(key, fingerprint string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if prior, ok := r.keys[key]; ok {
		return prior, true
	}
	if r.keys == nil {
		r.keys = map[string]string{}
	}
	r.keys[key] = fingerprint
	return "", false
}

func (r *runningKeys) release(key string) {
	r.mu.Lock()
	delete(r.keys, key)
	r.mu.Unlock()
}

// recorder passes a response through and keeps a copy.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
