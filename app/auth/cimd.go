package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/publicnet"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

// Client ID Metadata Documents (the MCP authorization spec's recommended way for a client to
// identify itself, beside dynamic registration): a client whose client_id is an https URL
// publishes its metadata there. The authorization endpoint fetches the document, checks that
// it names that URL as its client_id and lists the redirect URI, and keeps it as the
// client's registration (fetched again after a day), so the token endpoint and the connected
// apps page treat it like any registered client.

const (
	// metadataMaxAge is how long a fetched document serves before it is fetched again.
	metadataMaxAge = 24 * time.Hour
	// metadataMaxBytes bounds a metadata document.
	metadataMaxBytes = 64 << 10
)

// IsMetadataClientID reports whether a client_id is a Client ID Metadata Document's URL: https,
// with a path, no fragment, no credentials.
func IsMetadataClientID(clientID string) bool {
	u, err := url.Parse(clientID)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.Path != "" && u.Path != "/" && u.Fragment == "" && u.User == nil && len(clientID) <= 2000
}

// metadataHTTP fetches metadata documents: public addresses only, no redirects.
var metadataHTTP = publicnet.Client(5*time.Second, false, "client metadata documents are fetched from public addresses only")

// clientMetadata is what a Client ID Metadata Document says.
type clientMetadata struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
}

// ResolveClient returns the client an authorization request names: a registered one, or the
// one a Client ID Metadata Document at the client_id URL describes.
func (o *OAuth) ResolveClient(ctx context.Context, clientID string) (Client, error) {
	if !IsMetadataClientID(clientID) {
		return o.Client(clientID)
	}
	if c, err := o.Client(clientID); err == nil && time.Since(store.ParseTime(c.Created)) < metadataMaxAge {
		return c, nil
	}
	m, err := o.fetchMetadata(ctx, clientID)
	if err != nil {
		return Client{}, err
	}
	return o.saveMetadataClient(clientID, m)
}

func (o *OAuth) fetchMetadata(ctx context.Context, clientID string) (clientMetadata, error) {
	bad := func(format string, args ...any) (clientMetadata, error) {
		return clientMetadata{}, oauthErr(http.StatusBadRequest, "invalid_client", "the client metadata document at %s %s", clientID, ops.EchoSprintf(format, args...))
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, clientID, nil)
	if err != nil {
		return bad("cannot be requested")
	}
	req.Header.Set("Accept", "application/json")
	client := o.MetadataHTTP
	if client == nil {
		client = metadataHTTP
	}
	res, err := client.Do(req)
	if err != nil {
		return bad("could not be fetched: %v", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return bad("answered HTTP %d", res.StatusCode)
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "application/json" {
		return bad("is not JSON (Content-Type %q)", res.Header.Get("Content-Type"))
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, metadataMaxBytes+1))
	if err != nil || len(data) > metadataMaxBytes {
		return bad("is larger than %d bytes, or could not be read", metadataMaxBytes)
	}
	var m clientMetadata
	if err := json.Unmarshal(data, &m); err != nil {
		return bad("is not valid JSON")
	}
	switch {
	case m.ClientID != clientID:
		return bad("names another client_id (%q)", m.ClientID)
	case m.TokenEndpointAuthMethod != "" && m.TokenEndpointAuthMethod != "none":
		return bad("asks for token_endpoint_auth_method %q; only public clients (none, with PKCE) are served", m.TokenEndpointAuthMethod)
	case len(m.RedirectURIs) == 0 || len(m.RedirectURIs) > 10:
		return bad("must list 1 to 10 redirect_uris")
	case len([]rune(m.ClientName)) > 200:
		return bad("has a client_name longer than 200 characters")
	}
	for _, r := range m.RedirectURIs {
		if !ValidRedirectURI(r) {
			return bad("lists a redirect URI that is not https, loopback http or an app's own scheme: %q", r)
		}
	}
	for _, g := range m.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return bad("asks for the grant type %q", g)
		}
	}
	return m, nil
}

// saveMetadataClient keeps a fetched document as the client's registration; its time is
// when it was fetched.
func (o *OAuth) saveMetadataClient(clientID string, m clientMetadata) (Client, error) {
	name := strings.TrimSpace(m.ClientName)
	if name == "" {
		u, _ := url.Parse(clientID)
		name = u.Host
	}
	c := Client{ClientID: clientID, Name: name, RedirectURIs: m.RedirectURIs, Created: dbTime(time.Now())}
	uris, _ := json.Marshal(m.RedirectURIs)
	err := o.App.RunInTransaction(func(tx core.App) error {
		db := tx.DB()
		res, err := db.NewQuery("UPDATE oauth_clients SET name = {:name}, redirectUris = {:uris}, created = {:t} WHERE clientId = {:cid}").
			Bind(dbx.Params{"cid": clientID, "name": name, "uris": string(uris), "t": c.Created}).Execute()
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			return nil
		}
		_, err = db.NewQuery(`INSERT INTO oauth_clients (id, clientId, name, redirectUris, created) VALUES ({:id}, {:cid}, {:name}, {:uris}, {:t})`).
			Bind(dbx.Params{"id": core.GenerateDefaultRandomId(), "cid": clientID, "name": name, "uris": string(uris), "t": c.Created}).Execute()
		return err
	})
	if err != nil {
		return Client{}, fmt.Errorf("auth: save client metadata: %w", err)
	}
	return c, nil
}
