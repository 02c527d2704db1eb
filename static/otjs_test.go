package static

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestOTJS runs ot_test.mjs with Node: the browser's port of the text transformation
// (js/ot.js) against the vectors shared with ops/ot.go (ops/testdata/ot_vectors.json), its
// randomized properties, and its CodeMirror conversions. Without node it skips locally, but
// fails when CI is set: the port must not drift from the server unnoticed.
func TestOTJS(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("node not found (%v): ot_test.mjs not run; CI runs it", err)
		}
		t.Fatalf("node not found (%v), and CI is set: ot_test.mjs must run in CI, so install Node.js 20 or later", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "ot_test.mjs").CombinedOutput()
	if err != nil {
		t.Fatalf("node ot_test.mjs: %v\n%s", err, out)
	}
	t.Logf("node ot_test.mjs: %s", out)
}
