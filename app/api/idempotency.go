package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
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
// the first is still running waits its turn (409 idempotency_in_progress). Failures on our
// side (5xx) and rate limits are not stored, so they can be retried.
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

	// Claim the key, or take it over if its first use is older than IdempotencyTTL.
	t := time.Now().UTC()
	res, err := db.NewQuery(`INSERT INTO idempotency_keys (principal, key, fingerprint, status, body, created) VALUES ({:p}, {:k}, {:f}, 0, '', {:t})
		ON CONFLICT (principal, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = 0, body = '', created = excluded.created
		WHERE idempotency_keys.created < {:expired}`).
		Bind(dbx.Params{"p": who, "k": key, "f": fingerprint, "t": t.Format(idempotencyTime), "expired": t.Add(-IdempotencyTTL).Format(idempotencyTime)}).Execute()
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var prior struct {
			Fingerprint string `db:"fingerprint"`
			Status      int    `db:"status"`
			Body        string `db:"body"`
		}
		if err := db.NewQuery("SELECT fingerprint, status, body FROM idempotency_keys WHERE principal = {:p} AND key = {:k}").
			Bind(dbx.Params{"p": who, "k": key}).One(&prior); err != nil {
			return err
		}
		switch {
		case prior.Fingerprint != fingerprint:
			apierr.Write(e.Response, e.Request, e.App.Logger(), apierr.New(http.StatusUnprocessableEntity, "idempotency_key_reused",
				"this Idempotency-Key was already used for a different request; use a new key for a new request").With("field", "Idempotency-Key"))
		case prior.Status == 0:
			err := apierr.New(http.StatusConflict, "idempotency_in_progress", "the first request with this Idempotency-Key is still running; retry shortly")
			err.Header = http.Header{"Retry-After": {"1"}}
			apierr.Write(e.Response, e.Request, e.App.Logger(), err)
		default:
			h := e.Response.Header()
			h.Set("Content-Type", "application/json")
			h.Set("Idempotent-Replayed", "true")
			e.Response.WriteHeader(prior.Status)
			_, _ = io.WriteString(e.Response, prior.Body)
		}
		return nil
	}

	rec := &recorder{ResponseWriter: e.Response}
	e.Response = rec
	err = e.Next()
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	if err != nil || status >= 500 || status == http.StatusTooManyRequests {
		_, _ = db.NewQuery("DELETE FROM idempotency_keys WHERE principal = {:p} AND key = {:k}").Bind(dbx.Params{"p": who, "k": key}).Execute()
		return err
	}
	if _, err := db.NewQuery("UPDATE idempotency_keys SET status = {:s}, body = {:b} WHERE principal = {:p} AND key = {:k}").
		Bind(dbx.Params{"s": status, "b": rec.body.String(), "p": who, "k": key}).Execute(); err != nil {
		e.App.Logger().Warn("api: store idempotent response", "error", err.Error())
	}
	if idempotencyWrites.Add(1)%100 == 0 {
		_, _ = db.NewQuery("DELETE FROM idempotency_keys WHERE created < {:t}").
			Bind(dbx.Params{"t": time.Now().Add(-IdempotencyTTL).UTC().Format(idempotencyTime)}).Execute()
	}
	return nil
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
