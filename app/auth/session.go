package auth

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/security"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/store"
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
	if err := CheckPassword(password); err != nil {
		return nil, err
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

// SessionUser returns the user whose session cookie r carries, or nil. A session that was
// signed out (EndSession) carries no one, even if its token has not expired yet.
func SessionUser(app core.App, r *http.Request) *core.Record {
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" || SessionEnded(app, c.Value) {
		return nil
	}
	u, err := app.FindAuthRecordByToken(c.Value, core.TokenTypeAuth)
	if err != nil || u.Collection().Name != "users" {
		return nil
	}
	return u
}

// sessionIDClaim is a random claim that makes every session token unique: two sign-ins in
// the same second would otherwise get the same token, and signing one out would end both.
const sessionIDClaim = "sid"

// NewSessionToken returns the session cookie's value for u: a PocketBase auth token (so that
// it dies with the user's tokenKey, on a password change say) of its own. It is not
// refreshable, so PocketBase's auth-refresh cannot trade it for a token that outlives its
// sign-out.
func NewSessionToken(u *core.Record) (string, error) {
	c := u.Collection()
	claims := map[string]any{
		core.TokenClaimType:         core.TokenTypeAuth,
		core.TokenClaimId:           u.Id,
		core.TokenClaimCollectionId: c.Id,
		core.TokenClaimRefreshable:  false,
		sessionIDClaim:              randomToken(""),
	}
	return security.NewJWT(claims, u.TokenKey()+c.AuthToken.Secret, c.AuthToken.DurationTime())
}

// EndSession signs a session out for good: from now on SessionUser (and PocketBase's own API,
// see SessionEnded) refuse its token, on every copy of the cookie, until the token would have
// expired anyway. A token that is not a valid session token needs nothing done.
func EndSession(app core.App, token string) error {
	u, err := app.FindAuthRecordByToken(token, core.TokenTypeAuth)
	if err != nil {
		return nil
	}
	claims, err := security.ParseUnverifiedJWT(token)
	if err != nil {
		return nil
	}
	exp, err := claims.GetExpirationTime()
	if err != nil || exp == nil {
		return nil
	}
	so := signedOutOf(app)
	if err := so.load(app); err != nil {
		return err
	}
	hash, now := HashKey(token), time.Now()
	err = app.RunInTransaction(func(tx core.App) error {
		if _, err := tx.DB().NewQuery("DELETE FROM signed_out_sessions WHERE expires < {:now}").
			Bind(dbx.Params{"now": dbTime(now)}).Execute(); err != nil {
			return err
		}
		if _, err := tx.DB().NewQuery("INSERT OR IGNORE INTO signed_out_sessions (hash, user, expires) VALUES ({:hash}, {:user}, {:expires})").
			Bind(dbx.Params{"hash": hash, "user": u.Id, "expires": dbTime(exp.Time)}).Execute(); err != nil {
			return err
		}
		// The live hub closes the session's open event streams when it reads this row.
		_, err := store.WriteOutbox(tx.DB(), "session.ended", "", "", "", hash)
		return err
	})
	if err != nil {
		return fmt.Errorf("auth: end session: %w", err)
	}
	so.mu.Lock()
	defer so.mu.Unlock()
	for h, t := range so.expiry {
		if t.Before(now) {
			delete(so.expiry, h)
		}
	}
	so.expiry[hash] = exp.Time
	return nil
}

// SessionEnded reports whether token belongs to a session that was signed out. If the record
// of signed-out sessions cannot be read, every session counts as ended.
func SessionEnded(app core.App, token string) bool {
	so := signedOutOf(app)
	if err := so.load(app); err != nil {
		app.Logger().Error("auth: read signed-out sessions", "error", err.Error())
		return true
	}
	so.mu.Lock()
	defer so.mu.Unlock()
	_, ended := so.expiry[HashKey(token)]
	return ended
}

// signedOut is the table signed_out_sessions held in memory, so that checking a session costs
// no query. It is read once; after that only EndSession writes the table, and it updates
// both. (Signing out happens only in the server process.) Migration 1763800004 makes it.
type signedOut struct {
	mu     sync.Mutex
	loaded bool
	expiry map[string]time.Time // token hash -> when the token expires anyway
}

// signedOutOf returns app's signed-out sessions, kept in the app's store.
func signedOutOf(app core.App) *signedOut {
	v := app.Store().GetOrSet("lw.signedOutSessions", func() any { return &signedOut{expiry: map[string]time.Time{}} })
	return v.(*signedOut)
}

// load reads the table the first time it is needed.
func (so *signedOut) load(app core.App) error {
	so.mu.Lock()
	defer so.mu.Unlock()
	if so.loaded {
		return nil
	}
	var rows []struct {
		Hash    string `db:"hash"`
		Expires string `db:"expires"`
	}
	now := time.Now()
	if err := app.DB().NewQuery("SELECT hash, expires FROM signed_out_sessions WHERE expires >= {:now}").
		Bind(dbx.Params{"now": dbTime(now)}).All(&rows); err != nil {
		return err
	}
	for _, r := range rows {
		t, err := time.Parse("2006-01-02 15:04:05.000Z", r.Expires)
		if err != nil {
			t = now.AddDate(1, 0, 0) // unreadable (edited by hand?): it stays ended while this process runs
		}
		so.expiry[r.Hash] = t
	}
	so.loaded = true
	return nil
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
			p := PrincipalOfUser(u)
			if c, err := r.Cookie(SessionCookie); err == nil {
				p.CredentialID = HashKey(c.Value) // what EndSession names, to close its streams
			}
			return p, nil
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
