package main

import (
	"fmt"
	"os"
	"os/exec"
)

// measureImport: `loreweave import` of the export scenario's archive (n documents) into an
// empty data dir, as a restore, run as a child process of the built binary like the export,
// so that its peak RSS is the import's alone. The baseline is the export of the same world:
// reading everything back and writing it all (states with their text and links, op log, one
// transaction) against reading it and writing a zip.
func (b *bench) measureImport(bin, archive, work string, n int, export childRun) error {
	dir, err := os.MkdirTemp(work, "import-")
	if err != nil {
		return err
	}
	const email = "importer@example.test"
	create := exec.Command(bin, "users", "create", "--dir", dir, "--email", email, "--password", "a long bench password", "--name", "Importer")
	if out, err := create.CombinedOutput(); err != nil {
		return fmt.Errorf("loreweave users create: %w\n%s", err, out)
	}
	ours, err := measureChild(exec.Command(bin, "import", archive, "--owner", email, "--dir", dir))
	if err != nil {
		return fmt.Errorf("loreweave import: %w\n%s", err, ours.output)
	}
	r := valueRow(fmt.Sprintf("import %d-doc world: documents/s", n), float64(n)/ours.wall.Seconds(), "docs/s", "loreweave export of the same world", float64(n)/export.wall.Seconds())
	r.Note = fmt.Sprintf("import (restore into an empty data dir) %.1f s: every checksum and reference checked, then one transaction rebuilding each state's text and links; export %.1f s",
		ours.wall.Seconds(), export.wall.Seconds())
	b.add(r)
	r = valueRow(fmt.Sprintf("import %d-doc world: peak RSS", n), ours.maxRSS/1024, "MiB", "loreweave export peak RSS", export.maxRSS/1024)
	r.Note = "ru_maxrss of the import's own process (the built binary: PocketBase bootstrap included); it keeps each document's metadata and the zip's directory in memory, never the documents' content"
	b.add(r)
	return nil
}
