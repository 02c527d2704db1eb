package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loreweave/loreweave/app/apptest"
)

// TestBrowserTimelineEditor adds events from the deep past to the far future in the browser,
// edits one and removes one; the API holds exactly those events, and a second browser watching
// sees each change without reloading.
func TestBrowserTimelineEditor(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann Author")
	w := newWorld(t, s, ann, "Tidewater")
	tl := w.doc(t, "Ages", "timeline", "", "")
	path := "/w/" + w.Slug + "/d/" + tl
	ctx, watcher := browser(t), browser(t)
	signInTo(t, ctx, s, ann, path, `[data-testid="timeline-editor"] [data-testid="add-event-label"]`)
	signInTo(t, watcher, s, ann, path, `#doc-body`)
	noReload(t, watcher)

	addEvent := func(label, date, precision, shown string) {
		t.Helper()
		do(t, ctx,
			chromedp.SendKeys(chromedp.CSS(`[data-testid="add-event-label"]`), label),
			chromedp.SendKeys(chromedp.CSS(`[data-testid="add-event-date"]`), date),
			chromedp.SetValue(chromedp.CSS(`[data-testid="add-event-precision"]`), precision),
		)
		// The date is shown as the pages will print it before anything is saved.
		waitJS(t, ctx, "date shown", `document.querySelector('[data-testid="add-date-shown"]').textContent.startsWith(`+jsString("Shown as: "+shown)+`)`)
		do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="event-add"]`)))
		waitJS(t, ctx, "added", `Array.from(document.querySelectorAll('[data-testid="event-label"]')).some(e => e.textContent === `+jsString(label)+`)`)
		waitJS(t, watcher, "seen by the watcher", `Array.from(document.querySelectorAll('[data-testid="event-label"]')).some(e => e.textContent === `+jsString(label)+`)`)
	}
	addEvent("The first tides", "3,000,000 BCE", "millennium", "3000th millennium BCE")
	addEvent("The drowning of Ys", "12 March 512 BCE", "", "12 March 512 BCE")
	addEvent("The last star", "4 May 287,000, 14:30", "", "4 May 287,000, 14:30")
	addEvent("A mistake", "1999", "", "1999")

	// A date that does not exist is refused in words, and nothing is added.
	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`[data-testid="add-event-label"]`), "Nope"),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="add-event-date"]`), "31 February 1999"),
		chromedp.Click(chromedp.CSS(`[data-testid="event-add"]`)),
	)
	waitJS(t, ctx, "refusal", `document.querySelector('[data-timeline-editor] .field-error').textContent.includes("does not exist")`)

	// Edit: the drowning moves to a century.
	do(t, ctx, chromedp.Click(chromedp.CSS(`li[data-testid="event"]:nth-child(2) [data-edit-event]`)))
	waitJS(t, ctx, "edit dialog", `document.querySelector("#event-dialog").open && document.querySelector('[data-testid="edit-event-date"]').value === "12 March 512 BCE"`)
	do(t, ctx,
		chromedp.SetValue(chromedp.CSS(`[data-testid="edit-event-precision"]`), "century"),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="edit-event-label"]`), " (legend)"),
	)
	waitJS(t, ctx, "edited date shown", `document.querySelector('[data-testid="edit-date-shown"]').textContent.startsWith("Shown as: 6th century BCE")`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="event-save"]`)))
	waitJS(t, watcher, "edit seen", `Array.from(document.querySelectorAll('[data-testid="event-date"]')).some(e => e.textContent === "6th century BCE")`)

	// Remove the mistake, after a confirmation naming it.
	do(t, ctx, chromedp.Click(chromedp.CSS(`li[data-testid="event"]:nth-child(3) [data-remove-event]`)))
	waitJS(t, ctx, "confirmation", `document.querySelector("#event-remove-dialog").open && document.querySelector("[data-event-name]").textContent === "A mistake"`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="event-remove-confirm"]`)))
	waitJS(t, watcher, "removal seen", `document.querySelectorAll('[data-testid="event"]').length === 3`)
	stillSamePage(t, watcher)

	// The axis draws the three events, spans for the coarse ones, across 3,287,000 years, and
	// follows the list live.
	waitJS(t, watcher, "axis", `document.querySelectorAll('[data-testid="timeline-axis"] .axis-event').length === 3 &&
		document.querySelectorAll('[data-testid="timeline-axis"] .axis-span').length >= 1`)
	label := eval[string](t, ctx, `document.querySelector(".axis").getAttribute("aria-label")`)
	look(t, ctx, "timeline-axis-fit")
	if !strings.Contains(label, "BCE") || !strings.Contains(label, "3 events") {
		t.Fatalf("axis label %q", label)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-axis="in"]`)), chromedp.Focus(chromedp.CSS(`.axis`)), chromedp.KeyEvent(kb.ArrowRight))
	if got := eval[string](t, ctx, `document.querySelector(".axis").getAttribute("aria-label")`); got == label {
		t.Fatalf("zoom and pan changed nothing: %q", got)
	}
	look(t, ctx, "timeline-editor-1366")
	do(t, ctx, chromedp.EmulateViewport(390, 900))
	look(t, ctx, "timeline-editor-390")
	// Clicked again while the dialog is not open: a live swap of the list (the page's own
	// earlier writes coming back) can replace the button under a click.
	waitJS(t, ctx, "edit dialog", `(() => {
		const d = document.querySelector("#event-dialog");
		if (!d.open) document.querySelector('li[data-testid="event"]:nth-child(1) [data-edit-event]').click();
		return d.open;
	})()`)
	look(t, ctx, "timeline-editor-dialog-390")

	var got struct {
		Content struct {
			Data struct {
				Events []struct {
					Label, Precision string
					DateMs           int64
				}
			}
		}
	}
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+tl), http.StatusOK).JSON(t, &got)
	ms := func(y int, mo time.Month, d, h, mi int) int64 {
		return time.Date(y, mo, d, h, mi, 0, 0, time.UTC).UnixMilli()
	}
	want := []struct {
		label, precision string
		dateMs           int64
	}{
		{"The first tides", "millennium", ms(-2999999, time.January, 1, 0, 0)},
		{"The drowning of Ys (legend)", "century", ms(-511, time.March, 12, 0, 0)},
		{"The last star", "minute", ms(287000, time.May, 4, 14, 30)},
	}
	evs := got.Content.Data.Events
	if len(evs) != len(want) {
		t.Fatalf("events %+v", evs)
	}
	for i, w := range want {
		if evs[i].Label != w.label || evs[i].Precision != w.precision || evs[i].DateMs != w.dateMs {
			t.Errorf("event %d = %+v, want %+v", i, evs[i], w)
		}
	}
}

