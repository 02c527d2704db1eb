// Package search answers full-text queries over one world's document names and content.
package search

import (
	"html"
	"strings"
	"unicode/utf8"

	"github.com/loreweave/loreweave/app/store"
)

// Query is one search request, always scoped to one world and one era.
type Query struct {
	WorldID      string
	EraID        string
	Text         string
	DocumentType string
	Page         store.Page
}

// Hit is one matching document.
type Hit struct {
	ID           string  `json:"id"`
	Name         string  `json:"name"`
	DocumentType string  `json:"documentType"`
	Score        float64 `json:"score"`
	// Snippet is a short HTML fragment: the text is escaped and hits are wrapped in <mark>.
	Snippet string `json:"snippet"`
}

// Results is one page of hits.
type Results struct {
	Hits  []Hit
	Total int
}

// Scan is the simple searcher: it reads every document of the world visible in the era and
// matches the query's words as case-insensitive substrings of the name and text. Names weigh
// more than content.
type Scan struct {
	Store *store.Store
}

// Search runs q.
func (s Scan) Search(q Query) (Results, error) {
	words := strings.Fields(strings.ToLower(q.Text))
	var all []Hit
	for pg := 1; ; pg++ {
		docs, total, err := s.Store.Documents(q.WorldID, store.DocumentFilter{EraID: q.EraID, DocumentType: q.DocumentType}, store.Page{Page: pg, PerPage: 500})
		if err != nil {
			return Results{}, err
		}
		for _, d := range docs {
			c, err := s.Store.Content(d, q.EraID)
			if err != nil {
				return Results{}, err
			}
			name, text := strings.ToLower(d.Name), strings.ToLower(c.Text)
			score := 0.0
			for _, w := range words {
				switch {
				case strings.Contains(name, w):
					score += 2
				case strings.Contains(text, w):
					score++
				default:
					score = -1
				}
				if score < 0 {
					break
				}
			}
			if score > 0 {
				all = append(all, Hit{ID: d.ID, Name: d.Name, DocumentType: d.DocumentType, Score: score, Snippet: Snippet(c.Text, words)})
			}
		}
		if pg*500 >= total {
			break
		}
	}
	sortHits(all)
	from := min(int(q.Page.Page-1)*q.Page.PerPage, len(all))
	to := min(from+q.Page.PerPage, len(all))
	return Results{Hits: all[from:to], Total: len(all)}, nil
}

func sortHits(h []Hit) {
	// insertion sort keeps equal scores in document order
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && h[j].Score > h[j-1].Score; j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}

// Snippet returns up to ~160 characters of text around the first hit of any word, HTML-escaped,
// with every occurrence of the words wrapped in <mark>.
func Snippet(text string, words []string) string {
	lower := strings.ToLower(text)
	start := 0
	for _, w := range words {
		if i := strings.Index(lower, w); i >= 0 {
			start = max(0, i-60)
			break
		}
	}
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	end := min(len(text), start+160)
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	frag, lowFrag := text[start:end], lower[start:end]
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	for i := 0; i < len(frag); {
		matched := ""
		for _, w := range words {
			if w != "" && strings.HasPrefix(lowFrag[i:], w) {
				matched = frag[i : i+len(w)]
				break
			}
		}
		if matched != "" {
			b.WriteString("<mark>" + html.EscapeString(matched) + "</mark>")
			i += len(matched)
			continue
		}
		_, size := utf8.DecodeRuneInString(frag[i:])
		b.WriteString(html.EscapeString(frag[i : i+size]))
		i += size
	}
	if end < len(text) {
		b.WriteString("…")
	}
	return b.String()
}
