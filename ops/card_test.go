package ops

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

const adaCard = `{"name":"","aliases":["Ada"],
	"properties":[{"key":"Born","value":"1815"},{"key":"Died","value":"1852"}],
	"sections":[{"id":"sec-a","title":"Life","body":"Born in London."},{"id":"sec-b","title":"Work","body":"Notes 😀."}]}`

// adaWith returns adaCard with sec-b's body replaced.
func adaWith(body string) string {
	return strings.Replace(adaCard, `"Notes 😀."`, fmt.Sprintf("%q", body), 1)
}

// fullCard returns a card with n properties and n sections.
func fullCard(n int) string {
	props := make([]string, n)
	secs := make([]string, n)
	for i := range n {
		props[i] = fmt.Sprintf(`{"key":"k%d","value":"v"}`, i)
		secs[i] = fmt.Sprintf(`{"id":"sec-%d","title":"T","body":""}`, i)
	}
	return `{"properties":[` + strings.Join(props, ",") + `],"sections":[` + strings.Join(secs, ",") + `]}`
}

// history returns an Env whose History serves these batches, the first one being version
// first.
func history(first int64, batches ...string) Env {
	log := make([]Batch, len(batches))
	for i, b := range batches {
		log[i] = Batch{Version: first + int64(i), Ops: raws([]string{b})}
	}
	return Env{History: func(since int64) ([]Batch, error) {
		if since+1 < first {
			return nil, errors.New("compacted")
		}
		return log[since+1-first:], nil
	}}
}

