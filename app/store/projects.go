package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/security"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/ops"
)

// Project is an app instance inside a world.
type Project struct {
	ID      string `db:"id"`
	WorldID string `db:"world"`
	Kind    string `db:"kind"`
	Name    string `db:"name"`
	// Slug is unique across the instance, made from the name at creation and kept when the
	// project is renamed: a wiki's address.
	Slug    string `db:"slug"`
	Config  string `db:"config"`
	Created string `db:"created"`
	Updated string `db:"updated"`
}

// KindWiki is the app kind that publishes a read-only site of a world.
const KindWiki = "wiki"

// Who may read a wiki.
const (
	// VisibilityMembers lets the world's signed-in members read it (the default).
	VisibilityMembers = "members"
	// VisibilityPublic lets anyone read it, without an account.
	VisibilityPublic = "public"
)

// Visibilities are the values of a wiki's config.visibility.
var Visibilities = []string{VisibilityMembers, VisibilityPublic}

// WikiConfig is a wiki project's settings (its config JSON).
type WikiConfig struct {
	// Visibility is VisibilityMembers or VisibilityPublic.
	Visibility string `json:"visibility"`
	// EraID is the era the wiki shows; "" is the main line.
	EraID string `json:"eraId"`
}

// Wiki reads a wiki project's settings, with the defaults for what is missing.
func (p Project) Wiki() WikiConfig {
	c := WikiConfig{Visibility: VisibilityMembers}
	_ = json.Unmarshal([]byte(p.Config), &c) // written by cleanConfig: an object
	if c.Visibility != VisibilityPublic {
		c.Visibility = VisibilityMembers
	}
	return c
}

// maxConfig bounds a project's config JSON.
const maxConfig = 64 << 10

// cleanConfig merges patch's members into base (a project's current config; members set to
// null are removed) and checks the result for the kind: a wiki's config holds visibility
// (members or public) and eraId (an era of the world, "" = the main line), nothing else, and
// is stored with both.
func (s *Store) cleanConfig(worldID, kind, base string, patch json.RawMessage) (string, error) {
	merged := map[string]json.RawMessage{}
	if base != "" {
		_ = json.Unmarshal([]byte(base), &merged)
	}
	if p := bytes.TrimSpace(patch); len(p) > 0 && string(p) != "null" {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(patch, &m); err != nil || m == nil {
			return "", apierr.Field("config", "\"config\" must be a JSON object")
		}
		for k, v := range m {
			if string(v) == "null" {
				delete(merged, k)
			} else {
				merged[k] = v
			}
		}
	}
	if kind == KindWiki {
		c := WikiConfig{Visibility: VisibilityMembers}
		for k, v := range merged {
			switch k {
			case "visibility":
				if json.Unmarshal(v, &c.Visibility) != nil || !slices.Contains(Visibilities, c.Visibility) {
					return "", apierr.Field("config.visibility", "\"config.visibility\" must be %q (signed-in members of the world) or %q (anyone, without an account)", VisibilityMembers, VisibilityPublic).
						With("allowed", Visibilities)
				}
			case "eraId":
				if json.Unmarshal(v, &c.EraID) != nil {
					return "", apierr.Field("config.eraId", "\"config.eraId\" must be a string: an era's id, or \"\" for the main line")
				}
				if c.EraID != MainLine {
					if _, err := s.Era(worldID, c.EraID); err != nil {
						return "", apierr.Field("config.eraId", "\"config.eraId\" %q is not an era of this world (use \"\" for the main line)", ops.Echo(c.EraID))
					}
				}
			default:
				return "", apierr.Field("config."+ops.Echo(k), "a wiki's config has no %q; it takes \"visibility\" and \"eraId\"", ops.Echo(k)).
					With("allowed", []string{"visibility", "eraId"})
			}
		}
		b, _ := json.Marshal(c) // strings only: cannot fail
		return string(b), nil
	}
	b, err := json.Marshal(merged)
	if err != nil {
		return "", fmt.Errorf("store: project config: %w", err)
	}
	if len(b) > maxConfig {
		return "", apierr.Field("config", "\"config\" may have at most %d bytes of JSON", maxConfig).With("limit", maxConfig)
	}
	return string(b), nil
}

