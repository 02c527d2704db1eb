package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/ratelimit"
)

// The authorization server's machine endpoints. They follow RFC 6749, 7591, 7009 and 8414:
// form bodies (JSON for registration) and OAuth error objects, not the /api/v1 contract.
// The consent page (/oauth/authorize) is a web page and lives in app/web.

// oauthJSON writes an OAuth response that must never be cached.
func oauthJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, err error) {
	var oe *auth.OAuthError
	if !errors.As(err, &oe) {
		oe = &auth.OAuthError{Status: http.StatusInternalServerError, Code: "server_error", Description: "something went wrong on our side"}
	}
	oauthJSON(w, oe.Status, map[string]string{"error": oe.Code, "error_description": oe.Description})
}

// AuthServerMetadata is the RFC 8414 document.
func (s *Server) AuthServerMetadata() map[string]any {
	return map[string]any{
		"issuer":                                         s.BaseURL,
		"authorization_endpoint":                         s.BaseURL + "/oauth/authorize",
		"token_endpoint":                                 s.BaseURL + "/oauth/token",
		"registration_endpoint":                          s.BaseURL + "/oauth/register",
		"revocation_endpoint":                            s.BaseURL + "/oauth/revoke",
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"token_endpoint_auth_methods_supported":          []string{"none"},
		"revocation_endpoint_auth_methods_supported":     []string{"none"},
		"code_challenge_methods_supported":               []string{"S256"},
		"scopes_supported":                               auth.Scopes,
		"client_id_metadata_document_supported":          true,
		"authorization_response_iss_parameter_supported": true,
		"service_documentation":                          s.BaseURL + "/api/v1/openapi.json",
	}
}

func (s *Server) serveAuthServerMetadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(s.AuthServerMetadata())
}

// registrationLimiter bounds client registrations per client address; LimitRegistrations
// sets it (no limit until then).
type registrationLimiter struct{ perAddress *ratelimit.Window }

// LimitRegistrations bounds the client registrations each client address may make (the
// sign-up limit: config.SignupRateLimit per config.SignupWindow). Call it before serving.
func (s *Server) LimitRegistrations(perAddress *ratelimit.Window) {
	s.limiter = registrationLimiter{perAddress: perAddress}
}

type registrationRequest struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
}

// register is dynamic client registration (RFC 7591) for public clients.
func (s *Server) register(w http.ResponseWriter, r *http.Request, ip string) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if ok, wait := s.limiter.perAddress.Take(ip); !ok {
		secs := ratelimit.Seconds(wait)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		oauthError(w, &auth.OAuthError{Status: http.StatusTooManyRequests, Code: "rate_limited",
			Description: fmt.Sprintf("too many client registrations from this address; retry in %d s", secs)})
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		oauthError(w, &auth.OAuthError{Status: http.StatusBadRequest, Code: "invalid_client_metadata", Description: "send the client metadata as JSON"})
		return
	}
	var req registrationRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
	if err != nil || json.Unmarshal(body, &req) != nil {
		oauthError(w, &auth.OAuthError{Status: http.StatusBadRequest, Code: "invalid_client_metadata", Description: "the client metadata is not valid JSON"})
		return
	}
	if req.TokenEndpointAuthMethod != "" && req.TokenEndpointAuthMethod != "none" {
		oauthError(w, &auth.OAuthError{Status: http.StatusBadRequest, Code: "invalid_client_metadata", Description: "only public clients (token_endpoint_auth_method none, with PKCE) can register"})
		return
	}
	for _, g := range req.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			oauthError(w, &auth.OAuthError{Status: http.StatusBadRequest, Code: "invalid_client_metadata", Description: "grant_types may be authorization_code and refresh_token"})
			return
		}
	}
	c, err := s.OAuth.RegisterClient(req.ClientName, req.RedirectURIs)
	if err != nil {
		oauthError(w, err)
		return
	}
	created, _ := time.Parse("2006-01-02 15:04:05.000Z", c.Created)
	oauthJSON(w, http.StatusCreated, map[string]any{
		"client_id":                  c.ClientID,
		"client_id_issued_at":        created.Unix(),
		"client_name":                c.Name,
		"redirect_uris":              c.RedirectURIs,
		"token_endpoint_auth_method": "none",
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
	})
}

// token is the token endpoint: authorization_code (with PKCE) and refresh_token grants.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if err := r.ParseForm(); err != nil {
		oauthError(w, &auth.OAuthError{Status: http.StatusBadRequest, Code: "invalid_request", Description: "send a form body"})
		return
	}
	f := r.PostForm
	clientID := f.Get("client_id")
	if clientID == "" {
		if id, _, ok := r.BasicAuth(); ok {
			clientID = id
		}
	}
	if _, err := s.OAuth.Client(clientID); err != nil {
		oauthError(w, err)
		return
	}
	var res auth.TokenResponse
	var err error
	switch f.Get("grant_type") {
	case "authorization_code":
		res, err = s.OAuth.ExchangeCode(clientID, f.Get("code"), f.Get("redirect_uri"), f.Get("code_verifier"), f.Get("resource"))
	case "refresh_token":
		res, err = s.OAuth.Refresh(clientID, f.Get("refresh_token"), f.Get("resource"))
	case "":
		err = &auth.OAuthError{Status: http.StatusBadRequest, Code: "invalid_request", Description: "grant_type is required"}
	default:
		err = &auth.OAuthError{Status: http.StatusBadRequest, Code: "unsupported_grant_type", Description: "grant_type must be authorization_code or refresh_token"}
	}
	if err != nil {
		oauthError(w, err)
		return
	}
	oauthJSON(w, http.StatusOK, res)
}

// revoke is token revocation (RFC 7009): always 200 for a known client.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if err := r.ParseForm(); err != nil || r.PostForm.Get("token") == "" {
		oauthError(w, &auth.OAuthError{Status: http.StatusBadRequest, Code: "invalid_request", Description: "token is required"})
		return
	}
	clientID := r.PostForm.Get("client_id")
	if _, err := s.OAuth.Client(clientID); err != nil {
		oauthError(w, err)
		return
	}
	if err := s.OAuth.Revoke(clientID, r.PostForm.Get("token")); err != nil {
		oauthError(w, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(0))
	w.WriteHeader(http.StatusOK)
}
