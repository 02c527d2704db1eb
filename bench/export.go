package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/ops"
)

// runExport: `loreweave export` of a 100,000-document world (cards and timelines, each with
// a state, an op-log entry, and links between cards), run as a child process of the built
// binary so that its peak RSS (getrusage's ru_maxrss) is the export's alone. The baseline
// is a plain `sqlite3 .dump` of the same database file in the same run: the cost of reading
// everything once and writing it as text, with no zip, no checksums and no per-document
// files.
func (b *bench) runExport() error {
	n := 100_000
	if b.quick {
		n = 5_000
	}
	t, err := b.newTarget()
	if err != nil {
		return err
	}
	defer t.close()
	world, err := t.world("Archive world")
	if err != nil {
		return err
	}
	start := time.Now()
	if err := insertArchiveWorld(t.srv.PB, world, n); err != nil {
		return err
	}
	logf("export: %d documents inserted in %s", n, time.Since(start).Round(time.Millisecond))

	work, err := os.MkdirTemp("", "lwbench-export-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bin := filepath.Join(work, "loreweave")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build loreweave: %w", err)
	}

	archive := filepath.Join(work, "world.zip")
	ours, err := measureChild(exec.Command(bin, "export", world, "--out", archive, "--dir", t.srv.Dir))
	if err != nil {
		return fmt.Errorf("loreweave export: %w\n%s", err, ours.output)
	}
	zipSize := fileSize(archive)

	dump := filepath.Join(work, "dump.sql")
	base, err := measureChild(exec.Command("sh", "-c", `sqlite3 "$1" .dump > "$2"`, "sh", filepath.Join(t.srv.Dir, "data.db"), dump))
	if err != nil {
		return fmt.Errorf("sqlite3 .dump (apt-get install sqlite3): %w\n%s", err, base.output)
	}
	dumpSize := fileSize(dump)

	const mib = 1 << 20
	docRate := float64(n) / ours.wall.Seconds()
	r := valueRow(fmt.Sprintf("export %d-doc world: documents/s", n), docRate, "docs/s", "sqlite3 .dump of the same database", float64(n)/base.wall.Seconds())
	r.Note = fmt.Sprintf("export %.1f s writing a %.1f MiB zip (%.1f MiB/s); .dump %.1f s writing %.1f MiB of SQL (%.1f MiB/s), the whole database with no compression or checksums",
		ours.wall.Seconds(), float64(zipSize)/mib, float64(zipSize)/mib/ours.wall.Seconds(), base.wall.Seconds(), float64(dumpSize)/mib, float64(dumpSize)/mib/base.wall.Seconds())
	b.add(r)
	r = valueRow(fmt.Sprintf("export %d-doc world: peak RSS", n), ours.maxRSS/1024, "MiB", "sqlite3 .dump peak RSS", base.maxRSS/1024)
	r.Note = "ru_maxrss of the export's own process (the built binary: PocketBase bootstrap included); streamed, so it does not grow with the archive"
	b.add(r)
	return nil
}

// childRun is what a measured child process took.
type childRun struct {
	wall   time.Duration
	maxRSS float64 // KiB
	output string
}

