package ops

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Stable error codes. They are part of the public API: never change one that shipped.
const (
	CodeInvalidField         = "invalid_field"
	CodeUnsupportedOperation = "unsupported_operation"
	CodeUnknownClip          = "unknown_clip"
	CodeNotFoundInDocument   = "not_found_in_document"
	CodeStaleBaseVersion     = "stale_base_version"
)

// Error is a rejected operation: a stable code, a sentence a person can act on, the index of
// the failing op in its batch, the field at fault, and any further details (for example the
// supported ops or the clip ids).
type Error struct {
	Code    string
	Message string
	OpIndex int
	// Field is where the bad value is in the op: a parameter ("label"), or a path into one
	// with array indexes ("clips[0].id", "splices[2].pos").
	Field   string
	Details map[string]any
}

// Error implements error: the op index, the code and the message.
func (e *Error) Error() string {
	return fmt.Sprintf("op %d: %s: %s", e.OpIndex, e.Code, e.Message)
}

// MaxEcho is how many characters of a value an error message repeats.
const MaxEcho = 64

// Echo returns s as an error repeats a value the client sent (a name, an id, a member):
// its first MaxEcho characters, then "…" when there are more, so that a 100 KB value does not
// come back whole in every error about it.
func Echo(s string) string {
	n := 0
	for i := range s {
		if n == MaxEcho {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// EchoSprintf is fmt.Sprintf with every string argument cut short by Echo: a message that
// repeats values a client or a document sent.
func EchoSprintf(format string, args ...any) string {
	short := make([]any, len(args))
	for i, a := range args {
		if s, ok := a.(string); ok {
			a = Echo(s)
		}
		short[i] = a
	}
	return fmt.Sprintf(format, short...)
}

func fieldError(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalidField, Field: field, Message: fmt.Sprintf(format, args...)}
}

// opField lets a params struct accept the "op" member next to its own.
type opField struct {
	Op string `json:"op"`
}

// params decodes the op's members into dst (a pointer to a struct) strictly: an unknown
// member or a value of the wrong type is an invalid_field error naming the member.
func (c *opCtx) params(dst any) error {
	if c.quickParams(dst) {
		return nil
	}
	return c.strictParams(dst)
}

// strictParams is params without the short cut: encoding/json decides, once CheckKeys has
// refused duplicate members and names that differ from a parameter's only in case.
func (c *opCtx) strictParams(dst any) error {
	t := reflect.TypeOf(dst)
	if field, problem := CheckKeys(c.raw, t); problem != "" {
		return fieldError(field, "%s: %s", c.name, problem)
	}
	dec := json.NewDecoder(bytes.NewReader(c.raw))
	if !c.replay {
		dec.DisallowUnknownFields()
	}
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typeErr):
			field := cmp.Or(TypeErrorPath(c.raw, typeErr), typeErr.Field, "op")
			return fieldError(field, "%s: %q must be %s, not %s", c.name, field, JSONKind(typeErr.Type.Kind().String()), typeErr.Value)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			name := Echo(strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`))
			field, _ := unknownMember(c.raw, t)
			if parent, nested := strings.CutSuffix(field, "."+name); nested {
				return fieldError(field, "%s: %s has no member %q", c.name, parent, name)
			}
			return fieldError(name, "%s has no parameter %q", c.name, name)
		default:
			return fieldError("op", "%s: parameters are not valid JSON: %v", c.name, err)
		}
	}
	return nil
}

// JSONKind names a Go kind (reflect.Kind.String) as JSON calls a value of it, with its
// article: "a string", "an array"…
func JSONKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map", "ptr":
		return "an object"
	case "int", "int64", "float64", "int32", "uint", "uint64":
		return "a number"
	}
	return "of another type"
}

// maxSafeInteger is 2^53-1, the largest integer a JSON number carries exactly everywhere.
const maxSafeInteger = 1<<53 - 1

// jsonNumber is a number parameter as written. Unlike json.Number it refuses a string
// holding a number ("5"): a parameter's JSON type is part of its contract.
type jsonNumber string

// UnmarshalJSON implements json.Unmarshaler.
func (n *jsonNumber) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9') {
		*n = jsonNumber(b)
		return nil
	}
	kind := "object"
	switch {
	case len(b) == 0:
	case b[0] == '"':
		kind = "string"
	case b[0] == 't' || b[0] == 'f':
		kind = "bool"
	case b[0] == '[':
		kind = "array"
	}
	return &json.UnmarshalTypeError{Value: kind, Type: reflect.TypeFor[float64]()}
}

// integer reads a JSON number that must be a whole number with |n| <= 2^53-1.
func integer(field string, n jsonNumber) (int64, error) {
	f, err := json.Number(n).Float64()
	if err != nil {
		return 0, fieldError(field, "%q must be a number", field)
	}
	if f != float64(int64(f)) || f > maxSafeInteger || f < -maxSafeInteger {
		return 0, fieldError(field, "%q must be a whole number between -(2^53-1) and 2^53-1, got %s", field, Echo(string(n)))
	}
	return int64(f), nil
}

// DayMs is a day in milliseconds.
const DayMs = 86_400_000

// MaxDateMs bounds a timeline date: 100 billion days (about 273 million years) either side of
// 1970, room for a world's geology. Within ±(2^53−1) ms (about 283,458 BCE to 287,396 CE) a
// date may fall on any millisecond; further out it must be a whole day, a multiple of DayMs,
// which every JSON reader, JavaScript's doubles included, still holds exactly.
const MaxDateMs = 100_000_000_000 * DayMs

// dateMs reads a timeline date (see MaxDateMs).
func dateMs(field string, n jsonNumber) (int64, error) {
	v, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		// 1e3, 5.0 and the like: whole numbers written otherwise, within the safe range.
		if v, err = integer(field, n); err != nil {
			return 0, fieldError(field, "%q must be a whole number of milliseconds from -%d to %d, got %s", field, int64(MaxDateMs), int64(MaxDateMs), Echo(string(n)))
		}
	}
	switch {
	case v > MaxDateMs || v < -MaxDateMs:
		return 0, fieldError(field, "%q must lie within %d ms (100 billion days, about 273 million years) of 1970, got %s", field, int64(MaxDateMs), Echo(string(n)))
	case (v > maxSafeInteger || v < -maxSafeInteger) && v%DayMs != 0:
		return 0, fieldError(field, "%q beyond ±(2^53−1) ms (before 283,458 BCE or after 287,396 CE) must be a whole day, a multiple of 86400000, so that every client reads it exactly; got %s", field, Echo(string(n)))
	}
	return v, nil
}

// number reads a finite JSON number.
func number(field string, n jsonNumber) (float64, error) {
	f, err := json.Number(n).Float64()
	if err != nil {
		return 0, fieldError(field, "%q must be a finite number", field)
	}
	return f, nil
}

// text checks a string's length in characters (runes) against [min, max].
func text(field, s string, min, max int) error {
	n := utf8.RuneCountInString(s)
	if n < min {
		if min == 1 {
			return fieldError(field, "%q is required and must not be empty", field)
		}
		return fieldError(field, "%q must be at least %d characters", field, min)
	}
	if n > max {
		return fieldError(field, "%q must be at most %d characters (got %d)", field, max, n)
	}
	return nil
}

// UnsafeRune reports whether r may not appear in a name or label: control characters (NUL,
// ESC, line breaks, ...), which a terminal or a log acts on, and the bidirectional overrides
// and isolates, which make text display in another order than it is stored in.
func UnsafeRune(r rune) bool {
	return unicode.IsControl(r) || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

// UnsafeRuneIn returns the first UnsafeRune of s and whether there is one.
func UnsafeRuneIn(s string) (rune, bool) {
	for _, r := range s {
		if UnsafeRune(r) {
			return r, true
		}
	}
	return 0, false
}

// label checks a one-line text (a name, label, title or key) as text does, and that it holds
// no UnsafeRune. Ops re-applied as they were stored (replay) are not checked again.
func (c *opCtx) label(field, s string, min, max int) error {
	if err := text(field, s, min, max); err != nil {
		return err
	}
	if r, bad := UnsafeRuneIn(s); bad && !c.replay {
		if r == '\n' { // normalizeNewlines may have made it of a carriage return
			if w, ok := stringAt(c.written, field); ok {
				if wr, bad := UnsafeRuneIn(w); bad {
					r = wr
				}
			}
		}
		return fieldError(field, "%q must not contain control or bidirectional formatting characters (found U+%04X)", field, r)
	}
	return nil
}

// required reports a missing parameter.
func required(op, field string) error {
	return fieldError(field, "%s needs %q", op, field)
}

// notFound reports an "id" parameter that names no item of the document.
func notFound(kind, id string) error {
	return notFoundBy(kind, "id", id)
}

// notFoundBy reports a parameter (field) whose value names no item of the document; the
// value goes into Details["id"] whatever the field is called (a property's key, say).
func notFoundBy(kind, field, id string) error {
	return &Error{
		Code:    CodeNotFoundInDocument,
		Message: fmt.Sprintf("no %s with %s %q in this document", kind, field, Echo(id)),
		Field:   field,
		Details: map[string]any{"id": Echo(id)},
	}
}

// tooMany reports a collection that is full.
func tooMany(field, kind string, max int) error {
	return fieldError(field, "the document already has the maximum of %d %s; remove some first", max, kind)
}

// atLeastOne reports an update op that sets nothing.
func atLeastOne(op string, fields ...string) error {
	return fieldError("op", "%s needs at least one of %s", op, strings.Join(fields, ", "))
}

// requiredID reads the "id" parameter that names an existing item.
func requiredID(op string, id *string) (string, error) {
	if id == nil {
		return "", required(op, "id")
	}
	if *id == "" {
		return "", fieldError("id", "%q must not be empty", "id")
	}
	return *id, nil
}
