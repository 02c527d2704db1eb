// Package webhooks sends a world's changes to the URLs its owners and admins registered.
// Deliveries come from the outbox after commit: a dispatcher turns outbox rows into delivery
// rows in the same transaction that moves its cursor (so a crash neither loses nor invents
// one), and a sender POSTs them, signed, retrying with exponential backoff for a day.
package webhooks

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loreweave/loreweave/app/background"
	"github.com/loreweave/loreweave/app/config"
	"github.com/loreweave/loreweave/app/live"
	"github.com/loreweave/loreweave/app/publicnet"
	"github.com/loreweave/loreweave/app/store"
)

// Headers of a delivery.
const (
	SignatureHeader = "Loreweave-Signature"
	DeliveryHeader  = "Loreweave-Delivery"
	EventHeader     = "Loreweave-Event"
)

// Service registers webhooks and delivers to them. API and web pages change webhooks through
// it, so that every surface checks targets alike.
type Service struct {
	Store *store.Store
	// AllowPrivate lets webhooks call non-public addresses.
	AllowPrivate bool
	// RetryBase is the wait after a first failed attempt. It scales the whole schedule:
	// waits double up to 120 times it (an hour at the default 30 s), and a delivery is
	// retried for 2,880 times it (a day) before it fails for good.
	RetryBase time.Duration
	// Timeout bounds one attempt; Workers, the attempts in flight at once.
	Timeout time.Duration
	Workers int
	// DisableAfter disables a webhook when this many deliveries in a row failed for good.
	DisableAfter int

	client *http.Client
	nudge  chan struct{}
	// The dispatcher's place in the outbox: saved is the cursor as stored (at savedAt), pos
	// how far it has read. Rows no webhook wanted move only pos, and the cursor is stored
	// with the next deliveries or after cursorSaveEvery, so that a change nobody listens to
	// costs no write. Only the dispatcher's goroutine touches them.
	saved, pos int64
	savedAt    time.Time
	loaded     bool
	cancel     context.CancelFunc
	done       chan struct{}
}

// New returns the service for cfg; Start starts its loops.
func New(s *store.Store, cfg config.Config) *Service {
	return &Service{Store: s, AllowPrivate: cfg.WebhooksAllowPrivate, RetryBase: cfg.WebhookRetryBase, Timeout: 10 * time.Second, Workers: 4, DisableAfter: 5,
		client: newClient(10*time.Second, cfg.WebhooksAllowPrivate), nudge: make(chan struct{}, 1)}
}

// Create registers a webhook after checking its URL's target.
func (s *Service) Create(ctx context.Context, worldID, rawURL string, events []string) (store.Webhook, error) {
	if err := checkURL(ctx, rawURL, s.AllowPrivate); err != nil {
		return store.Webhook{}, err
	}
	return s.Store.CreateWebhook(worldID, rawURL, events)
}

// Update changes a webhook, checking a new URL's target.
func (s *Service) Update(ctx context.Context, h store.Webhook, c store.WebhookChange) (store.Webhook, error) {
	if c.URL != nil {
		if err := checkURL(ctx, *c.URL, s.AllowPrivate); err != nil {
			return store.Webhook{}, err
		}
	}
	h, err := s.Store.UpdateWebhook(h, c)
	if err == nil {
		s.wake()
	}
	return h, err
}

// Ping sends a test event to a webhook at once and records it in its log. It is not retried
// and does not count towards disabling the webhook.
func (s *Service) Ping(ctx context.Context, h store.Webhook) (store.Delivery, error) {
	d := store.Delivery{ID: store.NewDeliveryID(), WebhookID: h.ID, Kind: store.PingEvent}
	p := Payload{ID: d.ID, Type: store.PingEvent, World: h.WorldID, Created: time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		Data: EventData{Webhook: h.ID}}
	body, _ := json.Marshal(p) // plain types: cannot fail
	d.Payload = string(body)
	a := s.attempt(ctx, h.URL, h.Secret, d)
	return s.Store.AddPing(d, a)
}

