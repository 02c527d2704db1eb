package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestClientIDMetadataDocument: a client whose client_id is the https URL of its metadata
// document signs in without registering; a document that names another client_id, or one at
// a private address (the default guard), is refused.
func TestClientIDMetadataDocument(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	docs := map[string]string{}
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}))
	defer ts.Close()
	clientID := ts.URL + "/client.json"
	docs["/client.json"] = `{"client_id":"` + clientID + `","client_name":"Metadata client","redirect_uris":["` + redirectURI + `"],"token_endpoint_auth_method":"none"}`
	docs["/liar.json"] = `{"client_id":"https://elsewhere.example/client.json","client_name":"Liar","redirect_uris":["` + redirectURI + `"]}`

	var meta struct {
		Supported bool `json:"client_id_metadata_document_supported"`
	}
	s.Must(s.Do(apptest.Request{Method: "GET", Path: "/.well-known/oauth-authorization-server"}), 200).JSON(t, &meta)
	if !meta.Supported {
		t.Error("the metadata does not say client ID metadata documents are supported")
	}

	// The default guard refuses a document at a private address (the test server's).
	if _, err := s.LW.OAuth.ResolveClient(context.Background(), clientID); err == nil || !strings.Contains(err.Error(), "public addresses") {
		t.Errorf("a private metadata address: %v", err)
	}
	s.LW.OAuth.MetadataHTTP = ts.Client()

	f := newFlow(t, s, ann)
	f.clientID = clientID
	page, err := f.browser.Get(f.authURL(nil))
	if err != nil {
		t.Fatal(err)
	}
	html, _ := goquery.NewDocumentFromReader(page.Body)
	page.Body.Close()
	if page.StatusCode != 200 || html.Find(`[data-testid="client-name"]`).Text() != "Metadata client" || !strings.Contains(html.Find(`[data-testid="described-at"]`).Text(), strings.TrimPrefix(ts.URL, "https://")) {
		t.Fatalf("consent page: %d %q", page.StatusCode, html.Find(`[data-testid="consent"]`).Text())
	}
	status, tr := f.exchange(f.code(), nil)
	if status != 200 || tr.AccessToken == "" {
		t.Fatalf("token: %d %+v", status, tr)
	}
	session := connect(t, s, tr.AccessToken)
	var me struct{ ID string }
	if call(t, session, "whoami", nil, &me) || me.ID != ann.ID {
		t.Fatalf("whoami: %+v", me)
	}

	for _, bad := range []string{ts.URL + "/liar.json", ts.URL + "/missing.json"} {
		f.clientID = bad
		res, err := f.browser.Get(f.authURL(url.Values{}))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d", bad, res.StatusCode)
		}
	}
}
