package store

import (
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
)

// MetaChange is a change of a document's metadata; nil fields stay as they are.
type MetaChange struct {
	Name *string
	// ParentID moves the document into that folder ("" = the top level).
	ParentID *string
}

// UpdateDocument renames and/or moves a document (metadata is global across eras; eraID is
// where the caller sees it, for resolving the new parent). A new name must be 1 to MaxName
// characters; a parent must be a folder of the same world visible in the era, and a folder
// cannot move into itself or its descendants. The change is checked and applied to the
// document as it is in the transaction that changes it (metadata transactions run one at a
// time on the write connection): changes sent together neither undo each other nor, between
// them, make a cycle.
func (s *Store) UpdateDocument(d Document, eraID string, ch MetaChange, actor Actor) (Document, error) {
	var name string
	if ch.Name != nil {
		var err error
		if name, err = CleanName("name", *ch.Name); err != nil {
			return Document{}, err
		}
		// The stored texts start with the name (they are what search indexes): they are
		// rewritten below, with no content write in between in any era.
		unlock, err := s.lockAllEras(d)
		if err != nil {
			return Document{}, err
		}
		defer unlock()
	}
	if ch.ParentID != nil && *ch.ParentID != "" {
		// Visible in the era; what the transaction cannot see from the cache is checked there.
		if err := s.checkFolder(d.WorldID, *ch.ParentID, eraID); err != nil {
			return Document{}, err
		}
	}
	var kinds []string
	var seqs []int64
	err := s.app.RunInTransaction(func(tx core.App) error {
		kinds, seqs = nil, nil
		db := tx.DB()
		if err := claimDocument(db, d.ID); err != nil {
			return err
		}
		var cur Document
		if err := db.NewQuery("SELECT " + docCols + " FROM documents d WHERE d.id = {:id}").Bind(dbx.Params{"id": d.ID}).One(&cur); err != nil {
			return notFound(err)
		}
		if ch.Name != nil && name != cur.Name {
			cur.Name = name
			kinds = append(kinds, "document.renamed")
		}
		if ch.ParentID != nil && *ch.ParentID != cur.ParentID {
			if err := checkParent(db, cur, *ch.ParentID); err != nil {
				return err
			}
			cur.ParentID = *ch.ParentID
			kinds = append(kinds, "document.moved")
		}
		d = cur
		if len(kinds) == 0 {
			return nil
		}
		d.Updated = now()
		if _, err := db.NewQuery("UPDATE documents SET name = {:name}, parent = {:parent}, updated = {:t} WHERE id = {:id}").
			Bind(dbx.Params{"name": d.Name, "parent": d.ParentID, "t": d.Updated, "id": d.ID}).Execute(); err != nil {
			return err
		}
		if kinds[0] == "document.renamed" {
			if err := s.retext(db, d); err != nil {
				return err
			}
		}
		for _, k := range kinds {
			seq, err := WriteOutbox(db, k, d.WorldID, d.ID, eraID, "")
			if err != nil {
				return err
			}
			seqs = append(seqs, seq)
		}
		return nil
	})
	s.cache.forget([]OutboxRow{{Kind: "document.renamed", Document: d.ID}})
	if err != nil {
		return Document{}, fmt.Errorf("store: update document %s: %w", d.ID, err)
	}
	for i, k := range kinds {
		s.publish(Change{Seq: seqs[i], Kind: k, WorldID: d.WorldID, DocumentID: d.ID, EraID: eraID, DocumentType: d.DocumentType, Actor: actor})
	}
	return d, nil
}

