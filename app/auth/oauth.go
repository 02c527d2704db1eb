package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

// Token lifetimes of the OAuth authorization server.
const (
	CodeTTL    = time.Minute
	AccessTTL  = time.Hour
	RefreshTTL = 30 * 24 * time.Hour
)

// Prefixes of OAuth tokens (API keys start with KeyPrefix).
const (
	AccessPrefix  = "lw_at_"
	RefreshPrefix = "lw_rt_"
)

// OAuthError is an error of the OAuth endpoints (RFC 6749 §5.2): a code such as
// invalid_request or invalid_grant, a description and the HTTP status.
type OAuthError struct {
	Status      int
	Code        string
	Description string
}

func (e *OAuthError) Error() string { return e.Code + ": " + e.Description }

func oauthErr(status int, code, format string, args ...any) *OAuthError {
	return &OAuthError{Status: status, Code: code, Description: fmt.Sprintf(format, args...)}
}

// OAuth stores the authorization server's clients, codes and tokens and verifies access
// tokens.
type OAuth struct {
	App core.App
	// Resources returns the resource indicators (RFC 8707) tokens may be bound to: the MCP
	// endpoint and this server's origin, in that order. The first is the default.
	Resources func() []string
	// MetadataHTTP fetches Client ID Metadata Documents; nil: public addresses only
	// (tests set a client that trusts their TLS server).
	MetadataHTTP *http.Client

	mu       sync.Mutex
	lastSeen map[string]time.Time
}

// Client is a registered OAuth client (public: PKCE, no secret).
type Client struct {
	ClientID     string   `json:"client_id"`
	Name         string   `json:"client_name"`
	RedirectURIs []string `json:"redirect_uris"`
	Created      string   `json:"-"`
}

func dbTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.000Z") }

func randomToken(prefix string) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("auth: crypto/rand failed: " + err.Error())
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// ValidRedirectURI says whether a client may register raw as a redirect URI: https; http on
// a loopback host (a native app's local listener, RFC 8252 §7.3); or a private-use scheme
// (a native app's own, RFC 8252 §7.1, such as cursor://), never one a browser would run or
// open itself. No fragment.
func ValidRedirectURI(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Fragment != "" || len(raw) > 2000 {
		return false
	}
	switch u.Scheme {
	case "https":
		return u.Host != ""
	case "http":
		return isLoopback(u.Hostname())
	}
	return privateScheme.MatchString(u.Scheme) && !webSchemes[u.Scheme] && u.Opaque == "" && (u.Host != "" || u.Path != "")
}

var (
	privateScheme = regexp.MustCompile(`^[a-z][a-z0-9+.-]*$`)
	// webSchemes are schemes a browser handles itself: redirecting a code to one would run
	// it, show it or hand it to something that is not the app.
	webSchemes = map[string]bool{"javascript": true, "vbscript": true, "data": true, "blob": true, "file": true, "filesystem": true,
		"about": true, "view-source": true, "ftp": true, "ws": true, "wss": true, "mailto": true, "tel": true, "sms": true, "chrome": true, "intent": true}
)

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// RedirectMatches says whether requested is one of a client's registered redirect URIs. A
// loopback http URI matches on any port (RFC 8252 §7.3: a native app listens on whatever
// port is free when it runs).
func (c Client) RedirectMatches(requested string) bool {
	if slices.Contains(c.RedirectURIs, requested) {
		return true
	}
	req, err := url.Parse(requested)
	if err != nil || req.Scheme != "http" || !isLoopback(req.Hostname()) {
		return false
	}
	for _, r := range c.RedirectURIs {
		reg, err := url.Parse(r)
		if err == nil && reg.Scheme == "http" && reg.Hostname() == req.Hostname() && reg.Path == req.Path && reg.RawQuery == req.RawQuery && reg.User.String() == req.User.String() {
			return true
		}
	}
	return false
}

