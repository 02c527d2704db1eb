package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/store"
)

func exportCmd(app core.App) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "export WORLD --out FILE",
		Short: "Write a world's archive (a zip: docs/ARCHIVE.md) to FILE; WORLD is its id or slug",
		Long: "Write a world's archive to FILE: everything of the world (documents, their history, eras, projects, tools, assets, members), " +
			"the format `loreweave import` reads and the one to keep as a backup. It can run while the server runs: it reads the world as it is at one moment.",
		Args:         cobra.ArbitraryArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("usage: %s", c.UseLine())
			}
			if err := required(c, "out"); err != nil {
				return err
			}
			if err := ready(app); err != nil {
				return err
			}
			return exportWorld(c.Context(), store.New(app), args[0], out, c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "the archive file to write (required)")
	return cmd
}

// exportWorld writes the archive to file.tmp and renames it file once whole: a failed export
// leaves no half archive behind, and an older archive at file stays until the new one is
// complete.
func exportWorld(ctx context.Context, s *store.Store, world, file string, out, errOut io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	w, err := s.World(world)
	if errors.Is(err, apierr.ErrNotFound) {
		w, err = s.WorldBySlug(world)
	}
	if errors.Is(err, apierr.ErrNotFound) {
		return fmt.Errorf("no world with id or slug %q", world)
	} else if err != nil {
		return err
	}
	tmp := file + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	buf := bufio.NewWriterSize(f, 256<<10)
	bar := newProgressBar(errOut)
	m, err := s.ExportWorld(ctx, w.ID, buf, bar.show)
	bar.end()
	if err != nil {
		return userError(err)
	}
	if err := buf.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, file); err != nil {
		return err
	}
	ok = true
	size := int64(0)
	if st, err := os.Stat(file); err == nil {
		size = st.Size()
	}
	n := m.Counts
	fmt.Fprintf(out, "exported %s (%s) to %s, %s: %d documents (%d states, %d ops, %d snapshots), %d eras, %d projects, %d tools, %d assets, %d members\n",
		terminalSafe(w.Name), w.ID, file, byteSize(size), n.Documents, n.States, n.Ops, n.Snapshots, n.Eras, n.Projects, n.Tools, n.Assets, n.Members)
	return nil
}

// progressBar draws documents done of total on a terminal, at most ten times a second; it
// draws nothing elsewhere (the final line says what was done).
type progressBar struct {
	out  io.Writer
	tty  bool
	last time.Time
	drew bool
}

func newProgressBar(out io.Writer) *progressBar { return &progressBar{out: out, tty: isTerminal(out)} }

func (p *progressBar) show(done, total int) {
	if !p.tty || (done < total && time.Since(p.last) < 100*time.Millisecond) {
		return
	}
	p.last, p.drew = time.Now(), true
	const width = 30
	filled := width
	if total > 0 {
		filled = min(width, done*width/total)
	}
	fmt.Fprintf(p.out, "\rexporting [%s%s] %d/%d documents", strings.Repeat("=", filled), strings.Repeat(" ", width-filled), done, total)
}

func (p *progressBar) end() {
	if p.drew {
		fmt.Fprintln(p.out)
	}
}

// byteSize is a size for people: 1.2 MB.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
