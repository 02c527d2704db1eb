package search

import (
	"html"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/background"
	"github.com/loreweave/loreweave/app/store"
)

// Boosts: a name match outranks a content match; an exact word outranks its stem, its
// fuzzy neighbours and its prefixes.
const (
	boostNameExact  = 8
	boostName       = 5
	boostNamePhr    = 8
	boostNamePrefix = 3
	boostTextExact  = 2
	boostText       = 1.5
	boostTextPrefix = 0.6
	boostFuzzy      = 0.4
	boostNameFuzzy  = 4
	minFuzzyLen     = 5
)

// MaxDepth is how many results deep search pages reach: a page beyond it would have the
// index rank every hit before it (Elasticsearch's max_result_window is the same).
const MaxDepth = 10_000

// MaxQuery is the longest query in characters: a query's cost grows with its words.
const MaxQuery = 500

// Searcher runs queries against the indexer's index.
type Searcher struct {
	Indexer *Indexer
	Store   *store.Store
}

// Search runs q: every word must match the name or the text (exactly, by stem, fuzzily for
// words of five letters or more, or, for the last word when it is still being typed, as a
// prefix); "quoted phrases" must match in order. While the index is rebuilt it answers 503
// search_rebuilding; a query that finds the index broken (Bleve fails or panics) starts the
// rebuild and answers the same.
func (s Searcher) Search(q Query) (Results, error) {
	if strings.TrimSpace(q.Text) == "" {
		return Results{}, apierr.Field("q", "\"q\" is required: the text to search for")
	}
	if utf8.RuneCountInString(q.Text) > MaxQuery {
		return Results{}, apierr.Field("q", "\"q\" may have at most %d characters", MaxQuery).With("limit", MaxQuery)
	}
	if p := q.Page; p.Page < 1 || p.PerPage < 1 || p.Page > MaxDepth/p.PerPage {
		return Results{}, apierr.Field("page", "search pages reach at most %d results deep (page × perPage); narrow the query instead", MaxDepth).With("limit", MaxDepth)
	}
	chain, err := s.Store.EraChain(q.WorldID, q.EraID)
	if err != nil {
		return Results{}, err
	}
	idx, err := s.Indexer.Index()
	if err != nil {
		return Results{}, err
	}
	var res Results
	err = background.Catch(func() (err error) {
		res, err = idx.search(q, chain)
		return err
	})
	if isFailure(err) {
		idx.markBroken(err)
		return Results{}, errRebuilding()
	}
	return res, err
}

// search runs q in the scopes of an era chain.
func (ix *Index) search(q Query, chain []string) (Results, error) {
	words, phrases := parse(q.Text)
	if len(words) == 0 && len(phrases) == 0 {
		return Results{}, nil
	}
	var scopes []string
	shadows := make([]query.Query, len(chain))
	for i, e := range chain {
		shadows[i] = term("shadowed", indexEra(e), 1)
		code, ok, err := ix.code(q.WorldID, e)
		if err != nil {
			return Results{}, err
		}
		if ok {
			scopes = append(scopes, code+sep)
		}
	}
	if len(scopes) == 0 {
		return Results{}, nil // nothing of this world's era was ever indexed
	}
	var must, should []query.Query
	if q.DocumentType != "" {
		must = append(must, anyScope(scopes, func(sc string) query.Query { return term(fieldKind, sc+q.DocumentType, 1) }))
	}
	texts := []string{fieldText}
	if q.Secrets {
		texts = append(texts, fieldSecret)
	}
	prefixLast := !strings.HasSuffix(q.Text, " ") && !strings.HasSuffix(q.Text, "\"")
	for i, w := range words {
		m, sh := wordQuery(scopes, texts, w, prefixLast && i == len(words)-1)
		must, should = append(must, m), append(should, sh)
	}
	for _, p := range phrases {
		must = append(must, anyScope(scopes, func(sc string) query.Query {
			alts := make([]query.Query, len(texts))
			for i, f := range texts {
				alts[i] = phrase(f, positions(sc, p), boostTextExact)
			}
			return query.NewDisjunctionQuery(alts)
		}))
		should = append(should, anyScope(scopes, func(sc string) query.Query { return phrase(fieldName, positions(sc, p), boostNamePhr) }))
	}
	bq := query.NewBooleanQuery(must, should, []query.Query{query.NewDisjunctionQuery(shadows)})

	req := bleve.NewSearchRequestOptions(bq, q.Page.PerPage, int((q.Page.Page-1)*q.Page.PerPage), false)
	req.Fields = []string{"docId", "name", "text", "documentType"}
	if q.Secrets {
		req.Fields = append(req.Fields, fieldSecret)
	}
	req.IncludeLocations = true
	req.SortBy([]string{"-_score", "_id"})
	atFailpoint("query")
	res, err := ix.idx.Search(req)
	if err != nil {
		return Results{}, failure("query", err)
	}
	out := Results{Total: int(res.Total), Hits: make([]Hit, 0, len(res.Hits))}
	for _, h := range res.Hits {
		docID, _ := h.Fields["docId"].(string)
		name, _ := h.Fields["name"].(string)
		text, _ := h.Fields["text"].(string)
		typ, _ := h.Fields["documentType"].(string)
		snip := snippet(unscoped(text), h.Locations[fieldText])
		if secret, _ := h.Fields[fieldSecret].(string); q.Secrets && len(h.Locations[fieldText]) == 0 && len(h.Locations[fieldSecret]) > 0 {
			snip = snippet(unscoped(secret), h.Locations[fieldSecret]) // found only in secret sections
		}
		out.Hits = append(out.Hits, Hit{ID: docID, Name: unscoped(name), DocumentType: typ, Score: h.Score, Snippet: snip})
	}
	return out, nil
}

