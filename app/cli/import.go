package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/config"
	"github.com/loreweave/loreweave/app/store"
)

func importCmd(app core.App) *cobra.Command {
	var mode, owner string
	cmd := &cobra.Command{
		Use:   "import FILE --owner EMAIL [--mode restore|copy]",
		Short: "Make a world of an archive (as `loreweave export` writes it), owned by the account EMAIL",
		Long: "Make a world of an archive. --mode restore (the default) keeps every id: restore a backup, move a world from another server; " +
			"it is refused if this server has the world. --mode copy gives everything new ids: a copy beside the original, a template. " +
			"The whole archive is checked before anything is written, and written in one transaction: a bad archive changes nothing and every problem is listed. " +
			"It can run while the server runs.",
		Args:         cobra.ArbitraryArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("usage: %s", c.UseLine())
			}
			if err := required(c, "owner"); err != nil {
				return err
			}
			if mode != string(store.ImportRestore) && mode != string(store.ImportCopy) {
				return fmt.Errorf("--mode must be restore or copy")
			}
			plan, err := defaultPlan(c)
			if err != nil {
				return err
			}
			if err := ready(app); err != nil {
				return err
			}
			s := store.New(app)
			s.DefaultPlan = plan
			return importWorld(c.Context(), s, args[0], store.ImportMode(mode), owner, c.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&mode, "mode", string(store.ImportRestore), "restore (keep the archive's ids) or copy (new ids)")
	cmd.Flags().StringVar(&owner, "owner", "", "email of the account that will own the world (required)")
	return cmd
}

// defaultPlan is the plan new worlds get, as the server reads it: --default-plan, then
// LOREWEAVE_DEFAULT_PLAN, then the default.
func defaultPlan(c *cobra.Command) (string, error) {
	plan := config.Default().DefaultPlan
	if v := os.Getenv("LOREWEAVE_DEFAULT_PLAN"); v != "" {
		plan = v
	}
	if f := c.Flag("default-plan"); f != nil && f.Value.String() != "" {
		plan = f.Value.String()
	}
	if !slices.Contains(config.Plans, plan) {
		return "", fmt.Errorf("the default plan %q is not one of %s", plan, strings.Join(config.Plans, ", "))
	}
	return plan, nil
}

func importWorld(ctx context.Context, s *store.Store, file string, mode store.ImportMode, email string, out io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	var user struct {
		ID string `db:"id"`
	}
	if err := s.App().DB().NewQuery("SELECT id FROM users WHERE email = {:email} COLLATE NOCASE").Bind(dbx.Params{"email": email}).One(&user); err != nil {
		return fmt.Errorf("no account with the email %q (create it with `loreweave users create`)", email)
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	res, err := s.ImportWorld(ctx, f, info.Size(), mode, user.ID)
	var e *apierr.Error
	if errors.As(err, &e) {
		if problems, ok := e.Details["problems"].([]store.ArchiveProblem); ok {
			fmt.Fprintf(out, "%s is not a valid world archive; nothing was imported:\n", file)
			for _, p := range problems {
				where := p.Path
				if where == "" {
					where = "(the archive)"
				}
				fmt.Fprintf(out, "  %s: %s\n", terminalSafe(where), terminalSafe(p.Message))
			}
			if total, _ := e.Details["total"].(int); total > len(problems) {
				fmt.Fprintf(out, "  ... and %d more\n", total-len(problems))
			}
		}
		return userError(err)
	}
	if err != nil {
		return err
	}
	w, c := res.World, res.Counts
	fmt.Fprintf(out, "imported %s (%s, slug %s) as a %s owned by %s: %d documents (%d states, %d ops, %d snapshots), %d eras, %d projects, %d tools, %d assets\n",
		terminalSafe(w.Name), w.ID, w.Slug, mode, email, c.Documents, c.States, c.Ops, c.Snapshots, c.Eras, c.Projects, c.Tools, c.Assets)
	if len(res.MembersAdded) > 0 {
		fmt.Fprintf(out, "members added: %s\n", strings.Join(res.MembersAdded, ", "))
	}
	if len(res.MembersInvited) > 0 {
		fmt.Fprintf(out, "members invited (no account here has their email yet): %s\n", strings.Join(res.MembersInvited, ", "))
	}
	if len(res.MembersSkipped) > 0 {
		fmt.Fprintf(out, "members skipped: %s\n", strings.Join(res.MembersSkipped, ", "))
	}
	return nil
}
