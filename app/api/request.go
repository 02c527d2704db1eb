package api

import (
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
	MaxBody    = apierr.MaxBody    // bytes
	MaxOps     = store.MaxOps      // operations per request
	MaxNesting = apierr.MaxNesting // JSON nesting levels
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

// decode reads a JSON request body into dst, with the limits of the HTTP contract
// (apierr.DecodeJSON).
func decode(e *core.RequestEvent, dst any) error {
	return apierr.DecodeJSON(e.Response, e.Request, dst)
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
	_, l, err := worldPage(a, e, fetch, view)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, l)
}

// worldPage reads the page of a world's records that the request asks for, and the world's
// id, checking that the caller is a member.
func worldPage[T, J any](a *API, e *core.RequestEvent, fetch func(worldID string, p store.Page) ([]T, int, error), view func(T) J) (string, List[J], error) {
	w, _, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), auth.ReadMeta)
	if err != nil {
		return "", List[J]{}, err
	}
	pg, err := page(e)
	if err != nil {
		return "", List[J]{}, err
	}
	rows, total, err := fetch(w.ID, pg)
	if err != nil {
		return "", List[J]{}, err
	}
	items := make([]J, len(rows))
	for i, r := range rows {
		items[i] = view(r)
	}
	return w.ID, list(items, pg, total), nil
}
