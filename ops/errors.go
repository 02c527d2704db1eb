package ops

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
	Field   string
	Details map[string]any
}

func (e *Error) Error() string {
	return fmt.Sprintf("op %d: %s: %s", e.OpIndex, e.Code, e.Message)
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
	dec := json.NewDecoder(bytes.NewReader(c.raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typeErr):
			field := typeErr.Field
			if field == "" {
				field = "op"
			}
			return fieldError(field, "%s: %q must be %s, not %s", c.name, field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return fieldError(field, "%s has no parameter %q", c.name, field)
		default:
			return fieldError("op", "%s: parameters are not valid JSON: %v", c.name, err)
		}
	}
	return nil
}

func jsonKind(goKind string) string {
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

// integer reads a JSON number that must be a whole number with |n| <= 2^53-1.
func integer(field string, n json.Number) (int64, error) {
	f, err := n.Float64()
	if err != nil {
		return 0, fieldError(field, "%q must be a number", field)
	}
	if f != float64(int64(f)) || f > maxSafeInteger || f < -maxSafeInteger {
		return 0, fieldError(field, "%q must be a whole number between -(2^53-1) and 2^53-1, got %s", field, n.String())
	}
	return int64(f), nil
}

// number reads a finite JSON number.
func number(field string, n json.Number) (float64, error) {
	f, err := n.Float64()
	if err != nil {
		return 0, fieldError(field, "%q must be a finite number", field)
	}
	return f, nil
}

// text checks a string's length in characters (runes) against [min, max].
func text(field, s string, min, max int) error {
	n := len([]rune(s))
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

// required reports a missing parameter.
func required(op, field string) error {
	return fieldError(field, "%s needs %q", op, field)
}

func notFound(kind, id string) error {
	return &Error{
		Code:    CodeNotFoundInDocument,
		Message: fmt.Sprintf("no %s with id %q in this document", kind, id),
		Field:   "id",
		Details: map[string]any{"id": id},
	}
}
