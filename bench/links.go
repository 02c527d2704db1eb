package main

import (
	"fmt"
	"net/http"
)

// runLinks: the cost of keeping backlinks. A content write whose section text changes which
// document it links ([[Vharn]] or [[Ossa]], by name: resolved to an id, the backlinks table
// rewritten in the same transaction), next to the same write with the names as plain text,
// at 1 and 10 clients over 100 cards.
func (b *bench) runLinks() error {
	t, err := b.newTarget()
	if err != nil {
		return err
	}
	defer t.close()
	f, err := t.writeFixture()
	if err != nil {
		return err
	}
	for _, name := range []string{"Vharn", "Ossa"} {
		if err := t.c.do(http.MethodPost, "/api/v1/worlds/"+f.world+"/documents", bearer(t.key),
			mustJSON(map[string]any{"name": name, "documentType": "card"}), http.StatusCreated, nil); err != nil {
			return err
		}
	}
	sections := make([]string, len(f.docs))
	for i, d := range f.docs {
		var res struct{ Created []struct{ ID string } }
		if err := t.c.do(http.MethodPost, "/api/v1/worlds/"+f.world+"/documents/"+d+"/content", bearer(t.key),
			mustJSON(map[string]any{"ops": []any{map[string]any{"op": "card.addSection", "title": "Life", "body": "Born in the hills."}}}), http.StatusOK, &res); err != nil {
			return err
		}
		sections[i] = res.Created[0].ID
	}
	body := func(doc int, text string) []byte {
		return mustJSON(map[string]any{"ops": []any{map[string]any{"op": "card.updateSection", "id": sections[doc], "body": text}}})
	}
	// Bodies are prepared up front: per document, two texts that alternate.
	linked, plain := make([][2][]byte, len(f.docs)), make([][2][]byte, len(f.docs))
	for i := range f.docs {
		for k, name := range []string{"Vharn", "Ossa"} {
			linked[i][k] = body(i, fmt.Sprintf("Born in the hills. Apprenticed to [[%s]] in the north, the year the river froze.", name))
			plain[i][k] = body(i, fmt.Sprintf("Born in the hills. Apprenticed to %s in the north, the year the river froze.", name))
		}
	}
	write := func(bodies [][2][]byte) op {
		return func(w, i int) error {
			d := (w*7919 + i) % len(f.docs)
			return t.c.do(http.MethodPost, "/api/v1/worlds/"+f.world+"/documents/"+f.docs[d]+"/content", bearer(t.key), bodies[d][i%2], http.StatusOK, nil)
		}
	}
	for _, clients := range []int{1, 10} {
		a, bs := pair(clients, b.dur, write(linked), write(plain))
		b.add(latencyRow("content write that changes a link", clients, a, "same write, no link", bs))
	}
	return nil
}