// TestBrowserTimelineEventRemovedWhileEdited: Bob is editing an event when Ann removes it.
// Saving tells him so in words (not an id) and, saved again, adds it back as he wrote it.
func TestBrowserTimelineEventRemovedWhileEdited(t *testing.T) {
	s := apptest.Start(t)
	ann, bob := s.NewUser("Ann Author"), s.NewUser("Bob Builder")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, bob, "editor")
	tl := w.doc(t, "Ages", "timeline", "", "")
	var added struct{ Created []struct{ ID string } }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+tl+"/content", map[string]any{"ops": []any{
		map[string]any{"op": "timeline.addEvent", "label": "The Long Tide", "dateMs": 0}}}), http.StatusOK).JSON(t, &added)
	ctx := browser(t)
	signInTo(t, ctx, s, bob, "/w/"+w.Slug+"/d/"+tl, `[data-edit-event]`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-edit-event]`)))
	waitJS(t, ctx, "edit dialog", `document.querySelector("#event-dialog").open`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`[data-testid="edit-event-description"]`), "The sea rose for a year."))
	w.apply(t, tl, "", map[string]any{"op": "timeline.removeEvent", "id": added.Created[0].ID})
	waitJS(t, ctx, "removal seen", `document.querySelectorAll('[data-testid="event"]').length === 0`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="event-save"]`)))
	waitJS(t, ctx, "told in words", `document.querySelector("#event-dialog").open &&
		document.querySelector("#event-dialog .field-error").textContent.startsWith("Someone else removed this event while you were editing it")`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid="event-save"]`)))
	waitJS(t, ctx, "added back", `!document.querySelector("#event-dialog").open &&
		Array.from(document.querySelectorAll('[data-testid="event-label"]')).map(e => e.textContent).join() === "The Long Tide"`)
	var got struct {
		Content struct {
			Data struct {
				Events []struct{ Label, Description string }
			}
		}
	}
	s.Must(s.Get(ann.Key, "/api/v1/worlds/"+w.ID+"/documents/"+tl), http.StatusOK).JSON(t, &got)
	if ev := got.Content.Data.Events; len(ev) != 1 || ev[0].Description != "The sea rose for a year." {
		t.Fatalf("events %+v", ev)
	}
}
