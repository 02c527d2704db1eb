package ops

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"unicode/utf8"
)

// The fuzz targets check the package's invariants on arbitrary input: Apply never panics; a
// rejected batch leaves the input document byte-identical and names an op of the batch; an
// accepted batch's data round-trips through Decode to the same JSON; Text never panics and
// is deterministic. Seeds are added below and kept in testdata/fuzz/<FuzzName>/.

var errorCodes = []string{CodeInvalidField, CodeUnsupportedOperation, CodeUnknownClip, CodeNotFoundInDocument, CodeStaleBaseVersion}

// checkDoc checks that doc's JSON round-trips through Decode and that Text is stable.
func checkDoc(t *testing.T, doc Document) {
	t.Helper()
	data := doc.JSON()
	again, err := Decode(doc.Type(), data)
	if err != nil {
		t.Fatalf("Decode of our own JSON failed: %v\n%s", err, data)
	}
	if got := again.JSON(); !bytes.Equal(got, data) {
		t.Fatalf("JSON does not round-trip:\n%s\n%s", data, got)
	}
	text := doc.Text("Name")
	if text != doc.Text("Name") || text != again.Text("Name") {
		t.Fatalf("Text is not deterministic: %q", text)
	}
	if !utf8.ValidString(text) {
		t.Fatalf("Text is not UTF-8: %q", text)
	}
}

// checkApply applies batch (a JSON array of ops) to doc and checks the invariants.
func checkApply(t *testing.T, doc Document, version int64, env Env, batch []byte) {
	t.Helper()
	var ops []json.RawMessage
	if json.Unmarshal(batch, &ops) != nil {
		return
	}
	before := slices.Clone(doc.JSON())
	res, err := Apply(doc, Request{Version: version, Ops: ops, Env: env})
	if got := doc.JSON(); !bytes.Equal(got, before) {
		t.Fatalf("Apply changed its input:\n%s\n%s", before, got)
	}
	if err != nil {
		e, ok := err.(*Error)
		if !ok {
			t.Fatalf("Apply returned %T %v, want *Error", err, err)
		}
		if e.OpIndex < 0 || e.OpIndex >= len(ops) || !slices.Contains(errorCodes, e.Code) || e.Message == "" {
			t.Fatalf("bad error %#v for %d ops", e, len(ops))
		}
		return
	}
	if len(res.Applied) != len(ops) {
		t.Fatalf("%d ops applied, %d sent", len(res.Applied), len(ops))
	}
	for i, a := range res.Applied {
		name, _ := opName(ops[i])
		if got, err := opName(a); err != nil || got != name {
			t.Fatalf("applied op %d is %s, sent %s", i, a, name)
		}
	}
	checkDoc(t, res.Doc)
}

// fuzzApply fuzzes batches on two documents of docType: the empty one and the one the
// golden script leaves.
func fuzzApply(f *testing.F, docType string, seeds ...string) {
	for _, s := range seeds {
		f.Add(false, []byte(s))
		f.Add(true, []byte(s))
	}
	for _, batch := range goldenScripts[docType] {
		f.Add(false, []byte("["+joinOps(batch)+"]"))
	}
	full, log := scripted(f, docType)
	empty := Empty(docType)
	f.Fuzz(func(t *testing.T, onFull bool, batch []byte) {
		if onFull {
			checkApply(t, full, int64(len(log)), scriptEnv(log), batch)
		} else {
			checkApply(t, empty, 0, scriptEnv(nil), batch)
		}
	})
}

func joinOps(ops []string) string {
	var b bytes.Buffer
	for i, op := range ops {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(op)
	}
	return b.String()
}

func FuzzApplyTimeline(f *testing.F) {
	fuzzApply(f, "timeline",
		`[{"op":"timeline.addEvent","label":"A","dateMs":-9007199254740991},{"op":"timeline.updateEvent","id":"evt-1","dateMs":1e3}]`,
		`[{"op":"timeline.removeEvent","id":"evt-2"},{"op":"timeline.updateEvent","id":"evt-4","precision":"hour","description":"x"}]`,
		`[{"op":"timeline.addEvent","label":"","dateMs":1.5,"precision":"week"}]`)
}

func FuzzApplyAnimator(f *testing.F) {
	fuzzApply(f, "animator",
		`[{"op":"animator.setClips","clips":[{"id":"a"},{"id":"b"}]},{"op":"animator.setActiveClip","clipId":"b"}]`,
		`[{"op":"animator.setModel","url":"https://h/x.glb","name":"n"},{"op":"animator.setActiveClip","clipId":"zz"}]`)
}

func FuzzApplyCard(f *testing.F) {
	fuzzApply(f, "card",
		`[{"op":"card.editSectionText","id":"sec-2","baseVersion":1,"splices":[{"pos":3,"del":2,"ins":"😀x"}]}]`,
		`[{"op":"card.editSectionText","id":"sec-2","baseVersion":2,"splices":[{"pos":0,"ins":"a"}]},{"op":"card.editSectionText","id":"sec-2","baseVersion":2,"splices":[{"pos":1,"del":3}]}]`,
		`[{"op":"card.updateSection","id":"sec-3","body":"é😀"},{"op":"card.editSectionText","id":"sec-3","baseVersion":0,"splices":[{"pos":1,"del":2,"ins":"q"}]}]`,
		`[{"op":"card.addSection","title":"T","body":"b","index":1},{"op":"card.moveSection","id":"sec-4","index":0},{"op":"card.removeSection","id":"sec-2"}]`,
		`[{"op":"card.setProperty","key":"k","value":"v"},{"op":"card.removeProperty","key":"k"},{"op":"card.setAliases","aliases":["x"]},{"op":"card.rename","name":"N"}]`)
}

