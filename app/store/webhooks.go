package store

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/ops"
)

// Webhook is a world's subscription of a URL to some of its changes (app/webhooks sends
// them).
type Webhook struct {
	ID      string
	WorldID string
	URL     string
	// Secret signs every delivery (whsec_…): only its owner and admins see it, and only in
	// full when it is made.
	Secret string
	// Events are the kinds sent (WebhookEvents), sorted.
	Events  []string
	Enabled bool
	// DisabledReason says why the server disabled the webhook ("" when enabled, or disabled
	// by a person).
	DisabledReason string
	// Failures counts the deliveries in a row that failed for good.
	Failures int
	Created  string
	Updated  string
}

// Wants reports whether the webhook sends changes of this kind.
func (h Webhook) Wants(kind string) bool { return slices.Contains(h.Events, kind) }

type webhookRow struct {
	ID             string `db:"id"`
	World          string `db:"world"`
	URL            string `db:"url"`
	Secret         string `db:"secret"`
	Events         string `db:"events"`
	Enabled        bool   `db:"enabled"`
	DisabledReason string `db:"disabledReason"`
	Failures       int    `db:"failures"`
	Created        string `db:"created"`
	Updated        string `db:"updated"`
}

func (r webhookRow) webhook() Webhook {
	h := Webhook{ID: r.ID, WorldID: r.World, URL: r.URL, Secret: r.Secret, Enabled: r.Enabled, DisabledReason: r.DisabledReason,
		Failures: r.Failures, Created: r.Created, Updated: r.Updated}
	_ = json.Unmarshal([]byte(r.Events), &h.Events) // written by this file: always a list
	return h
}

const webhookCols = "id, world, url, secret, events, enabled, disabledReason, failures, created, updated"

// ContentEvent is the kind of a content write: not on the world stream, but a webhook may
// ask for it.
const ContentEvent = "document.content"

// PingEvent is the kind of a webhook's test delivery.
const PingEvent = "ping"

