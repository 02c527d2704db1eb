package store_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/store"
)

// TestToolInstalledByAnotherProcess checks that a tool the command line installs on the data
// dir of a running server (another process, another Store) is seen by the server within
// the outbox's poll, and so is its uninstall: the server's cache of the world's tools
// forgets them on the outbox rows.
func TestToolInstalledByAnotherProcess(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	types := func() string {
		res := s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w+"/types"), http.StatusOK)
		return string(res.Body)
	}
	if strings.Contains(types(), `"quest"`) {
		t.Fatal("quest before any install")
	}

	pb := core.NewBaseApp(core.BaseAppConfig{DataDir: s.Dir})
	if err := pb.Bootstrap(); err != nil {
		t.Fatal(err)
	}
	defer pb.ResetBootstrapState()
	cli := store.New(pb)
	if _, _, err := cli.InstallTool(w, []byte(apptest.QuestTool), store.Actor{Credential: "cli"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return strings.Contains(types(), `"quest"`) })
	s.Document(ann, w, "Find the grail", "quest")

	if err := cli.UninstallTool(w, "quests", store.Actor{Credential: "cli"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return !strings.Contains(types(), `"quest"`) })
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("not seen after 5s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
