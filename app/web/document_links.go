package web

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/search"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
	"github.com/loreweave/loreweave/views"
)

// previewChars bounds the text a link preview shows, in characters.
const previewChars = 300

// previewSource bounds the Markdown read for a preview (before its links are given their
// names and its marks dropped), in bytes: a few times what is shown is plenty.
const previewSource = 4 * previewChars

// linkEditor is what the card and folder editors need for links: where the picker searches
// and creates, and the current names of the documents d's text links by id (those not
// visible in the era are listed as missing, shown as broken).
func (w *Web) linkEditor(world store.World, d store.Document, eraID, csrf string) (*views.LinkEditorData, error) {
	c, err := w.Store.Content(d, eraID)
	if err != nil {
		return nil, err
	}
	base := "/api/v1/worlds/" + world.ID
	v := &views.LinkEditorData{
		SearchURL:    base + "/search" + eraQuery(eraID),
		ListURL:      base + "/documents" + eraQuery(eraID),
		DocumentAPI:  base + "/documents/{id}" + eraQuery(eraID),
		DocumentPage: "/w/" + world.Slug + "/d/{id}" + eraQuery(eraID),
		CreateURL:    "/w/" + world.Slug + "/documents" + eraQuery(eraID),
		CSRF:         csrf,
		Self:         d.ID,
		Names:        map[string]string{},
		Missing:      []string{},
	}
	doc, err := w.Store.Decode(d, c.Data)
	if err != nil {
		return v, nil // an unreadable document shows its links by id until they are named
	}
	for _, l := range ops.DocumentLinks(doc) {
		if l.TargetID == "" {
			continue
		}
		if t, err := w.Store.Document(world.ID, l.TargetID, eraID); err == nil {
			v.Names[l.TargetID] = t.Name
		} else {
			v.Missing = append(v.Missing, l.TargetID)
		}
	}
	return v, nil
}

// documentPreview answers GET /w/{slug}/d/{id}/preview[?era=]: a small fragment about the
// document (name, type, the start of its text) that pages show when a link to it is hovered
// or focused. Members only, like the document page; a viewer's preview leaves secret parts
// out.
func (w *Web) documentPreview(e *core.RequestEvent) error {
	pl, err := w.place(e)
	if pl == nil {
		return err
	}
	d, err := w.Store.Document(pl.world.ID, e.Request.PathValue("id"), pl.eraID)
	if err != nil {
		return w.notFound(e)
	}
	c, err := w.Store.Content(d, pl.eraID)
	if err != nil {
		return err
	}
	if !store.CanEdit(pl.role) {
		c = c.Public(d)
	}
	name := func(id string) string {
		if t, err := w.Store.Document(pl.world.ID, id, pl.eraID); err == nil {
			return t.Name
		}
		return ""
	}
	doc, _ := w.Store.Decode(d, c.Data) // nil when it cannot be read: its text shows
	v := views.DocumentPreviewView{Name: d.Name, DocumentType: d.DocumentType}
	v.Text = previewText(d, doc, c.Text, name)
	if card, ok := doc.(*ops.Card); ok && card.Name != "" {
		v.Name = card.Name
	}
	return render(e, http.StatusOK, views.DocumentPreview(v))
}

// previewText is the start of what a reader sees of a document: a card's sections, a folder's
// description, else its plain text without the leading name. Links show their labels.
func previewText(d store.Document, doc ops.Document, text string, name func(id string) string) string {
	var src string
	markdown := false
	switch x := doc.(type) {
	case *ops.Card:
		var parts []string
		for _, s := range x.Sections {
			parts = append(parts, s.Body)
			if len(strings.Join(parts, "\n\n")) > previewSource {
				break
			}
		}
		src, markdown = strings.Join(parts, "\n\n"), true
	case *ops.Folder:
		src, markdown = x.Description, true
	default:
		src = strings.TrimPrefix(strings.TrimPrefix(text, d.Name), "\n")
	}
	if len(src) > previewSource {
		// Cut on a character, and before a link the cut would split.
		cut := previewSource
		for cut > 0 && !utf8.RuneStart(src[cut]) {
			cut--
		}
		src = src[:cut]
		if i := strings.LastIndex(src, "[["); i >= 0 && !strings.Contains(src[i:], "]]") {
			src = src[:i]
		}
	}
	src = ops.LinkLabels(src, name)
	if markdown {
		src = search.PlainMarkdown(src)
	}
	return clip(strings.Join(strings.Fields(src), " "), previewChars)
}

// clip cuts s to at most n characters (runes), ending with "…" when it cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return strings.TrimSpace(s[:k]) + "…"
		}
		i++
	}
	return s
}
