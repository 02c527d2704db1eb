package main

import (
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
)

// The search corpus: synthetic worldbuilding prose from a fixed seed. Words follow a Zipf
// distribution over a vocabulary of common English words then made-up ones, and every
// document features invented names (some with apostrophes, like Qo'noS), so queries see the
// same skew of frequent and rare terms as real text.

// commonWords are the head of the vocabulary, most frequent first (the first 30 are
// function words).
var commonWords = strings.Fields(`the of and to a in is was that he it for with as his on be at by
	her from they this had not are but or which she one were all their there an been
	king river ancient city old war ship storm dragon queen empire north mountain sea
	battle gold fire shadow temple forest throne blood stone night iron legend sword
	tower island harbour bridge village road house gate wall market council guild order
	prince lord lady knight priest merchant sailor soldier captain hunter witch scholar
	dark bright silent broken hidden lost fallen great small cold warm deep high golden
	silver black white red green grey bitter sacred cursed ruined distant eastern western
	southern northern first last young elder ancient secret wild quiet
	walked spoke burned fought sailed ruled built found carried crossed vanished returned
	whispered remembered betrayed guarded watched feared loved buried raised opened sealed
	year season winter summer spring autumn dawn dusk moon sun star wind rain snow ash
	coin letter map book song tale oath crown ring blade shield horse wolf raven serpent
	hall chamber vault tomb well garden field valley plain desert marsh cliff cave shore
	people family clan tribe army fleet crew band circle school house ward province realm
	magic rune spell curse prophecy omen dream vision memory name word voice silence
	bread wine salt iron copper silk spice grain timber glass paper ink wax oil
	trade treaty debt tax law crime trial exile siege plague famine flood fire festival`)

// functionWords is how many of commonWords are function words (no good as queries).
const functionWords = 30

type corpusDoc struct {
	name string
	body string
}

// corpus is the generated collection: docs[world][i].
type corpus struct {
	vocab []string
	names []string
	docs  [][]corpusDoc
	// rank of every vocabulary word, for choosing query terms.
	rank map[string]int
}

const (
	syllables = "ka ri mo vel an dor eth ul sa ren tho ga mir lo zan ith or quel ny bar ash fen ro lis tar um ev on ce dra vin hal"
	// vocabSize is the number of distinct body words (common words first).
	vocabSize = 6000
	nameCount = 3000
)

func newCorpus(worlds, perWorld int) *corpus {
	rng := rand.New(rand.NewPCG(20240611, 7))
	syl := strings.Fields(syllables)
	word := func(minSyl, maxSyl int) string {
		n := minSyl + rng.IntN(maxSyl-minSyl+1)
		var b strings.Builder
		for range n {
			b.WriteString(syl[rng.IntN(len(syl))])
		}
		return b.String()
	}
	c := &corpus{rank: map[string]int{}}
	seen := map[string]bool{}
	for _, w := range commonWords {
		if !seen[w] {
			seen[w] = true
			c.vocab = append(c.vocab, w)
		}
	}
	for len(c.vocab) < vocabSize {
		w := word(2, 4)
		if !seen[w] {
			seen[w] = true
			c.vocab = append(c.vocab, w)
		}
	}
	for i, w := range c.vocab {
		c.rank[w] = i
	}
	for len(c.names) < nameCount {
		n := word(2, 3)
		if rng.IntN(10) == 0 {
			n = word(1, 2) + "'" + word(1, 1)
		}
		n = capitalize(n)
		if !seen[strings.ToLower(n)] {
			seen[strings.ToLower(n)] = true
			c.names = append(c.names, n)
		}
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(c.vocab)-1))
	c.docs = make([][]corpusDoc, worlds)
	for w := range c.docs {
		c.docs[w] = make([]corpusDoc, perWorld)
		for i := range c.docs[w] {
			featured := []string{c.names[rng.IntN(len(c.names))], c.names[rng.IntN(len(c.names))]}
			name := featured[0]
			if rng.IntN(3) == 0 {
				name += " of " + c.names[rng.IntN(len(c.names))]
			}
			words := 90 + rng.IntN(21)
			var b strings.Builder
			sentence := 0
			for k := range words {
				var t string
				if rng.IntN(12) == 0 {
					t = featured[rng.IntN(len(featured))]
				} else {
					t = c.vocab[zipf.Uint64()]
				}
				if sentence == 0 {
					t = capitalize(t)
				}
				b.WriteString(t)
				sentence++
				switch {
				case k == words-1:
					b.WriteString(".")
				case sentence > 7 && rng.IntN(6) == 0:
					b.WriteString(". ")
					sentence = 0
				case rng.IntN(15) == 0:
					b.WriteString(", ")
				default:
					b.WriteString(" ")
				}
			}
			c.docs[w][i] = corpusDoc{name: name, body: b.String()}
		}
	}
	return c
}

