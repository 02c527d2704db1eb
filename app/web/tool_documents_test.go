package web_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/store"
)

// installTestTool installs testdata/name.tool.json in a world.
func installTestTool(t *testing.T, s *apptest.Server, worldID, name string) store.ToolInfo {
	t.Helper()
	manifest, err := os.ReadFile("testdata/" + name + ".tool.json")
	if err != nil {
		t.Fatal(err)
	}
	return s.InstallTool(worldID, string(manifest))
}

// toolData reads a document's data through the API, and its version.
func toolData(t *testing.T, w world, docID string) (map[string]any, int64) {
	t.Helper()
	var d struct {
		Version int64
		Content struct {
			Data   map[string]any
			Source string
		}
	}
	w.s.Must(w.s.Get(w.u.Key, "/api/v1/worlds/"+w.ID+"/documents/"+docID), http.StatusOK).JSON(t, &d)
	return d.Content.Data, d.Version
}

func project(t *testing.T, w world, name, kind string) string {
	t.Helper()
	var p struct{ ID string }
	w.s.Must(w.s.Post(w.u.Key, "/api/v1/worlds/"+w.ID+"/projects", map[string]any{"name": name, "kind": kind}), http.StatusCreated).JSON(t, &p)
	return p.ID
}

// TestToolDocumentPage: a tool document's page shows its fields as the type lays them out
// (Markdown rendered and sanitised, links as document links); an editor gets the generic
// editor with the type's form, a viewer only the read view; once the tool is uninstalled
// the page shows the stored text and says why, with no editor.
func TestToolDocumentPage(t *testing.T) {
	s := apptest.Start(t)
	ann, vi := s.NewUser("Ann Author"), s.NewUser("Vic Viewer")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, vi, "viewer")
	installTestTool(t, s, w.ID, "factions")
	queen := w.doc(t, "Queen Maren", "card", "", "")
	ember := w.doc(t, "Ember Court", "faction", "", "")
	tide := w.doc(t, "Tidewater Compact", "faction", "", "")
	_, v := toolData(t, w, tide)
	w.apply(t, tide, "",
		map[string]any{"op": "faction.setMotto", "motto": "By the tide"},
		map[string]any{"op": "faction.setAlignment", "alignment": "chaotic"},
		map[string]any{"op": "faction.setPower", "power": 7},
		map[string]any{"op": "faction.setLeader", "leader": queen},
		map[string]any{"op": "faction.editHistory", "baseVersion": v, "splices": []map[string]any{{"pos": 0, "del": 0,
			"ins": "Founded by **smugglers**. <script>alert(1)</script>"}}},
		map[string]any{"op": "faction.addRelation", "faction": ember, "stance": "rival", "notes": "An _old_ grudge."},
	)

	path := "/w/" + w.Slug + "/d/" + tide
	for _, who := range []struct {
		name   string
		client *http.Client
		editor bool
	}{{"editor", s.SignIn(ann), true}, {"viewer", s.SignIn(vi), false}} {
		d := page(t, s, who.client, path, http.StatusOK)
		view := d.Find(`#doc-body [data-testid="tool-view"]`)
		if view.Length() != 1 {
			t.Fatalf("%s: no tool view", who.name)
		}
		field := func(key string) string {
			return strings.Join(strings.Fields(view.Find(`[data-testid="tool-field"][data-key="`+key+`"]`).First().Text()), " ")
		}
		if got := field("motto"); got != "By the tide" {
			t.Errorf("%s: motto %q", who.name, got)
		}
		if got := field("alignment"); got != "chaotic" {
			t.Errorf("%s: alignment %q", who.name, got)
		}
		if got := field("power"); got != "7" {
			t.Errorf("%s: power %q", who.name, got)
		}
		if href, _ := view.Find(`[data-key="leader"] a.doclink`).Attr("href"); href != "/w/"+w.Slug+"/d/"+queen || field("leader") != "Queen Maren" {
			t.Errorf("%s: leader link %q %q", who.name, href, field("leader"))
		}
		history := view.Find(`[data-key="history"] .prose`)
		if history.Find("strong").Text() != "smugglers" || history.Find("script").Length() != 0 || strings.Contains(history.Text(), "alert") && history.Find("script").Length() > 0 {
			t.Errorf("%s: history not rendered and sanitised: %s", who.name, must(history.Html()))
		}
		item := view.Find(`[data-key="relations"] [data-testid="tool-item"]`)
		if item.Length() != 1 || item.Find(`a.doclink`).Text() != "Ember Court" || item.Find(`em`).Text() != "old" || !strings.Contains(item.Text(), "rival") {
			t.Errorf("%s: relation item %q", who.name, item.Text())
		}
		editor := d.Find(`[data-tool-editor]`)
		if (editor.Length() == 1) != who.editor {
			t.Fatalf("%s: editor shown %v", who.name, editor.Length() == 1)
		}
		if who.editor {
			var data struct {
				Version   int64
				Type      string
				Fields    []struct{ Path, Kind, SetOp, TextOp, AppendOp string }
				Data      map[string]any
				Documents []struct{ ID, Name string }
			}
			if err := json.Unmarshal([]byte(d.Find(`#tool-editor-data`).Text()), &data); err != nil {
				t.Fatal(err)
			}
			if data.Type != "faction" || len(data.Fields) != 6 || data.Fields[4].Kind != "markdown" || data.Fields[4].TextOp != "faction.editHistory" ||
				data.Fields[5].AppendOp != "faction.addRelation" || data.Data["motto"] != "By the tide" {
				t.Errorf("editor data: %+v", data)
			}
			for _, x := range data.Documents {
				if x.ID == tide {
					t.Error("the link choices offer the document itself")
				}
			}
			if len(data.Documents) != 2 {
				t.Errorf("link choices: %+v", data.Documents)
			}
		}
	}

	// A public wiki shows the fields to anyone, its links leading to the wiki's pages.
	_, home := w.wiki(t, "Tidewater Wiki", map[string]any{"visibility": "public"})
	wd := doc(t, s.Must(anon(s, home+"d/"+tide, nil), http.StatusOK))
	if got := strings.TrimSpace(wd.Find(`[data-testid="tool-view"] [data-key="motto"]`).Text()); got != "By the tide" {
		t.Fatalf("wiki: motto %q", got)
	}
	if href, _ := wd.Find(`[data-testid="tool-view"] [data-key="leader"] a`).Attr("href"); href != home+"d/"+queen {
		t.Fatalf("wiki: leader link %q", href)
	}
	if wd.Find(`[data-tool-editor]`).Length() != 0 {
		t.Fatal("wiki: an editor")
	}

	// A past version shows the fields as they were.
	_, v = toolData(t, w, tide)
	w.apply(t, tide, "", map[string]any{"op": "faction.setMotto", "motto": "The tide turns"})
	d := page(t, s, s.SignIn(ann), path+"/v/"+strconv.FormatInt(v, 10), http.StatusOK)
	if got := strings.TrimSpace(d.Find(`[data-testid="tool-view"] [data-key="motto"]`).Text()); got != "By the tide" {
		t.Fatalf("version %d: motto %q", v, got)
	}

	// Uninstalled: the stored text, read-only, and a note saying why.
	if err := s.LW.Store.UninstallTool(w.ID, "factions", store.Actor{Credential: "cli"}); err != nil {
		t.Fatal(err)
	}
	d = page(t, s, s.SignIn(ann), path, http.StatusOK)
	if d.Find(`[data-tool-editor]`).Length() != 0 || d.Find(`[data-testid="tool-view"]`).Length() != 0 {
		t.Fatal("an uninstalled tool's document is still editable")
	}
	if note := d.Find(`[data-testid="tool-not-installed"]`).Text(); !strings.Contains(note, "faction") {
		t.Fatalf("note %q", note)
	}
	if text := d.Find(`[data-testid="text-projection"]`).Text(); !strings.Contains(text, "The tide turns") || !strings.Contains(text, "smugglers") {
		t.Fatalf("stored text %q", text)
	}
}

