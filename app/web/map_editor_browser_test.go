package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loreweave/loreweave/app/apptest"
)

// pngFile writes a w×h PNG to a temp file and returns its path: plain colour bands, or noise
// (which does not compress) when noisy.
func pngFile(t *testing.T, name string, w, h int, noisy bool) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			c := color.RGBA{uint8(120 + y*60/h), uint8(150 + x*40/w), 140, 255}
			if noisy {
				c = color.RGBA{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)), 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return tempFile(t, name, buf.Bytes())
}

func tempFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type mapPin struct {
	ID, Label, DocumentID string
	X, Y                  float64
}

func mapData(t *testing.T, s *apptest.Server, key, worldID, docID string) (data struct {
	Image struct {
		URL           string
		Width, Height int
	}
	Pins []mapPin
}) {
	t.Helper()
	var got struct {
		Content struct{ Data json.RawMessage }
	}
	s.Must(s.Get(key, "/api/v1/worlds/"+worldID+"/documents/"+docID), http.StatusOK).JSON(t, &got)
	if err := json.Unmarshal(got.Content.Data, &data); err != nil {
		t.Fatal(err)
	}
	return data
}

// waitFor polls ok until it holds, for up to ten seconds.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !ok(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// pinAt is the page position of the pin with this label, for clicks and drags, with the whole
// image in view.
func pinAt(t *testing.T, ctx context.Context, label string) (x, y float64) {
	t.Helper()
	p := eval[[]float64](t, ctx, `(() => {
		const st = document.querySelector("[data-map]")._loreweaveMap;
		st.map.fitBounds([[0, 0], [st.h, st.w]], {animate: false});
		const el = Array.from(document.querySelectorAll(".leaflet-marker-icon")).find(m => m.title === `+jsString(label)+`);
		const r = el.getBoundingClientRect();
		return [r.left + r.width / 2, r.top + r.height - 4];
	})()`)
	return p[0], p[1]
}

// mapPoint is the page position of pixel (x, y) of the map's image, with the whole image in
// view (a popup may have panned it).
func mapPoint(t *testing.T, ctx context.Context, x, y float64) (float64, float64) {
	t.Helper()
	p := eval[[]float64](t, ctx, `(() => {
		const el = document.querySelector("[data-map]"), st = el._loreweaveMap;
		st.map.fitBounds([[0, 0], [st.h, st.w]], {animate: false});
		const pt = st.map.latLngToContainerPoint([st.h - `+fmt.Sprint(y)+`, `+fmt.Sprint(x)+`]);
		const r = el.getBoundingClientRect();
		return [r.left + pt.x, r.top + pt.y];
	})()`)
	return p[0], p[1]
}