func TestCardOps(t *testing.T) {
	runCases(t, "card", []opCase{
		{name: "rename", data: adaCard, ops: []string{`{"op":"card.rename","name":"Ada Lovelace"}`},
			want:    strings.Replace(adaCard, `"name":""`, `"name":"Ada Lovelace"`, 1),
			applied: []string{`{"op":"card.rename","name":"Ada Lovelace"}`}},
		{name: "rename to empty clears", data: `{"name":"X"}`, ops: []string{`{"op":"card.rename","name":""}`},
			want: `{"name":"","aliases":[],"properties":[],"sections":[]}`},
		{name: "rename without name", ops: []string{`{"op":"card.rename"}`}, code: CodeInvalidField, field: "name"},
		{name: "rename too long", ops: []string{`{"op":"card.rename","name":"` + strings.Repeat("n", maxName+1) + `"}`}, code: CodeInvalidField, field: "name"},
		{name: "rename not a string", ops: []string{`{"op":"card.rename","name":true}`}, code: CodeInvalidField, field: "name"},

		{name: "setAliases", data: adaCard, ops: []string{`{"op":"card.setAliases","aliases":["Countess","Enchantress of Numbers"]}`},
			want:    strings.Replace(adaCard, `["Ada"]`, `["Countess","Enchantress of Numbers"]`, 1),
			applied: []string{`{"op":"card.setAliases","aliases":["Countess","Enchantress of Numbers"]}`}},
		{name: "setAliases empty", data: adaCard, ops: []string{`{"op":"card.setAliases","aliases":[]}`},
			want: strings.Replace(adaCard, `["Ada"]`, `[]`, 1), applied: []string{`{"op":"card.setAliases","aliases":[]}`}},
		{name: "setAliases without aliases", ops: []string{`{"op":"card.setAliases"}`}, code: CodeInvalidField, field: "aliases"},
		{name: "setAliases duplicate", ops: []string{`{"op":"card.setAliases","aliases":["a","b","a"]}`}, code: CodeInvalidField, field: "aliases[2]"},
		{name: "setAliases empty alias", ops: []string{`{"op":"card.setAliases","aliases":["a",""]}`}, code: CodeInvalidField, field: "aliases[1]"},
		{name: "setAliases alias too long", ops: []string{`{"op":"card.setAliases","aliases":["` + strings.Repeat("a", maxName+1) + `"]}`}, code: CodeInvalidField, field: "aliases[0]"},
		{name: "setAliases too many", ops: []string{`{"op":"card.setAliases","aliases":["` + strings.Repeat(`a","`, maxAliases) + `b"]}`}, code: CodeInvalidField, field: "aliases"},
		{name: "setAliases not strings", ops: []string{`{"op":"card.setAliases","aliases":[1]}`}, code: CodeInvalidField, field: "aliases[0]"},

		{name: "setProperty replaces in place", data: adaCard, ops: []string{`{"op":"card.setProperty","key":"Born","value":"10 December 1815"}`},
			want:    strings.Replace(adaCard, `"1815"`, `"10 December 1815"`, 1),
			applied: []string{`{"op":"card.setProperty","key":"Born","value":"10 December 1815"}`}},
		{name: "setProperty appends", data: adaCard, ops: []string{`{"op":"card.setProperty","key":"Title","value":""}`},
			want: strings.Replace(adaCard, `{"key":"Died","value":"1852"}`, `{"key":"Died","value":"1852"},{"key":"Title","value":""}`, 1)},
		{name: "setProperty without key", ops: []string{`{"op":"card.setProperty","value":"v"}`}, code: CodeInvalidField, field: "key"},
		{name: "setProperty empty key", ops: []string{`{"op":"card.setProperty","key":"","value":"v"}`}, code: CodeInvalidField, field: "key"},
		{name: "setProperty key too long", ops: []string{`{"op":"card.setProperty","key":"` + strings.Repeat("k", maxKey+1) + `","value":"v"}`}, code: CodeInvalidField, field: "key"},
		{name: "setProperty without value", ops: []string{`{"op":"card.setProperty","key":"k"}`}, code: CodeInvalidField, field: "value"},
		{name: "setProperty value too long", ops: []string{`{"op":"card.setProperty","key":"k","value":"` + strings.Repeat("v", maxValue+1) + `"}`}, code: CodeInvalidField, field: "value"},
		{name: "setProperty value not a string", ops: []string{`{"op":"card.setProperty","key":"k","value":1815}`}, code: CodeInvalidField, field: "value"},
		{name: "setProperty on a full card", data: fullCard(maxProperties), ops: []string{`{"op":"card.setProperty","key":"new","value":"v"}`}, code: CodeInvalidField, field: "properties"},
		{name: "setProperty replacing on a full card", data: fullCard(maxProperties), ops: []string{`{"op":"card.setProperty","key":"k0","value":"w"}`},
			want: mustDecodeJSON("card", strings.Replace(fullCard(maxProperties), `"k0","value":"v"`, `"k0","value":"w"`, 1))},

		{name: "removeProperty", data: adaCard, ops: []string{`{"op":"card.removeProperty","key":"Born"}`},
			want:    strings.Replace(adaCard, `{"key":"Born","value":"1815"},`, ``, 1),
			applied: []string{`{"op":"card.removeProperty","key":"Born"}`}},
		{name: "removeProperty unknown", data: adaCard, ops: []string{`{"op":"card.removeProperty","key":"Height"}`}, code: CodeNotFoundInDocument, field: "key"},
		{name: "removeProperty without key", data: adaCard, ops: []string{`{"op":"card.removeProperty"}`}, code: CodeInvalidField, field: "key"},

		{name: "addSection appends", data: adaCard, ops: []string{`{"op":"card.addSection","title":"Legacy"}`},
			want:    strings.Replace(adaCard, `"Notes 😀."}`, `"Notes 😀."},{"id":"sec-1","title":"Legacy","body":""}`, 1),
			applied: []string{`{"op":"card.addSection","id":"sec-1","title":"Legacy","body":"","index":2}`},
			created: []Created{{"sec-1", "Legacy"}}},
		{name: "addSection at index 0 with a body", data: adaCard, ops: []string{`{"op":"card.addSection","title":"Summary","body":"Mathematician.","index":0}`},
			want:    strings.Replace(adaCard, `"sections":[`, `"sections":[{"id":"sec-1","title":"Summary","body":"Mathematician."},`, 1),
			applied: []string{`{"op":"card.addSection","id":"sec-1","title":"Summary","body":"Mathematician.","index":0}`}},
		{name: "addSection without title", ops: []string{`{"op":"card.addSection","body":"b"}`}, code: CodeInvalidField, field: "title"},
		{name: "addSection empty title", ops: []string{`{"op":"card.addSection","title":""}`}, code: CodeInvalidField, field: "title"},
		{name: "addSection title too long", ops: []string{`{"op":"card.addSection","title":"` + strings.Repeat("t", maxTitle+1) + `"}`}, code: CodeInvalidField, field: "title"},
		{name: "addSection body too long", ops: []string{`{"op":"card.addSection","title":"t","body":"` + strings.Repeat("b", MaxSectionBody+1) + `"}`}, code: CodeInvalidField, field: "body"},
		{name: "addSection index past the end", data: adaCard, ops: []string{`{"op":"card.addSection","title":"t","index":3}`}, code: CodeInvalidField, field: "index"},
		{name: "addSection negative index", data: adaCard, ops: []string{`{"op":"card.addSection","title":"t","index":-1}`}, code: CodeInvalidField, field: "index"},
		{name: "addSection fractional index", data: adaCard, ops: []string{`{"op":"card.addSection","title":"t","index":0.5}`}, code: CodeInvalidField, field: "index"},
		{name: "addSection on a full card", data: fullCard(maxSections), ops: []string{`{"op":"card.addSection","title":"t"}`}, code: CodeInvalidField, field: "sections"},

		{name: "updateSection body line endings become \\n", data: adaCard, ops: []string{`{"op":"card.updateSection","id":"sec-b","body":"x\r\ny"}`},
			want: adaWith("x\ny")},
		{name: "updateSection title", data: adaCard, ops: []string{`{"op":"card.updateSection","id":"sec-a","title":"Early life"}`},
			want:    strings.Replace(adaCard, `"Life"`, `"Early life"`, 1),
			applied: []string{`{"op":"card.updateSection","id":"sec-a","title":"Early life"}`}},
		{name: "updateSection body carries the replaced length", data: adaCard, ops: []string{`{"op":"card.updateSection","id":"sec-b","body":"","title":"Works"}`},
			want:    strings.Replace(adaCard, `"title":"Work","body":"Notes 😀."`, `"title":"Works","body":""`, 1),
			applied: []string{`{"op":"card.updateSection","id":"sec-b","title":"Works","body":"","previousBodyLength":9}`}},
		{name: "updateSection without id", data: adaCard, ops: []string{`{"op":"card.updateSection","title":"x"}`}, code: CodeInvalidField, field: "id"},
		{name: "updateSection unknown id", data: adaCard, ops: []string{`{"op":"card.updateSection","id":"sec-z","title":"x"}`}, code: CodeNotFoundInDocument, field: "id"},
		{name: "updateSection sets nothing", data: adaCard, ops: []string{`{"op":"card.updateSection","id":"sec-a"}`}, code: CodeInvalidField, field: "op"},
		{name: "updateSection empty title", data: adaCard, ops: []string{`{"op":"card.updateSection","id":"sec-a","title":""}`}, code: CodeInvalidField, field: "title"},
		{name: "updateSection body too long", data: adaCard, ops: []string{`{"op":"card.updateSection","id":"sec-a","body":"` + strings.Repeat("b", MaxSectionBody+1) + `"}`}, code: CodeInvalidField, field: "body"},

		{name: "moveSection to the front", data: adaCard, ops: []string{`{"op":"card.moveSection","id":"sec-b","index":0}`},
			want:    `{"name":"","aliases":["Ada"],"properties":[{"key":"Born","value":"1815"},{"key":"Died","value":"1852"}],"sections":[{"id":"sec-b","title":"Work","body":"Notes 😀."},{"id":"sec-a","title":"Life","body":"Born in London."}]}`,
			applied: []string{`{"op":"card.moveSection","id":"sec-b","index":0}`}},
		{name: "moveSection to the end", data: adaCard, ops: []string{`{"op":"card.moveSection","id":"sec-a","index":1}`},
			want: `{"name":"","aliases":["Ada"],"properties":[{"key":"Born","value":"1815"},{"key":"Died","value":"1852"}],"sections":[{"id":"sec-b","title":"Work","body":"Notes 😀."},{"id":"sec-a","title":"Life","body":"Born in London."}]}`},
		{name: "moveSection in place", data: adaCard, ops: []string{`{"op":"card.moveSection","id":"sec-a","index":0}`}, want: adaCard},
		{name: "moveSection index past the end", data: adaCard, ops: []string{`{"op":"card.moveSection","id":"sec-a","index":2}`}, code: CodeInvalidField, field: "index"},
		{name: "moveSection without index", data: adaCard, ops: []string{`{"op":"card.moveSection","id":"sec-a"}`}, code: CodeInvalidField, field: "index"},
		{name: "moveSection unknown id", data: adaCard, ops: []string{`{"op":"card.moveSection","id":"sec-z","index":0}`}, code: CodeNotFoundInDocument, field: "id"},

		{name: "removeSection", data: adaCard, ops: []string{`{"op":"card.removeSection","id":"sec-a"}`},
			want:    strings.Replace(adaCard, `{"id":"sec-a","title":"Life","body":"Born in London."},`, ``, 1),
			applied: []string{`{"op":"card.removeSection","id":"sec-a"}`}},
		{name: "removeSection unknown id", data: adaCard, ops: []string{`{"op":"card.removeSection","id":"sec-z"}`}, code: CodeNotFoundInDocument, field: "id"},
		{name: "removeSection unknown parameter", data: adaCard, ops: []string{`{"op":"card.removeSection","id":"sec-a","force":true}`}, code: CodeInvalidField, field: "force"},

		{name: "setSectionSecret", data: adaCard, ops: []string{`{"op":"card.setSectionSecret","id":"sec-b","secret":true}`},
			want:    strings.Replace(adaCard, `"body":"Notes 😀."}`, `"body":"Notes 😀.","secret":true}`, 1),
			applied: []string{`{"op":"card.setSectionSecret","id":"sec-b","secret":true}`}},
		{name: "setSectionSecret false", data: strings.Replace(adaCard, `"body":"Notes 😀."}`, `"body":"Notes 😀.","secret":true}`, 1),
			ops: []string{`{"op":"card.setSectionSecret","id":"sec-b","secret":false}`}, want: adaCard,
			applied: []string{`{"op":"card.setSectionSecret","id":"sec-b","secret":false}`}},
		{name: "setSectionSecret without secret", data: adaCard, ops: []string{`{"op":"card.setSectionSecret","id":"sec-b"}`}, code: CodeInvalidField, field: "secret"},
		{name: "setSectionSecret not a boolean", data: adaCard, ops: []string{`{"op":"card.setSectionSecret","id":"sec-b","secret":"yes"}`}, code: CodeInvalidField, field: "secret"},
		{name: "setSectionSecret unknown id", data: adaCard, ops: []string{`{"op":"card.setSectionSecret","id":"sec-z","secret":true}`}, code: CodeNotFoundInDocument, field: "id"},
	})
}

