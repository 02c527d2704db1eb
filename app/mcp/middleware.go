package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
)

// recoverPanics turns a panic in a request's handler into an error answer. The SDK runs
// each request on a goroutine of its own, outside net/http's and PocketBase's recovery, so
// without this one bad request would end the whole server.
func recoverPanics(log *slog.Logger) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (res sdk.Result, err error) {
			defer func() {
				if r := recover(); r != nil {
					log.Error("mcp: panic in a request", "method", method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
					res, err = nil, fmt.Errorf("internal error: the server failed to answer %s", method)
				}
			}()
			return next(ctx, method, req)
		}
	}
}

// uniformToolErrors gives every failed tool call the JSON error object of the REST API. The
// tools' own failures already carry it (toolError); this catches the ones the SDK makes
// before a tool runs, when the arguments do not match the tool's input schema (a missing
// property, a number too large for its field), which it reports as plain text.
func uniformToolErrors(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		r, ok := res.(*sdk.CallToolResult)
		if err != nil || !ok || !r.IsError || len(r.Content) != 1 {
			return res, err
		}
		tc, ok := r.Content[0].(*sdk.TextContent)
		if !ok || strings.HasPrefix(tc.Text, `{"error":`) {
			return res, err
		}
		msg := goField.ReplaceAllString(tc.Text, "argument $1")
		e := apierr.New(http.StatusUnprocessableEntity, "invalid_field", "the arguments do not match the tool's input schema: %s", msg)
		r.Content = []sdk.Content{&sdk.TextContent{Text: toolError{e}.Error()}}
		return r, nil
	}
}

// goField matches how encoding/json names a Go struct field in its errors
// ("Go struct field mcp.PageIn.page of type int"), which says nothing to a client.
var goField = regexp.MustCompile(`Go struct field [\w.]*\.(\w+) of type [\w.\[\]*]+`)

// readOnlyGrants refuses a read-only grant (OAuth scope "read") every tool that is not a
// read: the tools named get_*, list_*, search and whoami, which say so with readOnlyHint
// (TestToolsWithAPIKey holds the names and the hints together).
func readOnlyGrants(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		params, ok := req.GetParams().(*sdk.CallToolParamsRaw)
		p, err := principal(req)
		if !ok || err != nil || !p.ReadOnly || isReadTool(params.Name) {
			return next(ctx, method, req)
		}
		var res sdk.CallToolResult
		res.SetError(toolError{auth.ErrReadOnly()})
		return &res, nil
	}
}

// isReadTool reports whether a tool only reads.
func isReadTool(name string) bool {
	return strings.HasPrefix(name, "get_") || strings.HasPrefix(name, "list_") || name == "search" || name == "whoami"
}
