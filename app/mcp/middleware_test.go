package mcp

import (
	"context"
	"io"
	"log/slog"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A panicking handler becomes an error answer; the goroutine (and the server) live on.
func TestRecoverPanics(t *testing.T) {
	h := recoverPanics(slog.New(slog.NewTextHandler(io.Discard, nil)))(func(context.Context, string, sdk.Request) (sdk.Result, error) {
		var s []int
		_ = s[3] // index out of range
		return nil, nil
	})
	res, err := h(context.Background(), "tools/call", nil)
	if err == nil || res != nil {
		t.Fatalf("got %v, %v; want an error", res, err)
	}
}