func FuzzApplyMap(f *testing.F) {
	fuzzApply(f, "map",
		`[{"op":"map.setImage","url":"/m.png","width":10,"height":10},{"op":"map.addPin","x":5,"y":5.5,"label":"P","documentId":"doc-1"}]`,
		`[{"op":"map.movePin","id":"pin-1","x":0,"y":0},{"op":"map.updatePin","id":"pin-2","documentId":""},{"op":"map.removePin","id":"pin-1"}]`,
		`[{"op":"map.setImage","url":"/s.png","width":1,"height":1}]`)
}

func FuzzApplyFolder(f *testing.F) {
	fuzzApply(f, "folder",
		`[{"op":"folder.setDescription","description":"x"}]`,
		`[{"op":"folder.setDescription","description":null}]`)
}

// FuzzDecodeApply decodes arbitrary stored data of any type, then applies an arbitrary
// batch to it.
func FuzzDecodeApply(f *testing.F) {
	types := append(Types(), "gallery")
	for i, typ := range types {
		doc, _ := scripted(f, typ)
		for _, batch := range goldenScripts[typ] {
			f.Add(uint8(i), doc.JSON(), []byte("["+joinOps(batch)+"]"))
		}
	}
	idx := func(typ string) uint8 { return uint8(slices.Index(types, typ)) }
	f.Add(idx("timeline"), []byte(`{"events":[{"id":"b","dateMs":1},{"id":"a","dateMs":1}]}`), []byte(`[{"op":"timeline.removeEvent","id":"a"}]`))
	f.Add(idx("animator"), []byte(`{"clips":null,"activeClipId":"ghost"}`), []byte(`[]`))
	f.Add(idx("card"), []byte(`{"sections":[{"id":"s","body":"😀"}]}`), []byte(`[{"op":"card.editSectionText","id":"s","baseVersion":0,"splices":[{"pos":1}]}]`))
	f.Add(idx("map"), []byte(`{"pins":[{"id":"p","x":1e308}]}`), []byte(`[{"op":"map.setImage","url":"/a","width":1,"height":1}]`))
	f.Fuzz(func(t *testing.T, typ uint8, data, batch []byte) {
		doc, err := Decode(types[int(typ)%len(types)], data)
		if err != nil {
			return
		}
		checkDoc(t, doc)
		checkApply(t, doc, 0, scriptEnv(nil), batch)
	})
}

// FuzzTransformSplices checks that two edits of one text, rebased over each other, give the
// same text in both orders.
func FuzzTransformSplices(f *testing.F) {
	f.Add("hello 😀 world", []byte{1, 2, 3, 4, 5, 6}, []byte{2, 0, 9})
	f.Add("ab", []byte{0, 0, 1}, []byte{0, 0, 2})
	f.Add("", []byte{0, 0, 5, 0, 3, 0}, []byte{0, 0, 0})
	f.Fuzz(func(t *testing.T, text string, a, b []byte) {
		if !utf8.ValidString(text) || len(text) > 200 {
			return
		}
		local, applied := splicesFrom(a), splicesFrom(b)
		x, errX := ApplySplices(text, local)
		y, errY := ApplySplices(text, applied)
		if errX != nil || errY != nil {
			return
		}
		for _, localFirst := range []bool{false, true} {
			l2, a2, err := TransformSplices(local, applied, localFirst)
			if err != nil {
				t.Fatalf("text %q local %v applied %v: %v", text, local, applied, err)
			}
			viaApplied, err1 := ApplySplices(y, l2)
			viaLocal, err2 := ApplySplices(x, a2)
			if err1 != nil || err2 != nil || viaApplied != viaLocal {
				t.Fatalf("text %q local %v applied %v local first %v: %q (%v) != %q (%v)", text, local, applied, localFirst, viaApplied, err1, viaLocal, err2)
			}
		}
	})
}

// splicesFrom reads splices from bytes, three at a time: pos, del and the insert's length.
func splicesFrom(b []byte) []Splice {
	const alphabet = "xyé😀"
	var out []Splice
	for ; len(b) >= 3 && len(out) < 20; b = b[3:] {
		ins := ""
		for i := range int(b[2] % 5) {
			ins += string([]rune(alphabet)[(int(b[2])+i)%4])
		}
		out = append(out, Splice{Pos: int(b[0] % 32), Del: int(b[1] % 8), Ins: ins})
	}
	return out
}

// FuzzApplySplices checks the canonical form against applying splices one at a time.
func FuzzApplySplices(f *testing.F) {
	f.Add("hello 😀 world", []byte{9, 1, 3, 1, 2, 4, 0, 0, 2})
	f.Add("abcdef", []byte{4, 1, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, text string, b []byte) {
		if !utf8.ValidString(text) || len(text) > 200 {
			return
		}
		splices := splicesFrom(b)
		want, ok := naiveApply(text, splices)
		got, err := ApplySplices(text, splices)
		if ok && (err != nil || got != want) {
			t.Fatalf("text %q splices %v: got %q, %v; want %q", text, splices, got, err, want)
		}
		if !ok && err == nil && !utf8.ValidString(got) {
			t.Fatalf("text %q splices %v: accepted, giving invalid text %q", text, splices, got)
		}
	})
}
