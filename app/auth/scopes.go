package auth

import (
	"slices"
	"strings"
)

// OAuth scopes. A grant is read-only ("read") or reads and writes ("read write"); a client
// that asks for no scope it knows gets both, as before scopes existed.
const (
	ScopeRead  = "read"
	ScopeWrite = "write"
)

// Scopes are the scopes the authorization server grants (scopes_supported).
var Scopes = []string{ScopeRead, ScopeWrite}

// GrantedScope is the scope a client that asked for requested gets: "read" when it asked for
// read and not write, otherwise "read write". Scopes it does not know are dropped.
func GrantedScope(requested string) string {
	asked := strings.Fields(requested)
	if slices.Contains(asked, ScopeRead) && !slices.Contains(asked, ScopeWrite) {
		return ScopeRead
	}
	return ScopeRead + " " + ScopeWrite
}

// ReadOnlyScope reports whether a granted scope allows no writes. Tokens granted before
// scopes existed ("") may write.
func ReadOnlyScope(scope string) bool {
	return scope != "" && !slices.Contains(strings.Fields(scope), ScopeWrite)
}
