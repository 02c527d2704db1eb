package store

import (
	"strings"
	"unicode/utf8"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/ops"
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

// CleanOptional trims an optional short text and checks it has at most MaxName characters
// and no control or bidirectional formatting characters (ops.UnsafeRune): a name shows in
// terminals, logs and pages, where those would act or reorder what is around them.
func CleanOptional(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	if n := len([]rune(s)); n > MaxName {
		return "", apierr.Field(field, "%q may have at most %d characters (got %d)", field, MaxName, n).With("limit", MaxName)
	}
	if !utf8.ValidString(s) { // a form post is not checked as JSON bodies are
		return "", apierr.Field(field, "%q must be valid UTF-8", field)
	}
	if r, bad := ops.UnsafeRuneIn(s); bad {
		return "", apierr.Field(field, "%q must not contain control or bidirectional formatting characters (found U+%04X)", field, r)
	}
	return s, nil
}