// Sign returns the Loreweave-Signature header value of body sent at t.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(m.Sum(nil))
}

// Verify checks a Loreweave-Signature header against body, accepting signatures made
// within tolerance of now: what a receiver does (the README shows it in other languages).
func Verify(secret, header string, body []byte, tolerance time.Duration) error {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("webhooks: the signature has no timestamp")
	}
	if d := time.Since(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return errors.New("webhooks: the signature is too old or from the future")
	}
	want := Sign(secret, time.Unix(sec, 0), body)
	_, wantSig, _ := strings.Cut(want, ",v1=")
	for _, s := range sigs {
		if hmac.Equal([]byte(s), []byte(wantSig)) {
			return nil
		}
	}
	return errors.New("webhooks: no valid signature")
}

// Start starts the dispatcher and the sender.
func (s *Service) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel, s.done = cancel, make(chan struct{})
	log := s.Store.App().Logger()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); background.Loop(ctx, log, "webhook dispatcher", s.dispatchLoop) }()
	go func() { defer wg.Done(); background.Loop(ctx, log, "webhook sender", s.sendLoop) }()
	go func() { wg.Wait(); close(s.done) }()
}

// Stop stops both loops; deliveries in flight stay pending and are sent again later.
func (s *Service) Stop() {
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
}

func (s *Service) wake() {
	select {
	case s.nudge <- struct{}{}:
	default:
	}
}

// cursorSaveEvery is how often the cursor is stored when no delivery moves it; dispatchGap is
// the least time between two reads of the outbox, so that a stream of writes is read a batch
// (store.OutboxPage rows at most, handed over in one transaction) at a time instead of once
// per write (which cost as much CPU as the writes' own SQL).
const (
	cursorSaveEvery = 5 * time.Second
	dispatchGap     = 100 * time.Millisecond
)

