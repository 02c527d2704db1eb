package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// smallTool is a manifest of a tool named name with one type, typ, holding a note.
func smallTool(name, typ string) string {
	return fmt.Sprintf(`{"name": %q, "version": "1.0.0", "documentTypes": [{"name": %q,
		"schema": {"type": "object", "properties": {"note": {"type": "string"}}},
		"ops": [{"name": "setNote", "kind": "set", "path": "note"}]}]}`, name, typ)
}

// factions reads the example manifest (docs/TOOLS.md) and returns it as JSON, after edit
// changed its decoded form (nil: as it is).
func factions(t *testing.T, edit func(m map[string]any)) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/factions.tool.json")
	if err != nil {
		t.Fatal(err)
	}
	if edit == nil {
		return data
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// factionProps returns the properties of the faction type's schema in a decoded manifest.
func factionProps(m map[string]any) map[string]any {
	typ := m["documentTypes"].([]any)[0].(map[string]any)
	return typ["schema"].(map[string]any)["properties"].(map[string]any)
}

type toolInfo struct {
	ID, Name, Title, Version, Description string
	DocumentTypes, AppKinds               []string
	Installed, Updated                    string
	Manifest                              map[string]any
}

func TestToolsInstallUpgradeUninstall(t *testing.T) {
	s := start(t)
	ann, ed, vic, stranger := s.NewUser("Ann"), s.NewUser("Ed"), s.NewUser("Vic"), s.NewUser("Stranger")
	w := s.World(ann, "Eldoria")
	s.AddMember(ann, w, ed, "editor")
	s.AddMember(ann, w, vic, "viewer")
	base := "/api/v1/worlds/" + w + "/tools"

	// Only owners and admins install; non-members do not learn the world exists.
	for _, c := range []struct {
		key    string
		status int
	}{{ed.Key, 403}, {vic.Key, 403}, {stranger.Key, 404}} {
		if res := s.Post(c.key, base, factions(t, nil)); res.Status != c.status {
			t.Fatalf("install by a %d caller: %d %s", c.status, res.Status, res.Body)
		}
	}

	events := s.Stream(vic.Key, "/api/v1/worlds/"+w+"/events")
	defer events.Close()
	events.Expect(t, "ready")
	var info toolInfo
	s.Must(s.Post(ann.Key, base, factions(t, nil)), http.StatusCreated).JSON(t, &info)
	// The world's stream says its types changed.
	if ev := events.Expect(t, "tool.installed"); !strings.Contains(ev.Data, `"tool":"factions"`) {
		t.Fatalf("world event %s", ev.Data)
	}
	if info.Name != "factions" || info.Version != "1.0.0" || info.Title != "Factions" || info.ID == "" ||
		strings.Join(info.DocumentTypes, ",") != "faction" || strings.Join(info.AppKinds, ",") != "faction-roster" || info.Installed == "" {
		t.Fatalf("installed %+v", info)
	}
	var list struct {
		Items      []toolInfo
		TotalItems int
	}
	s.Must(s.Get(ann.Key, base), http.StatusOK).JSON(t, &list)
	if list.TotalItems != 1 || list.Items[0].ID != info.ID {
		t.Fatalf("list %+v", list)
	}
	for _, key := range []string{info.ID, "factions"} {
		var one toolInfo
		s.Must(s.Get(ann.Key, base+"/"+key), http.StatusOK).JSON(t, &one)
		if one.ID != info.ID || one.Manifest["name"] != "factions" || one.Manifest["documentTypes"] == nil {
			t.Fatalf("get %s: %+v", key, one)
		}
	}
	if res := s.Get(ed.Key, base+"/factions"); res.Status != 403 {
		t.Fatalf("an editor reads a tool: %d", res.Status)
	}

	// A faction with power 7.
	doc := s.Document(ann, w, "Tide Guild", "faction")
	docPath := "/api/v1/worlds/" + w + "/documents/" + doc
	s.Must(s.Post(ann.Key, docPath+"/content", map[string]any{"ops": []any{map[string]any{"op": "faction.setPower", "power": 7}}}), http.StatusOK)

	// A compatible upgrade: 200, the same id; the document reads as the new version has it.
	var up toolInfo
	s.Must(s.Post(ann.Key, base, factions(t, func(m map[string]any) {
		m["version"] = "1.1.0"
		factionProps(m)["emblem"] = map[string]any{"type": "string", "default": "wave"}
	})), http.StatusOK).JSON(t, &up)
	if up.ID != info.ID || up.Version != "1.1.0" {
		t.Fatalf("upgraded %+v", up)
	}
	var read struct{ Content struct{ Data map[string]any } }
	s.Must(s.Get(ann.Key, docPath), http.StatusOK).JSON(t, &read)
	if read.Content.Data["emblem"] != "wave" || read.Content.Data["power"] != 7.0 {
		t.Fatalf("after the upgrade %+v", read.Content.Data)
	}

	// An upgrade the faction would not survive, on the main line and in an era, is refused
	// with both states named, and changes nothing.
	var era struct{ ID string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/eras", map[string]any{"name": "Second Age"}), http.StatusCreated).JSON(t, &era)
	s.Must(s.Post(ann.Key, docPath+"/content?era="+era.ID, map[string]any{"ops": []any{map[string]any{"op": "faction.setPower", "power": 8}}}), http.StatusOK)
	res := s.Post(ann.Key, base, factions(t, func(m map[string]any) {
		m["version"] = "2.0.0"
		factionProps(m)["emblem"] = map[string]any{"type": "string", "default": "wave"}
		factionProps(m)["power"].(map[string]any)["maximum"] = 5
	}))
	if res.Status != http.StatusConflict || res.ErrorCode() != "tool_upgrade_breaks_documents" {
		t.Fatalf("breaking upgrade: %d %s", res.Status, res.Body)
	}
	var refused struct {
		Error struct {
			Total     int
			Documents []struct{ DocumentID, Name, Era, DocumentType, Field, Message string }
		}
	}
	res.JSON(t, &refused)
	if refused.Error.Total != 2 || len(refused.Error.Documents) != 2 || refused.Error.Documents[0].Era != "" || refused.Error.Documents[1].Era != era.ID {
		t.Fatalf("refusal %s", res.Body)
	}
	if b := refused.Error.Documents[0]; b.DocumentID != doc || b.Name != "Tide Guild" || b.DocumentType != "faction" || b.Field != "/power" || b.Message == "" {
		t.Fatalf("broken document %+v", b)
	}
	// Dropping the type is refused too.
	res = s.Post(ann.Key, base, factions(t, func(m map[string]any) {
		m["version"] = "3.0.0"
		typ := m["documentTypes"].([]any)[0].(map[string]any)
		typ["name"] = "guild"
		m["appKinds"] = []any{}
	}))
	if res.Status != http.StatusConflict || res.ErrorCode() != "tool_upgrade_breaks_documents" || !strings.Contains(string(res.Body), doc) {
		t.Fatalf("dropping a type with documents: %d %s", res.Status, res.Body)
	}
	var now toolInfo
	s.Must(s.Get(ann.Key, base+"/factions"), http.StatusOK).JSON(t, &now)
	if now.Version != "1.1.0" {
		t.Fatalf("a refused upgrade changed the tool: %+v", now)
	}

	// A manifest with problems names them by JSON Pointer.
	res = s.Post(ann.Key, base, factions(t, func(m map[string]any) { factionProps(m)["power"].(map[string]any)["type"] = "decimal" }))
	if res.Status != http.StatusUnprocessableEntity || res.ErrorCode() != "invalid_manifest" {
		t.Fatalf("invalid manifest: %d %s", res.Status, res.Body)
	}
	var bad struct {
		Error struct {
			Problems []struct{ Pointer, Message string }
		}
	}
	res.JSON(t, &bad)
	if len(bad.Error.Problems) == 0 || !strings.HasPrefix(bad.Error.Problems[0].Pointer, "/documentTypes/0/schema/properties/power") {
		t.Fatalf("problems %s", res.Body)
	}
	if res := s.Do(apptest.Request{Method: "POST", Path: base, Key: ann.Key, Body: "{not json"}); res.Status != 400 {
		t.Fatalf("malformed JSON: %d", res.Status)
	}

	// Another tool may not add a type or an app kind the world has.
	res = s.Post(ann.Key, base, []byte(smallTool("rivals", "faction")))
	if res.Status != http.StatusConflict || res.ErrorCode() != "type_conflict" {
		t.Fatalf("type conflict: %d %s", res.Status, res.Body)
	}

	// Uninstalling: by name; then the tool is gone, its documents stay.
	s.Must(s.Do(del(ed.Key, base+"/factions")), http.StatusForbidden)
	s.Must(s.Do(del(ann.Key, base+"/factions")), http.StatusNoContent)
	events.Expect(t, "tool.installed") // the upgrade
	if ev := events.Expect(t, "tool.uninstalled"); !strings.Contains(ev.Data, `"tool":"factions"`) {
		t.Fatalf("world event %s", ev.Data)
	}
	s.Must(s.Do(del(ann.Key, base+"/factions")), http.StatusNotFound)
	s.Must(s.Get(ann.Key, base+"/"+info.ID), http.StatusNotFound)
	s.Must(s.Get(ann.Key, docPath), http.StatusOK)
}

// TestToolsFreePlan checks that installing tools is free: a free world's owner installs one
// with a key, and lists its types.
func TestToolsFreePlan(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	if err := s.LW.Store.SetPlan(w, "free"); err != nil {
		t.Fatal(err)
	}
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/tools", factions(t, nil)), http.StatusCreated)
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w+"/tools"), http.StatusOK)
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w+"/types"), http.StatusOK)
}

