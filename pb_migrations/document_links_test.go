package pb_migrations_test

import (
	"net/http"
	"testing"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apptest"
)

// Text written before links existed that holds [[…]] gets its backlinks on upgrade.
func TestDocumentLinksAreFilledOnUpgrade(t *testing.T) {
	dir := t.TempDir()
	s := apptest.StartIn(t, dir)
	u := s.NewUser("Ada")
	w := s.World(u, "Upgrade")
	vharn := s.Document(u, w, "Vharn", "card")
	ossa := s.Document(u, w, "Ossa", "folder")
	s.Must(s.Post(u.Key, "/api/v1/worlds/"+w+"/documents/"+ossa+"/content", map[string]any{"ops": []map[string]any{
		{"op": "folder.setDescription", "description": "Home of [[doc:" + vharn + "]]."}}}), http.StatusOK)
	s.Stop()

	pb := core.NewBaseApp(core.BaseAppConfig{DataDir: dir})
	if err := pb.Bootstrap(); err != nil {
		t.Fatal(err)
	}
	runner := core.NewMigrationsRunner(pb, core.AppMigrations)
	for undone := false; !undone; {
		reverted, err := runner.Down(1)
		if err != nil || len(reverted) != 1 {
			t.Fatalf("revert: %v %v", reverted, err)
		}
		undone = reverted[0] == "1763800020_document_links.go"
	}
	if err := pb.ResetBootstrapState(); err != nil {
		t.Fatal(err)
	}

	s = apptest.StartIn(t, dir)
	var links struct {
		Incoming struct {
			Items []struct{ DocumentID, Context string }
		}
	}
	s.Must(s.Get(u.Key, "/api/v1/worlds/"+w+"/documents/"+vharn+"/links"), http.StatusOK).JSON(t, &links)
	if len(links.Incoming.Items) != 1 || links.Incoming.Items[0].DocumentID != ossa || links.Incoming.Items[0].Context != "Home of Vharn." {
		t.Fatalf("backlinks after the upgrade: %+v", links.Incoming)
	}
}
