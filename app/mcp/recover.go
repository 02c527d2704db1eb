package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
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
