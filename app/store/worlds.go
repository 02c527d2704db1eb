package store

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/security"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/ops"
)

// Roles a member may have, most powerful first.
var Roles = []string{"owner", "admin", "editor", "viewer"}

// CanEdit reports whether role may change a world's content and structure.
func CanEdit(role string) bool { return role == "owner" || role == "admin" || role == "editor" }

// CanManage reports whether role may manage members.
func CanManage(role string) bool { return role == "owner" || role == "admin" }

// World is a storytelling universe.
type World struct {
	ID      string `db:"id"`
	Slug    string `db:"slug"`
	Name    string `db:"name"`
	Genre   string `db:"genre"`
	Theme   string `db:"theme"`
	Plan    string `db:"plan"`
	OwnerID string `db:"owner"`
	Created string `db:"created"`
	Updated string `db:"updated"`
	// Deleted is when the owner moved the world to the trash; "" while it is in use. Only
	// the trash (TrashedWorlds) sees a world with one: World, WorldBySlug and WorldsOf do not.
	Deleted string `db:"deleted"`
}

// MemberWorld is a world as one of its members sees it.
type MemberWorld struct {
	World
	Role string `db:"role"`
}

// Themes maps a genre keyword to the theme worlds of that genre get.
var Themes = map[string]string{
	"fantasy":          "parchment",
	"high fantasy":     "parchment",
	"sci-fi":           "starlight",
	"science fiction":  "starlight",
	"scifi":            "starlight",
	"cyberpunk":        "neon",
	"horror":           "ash",
	"mystery":          "noir",
	"noir":             "noir",
	"historical":       "sepia",
	"western":          "sepia",
	"steampunk":        "brass",
	"post-apocalyptic": "ash",
	"romance":          "rose",
}

// DefaultTheme is the theme of worlds whose genre has no entry in Themes.
const DefaultTheme = "classic"

// ThemeFor returns the theme a genre sets.
func ThemeFor(genre string) string {
	if t, ok := Themes[strings.ToLower(strings.TrimSpace(genre))]; ok {
		return t
	}
	return DefaultTheme
}

var slugJunk = regexp.MustCompile(`[^a-z0-9]+`)

// slugify makes a URL slug from a name: lower case ASCII letters and digits joined by "-".
func slugify(name string) string {
	s := slugJunk.ReplaceAllString(strings.ToLower(name), "-")
	s = strings.Trim(s, "-")
	if len(s) > 60 {
		s = strings.Trim(s[:60], "-")
	}
	if s == "" {
		s = "world"
	}
	return s
}

// CreateWorld creates a world owned by ownerID (who becomes its "owner" member).
func (s *Store) CreateWorld(ownerID, name, genre, plan string) (World, error) {
	name, err := CleanName("name", name)
	if err != nil {
		return World{}, err
	}
	if genre, err = CleanOptional("genre", genre); err != nil {
		return World{}, err
	}
	w := World{ID: newID(), Name: name, Genre: genre, Theme: ThemeFor(genre), Plan: plan, OwnerID: ownerID}
	w.Created = now()
	w.Updated = w.Created
	base := slugify(name)
	err = s.app.RunInTransaction(func(tx core.App) error {
		db := tx.DB()
		// Always suffixed: a bare slug, or a suffix only on a clash, would tell whoever creates
		// a world that somebody else already has one of that name.
		for {
			w.Slug = base + "-" + security.RandomStringWithAlphabet(5, "abcdefghijklmnopqrstuvwxyz0123456789")
			var n int
			if err := db.NewQuery("SELECT COUNT(*) FROM worlds WHERE slug = {:slug}").Bind(dbx.Params{"slug": w.Slug}).Row(&n); err != nil {
				return err
			}
			if n == 0 {
				break
			}
		}
		if _, err := db.NewQuery(`INSERT INTO worlds (id, slug, name, genre, theme, plan, owner, created, updated)
			VALUES ({:id}, {:slug}, {:name}, {:genre}, {:theme}, {:plan}, {:owner}, {:created}, {:updated})`).
			Bind(dbx.Params{"id": w.ID, "slug": w.Slug, "name": w.Name, "genre": w.Genre, "theme": w.Theme,
				"plan": w.Plan, "owner": ownerID, "created": w.Created, "updated": w.Updated}).Execute(); err != nil {
			return err
		}
		if err := insertMember(db, w.ID, ownerID, "owner"); err != nil {
			return err
		}
		_, err := WriteOutbox(db, "world.created", w.ID, "", "", "")
		return err
	})
	if err != nil {
		return World{}, fmt.Errorf("store: create world: %w", err)
	}
	return w, nil
}

