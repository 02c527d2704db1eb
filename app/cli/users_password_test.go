package cli_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/cli"
)

// runCLI runs a loreweave command against the test server's data with stdin, and returns
// its output and error.
func runCLI(s *apptest.Server, stdin string, args ...string) (string, error) {
	root := &cobra.Command{Use: "loreweave", SilenceErrors: true}
	cli.Register(root, s.PB)
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// TestUsersPassword: `loreweave users password EMAIL` reads the password from stdin (never
// from an argument), refuses a short one and an unknown email, and signs out the user's
// sessions in the running server.
func TestUsersPassword(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	b := s.SignIn(ann)
	home := func() int { return s.Do(apptest.Request{Method: "GET", Path: "/", Client: b}).Status }

	for _, c := range []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"password as an argument", "", []string{"users", "password", ann.Email, "new password"}, "never from an argument"},
		{"no email", "", []string{"users", "password"}, "usage"},
		{"unknown email", "a new password\n", []string{"users", "password", "nobody@example.test"}, `no user with email "nobody@example.test"`},
		{"empty stdin", "", []string{"users", "password", ann.Email}, "no password on stdin"},
		{"short password", "short\n", []string{"users", "password", ann.Email}, "at least 8 characters"},
	} {
		if _, err := runCLI(s, c.stdin, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if home() != http.StatusOK {
		t.Fatal("a refused command signed the user out")
	}

	out, err := runCLI(s, "a new password\nignored\n", "users", "password", strings.ToUpper(ann.Email))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "password of "+ann.Email+" changed") || strings.Contains(out, "a new password") {
		t.Fatalf("output %q", out)
	}
	if home() != http.StatusSeeOther {
		t.Fatal("the user's session survived the new password")
	}
	ann.Password = "a new password"
	s.SignIn(ann)
}

// TestUsersCreatePassword: `loreweave users create` without --password reads the password
// from stdin (a terminal would be asked twice without echo), refuses an empty or short one
// and creates nothing then; the account it creates signs in with that password.
func TestUsersCreatePassword(t *testing.T) {
	s := apptest.Start(t)
	for _, c := range []struct{ name, stdin, want string }{
		{"empty stdin", "", "no password on stdin"},
		{"short password", "short\n", "at least 8 characters"},
	} {
		if _, err := runCLI(s, c.stdin, "users", "create", "--email", "bea@example.test"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := runCLI(s, "", "users", "create", "--password", "long enough pw"); err == nil || !strings.Contains(err.Error(), "--email is required") {
		t.Fatalf("no email: error %v", err)
	}
	out, err := runCLI(s, "a piped password\nignored\n", "users", "create", "--email", "bea@example.test", "--name", "Bea")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "created user") || strings.Contains(out, "a piped password") {
		t.Fatalf("output %q", out)
	}
	s.SignIn(apptest.User{Email: "bea@example.test", Password: "a piped password"})
}