// dispatchLoop hands outbox rows to webhooks as they are committed (at once for this
// process's writes, within store.OutboxPoll for others').
func (s *Service) dispatchLoop(ctx context.Context) {
	s.loaded = false
	wake := make(chan struct{}, 1)
	remove := s.Store.OnChange(func(store.Change) {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	defer remove()
	t := time.NewTicker(store.OutboxPoll)
	defer t.Stop()
	for {
		for {
			n, queued, err := s.dispatch()
			if err != nil {
				if ctx.Err() == nil {
					s.Store.App().Logger().Warn("webhooks: dispatch", "error", err.Error())
				}
				break
			}
			if queued {
				s.wake() // the sender has work only when deliveries were queued
			}
			if n < store.OutboxPage {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(dispatchGap):
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-t.C:
		}
	}
}

// dispatch hands the next batch of outbox rows to the webhooks that want them and returns
// how many rows it read and whether it queued deliveries.
func (s *Service) dispatch() (int, bool, error) {
	if !s.loaded {
		saved, err := s.Store.WebhookCursor()
		if err != nil {
			return 0, false, err
		}
		s.saved, s.pos, s.savedAt, s.loaded = saved, saved, time.Now(), true
	}
	// The head first: a webhook enabled after it is read was enabled after the changes up
	// to it were committed, which it does not get.
	head, err := s.Store.OutboxHead()
	if err != nil || head <= s.pos {
		return 0, false, err
	}
	hooks, err := s.Store.EnabledWebhooks()
	if err != nil {
		return 0, false, err
	}
	if len(hooks) == 0 {
		// No webhook anywhere (the usual case): the changes are passed, not read.
		return 0, false, s.advance(head, nil)
	}
	rows, err := s.Store.OutboxSince(s.pos)
	if err != nil || len(rows) == 0 {
		return 0, false, err
	}
	byWorld := map[string][]store.Webhook{}
	for _, h := range hooks {
		byWorld[h.WorldID] = append(byWorld[h.WorldID], h)
	}
	var ds []store.Delivery
	for _, r := range rows {
		for _, h := range byWorld[r.World] {
			// A row read again after a restart (the cursor was not stored past it) goes only
			// to webhooks that existed when it was committed, as it would have then.
			if !h.Wants(r.Kind) || r.Created < h.Created {
				continue
			}
			d := store.Delivery{ID: store.NewDeliveryID(), WebhookID: h.ID, Seq: r.Seq, Kind: r.Kind}
			body, err := json.Marshal(s.payload(d.ID, r))
			if err != nil {
				return 0, false, err
			}
			d.Payload = string(body)
			ds = append(ds, d)
		}
	}
	return len(rows), len(ds) > 0, s.advance(rows[len(rows)-1].Seq, ds)
}

// advance queues ds and moves the cursor past last, storing it when there are deliveries
// or it was last stored cursorSaveEvery ago.
func (s *Service) advance(last int64, ds []store.Delivery) error {
	if len(ds) == 0 && time.Since(s.savedAt) < cursorSaveEvery {
		s.pos = last
		return nil
	}
	if err := s.Store.EnqueueDeliveries(s.saved, last, ds); err != nil {
		s.loaded = false // read the stored cursor again
		return err
	}
	s.saved, s.pos, s.savedAt = last, last, time.Now()
	return nil
}

// Payload is the JSON body of a delivery.
type Payload struct {
	// ID is the delivery's id (also in the Loreweave-Delivery header): the same on every
	// attempt, so that a receiver can ignore one it already handled.
	ID       string    `json:"id"`
	Type     string    `json:"type"`
	World    string    `json:"world"`
	Document string    `json:"document"`
	Era      string    `json:"era"`
	Created  string    `json:"created"`
	Data     EventData `json:"data"`
}

// EventData is what the change says, as the world stream's event says it (live.Describe).
type EventData struct {
	World    *live.WorldMeta    `json:"world,omitempty"`
	Document *live.DocumentMeta `json:"document,omitempty"`
	Era      *live.EraMeta      `json:"era,omitempty"`
	Project  *live.ProjectMeta  `json:"project,omitempty"`
	UserID   string             `json:"userId,omitempty"`
	Role     string             `json:"role,omitempty"`
	Tool     string             `json:"tool,omitempty"`
	// Webhook is set on a ping: the webhook tested.
	Webhook string `json:"webhook,omitempty"`
}

// payload describes an outbox row as it is when dispatched.
func (s *Service) payload(id string, r store.OutboxRow) Payload {
	p := Payload{ID: id, Type: r.Kind, World: r.World, Document: r.Document, Era: r.Era, Created: strings.Replace(r.Created, " ", "T", 1)}
	if ev, ok := live.Describe(s.Store, r); ok {
		p.Data = EventData{World: ev.World, Document: ev.Document, Era: ev.Era, Project: ev.Project, UserID: ev.UserID, Role: ev.Role, Tool: ev.Tool}
	}
	return p
}

// sendLoop sends due deliveries, up to Workers at once and one at a time per webhook (so
// that a webhook's deliveries arrive in order while they succeed).
func (s *Service) sendLoop(ctx context.Context) {
	log := s.Store.App().Logger()
	tick := min(max(s.RetryBase, 50*time.Millisecond), time.Second)
	t := time.NewTicker(tick)
	defer t.Stop()
	slots := make(chan struct{}, max(s.Workers, 1))
	var mu sync.Mutex
	busy := map[string]bool{} // webhooks with a delivery in flight
	var wg sync.WaitGroup
	defer wg.Wait()
	var pruned time.Time
	for {
		if time.Since(pruned) > time.Hour {
			pruned = time.Now()
			if _, err := s.Store.PruneDeliveries(time.Now().Add(-store.DeliveryKeep)); err != nil {
				log.Warn("webhooks: prune deliveries", "error", err.Error())
			}
		}
		due, err := s.Store.DueDeliveries(time.Now(), 100)
		if err != nil && ctx.Err() == nil {
			log.Warn("webhooks: read due deliveries", "error", err.Error())
		}
		for _, d := range due {
			mu.Lock()
			taken := busy[d.WebhookID]
			busy[d.WebhookID] = true
			mu.Unlock()
			if taken {
				continue
			}
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				mu.Lock()
				delete(busy, d.WebhookID)
				mu.Unlock()
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer background.Recover(log, "webhook delivery")
				defer func() {
					<-slots
					mu.Lock()
					delete(busy, d.WebhookID)
					mu.Unlock()
					s.wake() // the webhook's next delivery may be due
				}()
				s.deliver(ctx, d)
			}()
		}
		select {
		case <-ctx.Done():
			return
		case <-s.nudge:
		case <-t.C:
		}
	}
}

// deliver makes one attempt at d and records it, with when to try again.
func (s *Service) deliver(ctx context.Context, d store.DueDelivery) {
	a := s.attempt(ctx, d.URL, d.Secret, d.Delivery)
	if ctx.Err() != nil {
		return // stopping: the delivery stays pending and is sent again after the restart
	}
	log := s.Store.App().Logger()
	if !a.OK {
		wait := s.RetryBase << min(d.Attempts, 20)
		wait = min(wait, 120*s.RetryBase)
		a.Next = time.Now().Add(wait)
		a.GiveUp = a.Next.After(store.ParseTime(d.Created).Add(2880 * s.RetryBase))
		a.DisableAfter = s.DisableAfter
		log.Info("webhooks: delivery attempt failed", "webhook", d.WebhookID, "delivery", d.ID, "attempt", d.Attempts+1, "error", a.Error, "givingUp", a.GiveUp)
	}
	disabled, err := s.Store.RecordAttempt(d.Delivery, a)
	if err != nil {
		log.Warn("webhooks: record attempt", "delivery", d.ID, "error", err.Error())
	}
	if disabled {
		log.Warn("webhooks: webhook disabled after repeated failures", "webhook", d.WebhookID, "lastError", a.Error)
	}
}

// maxResponse bounds what is read of a receiver's answer (only its status matters).
const maxResponse = 64 << 10

// attempt POSTs a delivery's payload once, signed now.
func (s *Service) attempt(ctx context.Context, target, secret string, d store.Delivery) store.Attempt {
	body := []byte(d.Payload)
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(d.Payload))
	if err != nil {
		return store.Attempt{Error: "the webhook's URL cannot be used: " + err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Loreweave-Webhooks/1")
	req.Header.Set(SignatureHeader, Sign(secret, time.Now(), body))
	req.Header.Set(DeliveryHeader, d.ID)
	req.Header.Set(EventHeader, d.Kind)
	start := time.Now()
	res, err := s.client.Do(req)
	ms := time.Since(start).Milliseconds()
	if err != nil {
		return store.Attempt{Error: attemptError(err, s.Timeout), Millis: ms}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, maxResponse))
	res.Body.Close()
	a := store.Attempt{Status: res.StatusCode, Millis: ms, OK: res.StatusCode >= 200 && res.StatusCode < 300}
	switch {
	case a.OK:
	case res.StatusCode >= 300 && res.StatusCode < 400:
		a.Error = fmt.Sprintf("the receiver answered %d with a redirect to %q; redirects are not followed, so give the final URL", res.StatusCode, res.Header.Get("Location"))
	default:
		a.Error = fmt.Sprintf("the receiver answered %d %s", res.StatusCode, http.StatusText(res.StatusCode))
	}
	return a
}

// attemptError says in words why an attempt got no answer, without the URL (the log shows
// it beside).
func attemptError(err error, timeout time.Duration) string {
	var refused *publicnet.RefusedError
	if errors.As(err, &refused) {
		return refused.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return fmt.Sprintf("no answer within %s", timeout)
		}
		err = ue.Err
	}
	return err.Error()
}
