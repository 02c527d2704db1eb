package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/loreweave/loreweave/ops"
)

// The editor issue's goal: a keystroke batch reaches the other editors as in Google Docs.
const (
	editorGoalP50 = 50.0  // ms
	editorGoalP95 = 150.0 // ms
)

// editorFixture is a world whose owner is the bench user, with one more user per editor
// added as a member with the role editor, each with an API key.
type editorFixture struct {
	world string
	keys  []string
}

func (t *target) editorFixture(n int) (editorFixture, error) {
	f := editorFixture{keys: make([]string, n)}
	var err error
	if f.world, err = t.world("Editor bench"); err != nil {
		return f, err
	}
	for i := range f.keys {
		name := fmt.Sprintf("editor%d", i)
		u, err := t.srv.newUser(name)
		if err != nil {
			return f, err
		}
		body := mustJSON(map[string]any{"email": name + "@bench.test", "role": "editor"})
		var inv struct{ ID string }
		if err := t.c.do(http.MethodPost, "/api/v1/worlds/"+f.world+"/members", bearer(t.key), body, http.StatusCreated, &inv); err != nil {
			return f, fmt.Errorf("invite member: %w", err)
		}
		if err := t.c.do(http.MethodPost, "/api/v1/invitations/"+inv.ID+"/accept", bearer(u.Key), nil, http.StatusOK, nil); err != nil {
			return f, fmt.Errorf("accept invitation: %w", err)
		}
		f.keys[i] = u.Key
	}
	return f, nil
}

// editorCard creates a card with one section holding a few sentences and returns the card's
// and the section's ids.
func (t *target) editorCard(world string) (doc, section string, err error) {
	docs, err := t.documents(world, "card", 1)
	if err != nil {
		return "", "", err
	}
	body := strings.Repeat("The river keeps its own counsel and the ferryman keeps his. ", 7)
	var res struct {
		Created []struct{ ID string }
	}
	add := mustJSON(map[string]any{"ops": []map[string]any{{"op": "card.addSection", "title": "Notes", "body": body}}})
	if err := t.c.do(http.MethodPost, docPath(world, docs[0])+"/content", bearer(t.key), add, http.StatusOK, &res); err != nil {
		return "", "", err
	}
	if len(res.Created) != 1 {
		return "", "", fmt.Errorf("card.addSection created %d sections", len(res.Created))
	}
	return docs[0], res.Created[0].ID, nil
}

func docPath(world, doc string) string { return "/api/v1/worlds/" + world + "/documents/" + doc }

// typist is one editor: its own key and event stream, and the section's body as the server
// had it at version, kept from the stream's ops events.
type typist struct {
	clientID string
	key      string
	w        watch
	rng      *rand.Rand

	mu      sync.Mutex
	version int64
	body    string
	err     error // the stream broke the typist's copy of the text
}

// state returns the version the typist last applied and the body at that version.
func (ty *typist) state() (int64, string, error) {
	ty.mu.Lock()
	defer ty.mu.Unlock()
	return ty.version, ty.body, ty.err
}

func (ty *typist) fail(err error) {
	ty.mu.Lock()
	if ty.err == nil {
		ty.err = err
	}
	ty.mu.Unlock()
}

// readSnapshot reads the stream's first event, the snapshot, for the section's body.
func (ty *typist) readSnapshot(section string) error {
	ev, err := ty.w.rd.next()
	if err != nil {
		return err
	}
	if ev.event != "snapshot" {
		return fmt.Errorf("first event %q, want snapshot", ev.event)
	}
	var snap struct {
		Version int64
		Data    struct{ Sections []ops.Section }
	}
	if err := json.Unmarshal(ev.data, &snap); err != nil {
		return fmt.Errorf("snapshot (%d bytes): %w", len(ev.data), err)
	}
	for _, s := range snap.Data.Sections {
		if s.ID == section {
			ty.version, ty.body = snap.Version, s.Body
			return nil
		}
	}
	return fmt.Errorf("snapshot has no section %s", section)
}

