// Package apierr is Loreweave's one error model: a stable snake_case code, a sentence a person
// can act on, an HTTP status and optional details. The REST API, the web pages and the MCP
// tools all speak it; Write is the only place an error becomes an HTTP response.
package apierr

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/loreweave/loreweave/ops"
)

// Error is an error a client caused or may act on.
type Error struct {
	Status  int
	Code    string
	Message string
	// Details are extra members of the error object ("field", "opIndex", "supported", ...).
	Details map[string]any
	// Header holds response headers the error needs (WWW-Authenticate, Retry-After).
	Header http.Header
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// New returns an error with the given status, code and message.
func New(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// With returns e with one more detail member.
func (e *Error) With(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

// Field returns a 422 invalid_field error naming the field at fault.
func Field(field, format string, args ...any) *Error {
	return New(http.StatusUnprocessableEntity, "invalid_field", format, args...).With("field", field)
}

// NotFound is the 404 for anything the caller may not see or that does not exist; the two
// are deliberately indistinguishable.
func NotFound(what string) *Error {
	return New(http.StatusNotFound, "not_found", "%s not found", what)
}

// NothingToChange is the 400 for a change (a PATCH) whose body names nothing to change;
// fields are the members it may send.
func NothingToChange(fields ...string) *Error {
	quoted := make([]string, len(fields))
	for i, f := range fields {
		quoted[i] = strconv.Quote(f)
	}
	list := quoted[len(quoted)-1]
	if len(quoted) > 1 {
		list = strings.Join(quoted[:len(quoted)-1], ", ") + " and/or " + list
	}
	return New(http.StatusBadRequest, "nothing_to_change", "send %s to change", list).With("fields", fields)
}

// Forbidden is the 403 for a member whose role does not allow the action.
func Forbidden(format string, args ...any) *Error {
	return New(http.StatusForbidden, "forbidden", format, args...)
}

// Unauthenticated is the 401 for a missing, malformed, unknown or revoked credential.
func Unauthenticated(format string, args ...any) *Error {
	e := New(http.StatusUnauthorized, "unauthenticated", format, args...)
	e.Header = http.Header{"WWW-Authenticate": {`Bearer realm="loreweave"`}}
	return e
}

// ErrNotFound is returned by lower layers for a missing record; Write maps it to 404.
var ErrNotFound = errors.New("not found")

// From turns any error into an *Error: coded errors pass through, rejected operations become
// 422 with their details, ErrNotFound becomes 404, anything else an opaque 500.
func From(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var oe *ops.Error
	if errors.As(err, &oe) {
		out := New(http.StatusUnprocessableEntity, oe.Code, "%s", oe.Message).With("opIndex", oe.OpIndex)
		path := fmt.Sprintf("ops[%d]", oe.OpIndex)
		if oe.Field != "" {
			out.With("field", oe.Field)
		}
		if oe.Field != "" {
			if !strings.HasPrefix(oe.Field, "[") {
				path += "."
			}
			path += oe.Field
		}
		// path is where the bad value is in the request body ({"ops": [...]}).
		out.With("path", path)
		for k, v := range oe.Details {
			out.With(k, v)
		}
		return out
	}
	if errors.Is(err, ErrNotFound) {
		return NotFound("resource")
	}
	return &Error{Status: http.StatusInternalServerError, Code: "internal", Message: "something went wrong on our side; the request was not applied"}
}

// Body is the JSON error object: {"error": {"code", "message", ...details}}.
func (e *Error) Body() map[string]any {
	obj := make(map[string]any, len(e.Details)+2)
	for k, v := range e.Details {
		obj[k] = v
	}
	obj["code"] = e.Code
	obj["message"] = e.Message
	return map[string]any{"error": obj}
}

// Write writes err as a JSON error response. Internal errors are logged with the request
// path (never with credentials) and answered with an opaque message.
func Write(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	e := From(err)
	if e.Status >= 500 && log != nil {
		log.Error("request failed", "method", r.Method, "path", r.URL.Path, "error", err.Error())
	}
	for k, vs := range e.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(e.Body())
}