func TestWorldTypes(t *testing.T) {
	s := start(t)
	ann, vic := s.NewUser("Ann"), s.NewUser("Vic")
	w := s.World(ann, "Eldoria")
	s.AddMember(ann, w, vic, "viewer")
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/tools", factions(t, nil)), http.StatusCreated)

	type op struct {
		Op, Kind, Path, Summary string
		Params                  map[string]any
	}
	var l struct {
		Types []struct {
			Name, Title, Tool, ToolVersion string
			Builtin                        bool
			Schema                         map[string]any
			Ops                            []op
		}
	}
	s.Must(s.Get(vic.Key, "/api/v1/worlds/"+w+"/types"), http.StatusOK).JSON(t, &l)
	var names []string
	ops := map[string]op{}
	for _, typ := range l.Types {
		names = append(names, typ.Name)
		for _, o := range typ.Ops {
			ops[o.Op] = o
		}
		switch typ.Name {
		case "card":
			if !typ.Builtin || typ.Tool != "" || len(typ.Ops) == 0 {
				t.Errorf("card %+v", typ)
			}
		case "faction":
			if typ.Builtin || typ.Tool != "factions" || typ.ToolVersion != "1.0.0" || typ.Title != "Faction" || typ.Schema["properties"] == nil {
				t.Errorf("faction %+v", typ)
			}
		}
	}
	if strings.Join(names, ",") != "animator,card,folder,map,timeline,faction" {
		t.Fatalf("types %v", names)
	}
	// Built-in ops carry their parameters as the OpenAPI document has them.
	title := ops["card.rename"]
	if title.Params["properties"].(map[string]any)["op"] == nil || title.Summary == "" {
		t.Fatalf("card.rename %+v", title)
	}
	add := ops["faction.addRelation"]
	props, _ := add.Params["properties"].(map[string]any)
	if add.Kind != "append" || add.Path != "relations" || props["stance"] == nil || props["faction"] == nil {
		t.Fatalf("faction.addRelation %+v", add)
	}
	if o := ops["faction.editRelationNotes"]; o.Kind != "text" || o.Path != "relations.notes" {
		t.Fatalf("faction.editRelationNotes %+v", o)
	}
	s.Must(s.Get(s.NewUser("Stranger").Key, "/api/v1/worlds/"+w+"/types"), http.StatusNotFound)
}

