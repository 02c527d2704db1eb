package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// `loreweave import` restores an exported archive into another data dir, copies it beside
// the original, refuses a second restore, and lists what is wrong with a bad archive.
func TestImportCommand(t *testing.T) {
	s := apptest.Start(t)
	r := s.RichWorld("Brinewood")
	file := filepath.Join(t.TempDir(), "brinewood.zip")
	mustRun(t, s.PB, "export", r.ID, "--out", file)

	s2 := apptest.Start(t)
	owner := s2.NewUser(r.Owner.Name)
	s2.NewUser(r.Admin.Name)
	out := mustRun(t, s2.PB, "import", file, "--owner", strings.ToUpper(owner.Email))
	if !strings.Contains(out, "imported Brinewood ("+r.ID+", slug ") || !strings.Contains(out, "as a restore owned by") || !strings.Contains(out, ": 7 documents (9 states") {
		t.Fatalf("import said %q", out)
	}
	if !strings.Contains(out, "members added: "+r.Admin.Email) || !strings.Contains(out, "members invited (no account here has their email yet): "+r.Editor.Email) {
		t.Fatalf("import said %q about members", out)
	}
	if n := s2.Count("invitations", "world = '"+r.ID+"' AND email = '"+r.Editor.Email+"' AND role = 'editor'"); n != 1 {
		t.Fatalf("%d invitations of the editor, who has no account here", n)
	}
	if n := s2.Count("documents", "world = '"+r.ID+"'"); n != 7 {
		t.Fatalf("%d documents restored", n)
	}
	if _, _, err := run(t, s2.PB, "import", file, "--owner", owner.Email); err == nil || !strings.Contains(err.Error(), "already has the world "+r.ID) {
		t.Fatalf("a second restore: %v", err)
	}
	// A world in the trash still holds its ids: the refusal says where it is.
	if err := s2.LW.Store.TrashWorld(r.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, s2.PB, "import", file, "--owner", owner.Email); err == nil || !strings.Contains(err.Error(), "in its trash: its owner can restore it from there") {
		t.Fatalf("a restore over a trashed world: %v", err)
	}
	out = mustRun(t, s2.PB, "import", file, "--owner", owner.Email, "--mode", "copy")
	if !strings.Contains(out, "as a copy") || strings.Contains(out, "("+r.ID+",") {
		t.Fatalf("copy said %q", out)
	}

	data, _ := os.ReadFile(file)
	bad := filepath.Join(t.TempDir(), "bad.zip")
	os.WriteFile(bad, data[:len(data)-100], 0o600)
	out, _, err := run(t, s2.PB, "import", bad, "--owner", owner.Email)
	if err == nil || !strings.Contains(out, "is not a valid world archive; nothing was imported:") {
		t.Fatalf("a truncated archive: %v, %q", err, out)
	}
	if _, _, err := run(t, s2.PB, "import", file, "--owner", "nobody@example.test"); err == nil || !strings.Contains(err.Error(), "no account with the email") {
		t.Fatalf("an unknown owner: %v", err)
	}
	if _, _, err := run(t, s2.PB, "import", file, "--owner", owner.Email, "--mode", "merge"); err == nil || !strings.Contains(err.Error(), "--mode must be") {
		t.Fatalf("a bad mode: %v", err)
	}
}
