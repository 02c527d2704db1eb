// Package cli adds Loreweave's management commands to the PocketBase command line: users,
// API keys, world plans, the search index and tools. They write the database directly (honouring
// --dir) with an outbox row for each change; a running server reads the outbox at least every
// store.OutboxPoll (a quarter of a second) and forgets what it had cached, so a revoked key or
// a changed plan applies to it within that time.
package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"text/tabwriter"

	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/config"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

// Register adds the commands to root. app must be bootstrapped before a command runs
// (PocketBase does that).
func Register(root *cobra.Command, app core.App) {
	root.AddCommand(usersCmd(app), keysCmd(app), worldsCmd(app), searchCmd(app), toolsCmd(app))
	root.AddCommand(exportCmd(app), importCmd(app))
}

var failed atomic.Bool

// Failed reports whether a command failed. PocketBase ignores the error a command returns,
// so main turns this into the exit status.
func Failed() bool { return failed.Load() }

// Guard records the failure of c and of every command under it, in their run and in their
// persistent pre-run (where the configuration is read), for Failed. Call it once every
// command is added.
func Guard(c *cobra.Command) {
	for _, f := range []*func(*cobra.Command, []string) error{&c.RunE, &c.PersistentPreRunE} {
		if run := *f; run != nil {
			*f = func(cmd *cobra.Command, args []string) error {
				err := run(cmd, args)
				if err != nil {
					failed.Store(true)
				}
				return err
			}
		}
	}
	for _, sub := range c.Commands() {
		Guard(sub)
	}
}

// Fail records a failure found outside any command (an unknown command, say).
func Fail() { failed.Store(true) }

// ready applies pending migrations so the commands work on a fresh data directory (to create
// the first accounts before the first start, say). On a directory that held no Loreweave data
// it says so on stderr: run from the wrong directory without --dir, a command would otherwise
// seem to work on an instance the server never sees.
func ready(app core.App) error {
	var n int
	fresh := app.DB().NewQuery("SELECT COUNT(*) FROM _migrations WHERE file LIKE '%loreweave_init.go'").Row(&n) != nil || n == 0
	if err := app.RunAllMigrations(); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if fresh {
		fmt.Fprintf(os.Stderr, "note: %s held no Loreweave data; a new instance was set up there (pass --dir to use an existing one)\n", app.DataDir())
	}
	return nil
}

// userError turns coded errors into a plain sentence for the terminal.
func userError(err error) error {
	if e, ok := err.(*apierr.Error); ok {
		return fmt.Errorf("%s", e.Message)
	}
	return err
}

func usersCmd(app core.App) *cobra.Command {
	cmd := &cobra.Command{Use: "users", Short: "Manage user accounts"}
	var email, password, name string
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a user account",
		Long: "Creates an account. Without --password (which the shell's history and the process list show), the password\n" +
			"is asked for twice without echo on a terminal, or else read from the first line of stdin:\n" +
			"  printf '%s\\n' \"$PASSWORD\" | loreweave users create --email ann@example.com --name Ann",
		SilenceUsage: true,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := required(c, "email"); err != nil {
				return err
			}
			if err := ready(app); err != nil {
				return err
			}
			if password == "" {
				var err error
				if password, err = readNewPassword(c.InOrStdin(), c.ErrOrStderr(), email); err != nil {
					return err
				}
			}
			u, err := auth.CreateUser(app, email, password, name)
			if err != nil {
				return userError(err)
			}
			fmt.Fprintf(c.OutOrStdout(), "created user %s (%s)\n", u.Id, u.Email())
			return nil
		},
	}
	create.Flags().StringVar(&email, "email", "", "email address (required)")
	create.Flags().StringVar(&password, "password", "", "password, at least 8 characters (asked for, or read from stdin, when not given)")
	create.Flags().StringVar(&name, "name", "", "display name")
	cmd.AddCommand(create, usersPasswordCmd(app))
	return cmd
}

