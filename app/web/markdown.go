package web

import (
	"bytes"
	"html"
	"net/url"
	"regexp"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdownAt returns a converter of Markdown whose shallowest heading becomes an h<top>, so a
// text's outline continues the page's without a gap (a "##" under an h2 section title is an
// h3, not an h4). Raw HTML in the source is dropped by goldmark (no html.WithUnsafe) and
// everything it outputs is sanitised again by bluemonday's UGC policy, so a body can never
// carry a script, an event handler or a javascript: link. Images from other hosts become
// links (sameOriginImages).
func markdownAt(top int) goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithASTTransformers(
			util.Prioritized(headingShift{top: top}, 100),
			util.Prioritized(sameOriginImages{}, 100),
			util.Prioritized(assetImages{}, 200),
		), parser.WithInlineParsers(util.Prioritized(docLinkParser{}, 199))),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(
			util.Prioritized(labelledCheckBoxes{}, 0),
			util.Prioritized(docLinkHTML{}, 0),
		)),
	)
}

// sectionMarkdown renders card section bodies, which sit under the section's h2;
// descriptionMarkdown renders folder descriptions, which sit under the page's h1.
var (
	sectionMarkdown     = markdownAt(3)
	descriptionMarkdown = markdownAt(2)
)

// ugc is safe for concurrent use once built. Besides bluemonday's UGC policy it keeps the
// checkboxes of GFM task lists ("- [x] done"), which goldmark renders as
// <input checked="" disabled="" type="checkbox">: on an input it allows type="checkbox",
// disabled and checked (with no values) besides the attributes UGC allows on every element
// (dir, lang, id, title, class) and the aria-label labelledCheckBoxes gives; no name, value
// or form. Goldmark drops raw HTML, so task list checkboxes are the only inputs that reach
// the sanitiser.
var ugc = func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("disabled", "checked").Matching(regexp.MustCompile(`^$`)).OnElements("input")
	p.AllowAttrs("aria-label").Matching(regexp.MustCompile(`^(Done|To do)$`)).OnElements("input")
	// links between documents (markdown_links.go)
	p.AllowAttrs("class").Matching(docLinkClass).OnElements("a", "span")
	p.AllowAttrs("title").OnElements("span")
	return p
}()

// renderMarkdown returns the sanitised HTML of a Markdown text, converted by md.
func renderMarkdown(md goldmark.Markdown, src string) string {
	var buf bytes.Buffer
	if err := md.Convert([]byte(src), &buf); err != nil {
		return "<p>" + html.EscapeString(src) + "</p>"
	}
	return ugc.Sanitize(buf.String())
}

// headingShift moves Markdown headings so that the shallowest one is an h<top>, keeping the
// steps between them.
type headingShift struct{ top int }

// Transform implements parser.ASTTransformer.
func (h headingShift) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	var headings []*ast.Heading
	shallowest := 6
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if hd, ok := n.(*ast.Heading); ok && entering {
			headings = append(headings, hd)
			shallowest = min(shallowest, hd.Level)
		}
		return ast.WalkContinue, nil
	})
	for _, hd := range headings {
		hd.Level = min(hd.Level+h.top-shallowest, 6)
	}
}

// labelledCheckBoxes renders GFM task list checkboxes as goldmark does, with an accessible
// name: a form control without one is announced as a bare "checkbox".
type labelledCheckBoxes struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (labelledCheckBoxes) RegisterFuncs(r renderer.NodeRendererFuncRegisterer) {
	r.Register(east.KindTaskCheckBox, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if n.(*east.TaskCheckBox).IsChecked {
			_, _ = w.WriteString(`<input checked="" disabled="" type="checkbox" aria-label="Done"> `)
		} else {
			_, _ = w.WriteString(`<input disabled="" type="checkbox" aria-label="To do"> `)
		}
		return ast.WalkContinue, nil
	})
}

// sameOriginImages turns every image whose address is on another host into a plain link to
// it: an image loads as soon as the page is viewed, so an editor could otherwise learn the
// address of everyone who reads the card from their image host's log. Addresses on this
// server (a path such as /static/... or, later, the world's uploads) stay images; the pages'
// Content-Security-Policy (img-src 'self') holds the same line in the browser.
type sameOriginImages struct{}

// Transform implements parser.ASTTransformer.
func (sameOriginImages) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	var foreign []*ast.Image
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if img, ok := n.(*ast.Image); ok && entering && !sameOrigin(string(img.Destination)) {
			foreign = append(foreign, img)
		}
		return ast.WalkContinue, nil
	})
	for _, img := range foreign {
		link := ast.NewLink()
		link.Destination, link.Title = img.Destination, img.Title
		for c := img.FirstChild(); c != nil; {
			next := c.NextSibling()
			link.AppendChild(link, c) // the alt text becomes the link's text
			c = next
		}
		if !link.HasChildren() {
			link.AppendChild(link, ast.NewString(img.Destination))
		}
		img.Parent().ReplaceChild(img.Parent(), img, link)
	}
}

// sameOrigin reports whether an image address points at this server: a path with neither
// scheme nor host ("//host/x" and "/\\host/x" are other hosts to a browser).
func sameOrigin(dest string) bool {
	dest = strings.TrimSpace(dest)
	if dest == "" || strings.HasPrefix(dest, "//") || strings.Contains(dest, "\\") {
		return false
	}
	u, err := url.Parse(dest)
	return err == nil && u.Scheme == "" && u.Host == "" && u.Opaque == ""
}