// seedDocs returns world w's documents as cards with one section holding the body.
func (c *corpus) seedDocs(w int) []seedDoc {
	out := make([]seedDoc, len(c.docs[w]))
	for i, d := range c.docs[w] {
		out[i] = cardDoc(d.name, d.body, i)
	}
	return out
}

func capitalize(s string) string {
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// queryClass is one kind of search query, with the same queries for us and for FTS5.
type queryClass struct {
	name string
	// ours are the texts sent to Loreweave's search, fts the FTS5 MATCH expressions
	// (without the world filter).
	ours []string
	fts  []string
	note string
}

// bodyWords splits a body into its words as written (punctuation dropped).
func bodyWords(body string) []string {
	return strings.FieldsFunc(body, func(r rune) bool { return r == ' ' || r == '.' || r == ',' })
}

func ftsTerm(w string) string { return `"` + strings.ReplaceAll(w, `"`, `""`) + `"` }

// queries builds k queries of each class from the documents of one world.
func (c *corpus) queries(world, k int) []queryClass {
	rng := rand.New(rand.NewPCG(99, uint64(world)))
	docs := c.docs[world]
	content := func(w string) bool {
		r, ok := c.rank[strings.ToLower(w)]
		return ok && r >= functionWords
	}
	// pick returns a content word of a random document (rank within [lo, hi)).
	pick := func(lo, hi int) (string, []string) {
		for {
			ws := bodyWords(docs[rng.IntN(len(docs))].body)
			w := strings.ToLower(ws[rng.IntN(len(ws))])
			if r, ok := c.rank[w]; ok && r >= lo && r < hi {
				return w, ws
			}
		}
	}
	one := queryClass{name: "one word"}
	three := queryClass{name: "three words"}
	phrase := queryClass{name: "phrase"}
	prefix := queryClass{name: "3-letter prefix"}
	prefix2 := queryClass{name: "2-letter prefix"}
	fuzzy := queryClass{name: "fuzzy (1 typo)", note: "FTS5 has no fuzzy matching: its side runs the correctly spelled name"}
	for range k {
		w, _ := pick(functionWords, 400)
		one.ours = append(one.ours, w)
		one.fts = append(one.fts, ftsTerm(w))

		var three3 []string
		for len(three3) < 3 {
			_, ws := pick(functionWords, vocabSize)
			three3 = three3[:0]
			for _, x := range rng.Perm(len(ws)) {
				x := strings.ToLower(ws[x])
				if content(x) && !slices.Contains(three3, x) {
					three3 = append(three3, x)
				}
				if len(three3) == 3 {
					break
				}
			}
		}
		three.ours = append(three.ours, strings.Join(three3, " "))
		three.fts = append(three.fts, ftsTerm(three3[0])+" AND "+ftsTerm(three3[1])+" AND "+ftsTerm(three3[2]))

		for {
			ws := bodyWords(docs[rng.IntN(len(docs))].body)
			i := rng.IntN(len(ws) - 1)
			a, b := strings.ToLower(ws[i]), strings.ToLower(ws[i+1])
			if content(a) && content(b) {
				phrase.ours = append(phrase.ours, `"`+a+" "+b+`"`)
				phrase.fts = append(phrase.fts, ftsTerm(a+" "+b))
				break
			}
		}

		for {
			w, _ := pick(functionWords, 2000)
			if len(w) >= 5 {
				prefix.ours = append(prefix.ours, w[:3])
				prefix.fts = append(prefix.fts, ftsTerm(w[:3])+"*")
				prefix2.ours = append(prefix2.ours, w[:2])
				prefix2.fts = append(prefix2.fts, ftsTerm(w[:2])+"*")
				break
			}
		}

		for {
			d := docs[rng.IntN(len(docs))]
			n := strings.Fields(d.name)[0]
			if len(n) < 6 || strings.ContainsRune(n, '\'') {
				continue
			}
			i := len(n) / 2
			repl := byte('a' + rng.IntN(26))
			if repl == n[i] {
				continue
			}
			typo := n[:i] + string(repl) + n[i+1:]
			fuzzy.ours = append(fuzzy.ours, typo)
			fuzzy.fts = append(fuzzy.fts, ftsTerm(n))
			break
		}
	}
	return []queryClass{one, three, phrase, prefix2, prefix, fuzzy}
}
