package store

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
)

// Project is an app instance inside a world.
type Project struct {
	ID      string `db:"id"`
	WorldID string `db:"world"`
	Kind    string `db:"kind"`
	Name    string `db:"name"`
	Config  string `db:"config"`
	Created string `db:"created"`
}

// CreateProject creates a project of one of the world's app kinds.
func (s *Store) CreateProject(worldID, kind, name string) (Project, error) {
	name, err := CleanName("name", name)
	if err != nil {
		return Project{}, err
	}
	kinds, err := s.AppKinds(worldID)
	if err != nil {
		return Project{}, err
	}
	if !slices.Contains(kinds, kind) {
		return Project{}, apierr.New(http.StatusUnprocessableEntity, "unknown_project_kind", "%q is not an app kind of this world; known kinds: %s", kind, strings.Join(kinds, ", ")).
			With("field", "kind").With("allowed", kinds)
	}
	p := Project{ID: newID(), WorldID: worldID, Kind: kind, Name: name, Config: "{}", Created: now()}
	var seq int64
	err = s.app.RunInTransaction(func(tx core.App) error {
		if _, err := tx.DB().NewQuery(`INSERT INTO projects (id, world, kind, name, config, created, updated) VALUES ({:id}, {:w}, {:kind}, {:name}, {:config}, {:t}, {:t})`).
			Bind(dbx.Params{"id": p.ID, "w": worldID, "kind": kind, "name": name, "config": p.Config, "t": p.Created}).Execute(); err != nil {
			return err
		}
		var err error
		seq, err = WriteOutbox(tx.DB(), "project.created", worldID, "", "", p.ID)
		return err
	})
	if err != nil {
		return Project{}, fmt.Errorf("store: create project: %w", err)
	}
	s.publish(Change{Seq: seq, Kind: "project.created", WorldID: worldID})
	return p, nil
}

// Projects lists a world's projects, oldest first.
func (s *Store) Projects(worldID string, p Page) ([]Project, int, error) {
	var total int
	if err := s.app.DB().NewQuery("SELECT COUNT(*) FROM projects WHERE world = {:w}").Bind(dbx.Params{"w": worldID}).Row(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count projects: %w", err)
	}
	items := []Project{}
	err := s.app.DB().NewQuery("SELECT id, world, kind, name, config, created FROM projects WHERE world = {:w} ORDER BY created, rowid LIMIT {:limit} OFFSET {:offset}").
		Bind(dbx.Params{"w": worldID, "limit": p.PerPage, "offset": p.offset()}).All(&items)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list projects: %w", err)
	}
	return items, total, nil
}

// Project returns one project of a world.
func (s *Store) Project(worldID, id string) (Project, error) {
	var p Project
	err := s.app.DB().NewQuery("SELECT id, world, kind, name, config, created FROM projects WHERE id = {:id} AND world = {:w}").
		Bind(dbx.Params{"id": id, "w": worldID}).One(&p)
	return p, notFound(err)
}
