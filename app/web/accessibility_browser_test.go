package web_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/apptest"
)

// axeSHA256 is the checksum of testdata/axe/axe.min.js recorded in testdata/axe/README.md.
const axeSHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"

// axeSource reads the vendored axe-core, refusing a file that is not the one recorded.
func axeSource(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/axe/axe.min.js")
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != axeSHA256 {
		t.Fatalf("testdata/axe/axe.min.js has sha256 %x, want %s (see testdata/axe/README.md)", sum, axeSHA256)
	}
	return string(b)
}

// axeViolation is one rule axe-core found broken, with the elements that break it.
type axeViolation struct {
	ID     string
	Impact string
	Help   string
	Nodes  []struct {
		Target  []any
		Summary string `json:"failureSummary"`
	}
}

// accessible runs axe-core over the page open in ctx and fails the test on any serious or
// critical violation; it also checks, with look, that the page does not scroll sideways.
func accessible(t *testing.T, ctx context.Context, axe, name string) {
	t.Helper()
	look(t, ctx, name)
	if !eval[bool](t, ctx, `typeof window.axe === "object"`) {
		eval[bool](t, ctx, axe+"\n;true")
	}
	found, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations)`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: axe: %v", name, err)
	}
	for _, v := range found {
		if v.Impact != "serious" && v.Impact != "critical" {
			continue
		}
		var where []string
		for i, n := range v.Nodes {
			if i == 3 {
				where = append(where, fmt.Sprintf("and %d more", len(v.Nodes)-3))
				break
			}
			where = append(where, fmt.Sprintf("%v: %s", n.Target, strings.ReplaceAll(n.Summary, "\n", " ")))
		}
		t.Errorf("%s: %s (%s): %s\n\t%s", name, v.ID, v.Impact, v.Help, strings.Join(where, "\n\t"))
	}
}

// Every page, in every theme (the genres below give one world each), at a desktop and a
// phone width, passes axe-core with no serious violation, does not scroll sideways even with
// a name 144 letters long and no space, and shows no list bullets beside world cards or
// projects. Pages outside a world have no theme and are checked with the first.
func TestBrowserAccessibility(t *testing.T) {
	axe := axeSource(t)
	s := apptest.Start(t)
	ann, vic := s.NewUser("Ann Author"), s.NewUser("Vic Viewer")
	connectApp(t, s, ann, "Quill")

	genres := []string{"slice of life", "fantasy", "sci-fi", "cyberpunk", "horror", "mystery", "historical", "steampunk", "romance"}
	for i, genre := range genres {
		t.Run(genre, func(t *testing.T) {
			long := strings.Repeat("Stormbornofthesunkengate", 6)
			var x struct{ ID, Slug string }
			s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": genre + " " + long, "genre": genre}), http.StatusCreated).JSON(t, &x)
			w := world{s: s, u: ann, ID: x.ID, Slug: x.Slug}
			s.AddMember(ann, w.ID, vic, "viewer")
			folder := w.doc(t, "People", "folder", "", "")
			w.apply(t, folder, "", map[string]any{"op": "folder.setDescription", "description": "Everyone who matters.\n\n## Houses\n\nSee " + long})
			card := w.doc(t, long, "card", folder, "")
			w.apply(t, card, "",
				map[string]any{"op": "card.setProperty", "key": "Born", "value": "Year 312 of the Long " + long},
				map[string]any{"op": "card.addSection", "title": "Biography", "body": "She rode the **tide**.\n\n## Early life\n\n- [ ] swim\n- [x] sail\n\n[a link](https://example.com) " + long})
			tl := w.doc(t, "History", "timeline", "", "")
			w.apply(t, tl, "", map[string]any{"op": "timeline.addEvent", "label": "The " + long + " tide", "dateMs": 0})
			m := w.doc(t, "Realm", "map", "", "")
			w.apply(t, m, "",
				map[string]any{"op": "map.setImage", "url": "/static/vendor/leaflet/images/layers-2x.png", "width": 800, "height": 600},
				map[string]any{"op": "map.addPin", "x": 100, "y": 50, "label": "Harbour"})
			an := w.doc(t, "Leviathan", "animator", "", "")
			// Clips to audit as the editor's buttons and the viewer's chips; the model is not
			// there (software WebGL would spend seconds drawing it) and is not read.
			w.apply(t, an, "",
				map[string]any{"op": "animator.setModel", "url": "/static/models/leviathan.glb", "name": "Leviathan rig"},
				map[string]any{"op": "animator.setClips", "clips": []map[string]any{{"id": "Swim"}, {"id": "Dive " + long}}},
				map[string]any{"op": "animator.setActiveClip", "clipId": "Swim"})
			s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/projects", map[string]any{"name": "Book " + long, "kind": "wiki"}), http.StatusCreated)
			// A tool's document, with every kind of field, and its app kinds' pages.
			installTestTool(t, s, w.ID, "factions")
			installTestTool(t, s, w.ID, "quests")
			ember := w.doc(t, "Ember "+long, "faction", "", "")
			faction := w.doc(t, "Tide "+long, "faction", "", "")
			w.apply(t, faction, "",
				map[string]any{"op": "faction.setMotto", "motto": "By the " + long},
				map[string]any{"op": "faction.setLeader", "leader": card},
				map[string]any{"op": "faction.addRelation", "faction": ember, "stance": "war", "notes": "They burned *" + long + "*."})
			quest := w.doc(t, "Quest "+long, "quest", "", "")
			w.apply(t, quest, "", map[string]any{"op": "quest.setGoal", "goal": "Raise the " + long}, map[string]any{"op": "quest.setGiver", "giver": faction},
				map[string]any{"op": "quest.addStep", "text": "Dive " + long})
			var board, roster struct{ ID string }
			s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/projects", map[string]any{"name": "Quests " + long, "kind": "quest-board"}), http.StatusCreated).JSON(t, &board)
			s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/projects", map[string]any{"name": "Roster " + long, "kind": "faction-roster"}), http.StatusCreated).JSON(t, &roster)
			s.WaitSearchable(ann.Key, w.ID, "tide")

			base := "/w/" + w.Slug
			type check struct{ path, ready string }
			documents := []check{
				{base, `#documents`},
				{base + "/search?q=tide", `main h1`},
				{base + "/members", `[data-testid="members"]`},
				{base + "/d/" + folder, `main h1`},
				{base + "/d/" + tl, `[data-testid="timeline"]`},
				{base + "/d/" + m, `main h1`},
				{base + "/d/" + an, `main h1`},
				{base + "/d/" + card, `[data-testid="card-editor"] .cm-content`},
				{base + "/d/" + card + "/history", `[data-testid="history-list"]`},
				{base + "/d/" + card + "/v/0", `[data-testid="version-banner"]`},
				{base + "/d/" + card + "/rename", `[data-testid="rename-form"]`},
				{base + "/d/" + card + "/move", `[data-testid="move-form"]`},
				{base + "/d/" + card + "/delete", `[data-testid="delete-form"]`},
				{base + "/d/" + faction, `[data-testid="tool-editor"] .cm-content`},
				{base + "/d/" + quest, `[data-testid="tool-editor"] .cm-content`},
				{base + "/p/" + board.ID, `[data-testid="board"]`},
				{base + "/p/" + roster.ID, `[data-testid="app-table"]`},
			}
			var themeless, signedOut []check
			if i == 0 {
				themeless = []check{{"/", `[data-testid="worlds"]`}, {"/settings/api-keys", `[data-testid="keys"]`}, {"/settings/apps", `[data-testid="apps"]`},
					{"/no/such/page", `[data-testid="error-page"]`}}
				signedOut = []check{{"/login", `#email`}, {"/signup", `#email`}}
			}
			annPages := append(documents, themeless...)
			vicPages := []check{{base + "/d/" + card, `[data-testid="section-body"]`}, {base + "/d/" + faction, `[data-testid="tool-view"]`}}

			// The classic theme (the first genre's) and the pages outside a world follow the
			// reader's system: they are checked light and dark.
			runs := []string{"light"}
			if i == 0 {
				runs = append(runs, "dark")
			}
			for _, run := range runs {
				for _, width := range []int64{1366, 390} {
					t.Run(fmt.Sprint(width, run), func(t *testing.T) {
						ctx := browser(t)
						do(t, ctx, chromedp.EmulateViewport(width, 900), colorScheme(run))
						visit := func(who string, pages []check) {
							for _, p := range pages {
								do(t, ctx, chromedp.Navigate(s.URL+p.path), chromedp.WaitVisible(chromedp.CSS(p.ready)))
								name := fmt.Sprintf("%s-%s-%d-%s%s", genre, run, width, who, strings.NewReplacer("/", "_", "?", "_", " ", "-").Replace(p.path))
								accessible(t, ctx, axe, name)
								if n := eval[int](t, ctx, `Array.from(document.querySelectorAll('[data-testid="world"], [data-testid="project"]')).filter(li => getComputedStyle(li).listStyleType !== "none").length`); n > 0 {
									t.Errorf("%s: %d world cards or projects with a list bullet", name, n)
								}
							}
						}
						signInTo(t, ctx, s, ann, "/", `[data-testid="worlds"]`)
						visit("editor", annPages)
						signOut(t, ctx, s)
						visit("out", signedOut)
						signInTo(t, ctx, s, vic, base, `#documents`)
						visit("viewer", vicPages)
					})
				}
			}
		})
	}
}
