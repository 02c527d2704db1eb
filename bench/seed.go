package main

import (
	"fmt"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

// benchActor is who the bench's direct store calls act as.
var benchActor = store.Actor{Name: "bench", Credential: "cli"}

// seedDoc is one document to insert directly: metadata, its main-line state and the op-log
// entry that made it, as one write would have left them.
type seedDoc struct {
	// ID is the document's id; empty, a new one.
	ID   string
	Name string
	Type string
	// Data and Text are the state row; an empty Data inserts no state (never written).
	Data string
	Text string
	// Ops is the state's op-log entry (version 1), a JSON array; empty, none.
	Ops string
}

// cardDoc is a card with one section holding body, as card.addSection would leave it; the
// text projection comes from package ops, so it is what the write path would store.
func cardDoc(name, body string, i int) seedDoc {
	c := &ops.Card{Aliases: []string{}, Properties: []ops.Property{}, Sections: []ops.Section{{ID: fmt.Sprintf("sec-%08d", i), Title: "Notes", Body: body}}}
	return seedDoc{Name: name, Type: "card", Data: string(c.JSON()), Text: c.Text(name)}
}

// bulkInsert writes documents and their state rows into worldID in one transaction through
// the app's own database, with prepared statements: far faster than the API for 100,000
// documents. With outbox, every document also gets its document.created outbox row, as the
// store would write, so the running indexer and live hub see them; without, only a
// start-up reconcile (search) would.
func bulkInsert(pb core.App, worldID string, docs []seedDoc, outbox bool) (ids []string, err error) {
	err = pb.RunInTransaction(func(tx core.App) error {
		ids, err = insertSeedDocs(tx.DB(), worldID, docs, outbox)
		return err
	})
	return ids, err
}

// insertSeedDocs is bulkInsert's body on any database handle inside a transaction: the app's
// own, or another process's connection to the same file (the rss scenario, whose server runs
// in a child process).
func insertSeedDocs(db dbx.Builder, worldID string, docs []seedDoc, outbox bool) ([]string, error) {
	ids := make([]string, len(docs))
	t := time.Now().UTC().Format("2006-01-02 15:04:05.000Z")
	insDoc := db.NewQuery(`INSERT INTO documents (id, world, name, documentType, parent, era, created, updated)
			VALUES ({:id}, {:world}, {:name}, {:type}, '', '', {:t}, {:t})`).Prepare()
	defer insDoc.Close()
	insState := db.NewQuery(`INSERT INTO document_states (id, document, era, data, text, version, forkedVersion, deleted, updated)
			VALUES ({:id}, {:doc}, '', {:data}, {:text}, 1, 0, FALSE, {:t})`).Prepare()
	defer insState.Close()
	insOp := db.NewQuery(`INSERT INTO document_ops (document, era, version, total, ops, actor, credential, created)
			VALUES ({:doc}, '', 1, {:total}, {:ops}, 'bench', 'cli', {:t})`).Prepare()
	defer insOp.Close()
	insOutbox := db.NewQuery(`INSERT INTO outbox (kind, world, document, era, subject, created)
			VALUES ('document.created', {:world}, {:doc}, '', '', {:t})`).Prepare()
	defer insOutbox.Close()
	for i, d := range docs {
		id := d.ID
		if id == "" {
			id = core.GenerateDefaultRandomId()
		}
		ids[i] = id
		if _, err := insDoc.Bind(dbx.Params{"id": id, "world": worldID, "name": d.Name, "type": d.Type, "t": t}).Execute(); err != nil {
			return nil, fmt.Errorf("insert document: %w", err)
		}
		if d.Data != "" {
			if _, err := insState.Bind(dbx.Params{"id": core.GenerateDefaultRandomId(), "doc": id, "data": d.Data, "text": d.Text, "t": t}).Execute(); err != nil {
				return nil, fmt.Errorf("insert state: %w", err)
			}
		}
		if d.Ops != "" {
			if _, err := insOp.Bind(dbx.Params{"doc": id, "total": len(d.Ops), "ops": d.Ops, "t": t}).Execute(); err != nil {
				return nil, fmt.Errorf("insert op: %w", err)
			}
		}
		if outbox {
			if _, err := insOutbox.Bind(dbx.Params{"world": worldID, "doc": id, "t": t}).Execute(); err != nil {
				return nil, fmt.Errorf("insert outbox: %w", err)
			}
		}
	}
	return ids, nil
}