func insertMember(db dbx.Builder, worldID, userID, role string) error {
	t := now()
	_, err := db.NewQuery(`INSERT INTO world_members (id, world, user, role, created, updated)
		VALUES ({:id}, {:world}, {:user}, {:role}, {:t}, {:t})`).
		Bind(dbx.Params{"id": newID(), "world": worldID, "user": userID, "role": role, "t": t}).Execute()
	return err
}

const worldCols = "w.id, w.slug, w.name, w.genre, w.theme, w.plan, w.owner, w.created, w.updated, w.deleted"

// World returns one world by id; a world in the trash is not found.
func (s *Store) World(id string) (World, error) {
	if w, ok := s.cache.world(id); ok {
		return w, nil
	}
	gen := s.cache.generation()
	var w World
	err := s.app.DB().NewQuery("SELECT " + worldCols + " FROM worlds w WHERE w.id = {:id} AND w.deleted = ''").Bind(dbx.Params{"id": id}).One(&w)
	if err != nil {
		return w, notFound(err)
	}
	s.cache.putWorld(gen, w)
	return w, nil
}

// WorldBySlug returns one world by slug; a world in the trash is not found.
func (s *Store) WorldBySlug(slug string) (World, error) {
	var w World
	err := s.app.DB().NewQuery("SELECT " + worldCols + " FROM worlds w WHERE w.slug = {:slug} AND w.deleted = ''").Bind(dbx.Params{"slug": slug}).One(&w)
	return w, notFound(err)
}

// WorldsOf lists the worlds userID is a member of, oldest first, with the user's role; worlds
// in the trash are left out.
func (s *Store) WorldsOf(userID string, p Page) ([]MemberWorld, int, error) {
	var total int
	if err := s.app.DB().NewQuery("SELECT COUNT(*) FROM world_members m JOIN worlds w ON w.id = m.world WHERE m.user = {:u} AND w.deleted = ''").Bind(dbx.Params{"u": userID}).Row(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count worlds: %w", err)
	}
	items := []MemberWorld{}
	err := s.app.DB().NewQuery("SELECT " + worldCols + ", m.role FROM world_members m JOIN worlds w ON w.id = m.world WHERE m.user = {:u} AND w.deleted = '' ORDER BY w.created, w.rowid LIMIT {:limit} OFFSET {:offset}").
		Bind(dbx.Params{"u": userID, "limit": p.PerPage, "offset": p.offset()}).All(&items)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list worlds: %w", err)
	}
	return items, total, nil
}

// Role returns userID's role in worldID, or "" if the user is not a member.
func (s *Store) Role(worldID, userID string) (string, error) {
	if r, ok := s.cache.role(worldID, userID); ok {
		return r, nil
	}
	gen := s.cache.generation()
	var role string
	err := s.app.DB().NewQuery("SELECT role FROM world_members WHERE world = {:w} AND user = {:u}").
		Bind(dbx.Params{"w": worldID, "u": userID}).Row(&role)
	if err := notFound(err); err == apierr.ErrNotFound {
		return "", nil
	} else if err != nil {
		return "", fmt.Errorf("store: role: %w", err)
	}
	s.cache.putRole(gen, worldID, userID, role)
	return role, nil
}