func mustDecodeJSON(typ, data string) string {
	d, err := Decode(typ, []byte(data))
	if err != nil {
		panic(err)
	}
	return string(d.JSON())
}

// edit is a card.editSectionText op on sec-b.
func edit(base int64, splices string) string {
	return fmt.Sprintf(`{"op":"card.editSectionText","id":"sec-b","baseVersion":%d,"splices":%s}`, base, splices)
}

func TestEditSectionText(t *testing.T) {
	// Versions 1 to MaxRebase+1, each a property change: a history complete from version 0.
	long := make([]string, MaxRebase+1)
	for i := range long {
		long[i] = `{"op":"card.setProperty","key":"k","value":"v"}`
	}
	longHistory := history(1, long...)
	// Versions 4 and 5 of the card: someone typed "Hi " in front of sec-b, then retitled sec-a.
	concurrent := history(4,
		`{"op":"card.editSectionText","id":"sec-b","baseVersion":3,"splices":[{"pos":0,"del":0,"ins":"Hi "}]}`,
		`{"op":"card.updateSection","id":"sec-a","title":"Life"}`)
	// Version 5: someone replaced sec-b's body (12 units) with "New".
	replaced := history(4,
		`{"op":"card.editSectionText","id":"sec-b","baseVersion":3,"splices":[{"pos":0,"del":0,"ins":"Hi "}]}`,
		`{"op":"card.updateSection","id":"sec-b","body":"New","previousBodyLength":12}`)
	runCases(t, "card", []opCase{
		{name: "on the current version", data: adaCard, version: 5, ops: []string{edit(5, `[{"pos":6,"del":2,"ins":"🎉"},{"pos":0,"del":0,"ins":"My "}]`)},
			want: adaWith("My Notes 🎉."),
			// Stored in canonical form: ascending splices.
			applied: []string{edit(5, `[{"pos":0,"del":0,"ins":"My "},{"pos":9,"del":2,"ins":"🎉"}]`)}},
		{name: "line endings become \\n", data: adaCard, version: 5, ops: []string{edit(5, `[{"pos":0,"del":0,"ins":"a\r\nb\rc\u000D\n"}]`)},
			want:    adaWith("a\nb\nc\nNotes 😀."),
			applied: []string{edit(5, `[{"pos":0,"del":0,"ins":"a\nb\nc\n"}]`)}},
		{name: "defaults: del 0, ins empty", data: adaCard, version: 5, ops: []string{edit(5, `[{"pos":0,"del":6},{"pos":0,"ins":"Her "}]`)},
			want: adaWith("Her 😀.")},
		// Like an update that sets nothing: it would make a version that changes nothing.
		{name: "no splices", data: adaCard, version: 5, ops: []string{edit(5, `[]`)}, code: CodeInvalidField, field: "splices"},
		{name: "rebased over a concurrent edit", data: adaWith("Hi Notes 😀."), version: 5, env: concurrent,
			ops:     []string{edit(3, `[{"pos":5,"del":0,"ins":"!"}]`)},
			want:    adaWith("Hi Notes! 😀."),
			applied: []string{edit(5, `[{"pos":8,"del":0,"ins":"!"}]`)}},
		{name: "rebased over a replaced body", data: adaWith("New"), version: 5, env: replaced,
			ops:     []string{edit(3, `[{"pos":0,"del":5,"ins":"Old"}]`)},
			want:    adaWith("NewOld"),
			applied: []string{edit(5, `[{"pos":3,"del":0,"ins":"Old"}]`)}},
		{name: "two edits on the same version in one request", data: adaCard, version: 5,
			ops:     []string{edit(5, `[{"pos":0,"del":0,"ins":"A"}]`), edit(5, `[{"pos":9,"del":0,"ins":"B"},{"pos":0,"del":1}]`)},
			want:    adaWith("Aotes 😀.B"),
			applied: []string{edit(5, `[{"pos":0,"del":0,"ins":"A"}]`), edit(5, `[{"pos":1,"del":1,"ins":""},{"pos":9,"del":0,"ins":"B"}]`)}},
		{name: "after a body replaced in the same request", data: adaCard, version: 5,
			ops:  []string{`{"op":"card.updateSection","id":"sec-b","body":"xyz"}`, edit(5, `[{"pos":0,"del":0,"ins":"A"}]`)},
			want: adaWith("xyzA")},
		{name: "other sections do not count", data: adaCard, version: 5,
			ops:  []string{`{"op":"card.updateSection","id":"sec-a","body":"xyz"}`, edit(5, `[{"pos":0,"del":0,"ins":"A"}]`)},
			want: strings.Replace(adaWith("ANotes 😀."), "Born in London.", "xyz", 1)},

		{name: "inside a surrogate pair", data: adaCard, version: 5, ops: []string{edit(5, `[{"pos":7,"del":0,"ins":"x"}]`)}, code: CodeInvalidField, field: "splices[0].pos"},
		{name: "deleting half a surrogate pair", data: adaCard, version: 5, ops: []string{edit(5, `[{"pos":6,"del":1}]`)}, code: CodeInvalidField, field: "splices[0].del"},
		{name: "past the end", data: adaCard, version: 5, ops: []string{edit(5, `[{"pos":10}]`)}, code: CodeInvalidField, field: "splices[0].pos"},
		{name: "second splice past the end", data: adaCard, version: 5, ops: []string{edit(5, `[{"pos":0,"del":9},{"pos":1}]`)}, code: CodeInvalidField, field: "splices[1].pos"},
		{name: "without pos", data: adaCard, version: 5, ops: []string{edit(5, `[{"ins":"x"}]`)}, code: CodeInvalidField, field: "splices[0].pos"},
		{name: "negative pos", data: adaCard, version: 5, ops: []string{edit(5, `[{"pos":-1}]`)}, code: CodeInvalidField, field: "splices[0].pos"},
		{name: "huge pos", data: adaCard, version: 5, ops: []string{edit(5, `[{"pos":1e15}]`)}, code: CodeInvalidField, field: "splices[0].pos"},
		{name: "fractional del", data: adaCard, version: 5, ops: []string{edit(5, `[{"pos":0,"del":0.5}]`)}, code: CodeInvalidField, field: "splices[0].del"},
		{name: "ins too long", data: adaCard, version: 5, ops: []string{edit(5, `[{"pos":0,"ins":"`+strings.Repeat("i", MaxSectionBody+1)+`"}]`)}, code: CodeInvalidField, field: "splices[0].ins"},
		{name: "body too long", data: adaWith(strings.Repeat("b", MaxSectionBody)), version: 5, ops: []string{edit(5, `[{"pos":0,"ins":"x"}]`)}, code: CodeInvalidField, field: "splices"},
		{name: "too many splices in one request", data: adaCard, version: 5, ops: func() []string {
			var ops []string
			for range maxRequestSplices / maxSplices {
				ops = append(ops, edit(5, `[`+strings.Repeat(`{"pos":0,"ins":"x"},`, maxSplices-1)+`{"pos":0,"ins":"x"}]`))
			}
			return append(ops, edit(5, `[{"pos":0,"ins":"x"}]`))
		}(), code: CodeInvalidField, field: "splices", opIndex: maxRequestSplices / maxSplices},
		{name: "too many splices", data: adaCard, version: 5, ops: []string{edit(5, `[`+strings.Repeat(`{"pos":0},`, maxSplices)+`{"pos":0}]`)}, code: CodeInvalidField, field: "splices"},
		{name: "unknown splice member", data: adaCard, version: 5, ops: []string{edit(5, `[{"pos":0,"text":"x"}]`)}, code: CodeInvalidField, field: "splices[0].text"},
		{name: "splice pos not a number", data: adaCard, version: 5, ops: []string{edit(5, `[{"pos":0},{"pos":1},{"pos":"2"}]`)}, code: CodeInvalidField, field: "splices[2].pos"},
		{name: "splice del not a number", data: adaCard, version: 5, ops: []string{edit(5, `[{"pos":0},{"pos":1,"del":[1]}]`)}, code: CodeInvalidField, field: "splices[1].del"},
		{name: "splice member twice", data: adaCard, version: 5, ops: []string{edit(5, `[{"pos":0},{"pos":1,"pos":2}]`)}, code: CodeInvalidField, field: "splices[1].pos"},
		{name: "splice member in capitals", data: adaCard, version: 5, ops: []string{edit(5, `[{"pos":0},{"POS":1}]`)}, code: CodeInvalidField, field: "splices[1].POS"},
		{name: "splices not an array", data: adaCard, version: 5, ops: []string{edit(5, `{"pos":0}`)}, code: CodeInvalidField, field: "splices"},
		{name: "without splices", data: adaCard, version: 5, ops: []string{`{"op":"card.editSectionText","id":"sec-b","baseVersion":5}`}, code: CodeInvalidField, field: "splices"},
		{name: "without baseVersion", data: adaCard, version: 5, ops: []string{`{"op":"card.editSectionText","id":"sec-b","splices":[]}`}, code: CodeInvalidField, field: "baseVersion"},
		{name: "negative baseVersion", data: adaCard, version: 5, ops: []string{edit(-1, `[]`)}, code: CodeInvalidField, field: "baseVersion"},
		{name: "unknown section", data: adaCard, version: 5, ops: []string{`{"op":"card.editSectionText","id":"sec-z","baseVersion":5,"splices":[]}`}, code: CodeNotFoundInDocument, field: "id"},
		{name: "baseVersion from the future", data: adaCard, version: 5, ops: []string{edit(6, `[]`)}, code: CodeStaleBaseVersion, field: "baseVersion"},
		{name: "no history", data: adaCard, version: 5, ops: []string{edit(4, `[]`)}, code: CodeStaleBaseVersion, field: "baseVersion"},
		{name: "history failing", data: adaCard, version: 5, env: concurrent, ops: []string{edit(2, `[]`)}, code: CodeStaleBaseVersion, field: "baseVersion"},
		{name: "history incomplete", data: adaCard, version: 6, env: concurrent, ops: []string{edit(3, `[]`)}, code: CodeStaleBaseVersion, field: "baseVersion"},
		{name: "history with a gap", data: adaCard, version: 5, env: Env{History: func(int64) ([]Batch, error) {
			return []Batch{{Version: 4}, {Version: 6}}, nil
		}}, ops: []string{edit(3, `[]`)}, code: CodeStaleBaseVersion, field: "baseVersion"},
		{name: "history unreadable", data: adaCard, version: 5, env: Env{History: func(int64) ([]Batch, error) {
			return []Batch{{Version: 5, Ops: raws([]string{`{"op":`})}}, nil
		}}, ops: []string{edit(4, `[]`)}, code: CodeStaleBaseVersion, field: "baseVersion"},
		{name: "baseVersion just within reach", data: adaCard, version: MaxRebase + 1, env: longHistory, ops: []string{edit(1, `[{"pos":0}]`)},
			want: adaCard, applied: []string{edit(MaxRebase+1, `[]`)}},
		{name: "baseVersion too far behind", data: adaCard, version: MaxRebase + 1, env: longHistory, ops: []string{edit(0, `[]`)}, code: CodeStaleBaseVersion, field: "baseVersion"},
	})
}

