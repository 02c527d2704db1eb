package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
)

// RenameEra gives an era a new name; its id, parent and content stay.
func (s *Store) RenameEra(e Era, name string) (Era, error) {
	name, err := CleanName("name", name)
	if err != nil {
		return Era{}, err
	}
	var seq int64
	err = s.app.RunInTransaction(func(tx core.App) error {
		res, err := tx.DB().NewQuery("UPDATE eras SET name = {:name} WHERE id = {:id} AND world = {:w}").
			Bind(dbx.Params{"name": name, "id": e.ID, "w": e.WorldID}).Execute()
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apierr.ErrNotFound
		}
		subject, _ := json.Marshal(recordedEra{Name: name, ParentID: e.ParentID}) // strings only: cannot fail
		seq, err = WriteOutbox(tx.DB(), "era.renamed", e.WorldID, "", e.ID, string(subject))
		return err
	})
	if err != nil {
		if errors.Is(err, apierr.ErrNotFound) {
			return Era{}, apierr.NotFound("era")
		}
		return Era{}, fmt.Errorf("store: rename era: %w", err)
	}
	e.Name = name
	s.publish(Change{Seq: seq, Kind: "era.renamed", WorldID: e.WorldID, EraID: e.ID})
	return e, nil
}

// recordedEra is what era.renamed and era.deleted outbox rows keep of their era in Subject:
// the era may be gone (or renamed again) by the time a world event is built from the row.
type recordedEra struct {
	Name     string `json:"name"`
	ParentID string `json:"parentId"`
}

// RecordedEra returns the era as an era.renamed or era.deleted row recorded it; ok is false
// for other rows.
func (r OutboxRow) RecordedEra() (e Era, ok bool) {
	var m recordedEra
	if (r.Kind != "era.renamed" && r.Kind != "era.deleted") || json.Unmarshal([]byte(r.Subject), &m) != nil {
		return Era{}, false
	}
	return Era{ID: r.Era, WorldID: r.World, Name: m.Name, ParentID: m.ParentID}, true
}

// DeleteEra deletes an era that has no child eras, with everything made in it: the
// documents created in it (their states in every era, op logs, snapshots and links), and
// the era's own copies of older documents (its states, their op logs, snapshots and links),
// which leaves those documents as they are on the era's parent. An era with child eras is
// refused with 409 era_has_children naming them, one a wiki publishes with 409 era_published
// naming the wikis: delete (or keep) those eras, or publish another era, first.
func (s *Store) DeleteEra(e Era) error {
	var docs []string
	var seq int64
	err := s.app.RunInTransaction(func(tx core.App) error {
		db := tx.DB()
		p := dbx.Params{"w": e.WorldID, "era": e.ID}
		var children []Era
		if err := db.NewQuery("SELECT id, world, name, parent, created FROM eras WHERE world = {:w} AND parent = {:era} ORDER BY created, rowid").
			Bind(p).All(&children); err != nil {
			return err
		}
		if len(children) > 0 {
			names := make([]string, len(children))
			list := make([]map[string]string, len(children))
			for i, c := range children {
				names[i] = fmt.Sprintf("%q", c.Name)
				list[i] = map[string]string{"id": c.ID, "name": c.Name}
			}
			return apierr.New(http.StatusConflict, "era_has_children",
				"the era %q has child eras (%s); delete them first", e.Name, strings.Join(names, ", ")).With("children", list)
		}
		// A wiki that publishes the era would stop answering: change its era first.
		var wikis []Project
		if err := db.NewQuery("SELECT " + projectCols + " FROM projects WHERE world = {:w} AND kind = {:kind} AND json_extract(config, '$.eraId') = {:era} ORDER BY created, rowid").
			Bind(dbx.Params{"w": e.WorldID, "era": e.ID, "kind": KindWiki}).All(&wikis); err != nil {
			return err
		}
		if len(wikis) > 0 {
			names := make([]string, len(wikis))
			list := make([]map[string]string, len(wikis))
			for i, p := range wikis {
				names[i] = fmt.Sprintf("%q", p.Name)
				list[i] = map[string]string{"id": p.ID, "name": p.Name}
			}
			return apierr.New(http.StatusConflict, "era_published",
				"the era %q is published by the wiki %s; publish another era there first", e.Name, strings.Join(names, ", ")).With("projects", list)
		}
		// Every document with something in this era: created in it, or with its own copy.
		if err := db.NewQuery(`SELECT id FROM documents WHERE world = {:w} AND era = {:era}
			UNION SELECT st.document FROM document_states st JOIN documents d ON d.id = st.document
			WHERE d.world = {:w} AND st.era = {:era}`).Bind(p).Column(&docs); err != nil {
			return err
		}
		for _, q := range []string{
			// Created in the era: the op log, snapshots and links go with the document rows.
			"DELETE FROM document_states WHERE document IN (SELECT id FROM documents WHERE world = {:w} AND era = {:era})",
			"DELETE FROM documents WHERE world = {:w} AND era = {:era}",
			// Older documents' copies in the era.
			"DELETE FROM document_ops WHERE era = {:era} AND document IN (SELECT id FROM documents WHERE world = {:w})",
			"DELETE FROM document_snapshots WHERE era = {:era} AND document IN (SELECT id FROM documents WHERE world = {:w})",
			"DELETE FROM document_states WHERE era = {:era} AND document IN (SELECT id FROM documents WHERE world = {:w})",
			"DELETE FROM document_links WHERE world = {:w} AND era = {:era}",
			"DELETE FROM eras WHERE id = {:era} AND world = {:w}",
		} {
			if _, err := db.NewQuery(q).Bind(p).Execute(); err != nil {
				return fmt.Errorf("%.50s: %w", q, err)
			}
		}
		// Each document's search entries are built again from what is left of it.
		for _, d := range docs {
			if _, err := WriteOutbox(db, "document.purged", e.WorldID, d, e.ID, ""); err != nil {
				return err
			}
		}
		subject, _ := json.Marshal(recordedEra{Name: e.Name, ParentID: e.ParentID}) // strings only: cannot fail
		var err error
		seq, err = WriteOutbox(db, "era.deleted", e.WorldID, "", e.ID, string(subject))
		return err
	})
	rows := []OutboxRow{}
	for _, d := range docs {
		rows = append(rows, OutboxRow{Kind: "document.purged", World: e.WorldID, Document: d, Era: e.ID})
		s.states.drop(d, e.ID, false)
	}
	s.cache.forget(rows)
	if err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) {
			return err
		}
		return fmt.Errorf("store: delete era %s: %w", e.ID, err)
	}
	s.eraChains.Delete(e.WorldID + "/" + e.ID)
	s.publish(Change{Seq: seq, Kind: "era.deleted", WorldID: e.WorldID, EraID: e.ID})
	return nil
}