func must(s string, _ error) string { return s }

// TestAppKindPages: a project of a tool's app kind has a page (linked from the world page)
// that lists the world's documents of its type: a table for a list, columns by an enum's
// values for a board; viewers see it too, only editors get the settings link.
func TestAppKindPages(t *testing.T) {
	s := apptest.Start(t)
	ann, vi := s.NewUser("Ann Author"), s.NewUser("Vic Viewer")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, vi, "viewer")
	installTestTool(t, s, w.ID, "factions")
	installTestTool(t, s, w.ID, "quests")
	tide := w.doc(t, "Tidewater Compact", "faction", "", "")
	ember := w.doc(t, "Ember Court", "faction", "", "")
	w.apply(t, tide, "", map[string]any{"op": "faction.setAlignment", "alignment": "chaotic"}, map[string]any{"op": "faction.setPower", "power": 7})
	w.apply(t, ember, "", map[string]any{"op": "faction.setPower", "power": 3})
	crown := w.doc(t, "The Drowned Crown", "quest", "", "")
	bell := w.doc(t, "The Bell of Saltmere", "quest", "", "")
	w.apply(t, crown, "", map[string]any{"op": "quest.setState", "state": "underway"}, map[string]any{"op": "quest.setGoal", "goal": "Raise the crown"},
		map[string]any{"op": "quest.setGiver", "giver": tide})
	w.apply(t, bell, "", map[string]any{"op": "quest.setReward", "reward": 40})
	roster := project(t, w, "Roster", "faction-roster")
	board := project(t, w, "Quest board", "quest-board")

	editor, viewer := s.SignIn(ann), s.SignIn(vi)
	wp := page(t, s, viewer, "/w/"+w.Slug, http.StatusOK)
	if href, _ := wp.Find(`[data-testid="project"][data-id="` + roster + `"] a[data-testid="project-open"]`).Attr("href"); href != "/w/"+w.Slug+"/p/"+roster {
		t.Fatalf("the world page links the project to %q", href)
	}

	d := page(t, s, viewer, "/w/"+w.Slug+"/p/"+roster, http.StatusOK)
	if got := texts(d.Find(`[data-testid="app-table"] thead th`)); strings.Join(got, "|") != "Name|Alignment|Power" {
		t.Fatalf("columns %v", got)
	}
	if got := strings.Join(texts(d.Find(`[data-testid="app-row"] > *`)), "|"); got != "Ember Court|lawful|3|Tidewater Compact|chaotic|7" {
		t.Fatalf("rows %q", got)
	}
	if href, _ := d.Find(`[data-testid="app-row"][data-id="` + tide + `"] a`).Attr("href"); href != "/w/"+w.Slug+"/d/"+tide {
		t.Fatalf("row link %q", href)
	}
	if d.Find(`[data-testid="project-settings"]`).Length() != 0 {
		t.Fatal("a viewer got the settings link")
	}

	d = page(t, s, editor, "/w/"+w.Slug+"/p/"+board, http.StatusOK)
	if got := texts(d.Find(`[data-testid="board-column"] > h2`)); strings.Join(got, "|") != "rumoured 1|open 0|underway 1|done 0|failed 0" {
		t.Fatalf("board columns %q", got)
	}
	card := d.Find(`[data-testid="board-column"][data-value="underway"] [data-testid="board-card"]`)
	if card.AttrOr("data-id", "") != crown || !strings.Contains(card.Text(), "Raise the crown") || card.Find(`dd a.doclink`).Text() != "Tidewater Compact" {
		t.Fatalf("underway card %q", card.Text())
	}
	if got := d.Find(`[data-value="rumoured"] [data-testid="board-card"]`).Text(); !strings.Contains(got, "The Bell of Saltmere") || !strings.Contains(got, "40") {
		t.Fatalf("rumoured card %q", got)
	}
	if d.Find(`[data-testid="project-settings"]`).Length() != 1 {
		t.Fatal("an editor has no settings link")
	}

	// Unknown projects and wikis are not app pages.
	page(t, s, editor, "/w/"+w.Slug+"/p/nope", http.StatusNotFound)
	wiki := project(t, w, "Wiki", "wiki")
	page(t, s, editor, "/w/"+w.Slug+"/p/"+wiki, http.StatusNotFound)

	// The tool uninstalled: the page says so.
	if err := s.LW.Store.UninstallTool(w.ID, "quests", store.Actor{Credential: "cli"}); err != nil {
		t.Fatal(err)
	}
	d = page(t, s, editor, "/w/"+w.Slug+"/p/"+board, http.StatusOK)
	if d.Find(`[data-testid="app-not-installed"]`).Length() != 1 {
		t.Fatal("no note for an uninstalled app kind")
	}
}
