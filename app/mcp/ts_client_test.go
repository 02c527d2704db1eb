package mcp_test

import (
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestTypeScriptClient runs a headless round trip with the official TypeScript SDK client
// (testdata/tsclient, installed by .ci/run with npm ci). Outside CI it skips when the
// client is not installed; in CI it must run.
func TestTypeScriptClient(t *testing.T) {
	dir, _ := filepath.Abs("testdata/tsclient")
	node, err := exec.LookPath("node")
	if _, statErr := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil || statErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the TypeScript client is not installed (node: %v, sdk: %v): run npm ci in %s", err, statErr, dir)
		}
		t.Skip("TypeScript client not installed: run `npm ci` in app/mcp/testdata/tsclient")
	}
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	browser := s.SignIn(ann)
	u, _ := url.Parse(s.URL)
	var cookies []string
	for _, c := range browser.Jar.Cookies(u) {
		cookies = append(cookies, c.Name+"="+c.Value)
	}

	cmd := exec.Command(node, "client.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LW_URL="+s.URL, "LW_COOKIE="+strings.Join(cookies, "; "), "LW_WORLD="+w, "LW_DOCUMENT="+tl)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var got struct {
		Tools   []string
		IsError bool
		Result  struct {
			Version int
			Created []struct{ Label string }
		}
		Whoami      struct{ ID, Credential string }
		TokenPrefix string
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("node output: %v\n%s", err, out)
	}
	if strings.Join(got.Tools, " ") != allTools || got.IsError || got.Result.Version != 1 || got.Result.Created[0].Label != "Written from TypeScript" ||
		got.Whoami.ID != ann.ID || got.Whoami.Credential != "oauth" || got.TokenPrefix != "lw_at_" {
		t.Fatalf("round trip: %+v\n%s", got, out)
	}
	var read struct{ Content struct{ Text string } }
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w+"/documents/"+tl), 200).JSON(t, &read)
	if read.Content.Text != "History Written from TypeScript" {
		t.Fatalf("rest read %+v", read)
	}
}
