package pb_migrations_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apptest"
)

// An op log written before 1763800005 gets each row's running total on upgrade (per
// document and era), and writes after it go on counting from there.
func TestOpLogTotalsAreFilledOnUpgrade(t *testing.T) {
	dir := t.TempDir()
	s := apptest.StartIn(t, dir)
	u := s.NewUser("Ada")
	w := s.World(u, "Upgrade")
	card := s.Document(u, w, "Lamp", "card")
	other := s.Document(u, w, "Door", "card")
	write := func(s *apptest.Server, d string, i int) {
		body := map[string]any{"ops": []map[string]any{{"op": "card.setProperty", "key": "k", "value": fmt.Sprint(i)}}}
		s.Must(s.Post(u.Key, "/api/v1/worlds/"+w+"/documents/"+d+"/content", body), http.StatusOK)
	}
	for i, d := range []string{card, other, card, card} {
		write(s, d, i)
	}
	s.Stop()

	pb := core.NewBaseApp(core.BaseAppConfig{DataDir: dir})
	if err := pb.Bootstrap(); err != nil {
		t.Fatal(err)
	}
	// Revert the newest migrations down to and including 1763800005.
	runner := core.NewMigrationsRunner(pb, core.AppMigrations)
	for undone := false; !undone; {
		reverted, err := runner.Down(1)
		if err != nil || len(reverted) != 1 {
			t.Fatalf("revert: %v %v", reverted, err)
		}
		undone = reverted[0] == "1763800005_op_log_totals.go"
	}
	if _, err := pb.DB().NewQuery("SELECT total FROM document_ops").Execute(); err == nil {
		t.Fatal("the reverted op log still has a total column")
	}
	if err := pb.ResetBootstrapState(); err != nil {
		t.Fatal(err)
	}

	s = apptest.StartIn(t, dir)
	write(s, card, 4)
	var rows []struct {
		Document string `db:"document"`
		Total    int64  `db:"total"`
		Size     int64  `db:"size"`
	}
	if err := s.PB.DB().NewQuery("SELECT document, total, octet_length(ops) AS size FROM document_ops ORDER BY document, era, version").All(&rows); err != nil {
		t.Fatal(err)
	}
	running := map[string]int64{}
	for i, r := range rows {
		running[r.Document] += r.Size
		if r.Total != running[r.Document] {
			t.Fatalf("row %d of %s: total %d, want the running sum %d", i, r.Document, r.Total, running[r.Document])
		}
	}
	if len(rows) != 5 {
		t.Fatalf("%d op log rows, want 5", len(rows))
	}
}
