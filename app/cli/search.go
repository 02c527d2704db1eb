package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"

	"github.com/loreweave/loreweave/app/search"
	"github.com/loreweave/loreweave/app/store"
)

func searchCmd(app core.App) *cobra.Command {
	cmd := &cobra.Command{Use: "search", Short: "Manage the search index"}
	reindex := &cobra.Command{
		Use:          "reindex",
		Short:        "Rebuild the search index from the database (stop the server first)",
		SilenceUsage: true,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := ready(app); err != nil {
				return err
			}
			return rebuild(app, c.OutOrStdout())
		},
	}
	cmd.AddCommand(reindex)
	return cmd
}

// rebuild recreates the index from scratch. A running server holds the index's lock, so
// the command stops at once with a clear message instead of waiting.
func rebuild(app core.App, out io.Writer) error {
	path := filepath.Join(app.DataDir(), "search.bleve")
	idx, err := search.Open(path)
	if errors.Is(err, search.ErrLocked) {
		return fmt.Errorf("the server is running and holds the search index: stop it and run this again (a running server also repairs the index itself when it starts)")
	}
	// Whatever else is wrong with the old index (an older mapping, damage), it is rebuilt from
	// scratch.
	if idx != nil {
		_ = idx.Close()
	}
	if err := search.Remove(path); err != nil {
		return err
	}
	if idx, err = search.Open(path); err != nil {
		return err
	}
	defer idx.Close()

	s := store.New(app)
	total, err := app.CountRecords("documents")
	if err != nil {
		return err
	}
	head, err := s.OutboxHead()
	if err != nil {
		return err
	}
	tty := isTerminal(out)
	progress := func(done int) {
		if tty {
			fmt.Fprintf(out, "\r%s", bar(done, int(total)))
		}
	}
	if _, err := idx.Reconcile(context.Background(), s, head, progress); err != nil {
		return err
	}
	idx.WaitCompacted()
	n, _ := idx.DocCount()
	if tty {
		fmt.Fprintln(out)
	}
	fmt.Fprintf(out, "search index rebuilt: %d documents, %d entries\n", total, n)
	return nil
}

func bar(done, total int) string {
	const width = 30
	if total <= 0 {
		total = 1
	}
	filled := min(width, done*width/total)
	return fmt.Sprintf("reindexing [%s%s] %d/%d", strings.Repeat("=", filled), strings.Repeat(" ", width-filled), done, total)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
