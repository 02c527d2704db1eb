package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/migrations"
)

// Counting a world's documents (every list page says how many there are) reads the world's
// index alone: it holds each document's era as well as its creation time. Deleted states
// (a document deleted in an era, not the main line) get an index of their own: they are few,
// and the count takes away the documents that have one instead of looking for one under
// every document.
func init() {
	migrations.Register(func(app core.App) error {
		return documentCountIndexes(app, "world, created, era", true)
	}, func(app core.App) error {
		return documentCountIndexes(app, "world, created", false)
	})
}

// documentCountIndexes sets the columns of the documents' world index, and adds or drops the
// index of deleted states.
func documentCountIndexes(app core.App, worldColumns string, deletedIndex bool) error {
	documents, err := app.FindCollectionByNameOrId("documents")
	if err != nil {
		return err
	}
	documents.RemoveIndex("idx_documents_world")
	documents.AddIndex("idx_documents_world", false, worldColumns, "")
	if err := app.Save(documents); err != nil {
		return err
	}
	states, err := app.FindCollectionByNameOrId("document_states")
	if err != nil {
		return err
	}
	states.RemoveIndex("idx_document_states_deleted")
	if deletedIndex {
		states.AddIndex("idx_document_states_deleted", false, "era, document", "deleted")
	}
	return app.Save(states)
}