// RegisterClient registers a public client (RFC 7591).
func (o *OAuth) RegisterClient(name string, redirects []string) (Client, error) {
	if len(redirects) == 0 || len(redirects) > 10 {
		return Client{}, oauthErr(http.StatusBadRequest, "invalid_redirect_uri", "register 1 to 10 redirect_uris")
	}
	for _, r := range redirects {
		if !ValidRedirectURI(r) {
			return Client{}, oauthErr(http.StatusBadRequest, "invalid_redirect_uri", "redirect URI %q must be https, http on a loopback host, or an app's own scheme (like cursor://), without a fragment", ops.Echo(r))
		}
	}
	name = strings.TrimSpace(name)
	if len([]rune(name)) > 200 {
		return Client{}, oauthErr(http.StatusBadRequest, "invalid_client_metadata", "client_name may have at most 200 characters")
	}
	c := Client{ClientID: randomToken("lwc_")[:4+22], Name: name, RedirectURIs: redirects, Created: dbTime(time.Now())}
	uris, _ := json.Marshal(redirects)
	_, err := o.App.DB().NewQuery(`INSERT INTO oauth_clients (id, clientId, name, redirectUris, created) VALUES ({:id}, {:cid}, {:name}, {:uris}, {:t})`).
		Bind(dbx.Params{"id": core.GenerateDefaultRandomId(), "cid": c.ClientID, "name": name, "uris": string(uris), "t": c.Created}).Execute()
	if err != nil {
		return Client{}, fmt.Errorf("auth: register client: %w", err)
	}
	return c, nil
}

// Client returns a registered client.
func (o *OAuth) Client(clientID string) (Client, error) {
	var row struct {
		ClientID string `db:"clientId"`
		Name     string `db:"name"`
		URIs     string `db:"redirectUris"`
		Created  string `db:"created"`
	}
	if err := o.App.DB().NewQuery("SELECT clientId, name, redirectUris, created FROM oauth_clients WHERE clientId = {:cid}").
		Bind(dbx.Params{"cid": clientID}).One(&row); err != nil {
		return Client{}, oauthErr(http.StatusUnauthorized, "invalid_client", "unknown client_id")
	}
	c := Client{ClientID: row.ClientID, Name: row.Name, Created: row.Created}
	_ = json.Unmarshal([]byte(row.URIs), &c.RedirectURIs)
	return c, nil
}

// CheckResource returns the resource a grant is bound to: the requested one if this server
// serves it, the default (the MCP endpoint) if none was requested.
func (o *OAuth) CheckResource(resource string) (string, error) {
	allowed := o.Resources()
	if resource == "" {
		return allowed[0], nil
	}
	if !slices.Contains(allowed, strings.TrimSuffix(resource, "/")) {
		return "", oauthErr(http.StatusBadRequest, "invalid_target", "this server issues tokens only for %s", strings.Join(allowed, " or "))
	}
	return strings.TrimSuffix(resource, "/"), nil
}

// IssueCode creates a single-use authorization code for an approved request.
func (o *OAuth) IssueCode(clientID, userID, redirectURI, challenge, resource, scope string) (string, error) {
	scope = GrantedScope(scope)
	code := randomToken("")
	now := time.Now()
	_, err := o.App.DB().NewQuery(`INSERT INTO oauth_codes (id, hash, clientId, user, redirectUri, challenge, resource, scope, expiresAt, usedAt, created)
		VALUES ({:id}, {:hash}, {:cid}, {:user}, {:redirect}, {:challenge}, {:resource}, {:scope}, {:exp}, '', {:t})`).
		Bind(dbx.Params{"id": core.GenerateDefaultRandomId(), "hash": HashKey(code), "cid": clientID, "user": userID, "redirect": redirectURI,
			"challenge": challenge, "resource": resource, "scope": scope, "exp": dbTime(now.Add(CodeTTL)), "t": dbTime(now)}).Execute()
	if err != nil {
		return "", fmt.Errorf("auth: issue code: %w", err)
	}
	return code, nil
}

// TokenResponse is the token endpoint's answer (RFC 6749 §5.1).
type TokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope,omitempty"`
}

