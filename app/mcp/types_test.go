package mcp_test

import (
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestListTypes checks that list_types lists the built-in types and an installed tool's,
// with each op's parameters, and that apply_content_ops works on the tool's documents.
func TestListTypes(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	s.InstallTool(w, apptest.QuestTool)
	session := connect(t, s, ann.Key)

	var out struct {
		Types []struct {
			Name, Tool string
			Builtin    bool
			Schema     map[string]any
			Ops        []struct {
				Op, Kind, Path string
				Params         map[string]any
			}
		}
	}
	if call(t, session, "list_types", map[string]any{"worldId": w}, &out) {
		t.Fatal("list_types failed")
	}
	var names []string
	for _, typ := range out.Types {
		names = append(names, typ.Name)
		if typ.Name == "quest" {
			if typ.Builtin || typ.Tool != "quests" || typ.Schema == nil || len(typ.Ops) != 3 || typ.Ops[0].Op != "quest.setGoal" || typ.Ops[0].Kind != "set" || typ.Ops[0].Params["properties"] == nil {
				t.Fatalf("quest %+v", typ)
			}
		}
		if typ.Name == "timeline" && (!typ.Builtin || len(typ.Ops) == 0 || typ.Ops[0].Params["properties"] == nil) {
			t.Fatalf("timeline %+v", typ)
		}
	}
	if strings.Join(names, ",") != "animator,card,folder,map,timeline,quest" {
		t.Fatalf("types %v", names)
	}

	var d struct{ ID string }
	if call(t, session, "create_document", map[string]any{"worldId": w, "name": "Find the grail", "documentType": "quest"}, &d) {
		t.Fatal("create_document failed")
	}
	var r struct{ Version int }
	if call(t, session, "apply_content_ops", map[string]any{"worldId": w, "documentId": d.ID, "ops": []any{
		map[string]any{"op": "quest.setGoal", "goal": "The grail"},
		map[string]any{"op": "quest.addStep", "text": "Ask the hermit"},
	}}, &r) || r.Version != 1 {
		t.Fatalf("apply_content_ops %+v", r)
	}
	var doc struct {
		Source string
		Data   map[string]any
	}
	if call(t, session, "get_document", map[string]any{"worldId": w, "documentId": d.ID}, &doc) || doc.Source != "live" || doc.Data["goal"] != "The grail" {
		t.Fatalf("get_document %+v", doc)
	}
}