// projectSlug makes a fresh slug from a project's name. Like a world's, it always carries a
// random suffix: a bare slug, or a suffix only on a clash, would tell whoever creates a
// project that somebody else already has one of that name.
func projectSlug(db dbx.Builder, name string) (string, error) {
	base := slugJunk.ReplaceAllString(strings.ToLower(name), "-")
	base = strings.Trim(base, "-")
	if len(base) > 60 {
		base = strings.Trim(base[:60], "-")
	}
	if base == "" {
		base = "project"
	}
	for {
		slug := base + "-" + security.RandomStringWithAlphabet(5, "abcdefghijklmnopqrstuvwxyz0123456789")
		var n int
		if err := db.NewQuery("SELECT COUNT(*) FROM projects WHERE slug = {:slug}").Bind(dbx.Params{"slug": slug}).Row(&n); err != nil {
			return "", err
		}
		if n == 0 {
			return slug, nil
		}
	}
}

// CreateProject creates a project of one of the world's app kinds, with the kind's default
// settings.
func (s *Store) CreateProject(worldID, kind, name string) (Project, error) {
	return s.CreateProjectWithConfig(worldID, kind, name, nil)
}

// CreateProjectWithConfig creates a project of one of the world's app kinds with its config
// (a JSON object; nil for the defaults), checked as cleanConfig does.
func (s *Store) CreateProjectWithConfig(worldID, kind, name string, config json.RawMessage) (Project, error) {
	name, err := CleanName("name", name)
	if err != nil {
		return Project{}, err
	}
	kinds, err := s.AppKinds(worldID)
	if err != nil {
		return Project{}, err
	}
	if !slices.Contains(kinds, kind) {
		return Project{}, apierr.New(http.StatusUnprocessableEntity, "unknown_project_kind", "%q is not an app kind of this world; known kinds: %s", ops.Echo(kind), strings.Join(kinds, ", ")).
			With("field", "kind").With("allowed", kinds)
	}
	cfg, err := s.cleanConfig(worldID, kind, "", config)
	if err != nil {
		return Project{}, err
	}
	p := Project{ID: newID(), WorldID: worldID, Kind: kind, Name: name, Config: cfg, Created: now()}
	p.Updated = p.Created
	var seq int64
	err = s.app.RunInTransaction(func(tx core.App) error {
		var err error
		if p.Slug, err = projectSlug(tx.DB(), name); err != nil {
			return err
		}
		if _, err := tx.DB().NewQuery(`INSERT INTO projects (id, world, kind, name, slug, config, created, updated) VALUES ({:id}, {:w}, {:kind}, {:name}, {:slug}, {:config}, {:t}, {:t})`).
			Bind(dbx.Params{"id": p.ID, "w": worldID, "kind": kind, "name": name, "slug": p.Slug, "config": p.Config, "t": p.Created}).Execute(); err != nil {
			return err
		}
		seq, err = WriteOutbox(tx.DB(), "project.created", worldID, "", "", p.ID)
		return err
	})
	if err != nil {
		return Project{}, fmt.Errorf("store: create project: %w", err)
	}
	s.publish(Change{Seq: seq, Kind: "project.created", WorldID: worldID})
	return p, nil
}

// ProjectChange is what UpdateProject changes: each field nil leaves it as it is. Config's
// members are merged into the project's config (null removes one).
type ProjectChange struct {
	Name   *string
	Config json.RawMessage
}

// UpdateProject renames a project and/or changes its settings. Its slug stays.
func (s *Store) UpdateProject(p Project, c ProjectChange) (Project, error) {
	if c.Name != nil {
		name, err := CleanName("name", *c.Name)
		if err != nil {
			return Project{}, err
		}
		p.Name = name
	}
	if c.Config != nil {
		cfg, err := s.cleanConfig(p.WorldID, p.Kind, p.Config, c.Config)
		if err != nil {
			return Project{}, err
		}
		p.Config = cfg
	}
	p.Updated = now()
	var seq int64
	err := s.app.RunInTransaction(func(tx core.App) error {
		res, err := tx.DB().NewQuery("UPDATE projects SET name = {:name}, config = {:config}, updated = {:t} WHERE id = {:id} AND world = {:w}").
			Bind(dbx.Params{"name": p.Name, "config": p.Config, "t": p.Updated, "id": p.ID, "w": p.WorldID}).Execute()
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apierr.ErrNotFound
		}
		seq, err = WriteOutbox(tx.DB(), "project.updated", p.WorldID, "", "", p.ID)
		return err
	})
	if err != nil {
		if errors.Is(err, apierr.ErrNotFound) {
			return Project{}, apierr.ErrNotFound
		}
		return Project{}, fmt.Errorf("store: update project: %w", err)
	}
	s.publish(Change{Seq: seq, Kind: "project.updated", WorldID: p.WorldID})
	return p, nil
}