// ExchangeCode redeems an authorization code (PKCE S256) for tokens. A code is good once, for
// a minute, for its own client, redirect URI, verifier and resource; presenting it again
// revokes every token it produced.
func (o *OAuth) ExchangeCode(clientID, code, redirectURI, verifier, resource string) (TokenResponse, error) {
	var row struct {
		ID        string `db:"id"`
		ClientID  string `db:"clientId"`
		User      string `db:"user"`
		Redirect  string `db:"redirectUri"`
		Challenge string `db:"challenge"`
		Resource  string `db:"resource"`
		Scope     string `db:"scope"`
		ExpiresAt string `db:"expiresAt"`
		UsedAt    string `db:"usedAt"`
	}
	codeHash := HashKey(code)
	var out TokenResponse
	err := o.App.RunInTransaction(func(tx core.App) error {
		if err := tx.DB().NewQuery("SELECT id, clientId, user, redirectUri, challenge, resource, scope, expiresAt, usedAt FROM oauth_codes WHERE hash = {:h}").
			Bind(dbx.Params{"h": codeHash}).One(&row); err != nil {
			return oauthErr(http.StatusBadRequest, "invalid_grant", "the authorization code is unknown")
		}
		if row.UsedAt != "" {
			return errReuse
		}
		if time.Now().After(store.ParseTime(row.ExpiresAt)) {
			return oauthErr(http.StatusBadRequest, "invalid_grant", "the authorization code expired; start the authorization again")
		}
		if row.ClientID != clientID {
			return oauthErr(http.StatusBadRequest, "invalid_grant", "the authorization code was issued to another client")
		}
		if row.Redirect != redirectURI {
			return oauthErr(http.StatusBadRequest, "invalid_grant", "redirect_uri does not match the authorization request")
		}
		if verifier == "" || !pkceMatches(verifier, row.Challenge) {
			return oauthErr(http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge (PKCE S256)")
		}
		if resource != "" && strings.TrimSuffix(resource, "/") != row.Resource {
			return oauthErr(http.StatusBadRequest, "invalid_target", "resource does not match the authorization request")
		}
		if _, err := tx.DB().NewQuery("UPDATE oauth_codes SET usedAt = {:t} WHERE id = {:id}").Bind(dbx.Params{"t": dbTime(time.Now()), "id": row.ID}).Execute(); err != nil {
			return err
		}
		var err error
		out, err = issuePair(tx.DB(), core.GenerateDefaultRandomId(), codeHash, clientID, row.User, row.Resource, row.Scope)
		return err
	})
	if err == errReuse {
		if err := o.revoke("codeHash = {:h}", dbx.Params{"h": codeHash}); err != nil {
			return TokenResponse{}, err
		}
		return TokenResponse{}, oauthErr(http.StatusBadRequest, "invalid_grant", "the authorization code was already used; the tokens it produced are revoked")
	}
	return out, err
}

// errReuse marks a code or refresh token presented a second time. The transaction that
// finds it rolls back; the revocation it calls for then runs in one of its own.
var errReuse = &OAuthError{Status: http.StatusBadRequest, Code: "invalid_grant", Description: "reused"}

// revoke revokes the live tokens matching a condition, in a transaction of its own.
func (o *OAuth) revoke(where string, params dbx.Params) error {
	return o.App.RunInTransaction(func(tx core.App) error {
		_, err := revokeWhere(tx.DB(), where, params)
		return err
	})
}

func pkceMatches(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) == 1
}

func issuePair(db dbx.Builder, family, codeHash, clientID, userID, resource, scope string) (TokenResponse, error) {
	now := time.Now()
	access, refresh := randomToken(AccessPrefix), randomToken(RefreshPrefix)
	for _, t := range []struct {
		secret, kind string
		ttl          time.Duration
	}{{access, "access", AccessTTL}, {refresh, "refresh", RefreshTTL}} {
		if _, err := db.NewQuery(`INSERT INTO oauth_tokens (id, hash, kind, family, codeHash, clientId, user, resource, scope, expiresAt, usedAt, revokedAt, lastUsedAt, created)
			VALUES ({:id}, {:hash}, {:kind}, {:family}, {:code}, {:cid}, {:user}, {:resource}, {:scope}, {:exp}, '', '', '', {:t})`).
			Bind(dbx.Params{"id": core.GenerateDefaultRandomId(), "hash": HashKey(t.secret), "kind": t.kind, "family": family, "code": codeHash,
				"cid": clientID, "user": userID, "resource": resource, "scope": scope, "exp": dbTime(now.Add(t.ttl)), "t": dbTime(now)}).Execute(); err != nil {
			return TokenResponse{}, fmt.Errorf("auth: issue token: %w", err)
		}
	}
	return TokenResponse{AccessToken: access, TokenType: "Bearer", ExpiresIn: int(AccessTTL / time.Second), RefreshToken: refresh, Scope: scope}, nil
}

