package web_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/loreweave/loreweave/app/apptest"
)

// modelWait is how long a model may take to load and show: headless Chromium draws with
// software WebGL (SwiftShader), where model-viewer's first frame takes seconds of the page's
// main thread.
const modelWait = 30 * time.Second

// TestBrowserAnimatorEditor uploads a model with two animations through the editor: its clips
// are read from the model and saved, a click on the second makes it the active clip, and a
// viewer watching sees its player switch to it without reloading, and no editing controls.
func TestBrowserAnimatorEditor(t *testing.T) {
	s := apptest.Start(t)
	ann, vic := s.NewUser("Ann Author"), s.NewUser("Vic Viewer")
	w := newWorld(t, s, ann, "Clockwork Isles")
	s.AddMember(ann, w.ID, vic, "viewer")
	an := w.doc(t, "Walker", "animator", "", "")
	path := "/w/" + w.Slug + "/d/" + an
	ctx, watcher := browser(t), browser(t)
	signInTo(t, ctx, s, ann, path, `[data-testid="animator-editor"]`)
	signInTo(t, watcher, s, vic, path, `#doc-body`)
	if n := eval[int](t, watcher, `document.querySelectorAll('[data-animator-editor], [data-play-clip], main input, main button, script[src*="editor"]').length`); n != 0 {
		t.Fatalf("a viewer sees %d editing elements", n)
	}
	noReload(t, watcher)
	streamOpen(t, watcher)

	glb := filepath.Join(t.TempDir(), "walker.glb")
	if err := os.WriteFile(glb, twoClipGLB(t, "Walk", "Run"), 0o644); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.SetUploadFiles(chromedp.CSS(`[data-testid="animator-model-file"]`), []string{glb}))
	clipsAre := `Array.from(document.querySelectorAll('[data-testid="clip"]')).map(e => e.dataset.clip).join() === "Walk,Run"`
	waitJSFor(t, ctx, modelWait, "clips read from the model", clipsAre+` && document.querySelector("[data-chooser-status]").textContent === "Saved."`)
	if got := apiClips(t, s, ann, w, an); got.Clips != "Walk,Run" || got.Model == "" {
		t.Fatalf("the API holds %+v, want the uploaded model with clips Walk,Run", got)
	}
	waitJSFor(t, watcher, modelWait, "the viewer's model and clips", clipsAre+` && document.querySelector("model-viewer").loaded`)

	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-play-clip="Run"]`)))
	waitJS(t, ctx, "Run pressed", `document.querySelector('[data-play-clip="Run"]').getAttribute("aria-pressed") === "true" &&
		document.querySelector('[data-play-clip="Walk"]').getAttribute("aria-pressed") === "false"`)
	waitJS(t, watcher, "the viewer's player plays Run", `(() => { const m = document.querySelector("model-viewer");
		return m.animationName === "Run" && !m.paused && document.querySelector('[data-clip="Run"]').getAttribute("aria-current") === "true" })()`)
	if got := apiClips(t, s, ann, w, an); got.Active != "Run" {
		t.Fatalf("the API's active clip %q, want Run", got.Active)
	}
	stillSamePage(t, watcher)
	if n := eval[int](t, watcher, `document.querySelectorAll('[data-animator-editor], [data-play-clip], main input, main button').length`); n != 0 {
		t.Fatalf("after the changes a viewer sees %d editing elements", n)
	}

	// A second model: the watcher's player, the same element, loads it and its clips show.
	eval[bool](t, watcher, `!!(window.__lwModel = document.querySelector("model-viewer"))`)
	first := apiClips(t, s, ann, w, an).Model
	glb2 := filepath.Join(t.TempDir(), "swimmer.glb")
	if err := os.WriteFile(glb2, twoClipGLB(t, "Fly", "Swim", "Rest"), 0o644); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.SetUploadFiles(chromedp.CSS(`[data-testid="animator-model-file"]`), []string{glb2}))
	waitJSFor(t, watcher, modelWait, "the viewer's player loads the second model", `(() => { const m = document.querySelector("model-viewer");
		return m === window.__lwModel && m.getAttribute("src") !== `+jsString(first)+` && m.loaded &&
			m.availableAnimations.join() === "Fly,Swim,Rest" &&
			Array.from(document.querySelectorAll('[data-testid="clip"]')).map(e => e.dataset.clip).join() === "Fly,Swim,Rest" })()`)
	if got := apiClips(t, s, ann, w, an); got.Clips != "Fly,Swim,Rest" || got.Active != "" || got.Model == first {
		t.Fatalf("after the second model the API holds %+v", got)
	}
	// Back to the first, chosen from the world's models (listed when the page is loaded).
	do(t, ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid="animator-editor"]`)),
		chromedp.SetValue(chromedp.CSS(`[data-testid="animator-model-existing"]`), first),
		chromedp.Click(chromedp.CSS(`[data-testid="animator-model-use"]`)))
	waitJSFor(t, watcher, modelWait, "the first model again", `document.querySelector("model-viewer").availableAnimations.join() === "Walk,Run" &&
		Array.from(document.querySelectorAll('[data-testid="clip"]')).map(e => e.dataset.clip).join() === "Walk,Run"`)
	stillSamePage(t, watcher)

	unnamed := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('main input, main button, main select'))
		.filter(e => !(e.getAttribute("aria-label") || (e.labels && e.labels.length) || e.textContent.trim()))
		.map(e => e.outerHTML.slice(0, 80))`)
	if len(unnamed) > 0 {
		t.Errorf("controls without a name: %v", unnamed)
	}
	if label := eval[string](t, ctx, `document.querySelector('[data-play-clip="Walk"]').getAttribute("aria-label")`); label != "Play clip Walk" {
		t.Errorf("clip button named %q", label)
	}
}

// TestBrowserAnimatorEditorLayout opens, as an editor, animators whose model was set through
// the API with a clip list the model does not have: the editor saves the model's own clips.
// It then looks at the editor on a desktop and a phone, in a light and a dark theme.
func TestBrowserAnimatorEditorLayout(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	for _, theme := range []struct{ name, genre string }{{"light", "fantasy"}, {"dark", "sci-fi"}} {
		var x struct{ ID, Slug string }
		s.Must(s.Post(ann.Key, "/api/v1/worlds", map[string]any{"name": "Automata " + theme.name, "genre": theme.genre}), http.StatusCreated).JSON(t, &x)
		w := world{s: s, u: ann, ID: x.ID, Slug: x.Slug}
		var asset struct{ URL string }
		uploadModel(t, s, ann, w.ID, "strider.glb", twoClipGLB(t, "Stride", "Leap")).JSON(t, &asset)
		an := w.doc(t, "Strider of the Brass Wastes", "animator", "", "")
		w.apply(t, an, "",
			map[string]any{"op": "animator.setModel", "url": asset.URL, "name": "Strider rig"},
			map[string]any{"op": "animator.setClips", "clips": []map[string]any{{"id": "idle"}}},
		)
		// One browser per theme: each waits for a model to load, which is slow (modelWait).
		ctx := browser(t)
		do(t, ctx, chromedp.EmulateViewport(1366, 900))
		signInTo(t, ctx, s, ann, "/w/"+x.Slug+"/d/"+an, `[data-testid="animator-editor"]`)
		waitJSFor(t, ctx, modelWait, "the model's clips saved", `Array.from(document.querySelectorAll('[data-play-clip]')).map(e => e.dataset.playClip).join() === "Stride,Leap"`)
		if got := apiClips(t, s, ann, w, an); got.Clips != "Stride,Leap" {
			t.Fatalf("%s: the API holds clips %q, want the model's Stride,Leap", theme.name, got.Clips)
		}
		do(t, ctx, chromedp.Click(chromedp.CSS(`[data-play-clip="Leap"]`)))
		waitJS(t, ctx, "Leap pressed", `document.querySelector('[data-play-clip="Leap"]').getAttribute("aria-pressed") === "true"`)
		waitJSFor(t, ctx, modelWait, "Leap plays", `document.querySelector("model-viewer").animationName === "Leap"`)
		look(t, ctx, "animator-editor-"+theme.name+"-1366")
		do(t, ctx, chromedp.EmulateViewport(390, 900))
		look(t, ctx, "animator-editor-"+theme.name+"-390")
	}
}

// animatorState is an animator's content as the API reads it: clip ids joined by commas.
type animatorState struct{ Model, Clips, Active string }

func apiClips(t *testing.T, s *apptest.Server, u apptest.User, w world, id string) animatorState {
	t.Helper()
	var got struct {
		Content struct {
			Data struct {
				Model        struct{ URL string }
				Clips        []struct{ ID string }
				ActiveClipID string
			}
		}
	}
	s.Must(s.Get(u.Key, "/api/v1/worlds/"+w.ID+"/documents/"+id), http.StatusOK).JSON(t, &got)
	d := got.Content.Data
	var ids []string
	for _, c := range d.Clips {
		ids = append(ids, c.ID)
	}
	return animatorState{Model: d.Model.URL, Clips: strings.Join(ids, ","), Active: d.ActiveClipID}
}

// uploadModel uploads a model through the REST API.
func uploadModel(t *testing.T, s *apptest.Server, u apptest.User, worldID, name string, data []byte) *apptest.Response {
	t.Helper()
	body, ctype := fileBody(t, name, data)
	return s.Must(s.Do(apptest.Request{Method: http.MethodPost, Path: "/api/v1/worlds/" + worldID + "/assets", Key: u.Key,
		Body: body, Header: http.Header{"Content-Type": {ctype}}}), http.StatusCreated)
}

// twoClipGLB builds a glTF 2.0 binary (.glb) of one triangle and one animation per name, each
// moving the triangle over a second along its own path.
func twoClipGLB(t *testing.T, names ...string) []byte {
	t.Helper()
	var bin bytes.Buffer
	put := func(fs ...float32) int {
		at := bin.Len()
		binary.Write(&bin, binary.LittleEndian, fs)
		return at
	}
	type view struct {
		Buffer     int `json:"buffer"`
		ByteOffset int `json:"byteOffset"`
		ByteLength int `json:"byteLength"`
	}
	type accessor struct {
		BufferView    int       `json:"bufferView"`
		ComponentType int       `json:"componentType"`
		Count         int       `json:"count"`
		Type          string    `json:"type"`
		Min           []float32 `json:"min,omitempty"`
		Max           []float32 `json:"max,omitempty"`
	}
	const float = 5126
	var views []view
	var accessors []accessor
	add := func(typ string, count int, min, max []float32, fs ...float32) int {
		views = append(views, view{ByteOffset: put(fs...), ByteLength: 4 * len(fs)})
		accessors = append(accessors, accessor{BufferView: len(views) - 1, ComponentType: float, Count: count, Type: typ, Min: min, Max: max})
		return len(accessors) - 1
	}
	position := add("VEC3", 3, []float32{0, 0, 0}, []float32{1, 1, 0}, 0, 0, 0, 1, 0, 0, 0, 1, 0)
	times := add("SCALAR", 2, []float32{0}, []float32{1}, 0, 1)
	var animations []any
	for i, name := range names {
		path := add("VEC3", 2, nil, nil, 0, 0, 0, float32(i+1), float32(i), 0)
		animations = append(animations, map[string]any{
			"name":     name,
			"samplers": []any{map[string]any{"input": times, "output": path}},
			"channels": []any{map[string]any{"sampler": 0, "target": map[string]any{"node": 0, "path": "translation"}}},
		})
	}
	doc, err := json.Marshal(map[string]any{
		"asset":       map[string]any{"version": "2.0"},
		"scene":       0,
		"scenes":      []any{map[string]any{"nodes": []int{0}}},
		"nodes":       []any{map[string]any{"mesh": 0, "name": "Walker"}},
		"meshes":      []any{map[string]any{"primitives": []any{map[string]any{"attributes": map[string]int{"POSITION": position}}}}},
		"buffers":     []any{map[string]any{"byteLength": bin.Len()}},
		"bufferViews": views,
		"accessors":   accessors,
		"animations":  animations,
	})
	if err != nil {
		t.Fatal(err)
	}
	for len(doc)%4 != 0 {
		doc = append(doc, ' ')
	}
	var out bytes.Buffer
	le := func(v uint32) { binary.Write(&out, binary.LittleEndian, v) }
	le(0x46546C67) // "glTF"
	le(2)
	le(uint32(12 + 8 + len(doc) + 8 + bin.Len())) // bin.Len() is a multiple of 4: float32s only
	le(uint32(len(doc)))
	le(0x4E4F534A) // "JSON"
	out.Write(doc)
	le(uint32(bin.Len()))
	le(0x004E4942) // "BIN\0"
	out.Write(bin.Bytes())
	return out.Bytes()
}
