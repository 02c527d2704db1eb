package pb_migrations_test

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apptest"
)

// An instance made before 1763800003 keeps its op log through the upgrade, and afterwards
// deleting a document by any route (here the admin dashboard's record delete) takes its
// op log with it.
func TestOpLogBecomesAPlainTableAndKeepsItsRows(t *testing.T) {
	dir := t.TempDir()
	s := apptest.StartIn(t, dir)
	u := s.NewUser("Ada")
	w := s.World(u, "Upgrade")
	card := s.Document(u, w, "Lamp", "card")
	other := s.Document(u, w, "Door", "card")
	for i, d := range []string{card, card, card, other} {
		body := map[string]any{"ops": []map[string]any{{"op": "card.setProperty", "key": "k", "value": fmt.Sprint(i)}}}
		s.Must(s.Post(u.Key, "/api/v1/worlds/"+w+"/documents/"+d+"/content", body), http.StatusOK)
	}
	logPath := "/api/v1/worlds/" + w + "/documents/" + card + "/ops"
	before := s.Must(s.Get(u.Key, logPath), http.StatusOK).Body
	s.Stop()

	// Put the database back as the older version left it.
	pb := core.NewBaseApp(core.BaseAppConfig{DataDir: dir})
	if err := pb.Bootstrap(); err != nil {
		t.Fatal(err)
	}
	// Revert the newest migrations down to and including 1763800003.
	runner := core.NewMigrationsRunner(pb, core.AppMigrations)
	for undone := false; !undone; {
		reverted, err := runner.Down(1)
		if err != nil || len(reverted) != 1 {
			t.Fatalf("revert: %v %v", reverted, err)
		}
		undone = reverted[0] == "1763800003_op_log_table.go"
	}
	if _, err := pb.FindCollectionByNameOrId("document_ops"); err != nil {
		t.Fatalf("the reverted op log is no collection: %v", err)
	}
	var ids []string
	if err := pb.DB().NewQuery("SELECT id FROM document_ops").Column(&ids); err != nil || len(ids) != 4 {
		t.Fatalf("reverted op log: %v rows, %v", len(ids), err)
	}
	if len(ids[0]) != 15 {
		t.Fatalf("reverted op log id %q: want PocketBase's 15 characters", ids[0])
	}
	if err := pb.ResetBootstrapState(); err != nil {
		t.Fatal(err)
	}

	s = apptest.StartIn(t, dir)
	if _, err := s.PB.FindCollectionByNameOrId("document_ops"); err == nil {
		t.Fatal("document_ops is still a collection after the upgrade")
	}
	after := s.Must(s.Get(u.Key, logPath), http.StatusOK).Body
	if !bytes.Equal(before, after) {
		t.Fatalf("op log changed in the upgrade:\nbefore %s\nafter  %s", before, after)
	}
	body := map[string]any{"ops": []map[string]any{{"op": "card.setProperty", "key": "k", "value": "after"}}}
	s.Must(s.Post(u.Key, "/api/v1/worlds/"+w+"/documents/"+card+"/content", body), http.StatusOK)
	if n := s.Count("document_ops", "document = '"+card+"'"); n != 4 {
		t.Fatalf("op log of the card after one more write: %d rows, want 4", n)
	}

	rec, err := s.PB.FindRecordById("documents", card)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PB.Delete(rec); err != nil {
		t.Fatal(err)
	}
	if n := s.Count("document_ops", "document = '"+card+"'"); n != 0 {
		t.Fatalf("deleting the document record left %d op log rows", n)
	}
	if n := s.Count("document_ops", "document = '"+other+"'"); n != 1 {
		t.Fatalf("the other document's op log: %d rows, want 1", n)
	}
}
