package search

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"
	porterstemmer "github.com/blevesearch/go-porterstemmer"
)

// Every analysed value is "scope<sep>value", and every term the analysers make is
// "scope<sep>term", scope being the short code of the entry's world and era (see
// allocCode): each world's era has its own terms, so a query walks the postings of
// one world, never a global list filtered afterwards, and a prefix or fuzzy query enumerates
// one world's words. Offsets are those of the value after the separator.
//
// A word's stem, when it differs from the word, is indexed at the same position as
// "scope<stemSep>stem": stems have their own terms, so a fuzzy query (which walks
// "scope<sep>…" only) never matches a stem, and a query for a word asks for the word, its
// stem among the stems, and its stem as a word.
const (
	sep     = "\x1f"
	stemSep = "\x1e"
)

// Analyzer names (registered with Bleve's registry, so an index can be reopened).
const (
	wordsAnalyzer = "lw_words"
	gramsAnalyzer = "lw_grams"
)

// stopWords are Bleve's English stop words: they are indexed as written but not stemmed.
func stopWords() analysis.TokenMap {
	stop := analysis.NewTokenMap()
	if err := stop.LoadBytes(en.EnglishStopWords); err != nil {
		panic(err)
	}
	return stop
}

// theWords is the words analyser, the index's and the queries' (over "scope<sep>text").
var theWords = words{tok: unicode.NewUnicodeTokenizer(), stop: stopWords()}

func init() {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(registry.RegisterAnalyzer(wordsAnalyzer, func(map[string]any, *registry.Cache) (analysis.Analyzer, error) {
		return theWords, nil
	}))
	must(registry.RegisterAnalyzer(gramsAnalyzer, func(map[string]any, *registry.Cache) (analysis.Analyzer, error) {
		return grams{tok: unicode.NewUnicodeTokenizer()}, nil
	}))
}

// splitScope cuts "scope<sep>value" into the term prefix ("scope<sep>") and the value.
func splitScope(in []byte) (prefix, value []byte) {
	if i := bytes.IndexByte(in, sep[0]); i >= 0 {
		return in[:i+1], in[i+1:]
	}
	return nil, in
}

// scoped returns prefix+term in a new slice.
func scoped(prefix, term []byte) []byte {
	out := make([]byte, 0, len(prefix)+len(term))
	return append(append(out, prefix...), term...)
}

// words indexes each word lower-cased (so names and invented words like Qo'noS match as
// typed) and, at the same position, its English stem when that differs (possessive removed,
// Porter stemming; stop words are not stemmed). One field thus serves exact and stemmed
// matching, and phrases match either form.
//
// Its tokens carry their offsets in the value, which the text's term vectors keep for
// snippets. (Without them the index was 8% smaller, but a snippet had to segment the stored
// text again up to its hits: a third of a one-word query's CPU, and under the mixed load a
// tenth of the server's.)
type words struct {
	tok  analysis.Tokenizer
	stop analysis.TokenMap
}

func (a words) Analyze(in []byte) analysis.TokenStream {
	prefix, value := splitScope(in)
	stemPrefix := slices.Concat(prefix[:max(0, len(prefix)-1)], []byte(stemSep))
	toks := a.tok.Tokenize(value)
	out := make(analysis.TokenStream, 0, len(toks)+len(toks)/2)
	// Terms are cut from one buffer and stem tokens from one slice (this runs for every word
	// of every document indexed): a few allocations per document instead of a few per word.
	buf := make([]byte, 0, len(toks)*2*len(prefix)+len(value)*2)
	term := func(prefix, w []byte) []byte {
		start := len(buf)
		buf = append(append(buf, prefix...), w...)
		return buf[start:len(buf):len(buf)]
	}
	stems := make([]analysis.Token, 0, len(toks))
	var lower, st []byte
	for _, t := range toks {
		lower = appendLower(lower[:0], t.Term)
		t.Term = term(prefix, lower)
		out = append(out, t)
		if _, ok := a.stop[string(lower)]; ok {
			continue
		}
		if st = appendStem(st[:0], lower); !bytes.Equal(st, lower) {
			stems = append(stems, analysis.Token{Start: t.Start, End: t.End, Position: t.Position, Type: t.Type, Term: term(stemPrefix, st)})
			out = append(out, &stems[len(stems)-1])
		}
	}
	return out
}

// appendLower appends w lower-cased to dst.
func appendLower(dst, w []byte) []byte {
	for _, c := range w {
		if c >= utf8.RuneSelf {
			return append(dst, bytes.ToLower(w)...)
		}
	}
	for _, c := range w {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// appendStem appends the English stem of a lower-cased word to dst.
func appendStem(dst, w []byte) []byte {
	if r, n := utf8.DecodeLastRune(w); r == 's' {
		if q, m := utf8.DecodeLastRune(w[:len(w)-n]); q == '\'' || q == '’' || q == '＇' {
			w = w[:len(w)-n-m]
		}
	}
	for _, r := range porterstemmer.StemWithoutLowerCasing(bytes.Runes(w)) {
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// grams indexes the leading 2 to 15 letters of each lower-cased word of a name (edge
// n-grams): a name being typed matches through one term. The text has none: a prefix of the
// text walks the world's own words in the dictionary (its terms are scoped, so the walk
// covers one world), while n-grams of the text made the whole index half again as costly to
// build.
type grams struct{ tok analysis.Tokenizer }

const (
	minGram = 2
	maxGram = 15
)

func (a grams) Analyze(in []byte) analysis.TokenStream {
	prefix, value := splitScope(in)
	toks := a.tok.Tokenize(value)
	out := make(analysis.TokenStream, 0, len(toks)*4)
	for _, t := range toks {
		lower := bytes.ToLower(t.Term)
		n := 0
		for i := range len(lower) {
			if !utf8.RuneStart(lower[i]) || i == 0 {
				continue
			}
			if n++; n >= minGram {
				out = append(out, &analysis.Token{Start: t.Start, End: t.End, Position: t.Position, Type: t.Type, Term: scoped(prefix, lower[:i])})
			}
			if n == maxGram {
				break
			}
		}
		if runes := utf8.RuneCount(lower); runes >= minGram && runes <= maxGram {
			out = append(out, &analysis.Token{Start: t.Start, End: t.End, Position: t.Position, Type: t.Type, Term: scoped(prefix, lower)})
		}
	}
	return out
}
