package cli_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/ops"
)

// The whole path of a tool, as its builder takes it: `tools init` and `tools test` on the
// builder's machine, `tools install --url --key` on a running server, a document of the new
// type created and changed by every declared op over the API (each seen on the document's
// event stream, its text in search), `tools uninstall` (the document reads "stored", ops are
// refused, search still finds it) and installing again (live, writable).
func TestToolsEndToEnd(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Saltmarsh")
	base := "/api/v1/worlds/" + w
	remote := []string{"--world", w, "--url", s.URL, "--key", ann.Key}

	dir := filepath.Join(t.TempDir(), "factions")
	mustRun(t, nil, "tools", "init", dir)
	if out := mustRun(t, nil, "tools", "test", dir); !strings.Contains(out, "all ") {
		t.Fatalf("tools test: %s", out)
	}
	out := mustRun(t, nil, append([]string{"tools", "install", dir}, remote...)...)
	if !strings.Contains(out, "installed factions 1.0.0 in world "+w) || !strings.Contains(out, "types faction") {
		t.Fatalf("tools install said %q", out)
	}
	if out := mustRun(t, nil, append([]string{"tools", "list"}, remote...)...); !strings.Contains(out, "factions") || !strings.Contains(out, "faction-roster") {
		t.Fatalf("tools list said %q", out)
	}

	leader := s.Document(ann, w, "Lady Maren", "card")
	seat := s.Document(ann, w, "Saltkeep", "card")
	vell := s.Document(ann, w, "House Vell", "faction")
	gull := s.Document(ann, w, "House Gull", "faction")
	doc := base + "/documents/" + gull
	st := s.Stream(ann.Key, doc+"/events")
	defer st.Close()
	st.Expect(t, "snapshot")

	version := 0
	applied := map[string]bool{}
	// apply sends one op, checks that the watcher sees it as the next version, and returns
	// the ids it created.
	apply := func(op map[string]any) []string {
		t.Helper()
		var r struct {
			Version int
			Created []ops.Created
		}
		s.Must(s.Post(ann.Key, doc+"/content", map[string]any{"ops": []any{op}}), http.StatusOK).JSON(t, &r)
		version++
		if r.Version != version {
			t.Fatalf("%s: version %d, want %d", op["op"], r.Version, version)
		}
		ev := st.Expect(t, "ops")
		var got struct {
			Version int
			Ops     []struct{ Op string }
		}
		if err := json.Unmarshal([]byte(ev.Data), &got); err != nil {
			t.Fatal(err)
		}
		if got.Version != version || len(got.Ops) != 1 || got.Ops[0].Op != op["op"] {
			t.Fatalf("the watcher saw %s, want %s at version %d", ev.Data, op["op"], version)
		}
		applied[op["op"].(string)] = true
		ids := make([]string, len(r.Created))
		for i, c := range r.Created {
			ids[i] = c.ID
		}
		return ids
	}
	for _, op := range []map[string]any{
		{"op": "faction.setMotto", "motto": "The tide remembers"},
		{"op": "faction.setCategory", "category": "house"},
		{"op": "faction.setAlignment", "alignment": "lawful"},
		{"op": "faction.setStatus", "status": "rising"},
		{"op": "faction.setLeader", "leader": leader},
		{"op": "faction.setSeat", "seat": seat},
		{"op": "faction.setFounded", "founded": "412 AR"},
		{"op": "faction.setMembers", "members": 340},
		{"op": "faction.setMilitary", "military": 4},
		{"op": "faction.setWealth", "wealth": 8},
		{"op": "faction.setInfluence", "influence": 7},
		{"op": "faction.setSecrecy", "secrecy": 2},
		{"op": "faction.setSymbol", "symbol": "A silver gull on sea-green"},
	} {
		apply(op)
	}
	g1 := apply(map[string]any{"op": "faction.addGoal", "goal": "Regain the harbour tolls"})
	g2 := apply(map[string]any{"op": "faction.addGoal", "goal": "Find the drowned archive"})
	if len(g1) != 1 || len(g2) != 1 || !strings.HasPrefix(g1[0], "goal-") {
		t.Fatalf("created goals %v %v", g1, g2)
	}
	apply(map[string]any{"op": "faction.updateGoal", "id": g1[0], "achieved": true})
	apply(map[string]any{"op": "faction.moveGoal", "id": g2[0], "index": 0})
	apply(map[string]any{"op": "faction.removeGoal", "id": g1[0]})
	apply(map[string]any{"op": "faction.editHistory", "baseVersion": version, "splices": []any{map[string]any{"pos": 0, "del": 0, "ins": "Founded by exiles from Quellmoor."}}})
	r1 := apply(map[string]any{"op": "faction.addRelation", "faction": vell, "stance": "ally"})
	if len(r1) != 1 || !strings.HasPrefix(r1[0], "rel-") {
		t.Fatalf("created relation %v", r1)
	}
	apply(map[string]any{"op": "faction.updateRelation", "id": r1[0], "stance": "rival"})
	apply(map[string]any{"op": "faction.editRelationNotes", "id": r1[0], "baseVersion": version, "splices": []any{map[string]any{"pos": 0, "del": 0, "ins": "The betrothal to [[House Vell]] stalled."}}})
	r2 := apply(map[string]any{"op": "faction.addRelation", "faction": leader, "stance": "neutral"})
	apply(map[string]any{"op": "faction.moveRelation", "id": r2[0], "index": 0})
	apply(map[string]any{"op": "faction.removeRelation", "id": r2[0]})

	manifest, err := os.ReadFile(filepath.Join(dir, "tool.json"))
	if err != nil {
		t.Fatal(err)
	}
	tool, err := ops.ParseTool(manifest)
	if err != nil {
		t.Fatal(err)
	}
	tt, _ := tool.Type("faction")
	for _, op := range tt.Ops() {
		if !applied[op.Op] {
			t.Errorf("the declared op %s was not applied", op.Op)
		}
	}

	// read returns the document's content as read now.
	type content struct {
		Version int
		Content struct {
			Data   map[string]any
			Source string
			Text   string
		}
	}
	read := func() content {
		t.Helper()
		var c content
		s.Must(s.Get(ann.Key, doc), http.StatusOK).JSON(t, &c)
		return c
	}
	c := read()
	rels, _ := c.Content.Data["relations"].([]any)
	if c.Version != version || c.Content.Source != "live" || c.Content.Data["motto"] != "The tide remembers" || len(rels) != 1 ||
		!strings.Contains(c.Content.Text, "Quellmoor") {
		t.Fatalf("the document reads %+v", c)
	}
	s.WaitSearchable(ann.Key, w, "Quellmoor")
	s.WaitSearchable(ann.Key, w, "betrothal")

	out = mustRun(t, nil, append([]string{"tools", "uninstall", "factions"}, remote...)...)
	if !strings.Contains(out, "uninstalled factions") {
		t.Fatalf("tools uninstall said %q", out)
	}
	c = read()
	if c.Content.Source != "stored" || c.Content.Data["motto"] != "The tide remembers" || !strings.Contains(c.Content.Text, "Quellmoor") {
		t.Fatalf("after uninstalling, the document reads %+v", c)
	}
	res := s.Post(ann.Key, doc+"/content", map[string]any{"ops": []any{map[string]any{"op": "faction.setMotto", "motto": "Gone"}}})
	if res.Status != http.StatusConflict || res.ErrorCode() != ops.CodeToolNotInstalled || !strings.Contains(string(res.Body), `"faction`) {
		t.Fatalf("an op after uninstalling: %d %s", res.Status, res.Body)
	}
	s.WaitSearchable(ann.Key, w, "Quellmoor")
	if out := mustRun(t, nil, append([]string{"tools", "list"}, remote...)...); strings.Contains(out, "factions") {
		t.Fatalf("tools list after uninstalling: %q", out)
	}
	// Uninstalling again names what is missing and fails.
	if _, _, err := run(t, nil, append([]string{"tools", "uninstall", "factions"}, remote...)...); err == nil {
		t.Fatal("uninstalling a tool that is not installed succeeded")
	}

	mustRun(t, nil, append([]string{"tools", "install", dir}, remote...)...)
	if c := read(); c.Content.Source != "live" || c.Content.Data["motto"] != "The tide remembers" {
		t.Fatalf("after installing again, the document reads %+v", c)
	}
	apply(map[string]any{"op": "faction.setMotto", "motto": "The tide returns"})
	if c := read(); c.Content.Data["motto"] != "The tide returns" {
		t.Fatalf("after installing again, an op left %+v", c)
	}
}