// A request of many editSectionText ops reads the history once, not once per op (each read
// loads and decodes the op log since baseVersion); an op with an older baseVersion reads
// again from there.
func TestHistoryIsReadOncePerRequest(t *testing.T) {
	doc, _ := Decode("card", []byte(adaCard))
	batches := []string{`{"op":"card.setProperty","key":"k","value":"v"}`, `{"op":"card.setProperty","key":"k","value":"w"}`, `{"op":"card.setProperty","key":"k","value":"x"}`}
	env := history(3, batches...) // versions 3, 4, 5
	reads := 0
	read := env.History
	env.History = func(since int64) ([]Batch, error) { reads++; return read(since) }
	none := `[{"pos":0}]`
	ops := []string{edit(3, none), edit(3, none), edit(4, none), edit(3, none), edit(2, none), edit(4, none)}
	if _, err := Apply(doc, Request{Version: 5, Ops: raws(ops), Env: env}); err != nil {
		t.Fatal(err)
	}
	if reads != 2 { // since 3, then since 2 (older); the others are served from those
		t.Fatalf("history read %d times for %d ops, want 2", reads, len(ops))
	}
}

func TestStaleDetails(t *testing.T) {
	doc, _ := Decode("card", []byte(adaCard))
	_, err := Apply(doc, Request{Version: 5, Ops: raws([]string{`{"op":"card.editSectionText","id":"sec-b","baseVersion":2,"splices":[]}`})})
	e := err.(*Error)
	if e.Details["version"] != int64(5) || e.Details["baseVersion"] != int64(2) || !strings.Contains(e.Message, "re-read the document") {
		t.Fatalf("%#v", e)
	}
}

