package search

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

// readerText is a document state's text as its page shows it: the Markdown parts of a card
// or folder without their marks, so that snippets show "tide", not "**tide**", and
// "## Early life" is found as "Early life". Other types' text is plain already. public is
// what every member sees; secret is the text of the parts only the world's editors see (a
// card's secret sections), indexed apart so that viewers never match or see it. A document
// whose tool is not installed is found by its stored text.
func readerText(s *store.Store, d store.Document, st store.State) (public, secret string) {
	doc, err := s.Decode(d, []byte(st.Data))
	if err != nil {
		if ops.CanHoldSecrets(d.DocumentType) {
			return d.Name, "" // the stored text may hold secrets nothing can tell apart
		}
		return st.Text, ""
	}
	if s, ok := doc.(ops.Secretive); ok && s.HasSecrets() {
		secret = s.SecretText(plainText)
		doc = ops.Public(doc)
	}
	md, ok := doc.(ops.MarkdownText)
	switch {
	case ok:
		return md.PlainText(d.Name, plainText), secret
	case secret != "":
		return ops.LinkLabels(doc.Text(d.Name), nil), secret
	}
	return ops.LinkLabels(st.Text, nil), ""
}

// gfm parses the Markdown the pages render (GitHub Flavored Markdown, as app/web does).
var gfm = goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()

// plainText is the text a reader sees in Markdown src: without emphasis marks, heading
// markers, list markers, link targets or raw HTML (which the pages drop); blocks end with a
// newline.
func plainText(src string) string {
	// A link to a document is its shown text; a link by id alone has no words of its own
	// (the index holds names, not the ids of links).
	source := []byte(ops.LinkLabels(src, nil))
	var b strings.Builder
	newline := func() {
		if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
	}
	_ = ast.Walk(gfm.Parse(text.NewReader(source)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			if n.Type() == ast.TypeBlock {
				newline()
			}
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Text:
			b.Write(n.Segment.Value(source))
			if n.SoftLineBreak() || n.HardLineBreak() {
				b.WriteByte('\n')
			}
		case *ast.String:
			b.Write(n.Value)
		case *ast.AutoLink:
			b.Write(n.Label(source))
		case *ast.CodeBlock, *ast.FencedCodeBlock:
			lines := n.Lines()
			for i := range lines.Len() {
				seg := lines.At(i)
				b.Write(seg.Value(source))
			}
		case *ast.RawHTML, *ast.HTMLBlock, *east.TaskCheckBox:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(b.String())
}

// PlainMarkdown is the text a reader sees in Markdown src, as the index and its snippets
// take it (plainText): the web pages' link previews show it.
func PlainMarkdown(src string) string { return plainText(src) }