// DeleteProject deletes a project; a wiki's address then answers 404.
func (s *Store) DeleteProject(p Project) error {
	var seq int64
	err := s.app.RunInTransaction(func(tx core.App) error {
		res, err := tx.DB().NewQuery("DELETE FROM projects WHERE id = {:id} AND world = {:w}").
			Bind(dbx.Params{"id": p.ID, "w": p.WorldID}).Execute()
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apierr.ErrNotFound
		}
		seq, err = WriteOutbox(tx.DB(), "project.deleted", p.WorldID, "", "", p.ID)
		return err
	})
	if err != nil {
		if errors.Is(err, apierr.ErrNotFound) {
			return apierr.ErrNotFound
		}
		return fmt.Errorf("store: delete project: %w", err)
	}
	s.publish(Change{Seq: seq, Kind: "project.deleted", WorldID: p.WorldID})
	return nil
}

const projectCols = "id, world, kind, name, slug, config, created, updated"

// Projects lists a world's projects, oldest first.
func (s *Store) Projects(worldID string, p Page) ([]Project, int, error) {
	var total int
	if err := s.app.DB().NewQuery("SELECT COUNT(*) FROM projects WHERE world = {:w}").Bind(dbx.Params{"w": worldID}).Row(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count projects: %w", err)
	}
	items := []Project{}
	err := s.app.DB().NewQuery("SELECT " + projectCols + " FROM projects WHERE world = {:w} ORDER BY created, rowid LIMIT {:limit} OFFSET {:offset}").
		Bind(dbx.Params{"w": worldID, "limit": p.PerPage, "offset": p.offset()}).All(&items)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list projects: %w", err)
	}
	return items, total, nil
}

// Project returns one project of a world.
func (s *Store) Project(worldID, id string) (Project, error) {
	var p Project
	err := s.app.DB().NewQuery("SELECT " + projectCols + " FROM projects WHERE id = {:id} AND world = {:w}").
		Bind(dbx.Params{"id": id, "w": worldID}).One(&p)
	return p, notFound(err)
}

// ProjectBySlug returns the project with this slug, of any world.
func (s *Store) ProjectBySlug(slug string) (Project, error) {
	var p Project
	err := s.app.DB().NewQuery("SELECT " + projectCols + " FROM projects WHERE slug = {:slug}").
		Bind(dbx.Params{"slug": slug}).One(&p)
	return p, notFound(err)
}

// WorldChangeHead returns the sequence of the world's newest change of any kind (content
// writes included), 0 when the outbox keeps none of them: what a page that shows the world
// may use to tell whether it changed.
func (s *Store) WorldChangeHead(worldID string) (int64, error) {
	var seq int64
	err := s.app.DB().NewQuery("SELECT COALESCE(MAX(seq), 0) FROM outbox WHERE world = {:w}").Bind(dbx.Params{"w": worldID}).Row(&seq)
	if err != nil {
		return 0, fmt.Errorf("store: world change head: %w", err)
	}
	return seq, nil
}

// ContentChanged returns when the content of each of a world's documents that has any was
// last written, as the era at the head of chain (an EraChain) sees it: the time of the
// nearest era's state row.
func (s *Store) ContentChanged(worldID string, chain []string) (map[string]string, error) {
	in, params := placeholders("e", chain)
	params["w"] = worldID
	var rows []struct {
		Document string `db:"document"`
		Era      string `db:"era"`
		Updated  string `db:"updated"`
	}
	err := s.app.DB().NewQuery("SELECT s.document, s.era, s.updated FROM document_states s JOIN documents d ON d.id = s.document WHERE d.world = {:w} AND s.era IN (" + in + ")").
		Bind(params).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("store: content changed: %w", err)
	}
	rank := make(map[string]int, len(chain))
	for i, e := range chain {
		rank[e] = i
	}
	out := map[string]string{}
	best := map[string]int{}
	for _, r := range rows {
		if b, ok := best[r.Document]; !ok || rank[r.Era] < b {
			best[r.Document] = rank[r.Era]
			out[r.Document] = r.Updated
		}
	}
	return out, nil
}