func TestCardTextPrefersItsOwnName(t *testing.T) {
	doc := Empty("card")
	res, err := Apply(doc, Request{Ops: raws([]string{`{"op":"card.rename","name":"Ada Lovelace"}`})})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Doc.Text("Ada"); got != "Ada Lovelace" {
		t.Fatalf("Text = %q", got)
	}
	if got := doc.Text("Ada"); got != "Ada" {
		t.Fatalf("Text of the unnamed card = %q", got)
	}
}

func TestCardPublicLeavesOutSecretSections(t *testing.T) {
	doc, err := Decode("card", []byte(strings.Replace(adaCard, `"body":"Notes 😀."}`, `"body":"Notes 😀.","secret":true}`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if !HasSecrets(doc) {
		t.Fatal("HasSecrets = false for a card with a secret section")
	}
	pub := Public(doc)
	if got := string(pub.JSON()); strings.Contains(got, "Notes") || !strings.Contains(got, "Born in London.") {
		t.Fatalf("Public = %s", got)
	}
	if got := pub.Text("Ada"); strings.Contains(got, "Notes") || strings.Contains(got, "Work") {
		t.Fatalf("Public text = %q", got)
	}
	if got := doc.(Secretive).SecretText(asIs); got != "Work Notes 😀." {
		t.Fatalf("SecretText = %q", got)
	}
	if !strings.Contains(string(doc.JSON()), "Notes") {
		t.Fatal("Public changed the document it was given")
	}
	if HasSecrets(pub) || Public(pub) != pub {
		t.Fatal("a card without secrets is its own public form")
	}
}

// TestControlCharacterNamed: a refused control character is named as it was sent, though
// line breaks are made line feeds before an op is read.
func TestControlCharacterNamed(t *testing.T) {
	for op, want := range map[string]string{
		`{"op":"card.rename","name":"a\rb"}`:                   "U+000D",
		`{"op":"card.rename","name":"a\u000Db"}`:               "U+000D",
		`{"op":"card.rename","name":"a\r\nb"}`:                 "U+000D",
		`{"op":"card.rename","name":"a\nb\rc"}`:                "U+000A",
		`{"op":"card.rename","name":"a\u0007b"}`:               "U+0007",
		`{"op":"card.setAliases","aliases":["ok","x","a\rb"]}`: "U+000D",
	} {
		_, err := Apply(Empty("card"), Request{Ops: raws([]string{op})})
		if e, ok := err.(*Error); !ok || e.Code != CodeInvalidField || !strings.Contains(e.Message, "(found "+want+")") {
			t.Errorf("%s: %v, want %s named", op, err, want)
		}
	}
}