// claimDocument starts a metadata transaction with a write that changes nothing to the
// document's row: it answers ErrNotFound if the document was deleted meanwhile, and makes the
// transaction a writing one before it reads (a transaction that reads first holds a snapshot
// that a checkpoint can leave too old to start writing from: SQLITE_BUSY).
func claimDocument(db dbx.Builder, id string) error {
	res, err := db.NewQuery("UPDATE documents SET updated = updated WHERE id = {:id}").Bind(dbx.Params{"id": id}).Execute()
	if err != nil {
		return fmt.Errorf("store: claim document %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return apierr.ErrNotFound
	}
	return nil
}

// lockAllEras takes the write lock of d in every era of its world, in order (ApplyOps holds
// one such lock at a time, so this cannot deadlock with it), and returns the unlock.
func (s *Store) lockAllEras(d Document) (func(), error) {
	var eras []string
	if err := s.app.DB().NewQuery("SELECT id FROM eras WHERE world = {:w} ORDER BY id").Bind(dbx.Params{"w": d.WorldID}).Column(&eras); err != nil {
		return nil, fmt.Errorf("store: eras of %s: %w", d.WorldID, err)
	}
	unlocks := []func(){s.locks.lock(d.ID + "/" + MainLine)}
	for _, era := range eras {
		unlocks = append(unlocks, s.locks.lock(d.ID+"/"+era))
	}
	return func() {
		for _, u := range slices.Backward(unlocks) {
			u()
		}
	}, nil
}

// retext rewrites the stored text of every state of d after a rename: a document's text
// starts with its name (ops' Text), and the search index is built from the stored text. The
// states of a document whose tool is not installed keep their text: nothing can project them.
func (s *Store) retext(db dbx.Builder, d Document) error {
	var rows []struct {
		ID   string `db:"id"`
		Data string `db:"data"`
	}
	if err := db.NewQuery("SELECT id, data FROM document_states WHERE document = {:doc}").Bind(dbx.Params{"doc": d.ID}).All(&rows); err != nil {
		return err
	}
	for _, r := range rows {
		doc, err := s.Decode(d, []byte(r.Data))
		if IsToolNotInstalled(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("stored state of %s: %w", d.ID, err)
		}
		if _, err := db.NewQuery("UPDATE document_states SET text = {:text} WHERE id = {:id}").
			Bind(dbx.Params{"text": doc.Text(d.Name), "id": r.ID}).Execute(); err != nil {
			return err
		}
	}
	return nil
}

// notFolder is the answer to a parent that is not a folder of the world (visible in the era).
func notFolder() error {
	return apierr.Field("parentId", "parentId must be the id of a folder in this world")
}

// checkFolder checks that id is a folder of the world visible in the era, as a parent must be.
func (s *Store) checkFolder(worldID, id, eraID string) error {
	if f, err := s.Document(worldID, id, eraID); err != nil || f.DocumentType != "folder" {
		return notFolder()
	}
	return nil
}

// checkParent checks, in the transaction that moves d, that parentID ("" = the top level)
// can hold d: a folder of d's world (its visibility in the era is checked before), and
// neither d nor one of d's subfolders.
func checkParent(db dbx.Builder, d Document, parentID string) error {
	for id, depth := parentID, 0; id != ""; depth++ {
		if id == d.ID {
			return apierr.Field("parentId", "a folder cannot be moved into itself or one of its own subfolders")
		}
		if depth > 10000 {
			return errors.New("store: folder chain too deep")
		}
		var f struct {
			World  string `db:"world"`
			Type   string `db:"documentType"`
			Parent string `db:"parent"`
		}
		err := db.NewQuery("SELECT world, documentType, parent FROM documents WHERE id = {:id}").Bind(dbx.Params{"id": id}).One(&f)
		if errors.Is(err, sql.ErrNoRows) {
			if depth == 0 {
				return notFolder()
			}
			return nil // the chain ends in a folder deleted since
		}
		if err != nil {
			return fmt.Errorf("store: folder chain of %s: %w", parentID, err)
		}
		if depth == 0 && (f.World != d.WorldID || f.Type != "folder") {
			return notFolder()
		}
		id = f.Parent
	}
	return nil
}

// DeleteDocument deletes a document. On the main line it is deleted everywhere, with its
// states and op log; in an era it is hidden in that era and the eras descending from it (a
// tombstone state), and the main line and other eras keep it. A folder must be empty (in the
// era's view) first. Existence and emptiness are checked in the deleting transaction, and a
// main-line delete waits for the content writes under way in every era.
func (s *Store) DeleteDocument(d Document, eraID string, actor Actor) error {
	chain, err := s.EraChain(d.WorldID, eraID)
	if err != nil {
		return err
	}
	var unlock func()
	if eraID == MainLine {
		if unlock, err = s.lockAllEras(d); err != nil {
			return err
		}
	} else {
		unlock = s.locks.lock(d.ID + "/" + eraID)
	}
	defer unlock()
	var seq int64
	err = s.app.RunInTransaction(func(tx core.App) error {
		db := tx.DB()
		if err := claimDocument(db, d.ID); err != nil {
			return err
		}
		if d.DocumentType == "folder" {
			parent := d.ID
			n, err := countDocuments(db, d.WorldID, chain, DocumentFilter{EraID: eraID, ParentID: &parent})
			if err != nil {
				return err
			}
			if n > 0 {
				what := fmt.Sprintf("%d documents; move or delete them", n)
				if n == 1 {
					what = "a document; move or delete it"
				}
				return apierr.New(http.StatusConflict, "folder_not_empty", "the folder still holds %s first", what).With("children", n)
			}
		}
		if eraID == MainLine {
			// The op log goes with the document row (trigger document_ops_cascade).
			if _, err := db.NewQuery("DELETE FROM document_states WHERE document = {:id}").Bind(dbx.Params{"id": d.ID}).Execute(); err != nil {
				return err
			}
			if _, err := db.NewQuery("DELETE FROM documents WHERE id = {:id}").Bind(dbx.Params{"id": d.ID}).Execute(); err != nil {
				return err
			}
		} else {
			row, found, err := s.loadState(db, d, chain)
			if err != nil {
				return err
			}
			if found && row.Era == eraID {
				_, err = db.NewQuery("UPDATE document_states SET deleted = TRUE, updated = {:t} WHERE id = {:id}").
					Bind(dbx.Params{"t": now(), "id": row.ID}).Execute()
			} else {
				_, err = db.NewQuery(`INSERT INTO document_states (id, document, era, data, text, version, forkedVersion, deleted, updated)
					VALUES ({:id}, {:doc}, {:era}, {:data}, {:text}, {:v}, {:v}, TRUE, {:t})`).
					Bind(dbx.Params{"id": newID(), "doc": d.ID, "era": eraID, "data": row.Data, "text": row.Text, "v": row.Version, "t": now()}).Execute()
			}
			if err != nil {
				return err
			}
		}
		seq, err = WriteOutbox(db, "document.deleted", d.WorldID, d.ID, eraID, deletedSubject(d))
		return err
	})
	s.states.drop(d.ID, eraID, eraID == MainLine)
	s.cache.forget([]OutboxRow{{Kind: "document.deleted", Document: d.ID}})
	if err != nil {
		return fmt.Errorf("store: delete document %s: %w", d.ID, err)
	}
	s.publish(Change{Seq: seq, Kind: "document.deleted", WorldID: d.WorldID, DocumentID: d.ID, EraID: eraID, DocumentType: d.DocumentType, Actor: actor})
	return nil
}
