package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// Request limits of the HTTP contract.
const (
	MaxBody    = 1 << 20 // bytes
	MaxOps     = 500     // operations per request
	MaxNesting = 32      // JSON nesting levels
	MaxPerPage = 100
	DefPerPage = 50
)

// handle adapts a handler that returns errors to PocketBase, writing every error in the one
// JSON error shape.
func handle(fn func(e *core.RequestEvent) error) func(e *core.RequestEvent) error {
	return func(e *core.RequestEvent) error {
		if err := fn(e); err != nil {
			apierr.Write(e.Response, e.Request, e.App.Logger(), err)
		}
		return nil
	}
}

// decode reads a JSON request body into dst: it must be application/json (415), at most
// MaxBody bytes (413), well-formed (400), nested at most MaxNesting levels (422) and a JSON
// object whose members dst knows, with the right types (422 invalid_field).
func decode(e *core.RequestEvent, dst any) error {
	mt, _, err := mime.ParseMediaType(e.Request.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return apierr.New(http.StatusUnsupportedMediaType, "unsupported_media_type", "send the body as JSON with the header Content-Type: application/json")
	}
	data, err := io.ReadAll(http.MaxBytesReader(e.Response, e.Request.Body, MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return apierr.New(http.StatusRequestEntityTooLarge, "body_too_large", "the request body is larger than %d bytes (1 MiB); split the work into smaller requests", MaxBody).With("limit", MaxBody)
		}
		return apierr.New(http.StatusBadRequest, "malformed_json", "the request body could not be read")
	}
	// Depth first: Go's JSON parser gives up past 10,000 levels and would call such a body
	// malformed.
	if depth(data) > MaxNesting {
		return apierr.New(http.StatusUnprocessableEntity, "nesting_too_deep", "the JSON body is nested more than %d levels deep", MaxNesting).With("limit", MaxNesting)
	}
	if !json.Valid(data) {
		return apierr.New(http.StatusBadRequest, "malformed_json", "the request body is not valid JSON")
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return apierr.New(http.StatusUnprocessableEntity, "invalid_field", "the request body must be a JSON object").With("field", "")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return apierr.Field(typeErr.Field, "%q must be %s", typeErr.Field, kind(typeErr.Type.Kind().String()))
		}
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			f = strings.Trim(f, `"`)
			return apierr.Field(f, "unknown field %q", f)
		}
		return apierr.New(http.StatusBadRequest, "malformed_json", "the request body is not valid JSON")
	}
	return nil
}

func kind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	case "bool":
		return "a boolean"
	}
	return "a number"
}

// depth returns the deepest nesting of arrays and objects (brackets outside strings).
func depth(data []byte) int {
	max, cur := 0, 0
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString:
			if escaped {
				escaped = false
			} else if c == '\\' {
				escaped = true
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			cur++
			if cur > max {
				max = cur
			}
		case c == '}' || c == ']':
			cur--
		}
	}
	return max
}

// required returns a required member's value, or the error for a body that lacks it. What
// the value may be is the store's to check, so that every surface (API, web, MCP) applies the
// same rules.
func required(field string, v *string) (string, error) {
	if v == nil {
		return "", apierr.Field(field, "%q is required", field)
	}
	return *v, nil
}

// page reads ?page= and ?perPage=.
func page(e *core.RequestEvent) (store.Page, error) {
	p := store.Page{Page: 1, PerPage: DefPerPage}
	q := e.Request.URL.Query()
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return p, apierr.Field("page", "page must be a whole number from 1")
		}
		p.Page = n
	}
	if v := q.Get("perPage"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxPerPage {
			return p, apierr.Field("perPage", "perPage must be a whole number from 1 to %d", MaxPerPage)
		}
		p.PerPage = n
	}
	return p, nil
}

// List is the shape of every list response.
type List[T any] struct {
	Items      []T `json:"items"`
	Page       int `json:"page"`
	PerPage    int `json:"perPage"`
	TotalItems int `json:"totalItems"`
}

func list[T any](items []T, p store.Page, total int) List[T] {
	if items == nil {
		items = []T{}
	}
	return List[T]{Items: items, Page: p.Page, PerPage: p.PerPage, TotalItems: total}
}

// apiTime turns a PocketBase date column into RFC 3339 ("" stays "").
func apiTime(s string) string {
	return strings.Replace(s, " ", "T", 1)
}

// deref returns the string a pointer holds, or "".
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// worldList answers a list of a world's records: any member may read it, on any plan.
func worldList[T, J any](a *API, e *core.RequestEvent, fetch func(worldID string, p store.Page) ([]T, int, error), view func(T) J) error {
	w, _, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), auth.ReadMeta)
	if err != nil {
		return err
	}
	pg, err := page(e)
	if err != nil {
		return err
	}
	rows, total, err := fetch(w.ID, pg)
	if err != nil {
		return err
	}
	items := make([]J, len(rows))
	for i, r := range rows {
		items[i] = view(r)
	}
	return e.JSON(http.StatusOK, list(items, pg, total))
}
