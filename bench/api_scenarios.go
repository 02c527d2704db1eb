package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
)

const (
	pbRecords    = "/api/collections/" + benchCollection + "/records"
	pbCreateName = "PB record create"
)

// runCreate: POST /api/v1/worlds/{w}/documents against PocketBase's record create on the
// same instance, at 1, 10 and 50 clients (goal: at 10 and 50 clients, ≥ 1.2x its rate).
func (b *bench) runCreate() error {
	t, err := b.newTarget()
	if err != nil {
		return err
	}
	defer t.close()
	w, err := t.world("Create bench")
	if err != nil {
		return err
	}
	ours := func(int, int) error {
		return t.c.do(http.MethodPost, "/api/v1/worlds/"+w+"/documents", bearer(t.key), createDocBody, http.StatusCreated, nil)
	}
	base, baseName := t.health, healthBaseline
	if !t.remote() {
		base, baseName = func(int, int) error {
			return t.c.do(http.MethodPost, pbRecords, t.pbAuth, createRecordBody, http.StatusOK, nil)
		}, pbCreateName
	}
	for _, clients := range []int{1, 10, 50} {
		a, bs := pair(clients, b.dur, ours, base)
		r := latencyRow("create document", clients, a, baseName, bs)
		if !t.remote() && clients > 1 {
			r.goal("docs/s ≥ 1.2x", r.RateRatio >= 1.2)
		}
		b.add(r)
		if clients == 1 {
			b.create1 = &a
		}
	}
	return nil
}

var (
	createDocBody    = mustJSON(map[string]any{"name": "Bench document", "documentType": "card"})
	createRecordBody = mustJSON(map[string]any{"name": "Bench document", "data": map[string]any{}})
)

// writeFixture is 100 cards with ten properties each, and 100 bench records holding the same
// properties in a JSON field.
type writeFixture struct {
	world   string
	docs    []string
	records []string
}

const fixtureSize = 100

func properties(round int) []map[string]string {
	props := make([]map[string]string, 10)
	for k := range props {
		props[k] = map[string]string{"key": fmt.Sprintf("k%d", k), "value": fmt.Sprintf("value %d of property %d", round, k)}
	}
	return props
}

// setPropertyOps returns n card.setProperty ops on distinct keys: a write that keeps the
// card's size steady however long the bench runs.
func setPropertyOps(n, round int) []byte {
	ops := make([]map[string]string, n)
	for k := range ops {
		key := (round + k) % 10
		ops[k] = map[string]string{"op": "card.setProperty", "key": fmt.Sprintf("k%d", key), "value": fmt.Sprintf("value %d of property %d", round, key)}
	}
	return mustJSON(map[string]any{"ops": ops})
}

func (t *target) writeFixture() (writeFixture, error) {
	var f writeFixture
	var err error
	if f.world, err = t.world("Write bench"); err != nil {
		return f, err
	}
	if f.docs, err = t.documents(f.world, "card", fixtureSize); err != nil {
		return f, err
	}
	for _, d := range f.docs {
		if err := t.c.do(http.MethodPost, "/api/v1/worlds/"+f.world+"/documents/"+d+"/content", bearer(t.key), setPropertyOps(10, 0), http.StatusOK, nil); err != nil {
			return f, err
		}
	}
	if !t.remote() {
		f.records, err = t.srv.createBenchRecords(fixtureSize, map[string]any{"properties": properties(0)})
	}
	return f, err
}

// runWrite: 1-op and 10-op content writes against PocketBase's record update (PATCH of the
// JSON field) at 1, 10 and 50 clients over 100 documents/records.
func (b *bench) runWrite() error {
	t, err := b.newTarget()
	if err != nil {
		return err
	}
	defer t.close()
	f, err := t.writeFixture()
	if err != nil {
		return err
	}
	// Bodies are prepared up front so the client spends no time building them.
	var oneOp, tenOp, patch [10][]byte
	for i := range 10 {
		oneOp[i] = setPropertyOps(1, i)
		tenOp[i] = setPropertyOps(10, i)
		patch[i] = mustJSON(map[string]any{"data": map[string]any{"properties": properties(i)}})
	}
	for _, nops := range []int{1, 10} {
		bodies := oneOp
		if nops == 10 {
			bodies = tenOp
		}
		for _, clients := range []int{1, 10, 50} {
			rngs := workerRands(clients)
			ours := func(w, i int) error {
				d := f.docs[rngs[w].IntN(len(f.docs))]
				return t.c.do(http.MethodPost, "/api/v1/worlds/"+f.world+"/documents/"+d+"/content", bearer(t.key), bodies[i%10], http.StatusOK, nil)
			}
			base, baseName := t.health, healthBaseline
			if !t.remote() {
				base, baseName = func(w, i int) error {
					id := f.records[rngs[w].IntN(len(f.records))]
					return t.c.do(http.MethodPatch, pbRecords+"/"+id, t.pbAuth, patch[i%10], http.StatusOK, nil)
				}, "PB record update (PATCH JSON field)"
			}
			a, bs := pair(clients, b.dur, ours, base)
			r := latencyRow(fmt.Sprintf("content write, %d op", nops), clients, a, baseName, bs)
			if !t.remote() {
				switch {
				case nops == 1 && clients == 1:
					r.goal("p50 ≤ 1.3x", r.LatRatio <= 1.3)
				case clients == 50:
					r.goal("writes/s ≥ 2.0x", r.RateRatio >= 2.0)
				}
			}
			b.add(r)
		}
	}
	return nil
}

// runRead: GET /api/v1/worlds/{w}/documents/{d} against PocketBase's record view.
func (b *bench) runRead() error {
	t, err := b.newTarget()
	if err != nil {
		return err
	}
	defer t.close()
	f, err := t.writeFixture()
	if err != nil {
		return err
	}
	for _, clients := range []int{1, 10, 50} {
		rngs := workerRands(clients)
		ours := func(w, i int) error {
			d := f.docs[rngs[w].IntN(len(f.docs))]
			return t.c.do(http.MethodGet, "/api/v1/worlds/"+f.world+"/documents/"+d, bearer(t.key), nil, http.StatusOK, nil)
		}
		base, baseName := t.health, healthBaseline
		if !t.remote() {
			base, baseName = func(w, i int) error {
				id := f.records[rngs[w].IntN(len(f.records))]
				return t.c.do(http.MethodGet, pbRecords+"/"+id, t.pbAuth, nil, http.StatusOK, nil)
			}, "PB record view"
		}
		a, bs := pair(clients, b.dur, ours, base)
		b.add(latencyRow("read document", clients, a, baseName, bs))
	}
	return nil
}

// workerRands gives each client its own seeded generator.
func workerRands(n int) []*rand.Rand {
	out := make([]*rand.Rand, n)
	for i := range out {
		out[i] = rand.New(rand.NewPCG(uint64(i)+1, 42))
	}
	return out
}
