package store

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/ops"
)

// Era is a version of a world that inherits everything from its parent by reference.
type Era struct {
	ID       string `db:"id"`
	WorldID  string `db:"world"`
	Name     string `db:"name"`
	ParentID string `db:"parent"`
	Created  string `db:"created"`
}

// MainLine is the era id of a world's main line.
const MainLine = ""

// MaxEraDepth is how many eras deep a fork may go (an era forked from the main line is 1
// deep). Every read and search in an era walks its chain, so the chain stays short.
const MaxEraDepth = 32

// EraChain returns eraID's chain of ancestors, nearest first, ending with the main line
// (""). The main line's chain is [""]. An era that does not belong to worldID is not found.
func (s *Store) EraChain(worldID, eraID string) ([]string, error) {
	if eraID == MainLine {
		return []string{MainLine}, nil
	}
	key := worldID + "/" + eraID
	if c, ok := s.eraChains.Load(key); ok {
		return c.([]string), nil
	}
	chain := []string{}
	for id := eraID; id != MainLine; {
		if slices.Contains(chain, id) || len(chain) > 1000 {
			return nil, fmt.Errorf("store: era chain of %s is cyclic or too deep", eraID)
		}
		var e Era
		err := s.app.DB().NewQuery("SELECT id, world, name, parent, created FROM eras WHERE id = {:id} AND world = {:w}").
			Bind(dbx.Params{"id": id, "w": worldID}).One(&e)
		if err != nil {
			if notFound(err) == apierr.ErrNotFound {
				return nil, apierr.NotFound("era")
			}
			return nil, fmt.Errorf("store: era chain: %w", err)
		}
		chain = append(chain, id)
		id = e.ParentID
	}
	chain = append(chain, MainLine)
	s.eraChains.Store(key, chain) // eras never change parent, so the chain is stable
	return chain, nil
}

// CreateEra creates an era of worldID forked from parentID (or the main line). It writes one
// era row and one outbox row, whatever the size of the world.
func (s *Store) CreateEra(worldID, name, parentID string) (Era, error) {
	name, err := CleanName("name", name)
	if err != nil {
		return Era{}, err
	}
	if parentID != MainLine {
		chain, err := s.EraChain(worldID, parentID)
		if err != nil {
			return Era{}, apierr.Field("parentId", "parentId %q is not an era of this world", ops.Echo(parentID))
		}
		// The chain ends with the main line: its length is the new era's depth.
		if len(chain) > MaxEraDepth {
			return Era{}, apierr.New(http.StatusUnprocessableEntity, "era_too_deep",
				"eras may be forked at most %d deep; fork from an era nearer the main line", MaxEraDepth).
				With("field", "parentId").With("limit", MaxEraDepth)
		}
	}
	e := Era{ID: newID(), WorldID: worldID, Name: name, ParentID: parentID, Created: now()}
	var seq int64
	err = s.app.RunInTransaction(func(tx core.App) error {
		if _, err := tx.DB().NewQuery(`INSERT INTO eras (id, world, name, parent, created) VALUES ({:id}, {:w}, {:name}, {:parent}, {:t})`).
			Bind(dbx.Params{"id": e.ID, "w": worldID, "name": name, "parent": parentID, "t": e.Created}).Execute(); err != nil {
			return err
		}
		var err error
		seq, err = WriteOutbox(tx.DB(), "era.created", worldID, "", e.ID, "")
		return err
	})
	if err != nil {
		return Era{}, fmt.Errorf("store: create era: %w", err)
	}
	s.publish(Change{Seq: seq, Kind: "era.created", WorldID: worldID, EraID: e.ID})
	return e, nil
}

// Eras lists a world's eras, oldest first.
func (s *Store) Eras(worldID string, p Page) ([]Era, int, error) {
	var total int
	if err := s.app.DB().NewQuery("SELECT COUNT(*) FROM eras WHERE world = {:w}").Bind(dbx.Params{"w": worldID}).Row(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count eras: %w", err)
	}
	items := []Era{}
	err := s.app.DB().NewQuery("SELECT id, world, name, parent, created FROM eras WHERE world = {:w} ORDER BY created, rowid LIMIT {:limit} OFFSET {:offset}").
		Bind(dbx.Params{"w": worldID, "limit": p.PerPage, "offset": p.offset()}).All(&items)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list eras: %w", err)
	}
	return items, total, nil
}

// Era returns one era of a world.
func (s *Store) Era(worldID, id string) (Era, error) {
	var e Era
	err := s.app.DB().NewQuery("SELECT id, world, name, parent, created FROM eras WHERE id = {:id} AND world = {:w}").
		Bind(dbx.Params{"id": id, "w": worldID}).One(&e)
	return e, notFound(err)
}
