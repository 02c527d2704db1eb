package search

import (
	"fmt"
	"html"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/loreweave/loreweave/app/store"
)

// Boosts: a name match outranks a content match; an exact word outranks its stem, its
// fuzzy neighbours and its prefixes.
const (
	boostNameExact = 8
	boostName      = 5
	boostNamePhr   = 8
	boostNameGram  = 3
	boostTextExact = 2
	boostText      = 1.5
	boostTextGram  = 0.6
	boostFuzzy     = 0.4
	minFuzzyLen    = 5
)

// Searcher runs queries against the index.
type Searcher struct {
	Index *Index
	Store *store.Store
}

// Search runs q: every word must match the name or the text (exactly, by stem, fuzzily for
// words of five letters or more, or, for the last word when it is still being typed, as a
// prefix); "quoted phrases" must match in order.
func (s Searcher) Search(q Query) (Results, error) {
	chain, err := s.Store.EraChain(q.WorldID, q.EraID)
	if err != nil {
		return Results{}, err
	}
	words, phrases := parse(q.Text)
	if len(words) == 0 && len(phrases) == 0 {
		return Results{}, nil
	}
	must := []query.Query{term("world", q.WorldID)}
	eras := make([]query.Query, len(chain))
	shadows := make([]query.Query, len(chain))
	for i, e := range chain {
		eras[i] = term("era", indexEra(e))
		shadows[i] = term("shadowed", indexEra(e))
	}
	must = append(must, query.NewDisjunctionQuery(eras))
	if q.DocumentType != "" {
		must = append(must, term("documentType", q.DocumentType))
	}
	prefixLast := !strings.HasSuffix(q.Text, " ") && !strings.HasSuffix(q.Text, "\"")
	for i, w := range words {
		must = append(must, wordQuery(w, prefixLast && i == len(words)-1))
	}
	for _, p := range phrases {
		must = append(must, query.NewDisjunctionQuery([]query.Query{
			phrase(fieldName, p, boostNamePhr), phrase(fieldText, p, boostText),
			phrase(fieldNameExact, p, boostNamePhr), phrase(fieldTextExact, p, boostTextExact),
		}))
	}
	bq := query.NewBooleanQuery(must, nil, []query.Query{query.NewDisjunctionQuery(shadows)})

	req := bleve.NewSearchRequestOptions(bq, q.Page.PerPage, int((q.Page.Page-1)*q.Page.PerPage), false)
	req.Fields = []string{"docId", "name", "text", "documentType"}
	req.IncludeLocations = true
	req.SortBy([]string{"-_score", "_id"})
	res, err := s.Index.idx.Search(req)
	if err != nil {
		return Results{}, fmt.Errorf("search: query: %w", err)
	}
	out := Results{Total: int(res.Total), Hits: make([]Hit, 0, len(res.Hits))}
	for _, h := range res.Hits {
		docID, _ := h.Fields["docId"].(string)
		name, _ := h.Fields["name"].(string)
		text, _ := h.Fields["text"].(string)
		typ, _ := h.Fields["documentType"].(string)
		out.Hits = append(out.Hits, Hit{ID: docID, Name: name, DocumentType: typ, Score: h.Score, Snippet: snippet(text, h.Locations)})
	}
	return out, nil
}

func term(field, value string) *query.TermQuery {
	t := query.NewTermQuery(value)
	t.SetField(field)
	return t
}

func match(field, text string, boost float64) *query.MatchQuery {
	m := query.NewMatchQuery(text)
	m.SetField(field)
	m.SetBoost(boost)
	return m
}

func phrase(field, text string, boost float64) *query.MatchPhraseQuery {
	p := query.NewMatchPhraseQuery(text)
	p.SetField(field)
	p.SetBoost(boost)
	return p
}

// wordQuery matches one word in the name or text.
func wordQuery(w string, prefix bool) query.Query {
	alts := []query.Query{
		match(fieldNameExact, w, boostNameExact), match(fieldName, w, boostName),
		match(fieldTextExact, w, boostTextExact), match(fieldText, w, boostText),
	}
	if utf8.RuneCountInString(w) >= minFuzzyLen {
		for _, f := range []string{fieldNameExact, fieldTextExact} {
			m := match(f, w, boostFuzzy)
			m.SetFuzziness(1)
			alts = append(alts, m)
		}
	}
	if prefix {
		lw := strings.ToLower(w)
		if n := utf8.RuneCountInString(lw); n >= minGram {
			if n > maxGram {
				lw = string([]rune(lw)[:maxGram])
			}
			g1, g2 := term(fieldNameGram, lw), term(fieldTextGram, lw)
			g1.SetBoost(boostNameGram)
			g2.SetBoost(boostTextGram)
			alts = append(alts, g1, g2)
		}
	}
	return query.NewDisjunctionQuery(alts)
}

// parse splits the query text into words and "quoted phrases". Words are split the way the
// exact analyser splits them, so punctuation never becomes a query of its own.
func parse(text string) (words, phrases []string) {
	for i := 0; ; i++ {
		part, rest, quoted := strings.Cut(text, "\"")
		if i%2 == 1 {
			if p := strings.TrimSpace(part); p != "" {
				phrases = append(phrases, p)
			}
		} else {
			words = append(words, strings.FieldsFunc(part, func(r rune) bool {
				return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
			})...)
		}
		if !quoted {
			break
		}
		text = rest
	}
	cleaned := words[:0]
	for _, w := range words {
		if w = strings.Trim(w, "'’"); w != "" {
			cleaned = append(cleaned, w)
		}
	}
	return cleaned, phrases
}

// snippetLen is about how many characters of text a snippet shows.
const snippetLen = 180

// snippet cuts a fragment of text around the densest run of hit locations (from any of the
// text fields: they share offsets), escapes it, and wraps the hits in <mark>.
func snippet(text string, locs search.FieldTermLocationMap) string {
	type span struct{ start, end int }
	var spans []span
	for _, f := range []string{fieldText, fieldTextExact, fieldTextGram} {
		for _, ls := range locs[f] {
			for _, l := range ls {
				if int(l.End) <= len(text) && l.Start < l.End {
					spans = append(spans, span{int(l.Start), int(l.End)})
				}
			}
		}
	}
	sort.Slice(spans, func(i, j int) bool {
		return spans[i].start < spans[j].start || (spans[i].start == spans[j].start && spans[i].end > spans[j].end)
	})
	merged := spans[:0]
	for _, s := range spans {
		if n := len(merged); n > 0 && s.start <= merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	// The window starts a little before the first hit of the densest stretch.
	start := 0
	best := -1
	for i := range merged {
		n := 0
		for j := i; j < len(merged) && merged[j].end-merged[i].start <= snippetLen; j++ {
			n++
		}
		if n > best {
			best, start = n, merged[i].start
		}
	}
	start = max(0, start-40)
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	if i := strings.LastIndexAny(text[:start], " \n"); start > 0 && i >= 0 && start-i < 20 {
		start = i + 1
	}
	end := min(len(text), start+snippetLen)
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	pos := start
	for _, s := range merged {
		if s.end <= start || s.start >= end {
			continue
		}
		from, to := max(s.start, start), min(s.end, end)
		b.WriteString(html.EscapeString(text[pos:from]))
		b.WriteString("<mark>" + html.EscapeString(text[from:to]) + "</mark>")
		pos = to
	}
	b.WriteString(html.EscapeString(text[pos:end]))
	if end < len(text) {
		b.WriteString("…")
	}
	return b.String()
}
