package store

import (
	"strings"

	"github.com/loreweave/loreweave/app/apierr"
)

// MaxName is the most characters a name (world, document, era, project, key) may have.
const MaxName = 200

// CleanName trims a required name and checks it has 1 to MaxName characters.
func CleanName(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", apierr.Field(field, "%q must not be empty", field)
	}
	return CleanOptional(field, s)
}

// CleanOptional trims an optional short text and checks it has at most MaxName characters.
func CleanOptional(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	if n := len([]rune(s)); n > MaxName {
		return "", apierr.Field(field, "%q may have at most %d characters (got %d)", field, MaxName, n).With("limit", MaxName)
	}
	return s, nil
}
