package ops

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseLinks(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []LinkRef
	}{
		{"no links", nil},
		{"see [[Vharn]].", []LinkRef{{Start: 4, End: 13, Name: "Vharn"}}},
		{"[[Vharn|the smith]]", []LinkRef{{Start: 0, End: 19, Name: "Vharn", Text: "the smith"}}},
		{"[[doc:abc123]] and [[doc:xyz|X]]", []LinkRef{{Start: 0, End: 14, ID: "abc123"}, {Start: 19, End: 32, ID: "xyz", Text: "X"}}},
		{"[[doc:not an id]]", []LinkRef{{Start: 0, End: 17, Name: "doc:not an id"}}},
		{"[[ ]] [[]] [[a\nb]] [[a]b]]", nil},
		{"[[[Vharn]]", []LinkRef{{Start: 1, End: 10, Name: "Vharn"}}},
		{"[[Vharn", nil},
		{"[[" + strings.Repeat("a", 401) + "]]", nil},
	} {
		got := ParseLinks(tc.in)
		if len(got) != len(tc.want) {
			t.Errorf("ParseLinks(%q) = %+v, want %+v", tc.in, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("ParseLinks(%q)[%d] = %+v, want %+v", tc.in, i, got[i], tc.want[i])
			}
		}
	}
}

func TestLinkLabels(t *testing.T) {
	name := func(id string) string { return map[string]string{"v1": "Vharn"}[id] }
	got := LinkLabels("[[doc:v1]] met [[doc:v1|the smith]] and [[Ossa]] at [[doc:gone]].", name)
	if want := "Vharn met the smith and Ossa at ."; got != want {
		t.Fatalf("LinkLabels = %q, want %q", got, want)
	}
}

func TestResolveLinkNames(t *testing.T) {
	resolve := func(name string) (string, bool) {
		if strings.EqualFold(name, "Vharn") {
			return "v1", true
		}
		return "", false
	}
	in := raws([]string{
		`{"op":"card.addSection","title":"Kin","body":"Son of [[Vharn]], friend of [[Ossa|O.]]; [[vharn|him]]."}`,
		`{"op":"card.editSectionText","id":"sec-a","baseVersion":1,"splices":[{"pos":0,"ins":"[[Vharn]]"}]}`,
		`{"op":"timeline.addEvent","label":"[[Vharn]]","dateMs":0,"description":"[[Vharn]] forges"}`,
		`{"op":"folder.setDescription","description":"nothing"}`,
	})
	out := ResolveLinkNames(in, resolve)
	var body struct{ Body, Description string }
	_ = json.Unmarshal(out[0], &body)
	if want := "Son of [[doc:v1]], friend of [[Ossa|O.]]; [[doc:v1|him]]."; body.Body != want {
		t.Errorf("addSection body = %q, want %q", body.Body, want)
	}
	if string(out[1]) != string(in[1]) {
		t.Errorf("editSectionText was rewritten: %s", out[1])
	}
	_ = json.Unmarshal(out[2], &body)
	if !strings.Contains(string(out[2]), `"label":"[[Vharn]]"`) || body.Description != "[[doc:v1]] forges" {
		t.Errorf("addEvent = %s", out[2])
	}
	if &out[3][0] != &in[3][0] {
		t.Error("an op without links was copied")
	}
	if string(in[0]) == string(out[0]) {
		t.Error("the input batch was changed in place")
	}
	same := raws([]string{`{"op":"card.addSection","title":"T","body":"[[Nobody]]"}`})
	if got := ResolveLinkNames(same, resolve); &got[0] != &same[0] {
		t.Error("a batch with no resolvable link was copied")
	}
}

func TestDocumentLinks(t *testing.T) {
	card, err := Decode("card", []byte(`{"sections":[
		{"id":"sec-a","title":"Secret","body":"Hidden [[doc:v1]] here.","secret":true},
		{"id":"sec-b","title":"Life","body":"Born far away. Apprenticed to [[doc:v1|the smith]] in [[Ossa]]! Then more."},
		{"id":"sec-c","title":"GM","body":"Only [[doc:k9]].","secret":true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got := DocumentLinks(card)
	want := []Link{
		{TargetID: "v1", Context: "Apprenticed to [[doc:v1|the smith]] in [[Ossa]]!"},
		{TargetName: "Ossa", Context: "Apprenticed to [[doc:v1|the smith]] in [[Ossa]]!"},
		{TargetID: "k9", Context: "Only [[doc:k9]].", Secret: true},
	}
	if len(got) != len(want) {
		t.Fatalf("DocumentLinks = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("link %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	long := strings.Repeat("word ", 200) + "[[doc:v1]]" + strings.Repeat(" word", 200)
	tl, _ := Decode("timeline", []byte(`{"events":[{"id":"evt-a","label":"A","dateMs":0,"description":`+mustQuote(long)+`,"precision":"day"}]}`))
	l := DocumentLinks(tl)
	if len(l) != 1 || len(l[0].Context) > maxContext || !strings.Contains(l[0].Context, "[[doc:v1]]") {
		t.Fatalf("long context = %+v", l)
	}
}

func mustQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func FuzzLinks(f *testing.F) {
	f.Add("see [[Vharn|the smith]]. And [[doc:abc]]!")
	f.Add("[[[[a]]]]")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range ParseLinks(s) {
			if r.Start < 0 || r.End > len(s) || s[r.Start:r.Start+2] != "[[" || s[r.End-2:r.End] != "]]" {
				t.Fatalf("bad ref %+v in %q", r, s)
			}
			if (r.ID == "") == (r.Name == "") {
				t.Fatalf("ref %+v has neither or both of id and name", r)
			}
		}
		if got := ReplaceLinks(s, func(r LinkRef) string { return s[r.Start:r.End] }); got != s {
			t.Fatalf("identity ReplaceLinks changed %q to %q", s, got)
		}
		doc := &Folder{Description: s}
		for _, l := range DocumentLinks(doc) {
			if len(l.Context) > maxContext+8 {
				t.Fatalf("context of %d bytes", len(l.Context))
			}
		}
	})
}