// WebhookEvents returns the kinds a webhook may ask for, sorted: the world stream's kinds and
// content writes.
func WebhookEvents() []string {
	out := []string{ContentEvent}
	for k := range worldEventKinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// MaxWebhooks bounds a world's webhooks; MaxWebhookURL, a webhook's URL.
const (
	MaxWebhooks   = 20
	MaxWebhookURL = 2000
)

// checkEvents returns events sorted without repeats, or the error naming a kind that is not
// one of WebhookEvents.
func checkEvents(events []string) ([]string, error) {
	if len(events) == 0 {
		return nil, apierr.Field("events", "choose at least one event to send (one of %s)", strings.Join(WebhookEvents(), ", ")).With("allowed", WebhookEvents())
	}
	known := WebhookEvents()
	out := make([]string, 0, len(events))
	for _, e := range events {
		if !slices.Contains(known, e) {
			return nil, apierr.Field("events", "%q is not an event a webhook can send; allowed: %s", ops.Echo(e), strings.Join(known, ", ")).With("allowed", known)
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	slices.Sort(out)
	return out, nil
}

func checkWebhookURL(u string) error {
	if u == "" {
		return apierr.Field("url", "the webhook's URL is required")
	}
	if len(u) > MaxWebhookURL {
		return apierr.Field("url", "the webhook's URL is over %d characters", MaxWebhookURL)
	}
	return nil
}

// newSecret returns a new signing secret: whsec_ and 32 random bytes in hex.
func newSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return "whsec_" + hex.EncodeToString(b)
}

// CreateWebhook adds a webhook to a world, enabled, with a new secret. The URL's target is
// app/webhooks' to check; here only its length.
func (s *Store) CreateWebhook(worldID, url string, events []string) (Webhook, error) {
	if err := checkWebhookURL(url); err != nil {
		return Webhook{}, err
	}
	events, err := checkEvents(events)
	if err != nil {
		return Webhook{}, err
	}
	var n int
	if err := s.app.DB().NewQuery("SELECT COUNT(*) FROM webhooks WHERE world = {:w}").Bind(dbx.Params{"w": worldID}).Row(&n); err != nil {
		return Webhook{}, fmt.Errorf("store: count webhooks: %w", err)
	}
	if n >= MaxWebhooks {
		return Webhook{}, apierr.New(http.StatusConflict, "too_many_webhooks", "a world has at most %d webhooks; delete one first", MaxWebhooks).With("limit", MaxWebhooks)
	}
	ev, _ := json.Marshal(events) // strings only
	t := now()
	h := webhookRow{ID: newID(), World: worldID, URL: url, Secret: newSecret(), Events: string(ev), Enabled: true, Created: t, Updated: t}
	_, err = s.app.NonconcurrentDB().NewQuery(`INSERT INTO webhooks (` + webhookCols + `)
		VALUES ({:id}, {:world}, {:url}, {:secret}, {:events}, 1, '', 0, {:t}, {:t})`).
		Bind(dbx.Params{"id": h.ID, "world": worldID, "url": url, "secret": h.Secret, "events": h.Events, "t": t}).Execute()
	if err != nil {
		return Webhook{}, fmt.Errorf("store: create webhook: %w", err)
	}
	return h.webhook(), nil
}

// Webhooks returns a world's webhooks, oldest first.
func (s *Store) Webhooks(worldID string) ([]Webhook, error) {
	return s.webhooksWhere("world = {:w}", dbx.Params{"w": worldID})
}

// EnabledWebhooks returns every enabled webhook of every world.
func (s *Store) EnabledWebhooks() ([]Webhook, error) {
	return s.webhooksWhere("enabled = 1", nil)
}

func (s *Store) webhooksWhere(where string, p dbx.Params) ([]Webhook, error) {
	var rows []webhookRow
	if err := s.app.DB().NewQuery("SELECT " + webhookCols + " FROM webhooks WHERE " + where + " ORDER BY created, id").Bind(p).All(&rows); err != nil {
		return nil, fmt.Errorf("store: read webhooks: %w", err)
	}
	out := make([]Webhook, len(rows))
	for i, r := range rows {
		out[i] = r.webhook()
	}
	return out, nil
}

// Webhook returns one of a world's webhooks (apierr.ErrNotFound if it has no such one).
func (s *Store) Webhook(worldID, id string) (Webhook, error) {
	var r webhookRow
	err := s.app.DB().NewQuery("SELECT " + webhookCols + " FROM webhooks WHERE world = {:w} AND id = {:id}").
		Bind(dbx.Params{"w": worldID, "id": id}).One(&r)
	if errors.Is(err, sql.ErrNoRows) {
		return Webhook{}, apierr.ErrNotFound
	}
	if err != nil {
		return Webhook{}, fmt.Errorf("store: read webhook: %w", err)
	}
	return r.webhook(), nil
}

// WebhookChange is what UpdateWebhook changes; nil members stay.
type WebhookChange struct {
	URL     *string
	Events  []string
	Enabled *bool
	// RotateSecret replaces the secret with a new one.
	RotateSecret bool
}

// UpdateWebhook changes a webhook. Enabling one clears its failures and the reason it was
// disabled; disabling one by hand fails its pending deliveries.
func (s *Store) UpdateWebhook(h Webhook, c WebhookChange) (Webhook, error) {
	if c.URL != nil {
		if err := checkWebhookURL(*c.URL); err != nil {
			return Webhook{}, err
		}
		h.URL = *c.URL
	}
	if c.Events != nil {
		ev, err := checkEvents(c.Events)
		if err != nil {
			return Webhook{}, err
		}
		h.Events = ev
	}
	if c.RotateSecret {
		h.Secret = newSecret()
	}
	disabling := c.Enabled != nil && !*c.Enabled && h.Enabled
	if c.Enabled != nil {
		if *c.Enabled && !h.Enabled {
			h.Failures, h.DisabledReason = 0, ""
		}
		h.Enabled = *c.Enabled
		if h.Enabled {
			h.DisabledReason = ""
		}
	}
	h.Updated = now()
	ev, _ := json.Marshal(h.Events)
	err := s.app.RunInTransaction(func(tx core.App) error {
		_, err := tx.DB().NewQuery(`UPDATE webhooks SET url = {:url}, secret = {:secret}, events = {:events}, enabled = {:enabled},
			disabledReason = {:reason}, failures = {:failures}, updated = {:t} WHERE id = {:id}`).
			Bind(dbx.Params{"url": h.URL, "secret": h.Secret, "events": string(ev), "enabled": h.Enabled, "reason": h.DisabledReason,
				"failures": h.Failures, "t": h.Updated, "id": h.ID}).Execute()
		if err != nil || !disabling {
			return err
		}
		return failPending(tx.DB(), h.ID, "the webhook was disabled before this was delivered")
	})
	if err != nil {
		return Webhook{}, fmt.Errorf("store: update webhook: %w", err)
	}
	return h, nil
}

// DeleteWebhook deletes a webhook and its delivery log.
func (s *Store) DeleteWebhook(h Webhook) error {
	return s.app.RunInTransaction(func(tx core.App) error {
		if _, err := tx.DB().NewQuery("DELETE FROM webhook_deliveries WHERE webhook = {:id}").Bind(dbx.Params{"id": h.ID}).Execute(); err != nil {
			return fmt.Errorf("store: delete webhook deliveries: %w", err)
		}
		if _, err := tx.DB().NewQuery("DELETE FROM webhooks WHERE id = {:id}").Bind(dbx.Params{"id": h.ID}).Execute(); err != nil {
			return fmt.Errorf("store: delete webhook: %w", err)
		}
		return nil
	})
}

// DeleteWorldWebhooks deletes a world's webhooks and their logs, in the transaction of db:
// for purging a deleted world.
func DeleteWorldWebhooks(db dbx.Builder, worldID string) error {
	p := dbx.Params{"w": worldID}
	if _, err := db.NewQuery("DELETE FROM webhook_deliveries WHERE webhook IN (SELECT id FROM webhooks WHERE world = {:w})").Bind(p).Execute(); err != nil {
		return fmt.Errorf("store: delete world's deliveries: %w", err)
	}
	if _, err := db.NewQuery("DELETE FROM webhooks WHERE world = {:w}").Bind(p).Execute(); err != nil {
		return fmt.Errorf("store: delete world's webhooks: %w", err)
	}
	return nil
}

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// Delivery is one change sent, or to be sent, to one webhook.
type Delivery struct {
	ID        string `db:"id"`
	WebhookID string `db:"webhook"`
	// Seq is the outbox row it came from (0 for a ping).
	Seq         int64  `db:"seq"`
	Kind        string `db:"kind"`
	Payload     string `db:"payload"`
	Status      string `db:"status"`
	Attempts    int    `db:"attempts"`
	NextAttempt string `db:"nextAttempt"`
	// LastStatus is the HTTP status of the last attempt (0: no answer).
	LastStatus int    `db:"lastStatus"`
	LastError  string `db:"lastError"`
	ResponseMs int64  `db:"responseMs"`
	Created    string `db:"created"`
	Delivered  string `db:"delivered"`
}

const deliveryCols = "id, webhook, COALESCE(seq, 0) AS seq, kind, payload, status, attempts, nextAttempt, lastStatus, lastError, responseMs, created, delivered"

// NewDeliveryID returns the id of a delivery about to be made (its payload carries it).
func NewDeliveryID() string { return newID() }

// Deliveries returns a page of a webhook's deliveries, newest first, and their total.
func (s *Store) Deliveries(webhookID string, p Page) ([]Delivery, int, error) {
	var total int
	if err := s.app.DB().NewQuery("SELECT COUNT(*) FROM webhook_deliveries WHERE webhook = {:h}").Bind(dbx.Params{"h": webhookID}).Row(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count deliveries: %w", err)
	}
	var out []Delivery
	err := s.app.DB().NewQuery("SELECT " + deliveryCols + " FROM webhook_deliveries WHERE webhook = {:h} ORDER BY created DESC, rowid DESC LIMIT {:limit} OFFSET {:offset}").
		Bind(dbx.Params{"h": webhookID, "limit": p.PerPage, "offset": p.offset()}).All(&out)
	if err != nil {
		return nil, 0, fmt.Errorf("store: read deliveries: %w", err)
	}
	return out, total, nil
}

// WebhookCursor returns the outbox sequence the webhook dispatcher has read up to.
func (s *Store) WebhookCursor() (int64, error) {
	var seq int64
	if err := s.app.DB().NewQuery("SELECT seq FROM webhook_cursor WHERE id = 1").Row(&seq); err != nil {
		return 0, fmt.Errorf("store: webhook cursor: %w", err)
	}
	return seq, nil
}

// EnqueueDeliveries creates deliveries and moves the dispatcher's cursor from from to to, in
// one transaction: the outbox rows up to to are then handed over exactly once. It fails,
// changing nothing, if the cursor is no longer at from.
func (s *Store) EnqueueDeliveries(from, to int64, ds []Delivery) error {
	return s.app.RunInTransaction(func(tx core.App) error {
		res, err := tx.DB().NewQuery("UPDATE webhook_cursor SET seq = {:to} WHERE id = 1 AND seq = {:from}").
			Bind(dbx.Params{"from": from, "to": to}).Execute()
		if err != nil {
			return fmt.Errorf("store: move webhook cursor: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("store: the webhook cursor moved from %d meanwhile", from)
		}
		t := now()
		for _, d := range ds {
			_, err := tx.DB().NewQuery(`INSERT OR IGNORE INTO webhook_deliveries (id, webhook, seq, kind, payload, status, nextAttempt, created)
				VALUES ({:id}, {:h}, {:seq}, {:kind}, {:payload}, 'pending', {:t}, {:t})`).
				Bind(dbx.Params{"id": d.ID, "h": d.WebhookID, "seq": d.Seq, "kind": d.Kind, "payload": d.Payload, "t": t}).Execute()
			if err != nil {
				return fmt.Errorf("store: create delivery: %w", err)
			}
		}
		return nil
	})
}

// DueDelivery is a pending delivery whose time has come, with where it goes.
type DueDelivery struct {
	Delivery
	URL    string `db:"url"`
	Secret string `db:"secret"`
	First  int64  `db:"first"`
}

// DueDeliveries returns, for up to limit enabled webhooks, the oldest of their pending
// deliveries that is due by at: one per webhook, so that a webhook gets its deliveries one at
// a time, in order, and one with a long queue does not hold up the others.
func (s *Store) DueDeliveries(at time.Time, limit int) ([]DueDelivery, error) {
	var out []DueDelivery
	// SQLite takes the bare columns of a MIN() aggregate from the row holding the minimum.
	err := s.app.DB().NewQuery(`SELECT d.id, d.webhook, COALESCE(d.seq, 0) AS seq, d.kind, d.payload, d.status, d.attempts, d.nextAttempt,
			d.lastStatus, d.lastError, d.responseMs, d.created, d.delivered, h.url, h.secret, MIN(d.rowid) AS first
		FROM webhook_deliveries d JOIN webhooks h ON h.id = d.webhook
		WHERE d.status = 'pending' AND d.nextAttempt <= {:at} AND h.enabled = 1
		GROUP BY d.webhook ORDER BY first LIMIT {:limit}`).
		Bind(dbx.Params{"at": at.UTC().Format(dbTime), "limit": limit}).All(&out)
	if err != nil {
		return nil, fmt.Errorf("store: due deliveries: %w", err)
	}
	return out, nil
}

// Attempt is the outcome of one attempt at a delivery.
type Attempt struct {
	// Status is the HTTP status answered (0: none); OK is a 2xx.
	Status int
	OK     bool
	Error  string
	Millis int64
	// Next is when to try again; GiveUp ends the delivery as failed instead.
	Next   time.Time
	GiveUp bool
	// DisableAfter disables the webhook when this many deliveries in a row failed for good.
	DisableAfter int
}

// RecordAttempt saves an attempt's outcome. A success clears the webhook's failures; a
// delivery failed for good adds one, and at a.DisableAfter the webhook is disabled, with the
// reason, and its other pending deliveries fail. disabled says it was.
func (s *Store) RecordAttempt(d Delivery, a Attempt) (disabled bool, err error) {
	err = s.app.RunInTransaction(func(tx core.App) error {
		db := tx.DB()
		t := now()
		p := dbx.Params{"id": d.ID, "status": a.Status, "err": a.Error, "ms": a.Millis, "t": t, "h": d.WebhookID}
		switch {
		case a.OK:
			if _, err := db.NewQuery(`UPDATE webhook_deliveries SET status = 'succeeded', attempts = attempts + 1, lastStatus = {:status},
				lastError = '', responseMs = {:ms}, delivered = {:t} WHERE id = {:id} AND status = 'pending'`).Bind(p).Execute(); err != nil {
				return err
			}
			_, err := db.NewQuery("UPDATE webhooks SET failures = 0 WHERE id = {:h} AND failures > 0").Bind(p).Execute()
			return err
		case !a.GiveUp:
			p["next"] = a.Next.UTC().Format(dbTime)
			_, err := db.NewQuery(`UPDATE webhook_deliveries SET attempts = attempts + 1, lastStatus = {:status}, lastError = {:err},
				responseMs = {:ms}, nextAttempt = {:next} WHERE id = {:id} AND status = 'pending'`).Bind(p).Execute()
			return err
		}
		if _, err := db.NewQuery(`UPDATE webhook_deliveries SET status = 'failed', attempts = attempts + 1, lastStatus = {:status},
			lastError = {:err}, responseMs = {:ms} WHERE id = {:id} AND status = 'pending'`).Bind(p).Execute(); err != nil {
			return err
		}
		var failures int
		if err := db.NewQuery("UPDATE webhooks SET failures = failures + 1 WHERE id = {:h} RETURNING failures").Bind(p).Row(&failures); err != nil {
			return err
		}
		if a.DisableAfter <= 0 || failures < a.DisableAfter {
			return nil
		}
		what := fmt.Sprintf("%d deliveries in a row failed", failures)
		if failures == 1 {
			what = "a delivery failed"
		}
		p["reason"] = fmt.Sprintf("Disabled on %s UTC: %s after a day of retries. The last: %s", t[:16], what, a.Error)
		if _, err := db.NewQuery("UPDATE webhooks SET enabled = 0, disabledReason = {:reason}, updated = {:t} WHERE id = {:h}").Bind(p).Execute(); err != nil {
			return err
		}
		disabled = true
		return failPending(db, d.WebhookID, "the webhook was disabled after repeated failures")
	})
	if err != nil {
		return false, fmt.Errorf("store: record delivery attempt: %w", err)
	}
	return disabled, nil
}

func failPending(db dbx.Builder, webhookID, why string) error {
	_, err := db.NewQuery("UPDATE webhook_deliveries SET status = 'failed', lastError = {:why} WHERE webhook = {:h} AND status = 'pending'").
		Bind(dbx.Params{"h": webhookID, "why": why}).Execute()
	return err
}

// AddPing records a test delivery already attempted once: it is never retried, and its
// outcome leaves the webhook's failures as they were.
func (s *Store) AddPing(d Delivery, a Attempt) (Delivery, error) {
	t := now()
	d.Kind, d.Attempts, d.NextAttempt, d.Created = PingEvent, 1, t, t
	d.LastStatus, d.LastError, d.ResponseMs = a.Status, a.Error, a.Millis
	d.Status = DeliveryFailed
	if a.OK {
		d.Status, d.Delivered = DeliverySucceeded, t
	}
	_, err := s.app.NonconcurrentDB().NewQuery(`INSERT INTO webhook_deliveries (id, webhook, seq, kind, payload, status, attempts, nextAttempt, lastStatus, lastError, responseMs, created, delivered)
		VALUES ({:id}, {:h}, NULL, {:kind}, {:payload}, {:status}, 1, {:t}, {:ls}, {:le}, {:ms}, {:t}, {:delivered})`).
		Bind(dbx.Params{"id": d.ID, "h": d.WebhookID, "kind": d.Kind, "payload": d.Payload, "status": d.Status, "t": t,
			"ls": d.LastStatus, "le": d.LastError, "ms": d.ResponseMs, "delivered": d.Delivered}).Execute()
	if err != nil {
		return Delivery{}, fmt.Errorf("store: record ping: %w", err)
	}
	return d, nil
}

// DeliveryKeep is how long finished deliveries stay in the log.
const DeliveryKeep = 30 * 24 * time.Hour

// PruneDeliveries deletes finished deliveries created before cutoff.
func (s *Store) PruneDeliveries(cutoff time.Time) (int64, error) {
	res, err := s.app.NonconcurrentDB().NewQuery("DELETE FROM webhook_deliveries WHERE status != 'pending' AND created < {:c}").
		Bind(dbx.Params{"c": cutoff.UTC().Format(dbTime)}).Execute()
	if err != nil {
		return 0, fmt.Errorf("store: prune deliveries: %w", err)
	}
	return res.RowsAffected()
}
