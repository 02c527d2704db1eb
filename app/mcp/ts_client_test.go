package mcp_test

import (
	"bufio"
	"encoding/json"
	"io"
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
	dir2 := t.TempDir()
	s := apptest.StartIn(t, dir2)
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
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The client says when to restart the server; it is told when it is back.
	var out strings.Builder
	scanner := bufio.NewScanner(stdout)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		out.WriteString(scanner.Text() + "\n")
		if scanner.Text() == "RESTART" {
			s.Stop()
			s = apptest.StartIn(t, dir2, apptest.WithBaseURL(s.URL))
			io.WriteString(stdin, "go\n")
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node client: %v\n%s%s", err, out.String(), stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var got struct {
		Tools   []string
		IsError bool
		Result  struct {
			Version int
			Created []struct{ Label string }
		}
		Whoami       struct{ ID, Credential string }
		TokenPrefix  string
		AfterRestart struct {
			IsError bool
			Result  struct{ Version int }
		}
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("node output: %v\n%s", err, out.String())
	}
	if strings.Join(got.Tools, " ") != allTools || got.IsError || got.Result.Version != 1 || got.Result.Created[0].Label != "Written from TypeScript" ||
		got.Whoami.ID != ann.ID || got.Whoami.Credential != "oauth" || got.TokenPrefix != "lw_at_" {
		t.Fatalf("round trip: %+v\n%s", got, out.String())
	}
	if got.AfterRestart.IsError || got.AfterRestart.Result.Version != 2 {
		t.Fatalf("after the restart: %+v\n%s", got.AfterRestart, out.String())
	}
	var read struct{ Content struct{ Text string } }
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w+"/documents/"+tl), 200).JSON(t, &read)
	if read.Content.Text != "History Written from TypeScript After the restart" {
		t.Fatalf("rest read %+v", read)
	}
}
