package web

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
	"github.com/loreweave/loreweave/views"
)

// Documents of tool types (docs/TOOLS.md): read as the type's form lays them out, edited
// with the generic editor (static/js/tool_editor.js) built from the same form.

// maxLinkChoices bounds the documents a link field of the generic editor offers.
const maxLinkChoices = 2000

// toolBody fills in b, the body view of a document of a type that is not built in: its
// fields when its tool is installed, else its stored text with a note saying why.
func (w *Web) toolBody(world store.World, d store.Document, eraID string, b views.DocumentBody, c store.Content, l docLinks) views.DocumentBody {
	tt, ok := w.Store.ToolType(world.ID, d.DocumentType)
	if !ok || c.Source == "stored" {
		b.ToolMissing = true
		return b
	}
	doc, err := tt.Decode(c.Data)
	if err != nil {
		return b // data that no longer decodes: its text projection
	}
	b.Tool = w.toolView(world, eraID, tt, ops.ToolData(doc), l)
	return b
}

// toolView writes out a tool document's data, its links as l builds them.
func (w *Web) toolView(world store.World, eraID string, tt *ops.ToolType, data map[string]any, l docLinks) *views.ToolView {
	return &views.ToolView{Blocks: toolBlocks(tt.Form(), data, newLinkRenderer(w.Store, world.ID, eraID, l))}
}

// toolBlocks writes out data as the fields lay it out: scalars grouped into runs of facts,
// other fields each a block of its own.
func toolBlocks(fields []ops.FormField, data map[string]any, links *linkRenderer) []views.ToolBlock {
	var out []views.ToolBlock
	for _, f := range fields {
		v := toolField(f, data[f.Key], links)
		switch f.Kind {
		case "markdown", "list", "object":
			out = append(out, views.ToolBlock{Field: &v})
		default:
			if n := len(out); n > 0 && out[n-1].Field == nil {
				out[n-1].Facts = append(out[n-1].Facts, v)
			} else {
				out = append(out, views.ToolBlock{Facts: []views.ToolFieldView{v}})
			}
		}
	}
	return out
}

// toolField writes out one field's value.
func toolField(f ops.FormField, value any, links *linkRenderer) views.ToolFieldView {
	v := views.ToolFieldView{Key: f.Key, Label: cmp.Or(f.Label, f.Key), Kind: f.Kind}
	switch f.Kind {
	case "markdown":
		if s, _ := value.(string); strings.TrimSpace(s) != "" {
			v.HTML = links.markdown(sectionMarkdown, s)
		}
	case "link":
		if id, _ := value.(string); id != "" {
			r := links.resolve(ops.LinkRef{ID: id})
			if r.State == linkOK {
				v.Text, v.Href = r.Name, r.Href
			} else {
				v.Broken = true
			}
		}
	case "values":
		list, _ := value.([]any)
		for _, x := range list {
			v.Values = append(v.Values, scalarText(x))
		}
	case "object":
		m, _ := value.(map[string]any)
		v.Blocks = toolBlocks(f.Fields, m, links)
	case "list":
		list, _ := value.([]any)
		for _, x := range list {
			m, _ := x.(map[string]any)
			id, _ := m["id"].(string)
			v.Items = append(v.Items, views.ToolItemView{ID: id, Blocks: toolBlocks(f.Fields, m, links)})
		}
	case "boolean":
		if b, _ := value.(bool); b {
			v.Text = "yes"
		} else {
			v.Text = "no"
		}
	default:
		v.Text = scalarText(value)
	}
	return v
}

// scalarText writes a scalar as a reader sees it.
func scalarText(x any) string {
	switch x := x.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "yes"
		}
		return "no"
	}
	b, _ := json.Marshal(x)
	return string(b)
}

// toolEditor is what the generic editor needs: where it writes, the type's form, the data it
// starts from and the documents its link fields can choose.
func (w *Web) toolEditor(world store.World, d store.Document, eraID, csrf, nonce string, tt *ops.ToolType) (*views.ToolEditorView, error) {
	c, err := w.Store.Content(d, eraID)
	if err != nil {
		return nil, err
	}
	doc, err := tt.Decode(c.Data)
	if err != nil {
		return nil, nil // data that no longer decodes: the page stays read-only
	}
	docs, _, err := w.Store.Documents(world.ID, store.DocumentFilter{EraID: eraID}, store.Page{Page: 1, PerPage: maxLinkChoices})
	if err != nil {
		return nil, err
	}
	choices := make([]views.DocumentOption, 0, len(docs))
	for _, x := range docs {
		if x.ID != d.ID {
			choices = append(choices, views.DocumentOption{ID: x.ID, Name: x.Name, Type: x.DocumentType})
		}
	}
	slices.SortFunc(choices, func(a, b views.DocumentOption) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), cmp.Compare(a.ID, b.ID))
	})
	return &views.ToolEditorView{
		ContentURL:  editURL(world, d, eraID, "content"),
		DocumentAPI: "/api/v1/worlds/" + world.ID + "/documents/" + d.ID + eraQuery(eraID),
		CSRF:        csrf,
		StyleNonce:  nonce,
		Title:       cmp.Or(tt.Title, tt.Name),
		Data: views.ToolEditorData{Version: c.Version, Type: tt.Name, Fields: tt.Form(), Data: ops.ToolData(doc),
			Documents: choices, DocumentPage: "/w/" + world.Slug + "/d/{id}" + eraQuery(eraID)},
	}, nil
}