// install, list and uninstall work on the data directory too (the world named by id or
// slug); refusals from a server are printed and fail the command.
func TestToolsInstallLocallyAndRefusals(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	bob := s.NewUser("Bob")
	w := s.World(ann, "Saltmarsh")
	var world struct{ Slug string }
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w), http.StatusOK).JSON(t, &world)
	s.AddMember(ann, w, bob, "editor")

	dir := filepath.Join(t.TempDir(), "quests")
	mustRun(t, nil, "tools", "init", dir, "--example", "quests")
	out := mustRun(t, s.PB, "tools", "install", dir, "--world", world.Slug)
	if !strings.Contains(out, "installed quests 1.0.0") || !strings.Contains(out, "app kinds quest-board") {
		t.Fatalf("a local install said %q", out)
	}
	// The server learns of a change to its data directory from the outbox, within a second.
	var list struct{ Items []struct{ Name string } }
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w+"/tools"), http.StatusOK).JSON(t, &list)
		if len(list.Items) == 1 || time.Now().After(deadline) {
			break
		}
	}
	if len(list.Items) != 1 || list.Items[0].Name != "quests" {
		t.Fatalf("the API lists %+v", list)
	}
	if out := mustRun(t, s.PB, "tools", "list", "--world", w); !strings.Contains(out, "quests") {
		t.Fatalf("a local list said %q", out)
	}
	// Installing the same version again is an upgrade to itself.
	if out := mustRun(t, s.PB, "tools", "install", dir, "--world", w); !strings.Contains(out, "upgraded quests") {
		t.Fatalf("installing again said %q", out)
	}
	if _, _, err := run(t, s.PB, "tools", "install", dir, "--world", "nowhere"); err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Fatalf("installing in a world that does not exist: %v", err)
	}

	// An editor may not install; a wrong key is not let in: both fail with the server's reason.
	_, _, err := run(t, nil, "tools", "install", dir, "--world", w, "--url", s.URL, "--key", bob.Key)
	if err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Fatalf("an editor's install: %v", err)
	}
	_, _, err = run(t, nil, "tools", "list", "--world", w, "--url", s.URL, "--key", "lw_nonsense")
	if err == nil || !strings.Contains(err.Error(), "unauthenticated") {
		t.Fatalf("a list with a wrong key: %v", err)
	}
	// A manifest with problems is refused before anything is sent, naming file and pointer.
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "tool.json"), []byte(`{"name": "Bad", "version": "1.0.0", "appKinds": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, err := run(t, nil, "tools", "install", bad, "--world", w, "--url", s.URL, "--key", ann.Key)
	if err == nil || !strings.Contains(errOut, filepath.Join(bad, "tool.json")+": /name: ") {
		t.Fatalf("installing a bad manifest: %v\n%s", err, errOut)
	}

	if out := mustRun(t, s.PB, "tools", "uninstall", "quests", "--world", w); !strings.Contains(out, "uninstalled quests") {
		t.Fatalf("a local uninstall said %q", out)
	}
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w+"/tools"), http.StatusOK).JSON(t, &list)
		if len(list.Items) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if slices.ContainsFunc(list.Items, func(i struct{ Name string }) bool { return i.Name == "quests" }) {
		t.Fatalf("after a local uninstall the API lists %+v", list)
	}
}
