package main

import (
	"fmt"
	"net/http"
	"time"
)

// runEra: POST .../eras in a world of 100,000 documents against one of 10 (goal: ratio ≤
// 1.2, eras are copy-on-write). The big world is inserted directly through the app's
// database after the server started, without outbox rows: the search indexer's start-up
// reconcile has already run and it follows the outbox, so it does no work for them during
// the measurement (and the index does not hold them; era creation does not touch it).
func (b *bench) runEra() error {
	big := 100_000
	if b.quick {
		big = 10_000
	}
	t, err := b.newTarget()
	if err != nil {
		return err
	}
	defer t.close()
	small, err := t.world("Small world")
	if err != nil {
		return err
	}
	if _, err := t.srv.createDocs(small, "card", 10); err != nil {
		return err
	}
	large, err := t.world("Large world")
	if err != nil {
		return err
	}
	docs := make([]seedDoc, big)
	for i := range docs {
		docs[i] = cardDoc(fmt.Sprintf("Document %d", i), "A short note on this place and its people.", i)
	}
	start := time.Now()
	if _, err := bulkInsert(t.srv.PB, large, docs, false); err != nil {
		return err
	}
	logf("era: %d documents inserted in %s", big, time.Since(start).Round(time.Millisecond))

	era := func(w string) op {
		return func(_, i int) error {
			body := mustJSON(map[string]any{"name": fmt.Sprintf("Age %d", i)})
			return t.c.do(http.MethodPost, "/api/v1/worlds/"+w+"/eras", bearer(t.key), body, http.StatusCreated, nil)
		}
	}
	a, bs := pair(1, b.dur, era(large), era(small))
	r := latencyRow(fmt.Sprintf("create era, %d-doc world", big), 1, a, "create era, 10-doc world", bs)
	r.goal("p50 ≤ 1.2x", r.LatRatio <= 1.2)
	b.add(r)
	return nil
}