// opsEvent is the part of an `ops` event a typist reads.
type opsEvent struct {
	Version   int64             `json:"version"`
	Ops       []json.RawMessage `json:"ops"`
	ClientID  string            `json:"clientId"`
	ClientSeq int64             `json:"clientSeq"`
}

// follow applies the stream's ops events to the typist's body and reports each one sent by
// another editor to seen, with the time it was read, until the stream closes.
func (ty *typist) follow(section string, seen func(clientID string, seq int64, at time.Time)) {
	for {
		ev, err := ty.w.rd.next()
		if err != nil {
			return
		}
		at := time.Now()
		if ev.event != "ops" {
			continue
		}
		var oe opsEvent
		if err := json.Unmarshal(ev.data, &oe); err != nil {
			ty.fail(fmt.Errorf("ops event: %w", err))
			continue
		}
		ty.mu.Lock()
		body := ty.body
		if oe.Version != ty.version+1 && ty.err == nil {
			ty.err = fmt.Errorf("%s: ops event of version %d after %d", ty.clientID, oe.Version, ty.version)
		}
		for _, op := range oe.Ops {
			sp, err := ops.SectionSplices(op, section)
			if err == nil {
				body, err = ops.ApplySplices(body, sp)
			}
			if err != nil && ty.err == nil {
				ty.err = fmt.Errorf("%s: version %d: %w", ty.clientID, oe.Version, err)
			}
		}
		ty.version, ty.body = oe.Version, body
		ty.mu.Unlock()
		if oe.ClientID != "" && oe.ClientID != ty.clientID {
			seen(oe.ClientID, oe.ClientSeq, at)
		}
	}
}

// keystrokes returns one batch of 1–4 keystrokes typed at a random place of body (ASCII, so
// bytes are UTF-16 units): mostly letters, sometimes a backspace, more backspaces once the
// body grows past 1,200 units so that it stays about that size. Each splice applies to the
// text the one before it left, as the wire format says.
func keystrokes(rng *rand.Rand, body string) []ops.Splice {
	const letters = "etaoinshrdlucmfwypvbgk  ,."
	n := len(body)
	pos := rng.IntN(n + 1)
	backspace := 0.15
	if n > 1200 {
		backspace = 0.6
	}
	out := make([]ops.Splice, 0, 4)
	for k := 1 + rng.IntN(4); k > 0; k-- {
		if pos > 0 && rng.Float64() < backspace {
			pos--
			out = append(out, ops.Splice{Pos: pos, Del: 1})
			continue
		}
		c := letters[rng.IntN(len(letters))]
		out = append(out, ops.Splice{Pos: pos, Ins: string(c)})
		pos++
	}
	return out
}

// sentKey names one batch: the editor and its sequence number.
type sentKey struct {
	client string
	seq    int64
}

// typingRun is the record of one editing session.
type typingRun struct {
	deliver stats // batch sent → seen on another editor's stream, every other editor
	rtt     stats // the batch request's own round trip
	batches int   // accepted batches, warm-up included
	typing  time.Duration
}