func keysCmd(app core.App) *cobra.Command {
	cmd := &cobra.Command{Use: "keys", Short: "Manage API keys"}
	keys := auth.NewKeys(app)

	var email, name string
	create := &cobra.Command{
		Use:          "create",
		Short:        "Create an API key for a user; prints only the key",
		SilenceUsage: true,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := required(c, "email", "name"); err != nil {
				return err
			}
			if err := ready(app); err != nil {
				return err
			}
			u, err := auth.FindUserByEmail(app, email)
			if err != nil {
				return fmt.Errorf("no user with email %q", email)
			}
			secret, _, err := keys.Create(u.Id, name)
			if err != nil {
				return userError(err)
			}
			fmt.Fprintln(c.OutOrStdout(), secret)
			return nil
		},
	}
	create.Flags().StringVar(&email, "email", "", "the key's user (required)")
	create.Flags().StringVar(&name, "name", "", "a name for the key (required)")

	var listEmail string
	list := &cobra.Command{
		Use:          "list",
		Short:        "List a user's API keys",
		SilenceUsage: true,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := required(c, "email"); err != nil {
				return err
			}
			if err := ready(app); err != nil {
				return err
			}
			u, err := auth.FindUserByEmail(app, listEmail)
			if err != nil {
				return fmt.Errorf("no user with email %q", listEmail)
			}
			ks, err := keys.List(u.Id)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(c.OutOrStdout(), 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tPREFIX\tCREATED\tLAST USED\tREVOKED")
			for _, k := range ks {
				fmt.Fprintf(tw, "%s\t%s\t%s…\t%s\t%s\t%s\n", k.ID, terminalSafe(k.Name), k.Prefix, k.Created, dash(k.LastUsedAt), dash(k.RevokedAt))
			}
			return tw.Flush()
		},
	}
	list.Flags().StringVar(&listEmail, "email", "", "the user (required)")

	revoke := &cobra.Command{
		Use:          "revoke KEY_ID",
		Short:        "Revoke an API key at once",
		Args:         cobra.ArbitraryArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("usage: %s", c.UseLine())
			}
			if err := ready(app); err != nil {
				return err
			}
			if err := keys.Revoke("", args[0]); err != nil {
				return fmt.Errorf("no active key with id %q", args[0])
			}
			fmt.Fprintf(c.OutOrStdout(), "revoked key %s\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(create, list, revoke)
	return cmd
}

func worldsCmd(app core.App) *cobra.Command {
	cmd := &cobra.Command{Use: "worlds", Short: "Manage worlds"}
	plan := &cobra.Command{
		Use:          "plan WORLD_ID free|pro|studio",
		Short:        "Set a world's plan",
		Args:         cobra.ArbitraryArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) != 2 {
				return fmt.Errorf("usage: %s", c.UseLine())
			}
			if err := ready(app); err != nil {
				return err
			}
			if !slices.Contains(config.Plans, args[1]) {
				return fmt.Errorf("plan must be one of %s", strings.Join(config.Plans, ", "))
			}
			if err := store.New(app).SetPlan(args[0], args[1]); errors.Is(err, apierr.ErrNotFound) {
				return fmt.Errorf("no world with id %q", args[0])
			} else if err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "world %s is now on %s\n", args[0], args[1])
			return nil
		},
	}
	cmd.AddCommand(plan)
	return cmd
}

// required checks flags here rather than with cobra's MarkFlagRequired: cobra reports those
// before RunE, where guard cannot see the failure.
func required(c *cobra.Command, names ...string) error {
	for _, n := range names {
		if f := c.Flags().Lookup(n); f == nil || f.Value.String() == "" {
			return fmt.Errorf("--%s is required (usage: %s)", n, c.UseLine())
		}
	}
	return nil
}

// terminalSafe writes the control and bidirectional formatting characters of s as escapes
// (\x1b, \u202e): a name stored before names refused them must not drive the terminal
// it is listed on, nor reorder the columns around it.
func terminalSafe(s string) string {
	if _, bad := ops.UnsafeRuneIn(s); !bad {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !ops.UnsafeRune(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
