package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
)

// runWiki: a public wiki's document page, read by 50 clients with no session, next to the
// REST single-document read of the same documents (key, JSON) at 50 clients. The page
// renders the card read-only and the world's whole folder tree as navigation (100
// documents); the second row is the same page revalidated with its ETag (304, no render).
func (b *bench) runWiki() error {
	t, err := b.newTarget()
	if err != nil {
		return err
	}
	defer t.close()
	f, err := t.writeFixture()
	if err != nil {
		return err
	}
	var p struct{ URL string }
	if err := t.c.do(http.MethodPost, "/api/v1/worlds/"+f.world+"/projects", bearer(t.key),
		mustJSON(map[string]any{"kind": "wiki", "name": "Bench wiki", "config": map[string]any{"visibility": "public"}}), http.StatusCreated, &p); err != nil {
		return err
	}
	if p.URL == "" {
		return fmt.Errorf("wiki: the project has no url")
	}
	const clients = 50
	etags := make([]string, len(f.docs))
	for i, d := range f.docs {
		res, err := t.c.http.Get(t.c.base + p.URL + "d/" + d)
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK || res.Header.Get("ETag") == "" {
			return fmt.Errorf("wiki page: %d, ETag %q", res.StatusCode, res.Header.Get("ETag"))
		}
		etags[i] = res.Header.Get("ETag")
	}
	read := func(rngs []*rand.Rand) op {
		return func(w, i int) error {
			d := f.docs[rngs[w].IntN(len(f.docs))]
			return t.c.do(http.MethodGet, "/api/v1/worlds/"+f.world+"/documents/"+d, bearer(t.key), nil, http.StatusOK, nil)
		}
	}
	rngs := workerRands(clients)
	page := func(w, i int) error {
		return t.c.send(http.MethodGet, p.URL+"d/"+f.docs[rngs[w].IntN(len(f.docs))], http.Header{}, nil, http.StatusOK, nil)
	}
	a, bs := pair(clients, b.dur, page, read(workerRands(clients)))
	b.add(latencyRow("public wiki page (no session)", clients, a, "read document (REST, key)", bs))

	rngs = workerRands(clients)
	revalidate := func(w, i int) error {
		k := rngs[w].IntN(len(f.docs))
		return t.c.send(http.MethodGet, p.URL+"d/"+f.docs[k], http.Header{"If-None-Match": {etags[k]}}, nil, http.StatusNotModified, nil)
	}
	a, bs = pair(clients, b.dur, revalidate, read(workerRands(clients)))
	b.add(latencyRow("public wiki page revalidated (304)", clients, a, "read document (REST, key)", bs))
	return nil
}