// measureChild runs cmd to the end and reads its wall time and peak RSS.
func measureChild(cmd *exec.Cmd) (childRun, error) {
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	run := childRun{wall: time.Since(start), output: out.String()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		run.maxRSS = float64(ru.Maxrss) // KiB on Linux
	}
	logf("  %s: %s, peak RSS %.0f MiB", filepath.Base(cmd.Args[0]), run.wall.Round(time.Millisecond), run.maxRSS/1024)
	return run, err
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// insertArchiveWorld inserts n documents into worldID in one transaction: every fourth a
// timeline of five events, the others cards with three sections whose text links the
// previous card; each with its main-line state and one op-log entry, as one write would
// have left them. No outbox rows: nothing in the running server needs to see them.
func insertArchiveWorld(pb core.App, worldID string, n int) error {
	t := time.Now().UTC().Format("2006-01-02 15:04:05.000Z")
	return pb.RunInTransaction(func(tx core.App) error {
		db := tx.DB()
		insDoc := db.NewQuery(`INSERT INTO documents (id, world, name, documentType, parent, era, created, updated)
			VALUES ({:id}, {:world}, {:name}, {:type}, '', '', {:t}, {:t})`).Prepare()
		defer insDoc.Close()
		insState := db.NewQuery(`INSERT INTO document_states (id, document, era, data, text, version, forkedVersion, deleted, updated)
			VALUES ({:id}, {:doc}, '', {:data}, {:text}, 1, 0, FALSE, {:t})`).Prepare()
		defer insState.Close()
		insOp := db.NewQuery(`INSERT INTO document_ops (document, era, version, ops, actor, credential, created)
			VALUES ({:doc}, '', 1, {:ops}, 'bench', 'cli', {:t})`).Prepare()
		defer insOp.Close()
		prev := ""
		for i := range n {
			id := core.GenerateDefaultRandomId()
			name, typ, data, text, opsJSON := archiveDoc(i, prev)
			if typ == "card" {
				prev = id
			}
			if _, err := insDoc.Bind(dbx.Params{"id": id, "world": worldID, "name": name, "type": typ, "t": t}).Execute(); err != nil {
				return fmt.Errorf("insert document: %w", err)
			}
			if _, err := insState.Bind(dbx.Params{"id": core.GenerateDefaultRandomId(), "doc": id, "data": data, "text": text, "t": t}).Execute(); err != nil {
				return fmt.Errorf("insert state: %w", err)
			}
			if _, err := insOp.Bind(dbx.Params{"doc": id, "ops": opsJSON, "t": t}).Execute(); err != nil {
				return fmt.Errorf("insert op: %w", err)
			}
		}
		return nil
	})
}

// archiveDoc is the i-th document of the export world.
func archiveDoc(i int, prevCard string) (name, typ, data, text, opsJSON string) {
	if i%4 == 3 {
		name = fmt.Sprintf("Chronicle %d", i)
		tl := &ops.Timeline{}
		for e := range 5 {
			tl.Events = append(tl.Events, ops.Event{ID: fmt.Sprintf("evt-%08d-%d", i, e), Label: fmt.Sprintf("The %d-th turning of age %d", e+1, i),
				DateMs: int64(i*5+e) * 86_400_000, Description: "Harvests failed and the river changed its course; the council met at the ford.", Precision: "day"})
		}
		return name, "timeline", string(tl.JSON()), tl.Text(name), string(mustJSON([]any{map[string]any{"op": "timeline.addEvent", "label": tl.Events[0].Label, "dateMs": tl.Events[0].DateMs}}))
	}
	name = fmt.Sprintf("Place %d", i)
	link := "the old road"
	if prevCard != "" {
		link = ops.LinkMarkup(prevCard, "")
	}
	c := &ops.Card{Aliases: []string{fmt.Sprintf("P%d", i)}, Properties: []ops.Property{{Key: "Population", Value: fmt.Sprint(1000 + i)}}, Sections: []ops.Section{
		{ID: fmt.Sprintf("sec-%08d-a", i), Title: "Overview", Body: "A market town of stone houses along the river, known for its bridges and its bells."},
		{ID: fmt.Sprintf("sec-%08d-b", i), Title: "History", Body: "Founded after the long winter by settlers from the coast; reached by " + link + "."},
		{ID: fmt.Sprintf("sec-%08d-c", i), Title: "People", Body: "Fishers, weavers and a guild of lamp-makers who keep the night watch."},
	}}
	return name, "card", string(c.JSON()), c.Text(name), string(mustJSON([]any{map[string]any{"op": "card.addSection", "title": "Overview", "body": c.Sections[0].Body}}))
}