// TestToolDocumentLifecycle creates a document of a tool type over the API, applies each
// kind of declared op, sees them live and in search, then uninstalls the tool (reads are
// stored, ops refused, search still finds it) and installs it again (live).
func TestToolDocumentLifecycle(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tools := "/api/v1/worlds/" + w + "/tools"
	s.Must(s.Post(ann.Key, tools, factions(t, nil)), http.StatusCreated)
	other := s.Document(ann, w, "Salt Court", "faction")
	doc := s.Document(ann, w, "Tide Guild", "faction")
	path := "/api/v1/worlds/" + w + "/documents/" + doc

	st := s.Stream(ann.Key, path+"/events")
	defer st.Close()
	st.Expect(t, "snapshot")

	type result struct {
		Version int
		Created []struct{ ID string }
		Ops     []map[string]any
	}
	apply := func(ops ...map[string]any) result {
		t.Helper()
		var r result
		s.Must(s.Post(ann.Key, path+"/content", map[string]any{"ops": ops}), http.StatusOK).JSON(t, &r)
		return r
	}
	r := apply(
		map[string]any{"op": "faction.setMotto", "motto": "By the quorvish tide"},
		map[string]any{"op": "faction.setPower", "power": 7},
		map[string]any{"op": "faction.setLeader", "leader": other},
	)
	if r.Version != 1 {
		t.Fatalf("first write %+v", r)
	}
	ev := st.Expect(t, "ops")
	if !strings.Contains(ev.Data, "faction.setMotto") || ev.ID != "1" {
		t.Fatalf("ops event %s %s", ev.ID, ev.Data)
	}

	r = apply(map[string]any{"op": "faction.addRelation", "faction": other, "stance": "ally"},
		map[string]any{"op": "faction.addRelation", "faction": other, "stance": "rival"})
	if len(r.Created) != 2 || !strings.HasPrefix(r.Created[0].ID, "rel") {
		t.Fatalf("append %+v", r)
	}
	first, second := r.Created[0].ID, r.Created[1].ID
	apply(map[string]any{"op": "faction.updateRelation", "id": first, "stance": "war"})
	apply(map[string]any{"op": "faction.moveRelation", "id": second, "index": 0})
	apply(map[string]any{"op": "faction.editHistory", "baseVersion": 4, "splices": []any{map[string]any{"pos": 0, "del": 0, "ins": "Founded at low tide."}}})
	apply(map[string]any{"op": "faction.editRelationNotes", "id": first, "baseVersion": 5, "splices": []any{map[string]any{"pos": 0, "del": 0, "ins": "Old grudges."}}})
	r = apply(map[string]any{"op": "faction.removeRelation", "id": second})
	if r.Version != 7 {
		t.Fatalf("version %d after seven writes", r.Version)
	}

	type content struct {
		Version int
		Content struct {
			Source string
			Text   string
			Data   struct {
				Motto, Leader, History string
				Power                  int
				Relations              []struct{ ID, Faction, Stance, Notes string }
			}
		}
	}
	read := func() content {
		t.Helper()
		var c content
		s.Must(s.Get(ann.Key, path), http.StatusOK).JSON(t, &c)
		return c
	}
	c := read()
	d := c.Content.Data
	if c.Content.Source != "live" || d.Motto != "By the quorvish tide" || d.Power != 7 || d.Leader != other || d.History != "Founded at low tide." ||
		len(d.Relations) != 1 || d.Relations[0].ID != first || d.Relations[0].Stance != "war" || d.Relations[0].Notes != "Old grudges." {
		t.Fatalf("content %+v", c)
	}
	if !strings.Contains(c.Content.Text, "By the quorvish tide") || !strings.Contains(c.Content.Text, "Old grudges.") {
		t.Fatalf("text %q", c.Content.Text)
	}

	// A rejected request changes nothing: the power is over its maximum.
	res := s.Post(ann.Key, path+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "faction.setMotto", "motto": "Changed"},
		map[string]any{"op": "faction.setPower", "power": 11},
	}})
	if res.Status != http.StatusUnprocessableEntity || res.ErrorCode() != "invalid_field" {
		t.Fatalf("power 11: %d %s", res.Status, res.Body)
	}
	if c := read(); c.Version != 7 || c.Content.Data.Motto != "By the quorvish tide" {
		t.Fatalf("a rejected request changed the document: %+v", c)
	}

	// Links, history and search see it.
	var links struct {
		Outgoing struct{ Items []struct{ DocumentID string } }
	}
	s.Must(s.Get(ann.Key, path+"/links"), http.StatusOK).JSON(t, &links)
	if len(links.Outgoing.Items) != 1 || links.Outgoing.Items[0].DocumentID != other {
		t.Fatalf("links %+v", links)
	}
	var past content
	s.Must(s.Get(ann.Key, path+"?version=1"), http.StatusOK).JSON(t, &past)
	if past.Content.Source != "history" || past.Content.Data.Motto != "By the quorvish tide" || len(past.Content.Data.Relations) != 0 {
		t.Fatalf("version 1 %+v", past)
	}
	s.WaitSearchable(ann.Key, w, "quorvish")

	// Restoring version 6 (before the relation's removal) is a write like any other.
	s.Must(s.Post(ann.Key, path+"/restore", map[string]any{"version": 6}), http.StatusOK)
	if c := read(); c.Version != 8 || len(c.Content.Data.Relations) != 2 {
		t.Fatalf("restored %+v", c)
	}

	// Uninstalled: read as stored, ops refused, still found.
	s.Must(s.Do(del(ann.Key, tools+"/factions")), http.StatusNoContent)
	c = read()
	if c.Content.Source != "stored" || c.Content.Data.Motto != "By the quorvish tide" || !strings.Contains(c.Content.Text, "Old grudges.") {
		t.Fatalf("uninstalled content %+v", c)
	}
	res = s.Post(ann.Key, path+"/content", map[string]any{"ops": []any{map[string]any{"op": "faction.setPower", "power": 1}}})
	if res.Status != http.StatusConflict || res.ErrorCode() != "tool_not_installed" || !strings.Contains(string(res.Body), `"tool":"factions"`) {
		t.Fatalf("op on an uninstalled type: %d %s", res.Status, res.Body)
	}
	if c := read(); c.Version != 8 {
		t.Fatalf("a refused op changed the document: %+v", c)
	}
	s.WaitSearchable(ann.Key, w, "grudges")
	// It can still be renamed (its stored text is kept as it is).
	s.Must(s.Do(apptest.Request{Method: http.MethodPatch, Path: path, Key: ann.Key, Body: map[string]any{"name": "Tide Guild of Old"}}), http.StatusOK)
	if res := s.Post(ann.Key, "/api/v1/worlds/"+w+"/documents", map[string]any{"name": "New", "documentType": "faction"}); res.ErrorCode() != "unsupported_document_type" {
		t.Fatalf("a new document of an uninstalled type: %d %s", res.Status, res.Body)
	}

	// Installed again: live, and ops work.
	s.Must(s.Post(ann.Key, tools, factions(t, nil)), http.StatusCreated)
	if c := read(); c.Content.Source != "live" || c.Content.Data.Power != 7 {
		t.Fatalf("reinstalled content %+v", c)
	}
	r = apply(map[string]any{"op": "faction.setPower", "power": 9})
	if r.Version != 9 {
		t.Fatalf("after reinstalling %+v", r)
	}
}
