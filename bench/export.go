package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/ops"
)

// runExport: `loreweave export` of a 100,000-document world (cards and timelines, each with
// a state, an op-log entry, and links between cards), run as a child process of the built
// binary so that its peak RSS (its VmHWM) is the export's alone. The baseline
// is a plain `sqlite3 .dump` of the same database file in the same run: the cost of reading
// everything once and writing it as text, with no zip, no checksums and no per-document
// files.
func (b *bench) runExport() error {
	n := 100_000
	if b.quick {
		n = 5_000
	}
	if b.archiveDocs > 0 {
		n = b.archiveDocs
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
	dumpFile, err := os.Create(dump)
	if err != nil {
		return err
	}
	dumpCmd := exec.Command("sqlite3", filepath.Join(t.srv.Dir, "data.db"), ".dump")
	dumpCmd.Stdout = dumpFile
	base, err := measureChild(dumpCmd)
	dumpFile.Close()
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
	r.Note = "VmHWM of the export's own process (the built binary: PocketBase bootstrap included); streamed, so it does not grow with the archive"
	b.add(r)

	// The same archive imported as a copy beside the original, next to sqlite3 loading the
	// dump into an empty database.
	imp, err := measureChild(exec.Command(bin, "import", archive, "--mode", "copy", "--owner", "bench@bench.test", "--dir", t.srv.Dir))
	if err != nil {
		return fmt.Errorf("loreweave import: %w\n%s", err, imp.output)
	}
	loadCmd := exec.Command("sqlite3", filepath.Join(work, "loaded.db"))
	if loadCmd.Stdin, err = os.Open(dump); err != nil {
		return err
	}
	load, err := measureChild(loadCmd)
	loadCmd.Stdin.(*os.File).Close()
	if err != nil {
		return fmt.Errorf("sqlite3 < dump: %w\n%s", err, load.output)
	}
	r = valueRow(fmt.Sprintf("import %d-doc archive (copy): documents/s", n), float64(n)/imp.wall.Seconds(), "docs/s", "sqlite3 loading the .dump into an empty database", float64(n)/load.wall.Seconds())
	r.Note = fmt.Sprintf("import %.1f s (%.1f MiB/s of archive): every checksum and reference checked, then one transaction; sqlite3 %.1f s", imp.wall.Seconds(), float64(zipSize)/mib/imp.wall.Seconds(), load.wall.Seconds())
	b.add(r)
	r = valueRow(fmt.Sprintf("import %d-doc archive: peak RSS", n), imp.maxRSS/1024, "MiB", "sqlite3 loading the .dump: peak RSS", load.maxRSS/1024)
	r.Note = "VmHWM of the import's own process (the built binary)"
	b.add(r)
	return nil
}

// childRun is what a measured child process took.
type childRun struct {
	wall   time.Duration
	maxRSS float64 // KiB
	output string
}

// measureChild runs cmd to the end and reads its wall time and peak RSS. The peak is the
// child's VmHWM in /proc, read every 10 ms until it exits: getrusage's ru_maxrss would count
// this process's own peak too, since Go starts a child with vfork and Linux carries the
// high-water mark across exec.
func measureChild(cmd *exec.Cmd) (childRun, error) {
	var out strings.Builder
	if cmd.Stdout == nil {
		cmd.Stdout = &out
	}
	cmd.Stderr = &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return childRun{}, err
	}
	done := make(chan struct{})
	peak := make(chan float64)
	go func() {
		var hwm float64
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			if v, err := statusKiB(status, "VmHWM"); err == nil {
				hwm = max(hwm, v)
			}
			select {
			case <-done:
				peak <- hwm
				return
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	run := childRun{wall: time.Since(start), maxRSS: <-peak, output: out.String()}
	logf("  %s: %s, peak RSS %.0f MiB", filepath.Base(cmd.Args[0]), run.wall.Round(time.Millisecond), run.maxRSS/1024)
	return run, err
}

// statusKiB reads a field of a /proc/PID/status file in KiB.
func statusKiB(path, field string) (float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
		}
	}
	return 0, fmt.Errorf("no %s in %s", field, path)
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
	return pb.RunInTransaction(func(tx core.App) error {
		// A thousand at a time: the scenario measures memory, and 100,000 documents held at
		// once would be the bench's, not the export's.
		prev := ""
		for from := 0; from < n; from += 1000 {
			docs := make([]seedDoc, 0, min(1000, n-from))
			for i := from; i < min(from+1000, n); i++ {
				d := archiveDoc(i, prev)
				if d.ID = core.GenerateDefaultRandomId(); d.Type == "card" {
					prev = d.ID
				}
				docs = append(docs, d)
			}
			if _, err := insertSeedDocs(tx.DB(), worldID, docs, false); err != nil {
				return err
			}
		}
		return nil
	})
}

// archiveDoc is the i-th document of the export world.
func archiveDoc(i int, prevCard string) seedDoc {
	if i%4 == 3 {
		name := fmt.Sprintf("Chronicle %d", i)
		tl := &ops.Timeline{}
		for e := range 5 {
			tl.Events = append(tl.Events, ops.Event{ID: fmt.Sprintf("evt-%08d-%d", i, e), Label: fmt.Sprintf("The %d-th turning of age %d", e+1, i),
				DateMs: int64(i*5+e) * 86_400_000, Description: "Harvests failed and the river changed its course; the council met at the ford.", Precision: "day"})
		}
		return seedDoc{Name: name, Type: "timeline", Data: string(tl.JSON()), Text: tl.Text(name),
			Ops: string(mustJSON([]any{map[string]any{"op": "timeline.addEvent", "label": tl.Events[0].Label, "dateMs": tl.Events[0].DateMs}}))}
	}
	name := fmt.Sprintf("Place %d", i)
	link := "the old road"
	if prevCard != "" {
		link = ops.LinkMarkup(prevCard, "")
	}
	c := &ops.Card{Aliases: []string{fmt.Sprintf("P%d", i)}, Properties: []ops.Property{{Key: "Population", Value: fmt.Sprint(1000 + i)}}, Sections: []ops.Section{
		{ID: fmt.Sprintf("sec-%08d-a", i), Title: "Overview", Body: "A market town of stone houses along the river, known for its bridges and its bells."},
		{ID: fmt.Sprintf("sec-%08d-b", i), Title: "History", Body: "Founded after the long winter by settlers from the coast; reached by " + link + "."},
		{ID: fmt.Sprintf("sec-%08d-c", i), Title: "People", Body: "Fishers, weavers and a guild of lamp-makers who keep the night watch."},
	}}
	return seedDoc{Name: name, Type: "card", Data: string(c.JSON()), Text: c.Text(name),
		Ops: string(mustJSON([]any{map[string]any{"op": "card.addSection", "title": "Overview", "body": c.Sections[0].Body}}))}
}
