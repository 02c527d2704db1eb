package web

import (
	"bytes"
	"html"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

// Links between documents ([[doc:ID]], [[doc:ID|text]], [[Name]]; see ops/links.go) render as
// links to the target's page showing its current name; a link whose target is deleted or not
// in the era shown renders as a visibly broken link, and one by a name no single document has
// as an unresolved one: never as an error.

// linkState is how a link resolved.
type linkState int

const (
	linkOK         linkState = iota
	linkBroken               // by id: the document is deleted or not in this era
	linkUnresolved           // by name: no document, or several, have it
)

// resolvedLink is one link as a page shows it.
type resolvedLink struct {
	State linkState
	Href  string
	Label string
	// Name is the target's name, for a broken or unresolved link the name or id written.
	Name string
}

// linkRenderer resolves links for one page: a world in an era, its links leading where
// href says. It remembers what it resolved, so a name linked ten times is looked up once.
type linkRenderer struct {
	store   *store.Store
	worldID string
	eraID   string
	href    func(docID string) string
	// asset, when set, gives the address an image of the text loads from (a wiki serves the
	// world's files to its readers at its own addresses).
	asset func(url string) string
	seen  map[string]resolvedLink
}

func newLinkRenderer(s *store.Store, worldID, eraID string, l docLinks) *linkRenderer {
	return &linkRenderer{store: s, worldID: worldID, eraID: eraID, href: l.Doc, asset: l.Asset, seen: map[string]resolvedLink{}}
}

// resolve returns how ref shows on the page.
func (r *linkRenderer) resolve(ref ops.LinkRef) resolvedLink {
	key := "id:" + ref.ID
	if ref.ID == "" {
		key = "name:" + strings.ToLower(ref.Name)
	}
	out, ok := r.seen[key]
	if !ok {
		var d store.Document
		var err error
		found := false
		if ref.ID != "" {
			d, err = r.store.Document(r.worldID, ref.ID, r.eraID)
			found = err == nil
		} else {
			d, found = r.store.DocumentNamed(r.worldID, r.eraID, ref.Name)
		}
		switch {
		case found:
			out = resolvedLink{State: linkOK, Href: r.href(d.ID), Name: d.Name}
		case ref.ID != "":
			out = resolvedLink{State: linkBroken, Name: ref.ID}
		default:
			out = resolvedLink{State: linkUnresolved, Name: ref.Name}
		}
		r.seen[key] = out
	}
	switch {
	case ref.Text != "":
		out.Label = ref.Text
	case out.State == linkOK || ref.ID == "":
		out.Label = out.Name
	default:
		out.Label = "missing document"
	}
	return out
}

// html writes a link as the page shows it.
func (l resolvedLink) html() string {
	label := html.EscapeString(l.Label)
	switch l.State {
	case linkOK:
		return `<a class="doclink" href="` + html.EscapeString(l.Href) + `">` + label + `</a>`
	case linkBroken:
		return `<span class="doclink doclink-broken" title="Broken link: this document was deleted or is not in this era">` + label + `</span>`
	default:
		return `<span class="doclink doclink-unresolved" title="` + html.EscapeString(`No single document is named “`+l.Name+`”`) + `">` + label + `</span>`
	}
}

// linksHTML renders a plain text (a timeline event's description) with its links.
func (r *linkRenderer) linksHTML(s string) string {
	if r == nil || !strings.Contains(s, "[[") {
		return html.EscapeString(s)
	}
	var b strings.Builder
	last := 0
	for _, ref := range ops.ParseLinks(s) {
		b.WriteString(html.EscapeString(s[last:ref.Start]))
		b.WriteString(r.resolve(ref).html())
		last = ref.End
	}
	b.WriteString(html.EscapeString(s[last:]))
	return b.String()
}

// markdown renders Markdown src (sanitised, see renderMarkdown) with its links.
func (r *linkRenderer) markdown(md goldmark.Markdown, src string) string {
	if r == nil || !strings.Contains(src, "[[") && (r.asset == nil || !strings.Contains(src, "![")) {
		return renderMarkdown(md, src)
	}
	pc := parser.NewContext()
	pc.Set(linkRendererKey, r)
	var buf bytes.Buffer
	if err := md.Convert([]byte(src), &buf, parser.WithContext(pc)); err != nil {
		return "<p>" + html.EscapeString(src) + "</p>"
	}
	return ugc.Sanitize(buf.String())
}

var linkRendererKey = parser.NewContextKey()

// docLinkNode is a [[…]] link in a Markdown text, resolved when parsed.
type docLinkNode struct {
	ast.BaseInline
	link resolvedLink
}

var kindDocLink = ast.NewNodeKind("DocLink")

// Kind implements ast.Node.
func (n *docLinkNode) Kind() ast.NodeKind { return kindDocLink }

// Dump implements ast.Node.
func (n *docLinkNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"Label": n.link.Label}, nil)
}

// docLinkParser reads [[…]] before goldmark's link parser sees the brackets. Without a
// linkRenderer in the parser context (a text rendered without links) it leaves them alone.
type docLinkParser struct{}

// Trigger implements parser.InlineParser.
func (docLinkParser) Trigger() []byte { return []byte{'['} }

// Parse implements parser.InlineParser.
func (docLinkParser) Parse(_ ast.Node, block text.Reader, pc parser.Context) ast.Node {
	r, _ := pc.Get(linkRendererKey).(*linkRenderer)
	if r == nil {
		return nil
	}
	line, _ := block.PeekLine()
	if !bytes.HasPrefix(line, []byte("[[")) {
		return nil
	}
	refs := ops.ParseLinks(string(line))
	if len(refs) == 0 || refs[0].Start != 0 {
		return nil
	}
	block.Advance(refs[0].End)
	return &docLinkNode{link: r.resolve(refs[0])}
}

// assetImages gives each image of a text the address the page's readers load it from
// (linkRenderer.asset), after sameOriginImages kept only this server's.
type assetImages struct{}

// Transform implements parser.ASTTransformer.
func (assetImages) Transform(doc *ast.Document, _ text.Reader, pc parser.Context) {
	r, _ := pc.Get(linkRendererKey).(*linkRenderer)
	if r == nil || r.asset == nil {
		return
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if img, ok := n.(*ast.Image); ok && entering {
			img.Destination = []byte(r.asset(string(img.Destination)))
		}
		return ast.WalkContinue, nil
	})
}

// docLinkHTML renders docLinkNodes.
type docLinkHTML struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (docLinkHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindDocLink, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(n.(*docLinkNode).link.html())
		}
		return ast.WalkSkipChildren, nil
	})
}

// docLinkClass is the class attribute the link renderer writes, which the sanitiser keeps.
var docLinkClass = regexp.MustCompile(`^doclink( doclink-(broken|unresolved))?$`)
