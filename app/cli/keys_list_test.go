package cli_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/cli"
)

// TestKeysListEscapesControlCharacters: a key name stored before names refused control
// characters is listed with them escaped, so it cannot drive the operator's terminal.
func TestKeysListEscapesControlCharacters(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	evil := "deploy\x1b]0;owned\x07\x1b[2J\u202eyek"
	if _, err := s.PB.DB().NewQuery("UPDATE api_keys SET name = {:name}").Bind(map[string]any{"name": evil}).Execute(); err != nil {
		t.Fatal(err)
	}
	root := &cobra.Command{Use: "loreweave"}
	cli.Register(root, s.PB)
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"keys", "list", "--email", ann.Email})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.ContainsAny(got, "\x1b\x07\u202e") || !strings.Contains(got, `deploy\x1b]0;owned\x07\x1b[2J\u202eyek`) {
		t.Fatalf("keys list wrote %q", got)
	}
}