// typeTogether has n typists type into one section for d: each sends a batch of keystrokes
// every 60–100 ms (randomised), the next only once the previous one was answered, on the
// version it last applied, with its client id and sequence number. Batches sent in the
// first warm of the run are not measured. Once all stop, every typist's text must match the
// server's.
func typeTogether(t *target, world, doc, section string, keys []string, d, warm time.Duration) (typingRun, error) {
	var run typingRun
	n := len(keys)
	hc := streamClient()
	defer hc.CloseIdleConnections()
	ty := make([]*typist, n)
	rngs := workerRands(n)
	ws, err := openMany(n, func(i int) (watch, error) {
		w, err := openStream(hc, t.c.base, keys[i], docPath(world, doc)+"/events")
		if err != nil {
			return w, err
		}
		ty[i] = &typist{clientID: fmt.Sprintf("bench-editor-%d", i), key: keys[i], w: w, rng: rngs[i]}
		if err := ty[i].readSnapshot(section); err != nil {
			return w, fmt.Errorf("editor %d: %w", i, err)
		}
		return w, nil
	})
	if err != nil {
		return run, err
	}
	defer func() {
		for _, w := range ws {
			w.close()
		}
	}()

	start := time.Now()
	measureFrom := start.Add(warm)
	end := start.Add(d)
	var (
		mu         sync.Mutex
		sent       = map[sentKey]time.Time{}
		maxVersion int64
	)
	var readers sync.WaitGroup
	for _, e := range ty {
		readers.Add(1)
		go func() {
			defer readers.Done()
			e.follow(section, func(client string, seq int64, at time.Time) {
				mu.Lock()
				if s, ok := sent[sentKey{client, seq}]; ok && !s.Before(measureFrom) {
					run.deliver.lat = append(run.deliver.lat, at.Sub(s))
				}
				mu.Unlock()
			})
		}()
	}

	var writers sync.WaitGroup
	for _, e := range ty {
		writers.Add(1)
		go func() {
			defer writers.Done()
			pause := func() time.Duration { return time.Duration(60+e.rng.IntN(41)) * time.Millisecond }
			next := start.Add(time.Duration(e.rng.IntN(80)) * time.Millisecond) // not all in step
			for seq := int64(1); ; seq++ {
				time.Sleep(time.Until(next))
				if time.Now().After(end) {
					return
				}
				base, body, err := e.state()
				if err != nil {
					return
				}
				req := mustJSON(map[string]any{
					"ops":      []map[string]any{{"op": "card.editSectionText", "id": section, "baseVersion": base, "splices": keystrokes(e.rng, body)}},
					"clientId": e.clientID, "clientSeq": seq,
				})
				var res struct{ Version int64 }
				sentAt := time.Now()
				mu.Lock()
				sent[sentKey{e.clientID, seq}] = sentAt
				mu.Unlock()
				err = t.c.do(http.MethodPost, docPath(world, doc)+"/content", bearer(e.key), req, http.StatusOK, &res)
				took := time.Since(sentAt)
				next = sentAt.Add(pause())
				mu.Lock()
				if err != nil {
					run.rtt.errors++
					if run.rtt.firstEr == nil {
						run.rtt.firstEr = err
					}
				} else {
					run.batches++
					maxVersion = max(maxVersion, res.Version)
					if !sentAt.Before(measureFrom) {
						run.rtt.lat = append(run.rtt.lat, took)
					}
				}
				mu.Unlock()
			}
		}()
	}
	writers.Wait()
	run.typing = time.Since(start)

	// Every stream must reach the last version, with the server's text.
	deadline := time.Now().Add(15 * time.Second)
	for _, e := range ty {
		for {
			v, _, err := e.state()
			if err != nil {
				return run, err
			}
			if v >= maxVersion {
				break
			}
			if time.Now().After(deadline) {
				return run, fmt.Errorf("%s reached version %d of %d within 15s", e.clientID, v, maxVersion)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	for _, w := range ws {
		w.close()
	}
	readers.Wait()
	if err := checkTexts(t, world, doc, section, ty); err != nil {
		return run, err
	}
	run.deliver.errors, run.deliver.firstEr = run.rtt.errors, run.rtt.firstEr
	run.deliver.sort()
	run.rtt.sort()
	return run, nil
}

// checkTexts compares every typist's body with the server's, at the same version.
func checkTexts(t *target, world, doc, section string, ty []*typist) error {
	var res struct {
		Version int64
		Content struct {
			Data struct{ Sections []ops.Section }
		}
	}
	if err := t.c.do(http.MethodGet, docPath(world, doc), bearer(t.key), nil, http.StatusOK, &res); err != nil {
		return err
	}
	var server string
	for _, s := range res.Content.Data.Sections {
		if s.ID == section {
			server = s.Body
		}
	}
	var errs []error
	for _, e := range ty {
		v, body, _ := e.state()
		if v == res.Version && body != server {
			errs = append(errs, fmt.Errorf("%s at version %d has a %d-unit text, the server a %d-unit one", e.clientID, v, len(body), len(server)))
		}
	}
	return errors.Join(errs...)
}

// runEditor: editors typing into one section of one card, each with its own key and event
// stream: the time from sending a keystroke batch (card.editSectionText) to another editor's
// stream delivering it, with 2 and 10 editors; next to it, plain writes delivered to the
// same number of watchers, one at a time (the watch scenario's measurement), before and
// after the typing.
func (b *bench) runEditor() error {
	t, err := b.newTarget()
	if err != nil {
		return err
	}
	defer t.close()
	counts := []int{2, 10}
	d, minWrites := b.dur, 50
	if b.quick {
		d, minWrites = max(d, time.Second), 15
	} else {
		d = max(d, 2*time.Second)
	}
	f, err := t.editorFixture(counts[len(counts)-1])
	if err != nil {
		return err
	}
	for _, n := range counts {
		doc, section, err := t.editorCard(f.world)
		if err != nil {
			return err
		}
		plain := watchSide{
			open: func(c *http.Client, _ int) (watch, error) {
				return openOurs(c, t.c.base, t.key, docPath(f.world, doc)+"/events")
			},
			match: func(ev sseEvent) bool { return ev.event == "ops" },
			write: func(j int) error {
				return t.c.do(http.MethodPost, docPath(f.world, doc)+"/content", bearer(t.key), setPropertyOps(1, j), http.StatusOK, nil)
			},
		}
		var baseDeliver, baseRTT stats
		half := func() error {
			dl, rtt, err := deliveries(n-1, d/2, minWrites/2, plain)
			baseDeliver.merge(dl)
			baseRTT.merge(rtt)
			return err
		}
		logf("editor: %d editors typing (plain deliveries to %d watchers before and after)", n, n-1)
		if err := half(); err != nil {
			return fmt.Errorf("%d editors, plain deliveries: %w", n, err)
		}
		run, err := typeTogether(t, f.world, doc, section, f.keys[:n], d, min(d/4, 300*time.Millisecond))
		if err != nil {
			return fmt.Errorf("%d editors: %w", n, err)
		}
		if err := half(); err != nil {
			return fmt.Errorf("%d editors, plain deliveries: %w", n, err)
		}
		baseDeliver.sort()
		baseRTT.sort()

		r := latencyRow(fmt.Sprintf("editor batch→other editor, %d editors", n), n, run.deliver,
			fmt.Sprintf("plain write→watcher, %d watchers", n-1), baseDeliver)
		r.Rate, r.BaseRate, r.RateRatio = nanf(), nanf(), nanf()
		r.goal(fmt.Sprintf("p50 < %.0f, p95 < %.0f ms (editor issue)", editorGoalP50, editorGoalP95),
			r.P50 < editorGoalP50 && r.P95 < editorGoalP95)
		r.Note = joinNote(r.Note, fmt.Sprintf("%d editors, each with its own key and stream, typing %s: a card.editSectionText of 1–4 keystrokes every 60–100 ms, "+
			"one request in flight each; %d batches accepted (%.0f/s); each batch timed on every other editor's stream (%d per batch); "+
			"the first %s not measured; baseline: one plain write at a time, %d writes",
			n, run.typing.Round(100*time.Millisecond), run.batches, float64(run.batches)/run.typing.Seconds(), n-1,
			min(d/4, 300*time.Millisecond), baseRTT.ops()))
		b.add(r)
		wr := latencyRow(fmt.Sprintf("editor batch request alone, %d editors", n), n, run.rtt, "plain write request alone", baseRTT)
		wr.Rate, wr.BaseRate, wr.RateRatio = nanf(), nanf(), nanf()
		b.add(wr)
	}
	return nil
}
