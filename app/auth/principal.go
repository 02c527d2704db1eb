// Package auth answers "who is calling, and may they do this?": API keys, the web session
// cookie and (later) OAuth access tokens all yield a Principal; World checks membership,
// role and plan for every surface alike.
package auth

import (
	"net/http"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/store"
)

// Credential kinds.
const (
	KindAPIKey  = "api_key"
	KindSession = "session"
	KindOAuth   = "oauth"
)

// Principal is an authenticated caller: a user, and the credential it came with.
type Principal struct {
	UserID string
	Email  string
	Name   string
	// Kind is the credential kind: KindAPIKey, KindSession or KindOAuth.
	Kind string
	// CredentialID is the API key's or OAuth token's id ("" for a session).
	CredentialID string
	// ReadOnly is set for an OAuth token granted the read scope only: it reads, and every
	// write (a REST request other than GET, an MCP tool that is not a read) is refused with
	// insufficient_scope.
	ReadOnly bool
}

// ErrReadOnly is the refusal of a write to a read-only grant.
func ErrReadOnly() *apierr.Error {
	e := apierr.New(http.StatusForbidden, "insufficient_scope",
		"this app was granted read access only; connect it again and allow it to make changes").With("scope", ScopeWrite)
	e.Header = http.Header{"WWW-Authenticate": {`Bearer error="insufficient_scope", scope="read write"`}}
	return e
}

// Actor is the principal as recorded on the changes it makes.
func (p Principal) Actor() store.Actor {
	return store.Actor{UserID: p.UserID, Name: p.Name, Credential: p.Kind}
}

// PlanGated reports whether world plans restrict this caller: API keys and OAuth tokens are
// gated, the web UI (session cookie) never is.
func (p Principal) PlanGated() bool { return p.Kind != KindSession }

// Need is what a request needs to be allowed in a world.
type Need int

const (
	// ReadMeta reads metadata (world, document lists, eras, projects, members): any member,
	// any plan.
	ReadMeta Need = iota
	// ReadContent reads document content, the op log, event streams or search: any member;
	// key and OAuth callers need a pro or studio world.
	ReadContent
	// Edit changes structure (documents, eras, projects): owner, admin or editor.
	Edit
	// EditContent applies content operations: an editor, and pro or studio for key and OAuth
	// callers.
	EditContent
	// Manage changes membership: owner or admin.
	Manage
	// ManageTools installs, upgrades, lists and uninstalls tools: owner or admin, on every
	// plan (building and installing tools is free).
	ManageTools
)

// Access decides what principals may do in worlds.
type Access struct {
	Store *store.Store
}

// World loads a world for p and checks need. A non-member gets 404 (never 403: existence is
// not leaked); a member without the role gets 403 forbidden; a key or OAuth caller on a free
// world asking for content gets 403 plan_required.
func (a Access) World(p Principal, worldID string, need Need) (store.World, string, error) {
	w, err := a.Store.World(worldID)
	if err != nil {
		return store.World{}, "", apierr.NotFound("world")
	}
	role, err := a.Store.Role(w.ID, p.UserID)
	if err != nil {
		return store.World{}, "", err
	}
	if role == "" {
		return store.World{}, "", apierr.NotFound("world")
	}
	if err := Check(p, w, role, need); err != nil {
		return store.World{}, "", err
	}
	return w, role, nil
}

// Check applies the role and plan rules for a member with role in w.
func Check(p Principal, w store.World, role string, need Need) error {
	switch need {
	case Edit, EditContent:
		if !store.CanEdit(role) {
			return apierr.Forbidden("your role in this world is %s; changing it needs owner, admin or editor", role)
		}
	case Manage:
		if !store.CanManage(role) {
			return apierr.Forbidden("your role in this world is %s; managing members needs owner or admin", role)
		}
	case ManageTools:
		if !store.CanManage(role) {
			return apierr.Forbidden("your role in this world is %s; managing its tools needs owner or admin", role)
		}
	}
	if (need == ReadContent || need == EditContent) && p.PlanGated() && w.Plan == "free" {
		return apierr.New(http.StatusForbidden, "plan_required",
			"reading and editing world content over the API needs the Pro or Studio plan; this world is on Free (the web app works on every plan)").
			With("plan", w.Plan).With("requiredPlans", []string{"pro", "studio"})
	}
	return nil
}
