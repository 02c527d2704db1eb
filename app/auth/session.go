package auth

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"golang.org/x/crypto/bcrypt"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
)

// SessionCookie holds the signed-in user's PocketBase auth token.
const SessionCookie = "lw_session"

// principalKey is where the middleware stores the Principal on a request event.
const principalKey = "lw.principal"

// Authenticator turns request credentials into a Principal.
type Authenticator struct {
	App  core.App
	Keys *Keys
	// Tokens verifies OAuth access tokens; nil until the MCP connector is wired.
	Tokens TokenVerifier
}

// TokenVerifier checks an OAuth access token presented as a bearer token.
type TokenVerifier interface {
	Verify(token string) (Principal, error)
}

// CreateUser creates a user account.
func CreateUser(app core.App, email, password, name string) (*core.Record, error) {
	users, err := app.FindCollectionByNameOrId("users")
	if err != nil {
		return nil, fmt.Errorf("auth: users collection: %w", err)
	}
	email = strings.ToLower(strings.TrimSpace(email))
	if _, err := app.FindAuthRecordByEmail(users, email); err == nil {
		return nil, apierr.Field("email", "an account with this email already exists")
	}
	if len(password) < 8 {
		return nil, apierr.Field("password", "the password needs at least 8 characters")
	}
	if len(password) > 71 {
		return nil, apierr.Field("password", "the password may have at most 71 characters")
	}
	u := core.NewRecord(users)
	u.SetEmail(email)
	u.SetPassword(password)
	u.Set("name", strings.TrimSpace(name))
	u.SetVerified(true)
	if err := app.Save(u); err != nil {
		return nil, apierr.Field("email", "the account could not be created: %v", err)
	}
	return u, nil
}

// FindUserByEmail returns the user with email, or a 404 error.
func FindUserByEmail(app core.App, email string) (*core.Record, error) {
	u, err := app.FindAuthRecordByEmail("users", strings.ToLower(strings.TrimSpace(email)))
	if err != nil {
		return nil, apierr.NotFound("user")
	}
	return u, nil
}

// SignIn checks an email and password and returns the user. The error does not say which of
// the two was wrong.
func SignIn(app core.App, email, password string) (*core.Record, error) {
	u, err := FindUserByEmail(app, email)
	if err != nil {
		// Check the password against a stand-in hash anyway, so that an unknown email takes
		// as long to refuse as a wrong password: timing does not tell who has an account.
		_ = bcrypt.CompareHashAndPassword(standInHash(), []byte(password))
		return nil, apierr.Unauthenticated("the email or password is not right")
	}
	if !u.ValidatePassword(password) {
		return nil, apierr.Unauthenticated("the email or password is not right")
	}
	return u, nil
}

// standInHash is a bcrypt hash at PocketBase's cost, of a password nobody has.
var standInHash = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte(randomToken("")), bcrypt.DefaultCost)
	return h
})

// SessionUser returns the user whose session cookie r carries, or nil.
func SessionUser(app core.App, r *http.Request) *core.Record {
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return nil
	}
	u, err := app.FindAuthRecordByToken(c.Value, core.TokenTypeAuth)
	if err != nil || u.Collection().Name != "users" {
		return nil
	}
	return u
}

// PrincipalOfUser is the principal of a signed-in web user.
func PrincipalOfUser(u *core.Record) Principal {
	return Principal{UserID: u.Id, Email: u.Email(), Name: u.GetString("name"), Kind: KindSession}
}

// APIMiddleware authenticates an /api/v1 request: a bearer API key or OAuth access token, or
// the session cookie on reads (GET and HEAD, which includes event streams). Anything else is
// a 401 with WWW-Authenticate: Bearer.
func (a *Authenticator) APIMiddleware(e *core.RequestEvent) error {
	p, err := a.authenticate(e.Request)
	if err != nil {
		apierr.Write(e.Response, e.Request, e.App.Logger(), err)
		return nil
	}
	e.Set(principalKey, p)
	return e.Next()
}

func (a *Authenticator) authenticate(r *http.Request) (Principal, error) {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, token, ok := strings.Cut(h, " ")
		token = strings.TrimSpace(token)
		if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
			return Principal{}, apierr.Unauthenticated("send the API key as \"Authorization: Bearer lw_live_…\"")
		}
		if strings.HasPrefix(token, KeyPrefix) {
			return a.Keys.Authenticate(token)
		}
		if a.Tokens != nil {
			return a.Tokens.Verify(token)
		}
		return Principal{}, apierr.Unauthenticated("the bearer token is not a Loreweave API key (they start with %s)", KeyPrefix)
	}
	if u := SessionUser(a.App, r); u != nil {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			return PrincipalOfUser(u), nil
		}
		return Principal{}, apierr.Unauthenticated("the session cookie only works for reads; send an API key (Authorization: Bearer lw_live_…) to change things, or use the web app")
	}
	return Principal{}, apierr.Unauthenticated("this request needs an API key: send \"Authorization: Bearer lw_live_…\" (create one under Settings → API keys)")
}

// PrincipalOf returns the principal the middleware stored on e.
func PrincipalOf(e *core.RequestEvent) Principal {
	p, _ := e.Get(principalKey).(Principal)
	return p
}