// SetPlan changes a world's plan. It writes an outbox row so that every process (and the
// live streams of key and OAuth callers) sees the change.
func (s *Store) SetPlan(worldID, plan string) error {
	err := s.app.RunInTransaction(func(tx core.App) error {
		res, err := tx.DB().NewQuery("UPDATE worlds SET plan = {:plan}, updated = {:t} WHERE id = {:id}").
			Bind(dbx.Params{"plan": plan, "t": now(), "id": worldID}).Execute()
		if err != nil {
			return fmt.Errorf("store: set plan: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apierr.ErrNotFound
		}
		_, err = WriteOutbox(tx.DB(), "world.plan", worldID, "", "", plan)
		return err
	})
	s.cache.forget([]OutboxRow{{Kind: "world.plan", World: worldID}})
	if err == nil {
		s.publish(Change{Kind: "world.plan", WorldID: worldID})
	}
	return err
}

// Member is one member of a world.
type Member struct {
	UserID  string `db:"user"`
	Email   string `db:"email"`
	Name    string `db:"name"`
	Role    string `db:"role"`
	Created string `db:"created"`
}

const memberCols = "m.user, u.email, u.name, m.role, m.created"

// Members lists a world's members, oldest first.
func (s *Store) Members(worldID string, p Page) ([]Member, int, error) {
	var total int
	if err := s.app.DB().NewQuery("SELECT COUNT(*) FROM world_members WHERE world = {:w}").Bind(dbx.Params{"w": worldID}).Row(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count members: %w", err)
	}
	items := []Member{}
	err := s.app.DB().NewQuery("SELECT " + memberCols + " FROM world_members m JOIN users u ON u.id = m.user WHERE m.world = {:w} ORDER BY m.created, m.rowid LIMIT {:limit} OFFSET {:offset}").
		Bind(dbx.Params{"w": worldID, "limit": p.PerPage, "offset": p.offset()}).All(&items)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list members: %w", err)
	}
	return items, total, nil
}

// Member returns one member of a world.
func (s *Store) Member(worldID, userID string) (Member, error) {
	var m Member
	err := s.app.DB().NewQuery("SELECT " + memberCols + " FROM world_members m JOIN users u ON u.id = m.user WHERE m.world = {:w} AND m.user = {:u}").
		Bind(dbx.Params{"w": worldID, "u": userID}).One(&m)
	return m, notFound(err)
}

// AddMember adds an existing user to a world with a role. It fails with 409 already_member
// if the user is a member.
func (s *Store) AddMember(worldID, userID, role string) (Member, error) {
	err := s.app.RunInTransaction(func(tx core.App) error {
		var n int
		if err := tx.DB().NewQuery("SELECT COUNT(*) FROM world_members WHERE world = {:w} AND user = {:u}").
			Bind(dbx.Params{"w": worldID, "u": userID}).Row(&n); err != nil {
			return err
		}
		if n > 0 {
			return apierr.New(409, "already_member", "this user is already a member of the world; remove them first to change their role")
		}
		if err := insertMember(tx.DB(), worldID, userID, role); err != nil {
			return err
		}
		_, err := WriteOutbox(tx.DB(), "member.added", worldID, "", "", userID)
		return err
	})
	if err != nil {
		return Member{}, err
	}
	s.cache.forget([]OutboxRow{{Kind: "member.added", World: worldID, Subject: userID}})
	m, err := s.Member(worldID, userID)
	if err == nil {
		s.publish(Change{Kind: "member.added", WorldID: worldID})
	}
	return m, err
}

// RemoveMember removes a user from a world.
func (s *Store) RemoveMember(worldID, userID string) error {
	err := s.app.RunInTransaction(func(tx core.App) error {
		res, err := tx.DB().NewQuery("DELETE FROM world_members WHERE world = {:w} AND user = {:u}").
			Bind(dbx.Params{"w": worldID, "u": userID}).Execute()
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apierr.ErrNotFound
		}
		_, err = WriteOutbox(tx.DB(), "member.removed", worldID, "", "", userID)
		return err
	})
	s.cache.forget([]OutboxRow{{Kind: "member.removed", World: worldID, Subject: userID}})
	if err == nil {
		s.publish(Change{Kind: "member.removed", WorldID: worldID})
	}
	return err
}

// BuiltinAppKinds are the project kinds every world has.
var BuiltinAppKinds = []string{"wiki"}

// DocumentTypes returns the document types a world accepts: the built-ins plus those of the
// tools installed in it, sorted.
func (s *Store) DocumentTypes(worldID string) ([]string, error) {
	ts, err := s.worldTools(worldID)
	if err != nil {
		return nil, err
	}
	types := ops.Types()
	for name := range ts.types {
		types = append(types, name)
	}
	return uniqueSorted(types), nil
}

// AppKinds returns the project kinds a world accepts, sorted.
func (s *Store) AppKinds(worldID string) ([]string, error) {
	ts, err := s.worldTools(worldID)
	if err != nil {
		return nil, err
	}
	kinds := slices.Clone(BuiltinAppKinds)
	for name := range ts.kinds {
		kinds = append(kinds, name)
	}
	return uniqueSorted(kinds), nil
}

func uniqueSorted(s []string) []string {
	out := make([]string, 0, len(s))
	for _, v := range s {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}
