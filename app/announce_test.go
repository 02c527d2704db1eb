package app_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/cli"
	"github.com/loreweave/loreweave/app/config"
)

// TestAnnouncement: the first start points to the sign-up page, or, with sign-up closed, to
// the command that creates an account; once an account exists it says nothing.
func TestAnnouncement(t *testing.T) {
	open := apptest.Start(t)
	if msg := open.LW.Announcement(); !strings.Contains(msg, open.URL+"/signup") {
		t.Fatalf("open: %q", msg)
	}
	open.NewUser("Ann")
	if msg := open.LW.Announcement(); msg != "" {
		t.Fatalf("with an account: %q", msg)
	}

	closed := apptest.Start(t, apptest.WithSignup("closed"))
	msg := closed.LW.Announcement()
	if strings.Contains(msg, "/signup") || !strings.Contains(msg, "loreweave users create") || !strings.Contains(msg, closed.Dir) {
		t.Fatalf("closed: %q", msg)
	}
}

// TestUsersCreateWithSignupClosed: closing sign-up leaves the operator's command working,
// given the setting as a flag the way main.go reads it, and the account signs in.
func TestUsersCreateWithSignupClosed(t *testing.T) {
	dir := t.TempDir()
	pb := core.NewBaseApp(core.BaseAppConfig{DataDir: dir})
	if err := pb.Bootstrap(); err != nil {
		t.Fatal(err)
	}
	root := &cobra.Command{Use: "loreweave", SilenceErrors: true}
	flags := config.Bind(root.PersistentFlags())
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		_, err := flags.Load()
		return err
	}
	cli.Register(root, pb)
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"users", "create", "--signup", "closed", "--email", "ann@example.test", "--password", "correct horse battery", "--name", "Ann"})
	if err := root.Execute(); err != nil || !strings.Contains(out.String(), "created user") {
		t.Fatalf("users create: %v %q", err, out.String())
	}
	if err := pb.ResetBootstrapState(); err != nil {
		t.Fatal(err)
	}

	s := apptest.StartIn(t, dir, apptest.WithSignup("closed"))
	s.SignIn(apptest.User{Email: "ann@example.test", Password: "correct horse battery"})
}