// revokeWhere revokes the live tokens matching a condition and writes an outbox row for each
// access token among them, so that every process closes what uses it.
func revokeWhere(db dbx.Builder, where string, params dbx.Params) ([]string, error) {
	var access []struct {
		ID string `db:"id"`
	}
	if err := db.NewQuery("SELECT id FROM oauth_tokens WHERE kind = 'access' AND revokedAt = '' AND " + where).Bind(params).All(&access); err != nil {
		return nil, err
	}
	params["now"] = dbTime(time.Now())
	if _, err := db.NewQuery("UPDATE oauth_tokens SET revokedAt = {:now} WHERE revokedAt = '' AND " + where).Bind(params).Execute(); err != nil {
		return nil, err
	}
	ids := make([]string, len(access))
	for i, a := range access {
		ids[i] = a.ID
		if _, err := store.WriteOutbox(db, "oauth.revoked", "", "", "", a.ID); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// Refresh rotates a refresh token: the old one stops working and a new pair is issued in the
// same family. Presenting a rotated refresh token again revokes the whole family (reuse
// detection: it was stolen, or a client is confused).
// RefreshGrace is how long a refresh token may be presented again after its first use.
// Clients that make several calls at once when their access token expires refresh once per
// call, all with the same refresh token (the official TypeScript SDK does); without a grace
// period the second of them looked like a stolen token and ended the user's grant. Within
// it, each gets a pair of its own; after it, reuse revokes the whole grant.
const RefreshGrace = 30 * time.Second

func (o *OAuth) Refresh(clientID, refresh, resource string) (TokenResponse, error) {
	var row struct {
		ID        string `db:"id"`
		Family    string `db:"family"`
		CodeHash  string `db:"codeHash"`
		ClientID  string `db:"clientId"`
		User      string `db:"user"`
		Resource  string `db:"resource"`
		Scope     string `db:"scope"`
		ExpiresAt string `db:"expiresAt"`
		UsedAt    string `db:"usedAt"`
		RevokedAt string `db:"revokedAt"`
	}
	var out TokenResponse
	err := o.App.RunInTransaction(func(tx core.App) error {
		if err := tx.DB().NewQuery("SELECT id, family, codeHash, clientId, user, resource, scope, expiresAt, usedAt, revokedAt FROM oauth_tokens WHERE hash = {:h} AND kind = 'refresh'").
			Bind(dbx.Params{"h": HashKey(refresh)}).One(&row); err != nil {
			return oauthErr(http.StatusBadRequest, "invalid_grant", "the refresh token is unknown")
		}
		if row.ClientID != clientID {
			return oauthErr(http.StatusBadRequest, "invalid_grant", "the refresh token was issued to another client")
		}
		if row.RevokedAt != "" {
			return oauthErr(http.StatusBadRequest, "invalid_grant", "the refresh token was revoked")
		}
		if row.UsedAt != "" && time.Since(store.ParseTime(row.UsedAt)) > RefreshGrace {
			return errReuse
		}
		if time.Now().After(store.ParseTime(row.ExpiresAt)) {
			return oauthErr(http.StatusBadRequest, "invalid_grant", "the refresh token expired; authorize again")
		}
		if resource != "" && strings.TrimSuffix(resource, "/") != row.Resource {
			return oauthErr(http.StatusBadRequest, "invalid_target", "resource does not match the grant")
		}
		if row.UsedAt == "" {
			if _, err := tx.DB().NewQuery("UPDATE oauth_tokens SET usedAt = {:t} WHERE id = {:id}").Bind(dbx.Params{"t": dbTime(time.Now()), "id": row.ID}).Execute(); err != nil {
				return err
			}
		}
		var err error
		out, err = issuePair(tx.DB(), row.Family, row.CodeHash, clientID, row.User, row.Resource, row.Scope)
		return err
	})
	if err == errReuse {
		if err := o.revoke("family = {:f}", dbx.Params{"f": row.Family}); err != nil {
			return TokenResponse{}, err
		}
		return TokenResponse{}, oauthErr(http.StatusBadRequest, "invalid_grant", "the refresh token was already used; every token of this grant is revoked")
	}
	return out, err
}

// Revoke revokes a token (RFC 7009): an access token alone, a refresh token with its whole
// grant. Unknown tokens are not an error.
func (o *OAuth) Revoke(clientID, token string) error {
	var row struct {
		Kind     string `db:"kind"`
		Family   string `db:"family"`
		ClientID string `db:"clientId"`
		ID       string `db:"id"`
	}
	if err := o.App.DB().NewQuery("SELECT id, kind, family, clientId FROM oauth_tokens WHERE hash = {:h}").Bind(dbx.Params{"h": HashKey(token)}).One(&row); err != nil {
		return nil
	}
	if row.ClientID != clientID {
		return nil // RFC 7009: the client may only revoke its own tokens; say nothing
	}
	if row.Kind == "refresh" {
		return o.revoke("family = {:f}", dbx.Params{"f": row.Family})
	}
	return o.revoke("id = {:id}", dbx.Params{"id": row.ID})
}

// VerifyAccess checks an access token and returns its principal and expiry. The token must
// be live (not revoked, not expired) and bound to a resource this server serves.
func (o *OAuth) VerifyAccess(token, resource string) (Principal, time.Time, error) {
	if !strings.HasPrefix(token, AccessPrefix) {
		return Principal{}, time.Time{}, apierr.Unauthenticated("the bearer token is not a Loreweave API key or access token")
	}
	var row struct {
		ID        string `db:"id"`
		User      string `db:"user"`
		Resource  string `db:"resource"`
		ExpiresAt string `db:"expiresAt"`
		RevokedAt string `db:"revokedAt"`
		Email     string `db:"email"`
		Name      string `db:"name"`
		Scope     string `db:"scope"`
	}
	err := o.App.DB().NewQuery(`SELECT t.id, t.user, t.resource, t.expiresAt, t.revokedAt, u.email, u.name, t.scope FROM oauth_tokens t JOIN users u ON u.id = t.user
		WHERE t.hash = {:h} AND t.kind = 'access'`).Bind(dbx.Params{"h": HashKey(token)}).One(&row)
	if err != nil || row.RevokedAt != "" {
		return Principal{}, time.Time{}, apierr.Unauthenticated("the access token is unknown or revoked")
	}
	exp := store.ParseTime(row.ExpiresAt)
	if time.Now().After(exp) {
		return Principal{}, time.Time{}, apierr.Unauthenticated("the access token expired; refresh it")
	}
	// Audience (RFC 8707): a token serves the resource it was issued for, and a token issued
	// for the whole server (the origin, the last of Resources) serves every resource.
	resources := o.Resources()
	if row.Resource != resource && row.Resource != resources[len(resources)-1] {
		return Principal{}, time.Time{}, apierr.Unauthenticated("the access token was issued for %s, not for %s", row.Resource, resource)
	}
	o.touch(row.ID)
	return Principal{UserID: row.User, Email: row.Email, Name: row.Name, Kind: KindOAuth, CredentialID: row.ID, ReadOnly: ReadOnlyScope(row.Scope)}, exp, nil
}

// Verify implements TokenVerifier for /api/v1, which takes tokens issued for the whole server
// only: a token a client asked for the MCP endpoint stays on the MCP endpoint.
func (o *OAuth) Verify(token string) (Principal, error) {
	resources := o.Resources()
	p, _, err := o.VerifyAccess(token, resources[len(resources)-1])
	return p, err
}

func (o *OAuth) touch(id string) {
	now := time.Now()
	o.mu.Lock()
	if o.lastSeen == nil {
		o.lastSeen = map[string]time.Time{}
	}
	if last, ok := o.lastSeen[id]; ok && now.Sub(last) < time.Minute {
		o.mu.Unlock()
		return
	}
	o.lastSeen[id] = now
	o.mu.Unlock()
	_, _ = o.App.DB().NewQuery("UPDATE oauth_tokens SET lastUsedAt = {:t} WHERE id = {:id}").Bind(dbx.Params{"t": dbTime(now), "id": id}).Execute()
}

// ConnectedApp is a client a user has authorised and not revoked.
type ConnectedApp struct {
	ClientID   string `db:"clientId"`
	Name       string `db:"name"`
	Authorized string `db:"authorized"`
	LastUsedAt string `db:"lastUsed"`
}

// ConnectedApps lists the clients that hold live tokens of userID, most recently used first.
func (o *OAuth) ConnectedApps(userID string) ([]ConnectedApp, error) {
	apps := []ConnectedApp{}
	err := o.App.DB().NewQuery(`SELECT t.clientId, COALESCE(c.name, '') AS name, MIN(t.created) AS authorized, MAX(t.lastUsedAt) AS lastUsed
		FROM oauth_tokens t LEFT JOIN oauth_clients c ON c.clientId = t.clientId
		WHERE t.user = {:u} AND t.revokedAt = '' AND t.expiresAt > {:now}
		GROUP BY t.clientId ORDER BY lastUsed DESC, authorized DESC`).
		Bind(dbx.Params{"u": userID, "now": dbTime(time.Now())}).All(&apps)
	if err != nil {
		return nil, fmt.Errorf("auth: connected apps: %w", err)
	}
	return apps, nil
}

// RevokeApp revokes every token userID granted to a client; its sessions end at once.
func (o *OAuth) RevokeApp(userID, clientID string) error {
	return o.revoke("user = {:u} AND clientId = {:c}", dbx.Params{"u": userID, "c": clientID})
}
