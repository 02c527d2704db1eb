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
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown turns card section bodies into HTML. Raw HTML in the source is dropped by goldmark
// (no html.WithUnsafe) and everything it outputs is sanitised again by bluemonday's UGC
// policy, so a body can never carry a script, an event handler or a javascript: link.
// Images from other hosts become links (sameOriginImages).
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithASTTransformers(
		util.Prioritized(headingShift{by: 2}, 100),
		util.Prioritized(sameOriginImages{}, 100),
	)),
)

// ugc is safe for concurrent use once built. Besides bluemonday's UGC policy it keeps the
// checkboxes of GFM task lists ("- [x] done"), which goldmark renders as
// <input checked="" disabled="" type="checkbox">: on an input it allows type="checkbox",
// disabled and checked (with no values) besides the attributes UGC allows on every element
// (dir, lang, id, title, class); no name, value or form. Goldmark drops raw HTML, so task
// list checkboxes are the only inputs that reach the sanitiser.
var ugc = func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("disabled", "checked").Matching(regexp.MustCompile(`^$`)).OnElements("input")
	return p
}()

// renderMarkdown returns the sanitised HTML of a Markdown text.
func renderMarkdown(src string) string {
	var buf bytes.Buffer
	if err := markdown.Convert([]byte(src), &buf); err != nil {
		return "<p>" + html.EscapeString(src) + "</p>"
	}
	return ugc.Sanitize(buf.String())
}

// headingShift moves Markdown headings down the outline: a section body sits under the page's
// h1 and the section's h2, so its "# Heading" becomes an h3.
type headingShift struct{ by int }

// Transform implements parser.ASTTransformer.
func (h headingShift) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if hd, ok := n.(*ast.Heading); ok && entering {
			hd.Level = min(hd.Level+h.by, 6)
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