// unscoped strips the scope from a stored value.
func unscoped(v string) string {
	_, after, found := strings.Cut(v, sep)
	if !found {
		return v
	}
	return after
}

// anyScope matches in any of the scopes (an era sees its own entries and those it inherits).
func anyScope(scopes []string, q func(sc string) query.Query) query.Query {
	if len(scopes) == 1 {
		return q(scopes[0])
	}
	qs := make([]query.Query, len(scopes))
	for i, sc := range scopes {
		qs[i] = q(sc)
	}
	return query.NewDisjunctionQuery(qs)
}

func term(field, value string, boost float64) *query.TermQuery {
	t := query.NewTermQuery(value)
	t.SetField(field)
	t.SetBoost(boost)
	return t
}

// fuzzyQuery matches the words one edit away from word, past the scope's first prefix bytes.
func fuzzyQuery(field, word string, prefix int, boost float64) *query.FuzzyQuery {
	f := query.NewFuzzyQuery(word)
	f.SetField(field)
	f.SetFuzziness(1)
	f.SetPrefix(prefix)
	f.SetBoost(boost)
	return f
}

func prefixQuery(field, prefix string, boost float64) *query.PrefixQuery {
	p := query.NewPrefixQuery(prefix)
	p.SetField(field)
	p.SetBoost(boost)
	return p
}

// phrase matches the words of a phrase in order; each position may match the word or its
// stem.
func phrase(field string, terms [][]string, boost float64) query.Query {
	p := query.NewMultiPhraseQuery(terms, field)
	p.SetBoost(boost)
	return p
}

// positions analyses text in scope sc and groups its terms by position: the word first,
// then, if it has a stem, the stem among the stems and the stem as a word (a document's
// word that is its own stem is indexed only as a word).
func positions(sc, text string) [][]string {
	var out [][]string
	last := -1
	for _, t := range theWords.Analyze([]byte(sc + text)) {
		if t.Position != last {
			out = append(out, nil)
			last = t.Position
		}
		term := string(t.Term)
		out[len(out)-1] = append(out[len(out)-1], term)
		if st, ok := strings.CutPrefix(term, strings.TrimSuffix(sc, sep)+stemSep); ok {
			out[len(out)-1] = append(out[len(out)-1], sc+st)
		}
	}
	return out
}

// wordQuery matches one word: it must be in the text (which starts with the name), and a
// match in the name adds to the score. A word the analyser splits (ideographs) must match
// every part.
func wordQuery(scopes, texts []string, w string, prefix bool) (must, should query.Query) {
	fuzzy := utf8.RuneCountInString(w) >= minFuzzyLen
	var req, opt []query.Query
	for _, sc := range scopes {
		parts := positions(sc, w)
		var all []query.Query
		for _, alts := range parts {
			var alt []query.Query
			for _, f := range texts {
				alt = append(alt, term(f, alts[0], boostTextExact))
				for _, st := range alts[1:] {
					alt = append(alt, term(f, st, boostText))
				}
				if fuzzy && len(parts) == 1 {
					alt = append(alt, fuzzyQuery(f, alts[0], len(sc), boostFuzzy))
				}
			}
			opt = append(opt, term(fieldName, alts[0], boostNameExact))
			for _, st := range alts[1:] {
				opt = append(opt, term(fieldName, st, boostName))
			}
			if fuzzy && len(parts) == 1 {
				opt = append(opt, fuzzyQuery(fieldName, alts[0], len(sc), boostNameFuzzy))
			}
			all = append(all, query.NewDisjunctionQuery(alt))
		}
		if len(all) == 1 {
			req = append(req, all[0])
		} else if len(all) > 1 {
			req = append(req, query.NewConjunctionQuery(all))
		}
		if lw := strings.ToLower(w); prefix && utf8.RuneCountInString(lw) >= minGram {
			for _, f := range texts {
				req = append(req, prefixQuery(f, sc+lw, boostTextPrefix))
			}
			if utf8.RuneCountInString(lw) <= maxGram {
				opt = append(opt, term(fieldNameGram, sc+lw, boostNamePrefix))
			} else {
				opt = append(opt, prefixQuery(fieldName, sc+lw, boostNamePrefix))
			}
		}
	}
	return query.NewDisjunctionQuery(req), query.NewDisjunctionQuery(opt)
}

// parse splits the query text into words and "quoted phrases". Words are split the way the
// exact analyser splits them, so punctuation never becomes a query of its own.
func parse(text string) (words, phrases []string) {
	for i := 0; ; i++ {
		part, rest, quoted := strings.Cut(text, "\"")
		if i%2 == 1 {
			if p := strings.TrimSpace(part); strings.IndexFunc(p, isLetterOrDigit) >= 0 {
				phrases = append(phrases, p)
			}
		} else {
			words = append(words, strings.FieldsFunc(part, func(r rune) bool { return !isWordRune(r) })...)
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

type span struct{ start, end int }

func isLetterOrDigit(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func isWordRune(r rune) bool { return isLetterOrDigit(r) || r == '\'' || r == '’' }

// snippet cuts a fragment of text around the densest run of hits, escapes it, and wraps the
// hits in <mark>. Hits are the locations Bleve found in the text (words, stems, fuzzy
// neighbours and the words the word being typed begins).
func snippet(text string, locs search.TermLocationMap) string {
	var spans []span
	for _, ls := range locs {
		for _, l := range ls {
			if int(l.End) <= len(text) && l.Start < l.End {
				spans = append(spans, span{int(l.Start), int(l.End)})
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
	start, best := 0, -1
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