// TestBrowserMapEditor uploads a map's image in the browser, adds three pins by clicking,
// drags one and moves one with the keyboard, links one to a card and follows it from its
// popup, removes one; the API holds exactly that, a viewer watching sees each change without
// reloading, and uploads that are too large or not what their name says are refused in words.
func TestBrowserMapEditor(t *testing.T) {
	s := apptest.Start(t, apptest.WithUploadLimits(64<<10, 1<<20))
	ann, vic, oz := s.NewUser("Ann Author"), s.NewUser("Vic Viewer"), s.NewUser("Oz Outsider")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, vic, "viewer")
	m := w.doc(t, "Old Coast", "map", "", "")
	harbour := w.doc(t, "Harbour Town", "card", "", "")
	path := "/w/" + w.Slug + "/d/" + m
	ctx, watcher := browser(t), browser(t)
	signInTo(t, ctx, s, ann, path, `[data-testid="map-editor"]`)
	signInTo(t, watcher, s, vic, path, `#doc-body`)
	noReload(t, watcher)
	if got := eval[string](t, watcher, `Array.from(document.querySelectorAll('[data-map-editor], main input, main button, script[src*="write"]')).map(e => e.outerHTML.slice(0, 120)).join(" | ")`); got != "" {
		t.Fatalf("a viewer sees editing elements: %s", got)
	}

	// Refused uploads say why next to the control and store nothing.
	upload := func(file string) {
		t.Helper()
		do(t, ctx, chromedp.SetUploadFiles(chromedp.CSS(`[data-testid="map-image-file"]`), []string{file}))
	}
	upload(tempFile(t, "notes.png", []byte("These are my notes, not a picture.\n")))
	waitJS(t, ctx, "wrong type refused", `document.querySelector('[data-testid="map-image-error"]').textContent.includes("text/plain")`)
	upload(pngFile(t, "huge.png", 300, 300, true))
	waitJS(t, ctx, "oversize refused", `document.querySelector('[data-testid="map-image-error"]').textContent.includes("larger than")`)
	if n := s.Count("assets", ""); n != 0 {
		t.Fatalf("refused uploads stored %d assets", n)
	}

	// The image: uploaded, read for its size, set on the map.
	upload(pngFile(t, "coast.png", 800, 600, false))
	waitJS(t, ctx, "map drawn", `document.querySelector(".leaflet-image-layer") !== null && !document.querySelector("[data-map]").hidden`)
	waitJS(t, watcher, "map seen", `document.querySelector(".leaflet-image-layer") !== null`)
	data := mapData(t, s, ann.Key, w.ID, m)
	if data.Image.Width != 800 || data.Image.Height != 600 || !strings.HasPrefix(data.Image.URL, "/api/v1/worlds/"+w.ID+"/assets/") {
		t.Fatalf("image %+v", data.Image)
	}
	// Only members get the file.
	s.Must(s.Get(oz.Key, data.Image.URL), http.StatusNotFound)
	s.Must(s.Get(vic.Key, data.Image.URL), http.StatusOK)

	// Three pins, by clicking on the image; each opens its panel with the label to type.
	for i, label := range []string{"Harbour", "Lighthouse", "Wreck"} {
		x, y := mapPoint(t, ctx, float64(150+i*200), float64(200+i*100))
		do(t, ctx, chromedp.MouseClickXY(x, y))
		waitJS(t, ctx, "new pin's panel", `document.activeElement === document.querySelector('[data-testid="pin-label"]') && document.activeElement.value === "New pin"`)
		do(t, ctx, chromedp.KeyEvent(label), chromedp.KeyEvent(kb.Enter), chromedp.KeyEvent(kb.Escape))
		waitJS(t, ctx, "panel closed, focus on the pin", `document.querySelector(".leaflet-popup") === null && document.activeElement.classList.contains("leaflet-marker-icon")`)
		waitJS(t, watcher, "pin seen", `Array.from(document.querySelectorAll('[data-testid="pin"]')).some(p => p.textContent.includes(`+jsString(label)+`))`)
	}
	data = mapData(t, s, ann.Key, w.ID, m)
	if len(data.Pins) != 3 || data.Pins[1].Label != "Lighthouse" || math.Abs(data.Pins[1].X-350) > 3 || math.Abs(data.Pins[1].Y-300) > 3 {
		t.Fatalf("pins %+v", data.Pins)
	}

	// Drag the wreck; the API has it where it was dropped.
	x1, y1 := mapPoint(t, ctx, 700, 100)
	x0, y0 := pinAt(t, ctx, "Wreck")
	drag := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(chromedp.MousePressed, x0, y0, chromedp.ButtonType(input.MouseButtonLeft), chromedp.ClickCount(1))}
	for i := 1; i <= 10; i++ {
		f := float64(i) / 10
		drag = append(drag, chromedp.MouseEvent(chromedp.MouseMoved, x0+(x1-x0)*f, y0+(y1-y0)*f, chromedp.ButtonType(input.MouseButtonLeft)))
	}
	drag = append(drag, chromedp.MouseEvent(chromedp.MouseReleased, x1, y1, chromedp.ButtonType(input.MouseButtonLeft), chromedp.ClickCount(1)))
	do(t, ctx, drag...)
	waitFor(t, "drag saved", func() bool {
		p := findPin(mapData(t, s, ann.Key, w.ID, m).Pins, "Wreck")
		return math.Abs(p.X-700) < 25 && math.Abs(p.Y-100) < 25
	})

	// The keyboard moves a focused pin: three steps right (1% of the image's short side each).
	before := findPin(mapData(t, s, ann.Key, w.ID, m).Pins, "Lighthouse")
	do(t, ctx, chromedp.Focus(chromedp.CSS(`.leaflet-marker-icon[title="Lighthouse"]`)),
		chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight))
	waitFor(t, "keyboard move saved", func() bool {
		p := findPin(mapData(t, s, ann.Key, w.ID, m).Pins, "Lighthouse")
		return p.X == before.X+18 && p.Y == before.Y
	})

	// Link the harbour to its card through the search-as-you-type picker.
	hx, hy := pinAt(t, ctx, "Harbour")
	do(t, ctx, chromedp.MouseClickXY(hx, hy))
	// Clicked again while the panel is not open: the page's own earlier write coming back
	// live can redraw the markers under a click (seen once in CI, on a busy machine).
	waitJS(t, ctx, "harbour's panel", `(() => {
		const label = document.querySelector('.leaflet-popup [data-testid="pin-label"]');
		if (label) return label.value === "Harbour";
		if (!(Date.now() - (window.lastPinClick || 0) < 500)) {
			window.lastPinClick = Date.now();
			document.querySelector('.leaflet-marker-icon[title="Harbour"]').click();
		}
		return false;
	})()`)
	eval[bool](t, ctx, `document.querySelector('[data-testid="pin-link"]').focus() || true`)
	do(t, ctx, chromedp.KeyEvent("Harb"))
	waitJS(t, ctx, "picker finds the card", `Array.from(document.querySelectorAll('[data-testid="pin-link-option"]')).some(o => o.textContent.includes("Harbour Town"))`)
	do(t, ctx, chromedp.KeyEvent(kb.Enter))
	waitFor(t, "link saved", func() bool { return findPin(mapData(t, s, ann.Key, w.ID, m).Pins, "Harbour").DocumentID == harbour })
	waitJS(t, ctx, "link named", `document.querySelector('[data-testid="pin-link-current"] a')?.textContent === "Harbour Town"`)
	look(t, ctx, "map-editor-1366")

	// The viewer follows it from the pin's popup.
	vx, vy := pinAt(t, watcher, "Harbour")
	do(t, watcher, chromedp.MouseClickXY(vx, vy))
	waitJS(t, watcher, "popup", `document.querySelector(".leaflet-popup a")?.textContent === "Harbour"`)
	do(t, watcher, chromedp.Click(chromedp.CSS(`.leaflet-popup a`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="doc-title"]`)))
	waitJS(t, watcher, "on the card", `location.pathname.endsWith(`+jsString("/d/"+harbour)+`)`)
	do(t, watcher, chromedp.Navigate(s.URL+path), chromedp.WaitVisible(chromedp.CSS(`.leaflet-image-layer`)))
	noReload(t, watcher)

	// An image too small for the pins is refused in words, naming the pin.
	eval[bool](t, ctx, `document.querySelector('[data-testid="pin-done"]').click() || true`)
	upload(pngFile(t, "small.png", 200, 150, false))
	waitJS(t, ctx, "too small refused", `document.querySelector('[data-testid="map-image-error"]').textContent.includes("too small")`)
	if got := mapData(t, s, ann.Key, w.ID, m).Image.Width; got != 800 {
		t.Fatalf("the refused image was set: width %d", got)
	}

	// Without a mouse: a pin added in the middle of the view, its label typed.
	do(t, ctx, chromedp.Focus(chromedp.CSS(`[data-testid="pin-add-middle"]`)), chromedp.KeyEvent(kb.Enter))
	waitJS(t, ctx, "middle pin's panel", `document.activeElement === document.querySelector('[data-testid="pin-label"]') && document.activeElement.value === "New pin"`)
	do(t, ctx, chromedp.KeyEvent("Beacon"), chromedp.KeyEvent(kb.Enter), chromedp.KeyEvent(kb.Escape))
	waitJS(t, watcher, "beacon seen", `Array.from(document.querySelectorAll('[data-testid="pin"]')).some(p => p.textContent.includes("Beacon"))`)

	// Remove the wreck, after a confirmation naming it.
	wx, wy := pinAt(t, ctx, "Wreck")
	do(t, ctx, chromedp.MouseClickXY(wx, wy))
	waitJS(t, ctx, "wreck's panel", `document.querySelector('.leaflet-popup [data-testid="pin-label"]').value === "Wreck"`)
	// (Clicked by script: Leaflet puts the popup's content back in place as it opens, which
	// can leave chromedp holding a node that was taken out.)
	eval[bool](t, ctx, `document.querySelector('.leaflet-popup [data-testid="pin-remove"]').click() || true`)
	waitJS(t, ctx, "confirmation", `document.querySelector("#pin-remove-dialog").open && document.querySelector("#pin-remove-dialog [data-pin-name]").textContent === "Wreck"`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="pin-remove-confirm"]`)))
	waitJS(t, watcher, "removal seen", `document.querySelectorAll('[data-testid="pin"]').length === 3 && document.querySelectorAll(".leaflet-marker-icon").length === 3`)
	stillSamePage(t, watcher)
	data = mapData(t, s, ann.Key, w.ID, m)
	if len(data.Pins) != 3 || findPin(data.Pins, "Wreck").ID != "" || findPin(data.Pins, "Beacon").ID == "" {
		t.Fatalf("pins after removal %+v", data.Pins)
	}

	// The world page counts the world's files: the coast and the refused small image.
	do(t, ctx, chromedp.Navigate(s.URL+"/w/"+w.Slug), chromedp.WaitVisible(chromedp.CSS(`[data-testid="files-total"]`)))
	if got := eval[string](t, ctx, `document.querySelector('[data-testid="files-total"]').textContent.replace(/\s+/g, " ").trim()`); !strings.HasPrefix(got, "2 files, ") {
		t.Fatalf("files total %q", got)
	}
	if got := eval[string](t, ctx, `Array.from(document.querySelectorAll('[data-testid="file"] a')).map(a => a.textContent.trim()).join()`); got != "coast.png,small.png" {
		t.Fatalf("files listed %q", got)
	}
	look(t, ctx, "world-files-1366")
	do(t, ctx, chromedp.Navigate(s.URL+path), chromedp.WaitVisible(chromedp.CSS(`.leaflet-image-layer`)))

	// Phone width, light and dark.
	do(t, ctx, chromedp.EmulateViewport(390, 900))
	look(t, ctx, "map-editor-390")
	eval[string](t, ctx, `document.documentElement.dataset.theme = "starlight"`)
	look(t, ctx, "map-editor-390-dark")
}

func findPin(pins []mapPin, label string) mapPin {
	for _, p := range pins {
		if p.Label == label {
			return p
		}
	}
	return mapPin{}
}
