package ops

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestCheckJSONText(t *testing.T) {
	for in, bad := range map[string]bool{
		`{"a":"\ud83d\ude00"}`:   false, // a pair
		`{"a":"\\ud800"}`:        false, // an escaped backslash, then text
		`{"a":"\u00e9\\"}`:       false,
		`{"a":"\ud800"}`:         true,
		`{"a":"\ud800\u0041"}`:   true,
		`{"a":"\udfff\ud800"}`:   true,
		`{"\ud800":1}`:           true,
		"{\"a\":\"\xc3\x28\"}":   true,
		`{"a":"x"} "\ud800`:      true,  // checked wherever it is: json.Valid refuses the rest
		`{"a":"\ud83d\ude00\u"}`: false, // malformed escapes are json.Valid's to refuse
	} {
		if got := CheckJSONText([]byte(in)) != ""; got != bad {
			t.Errorf("CheckJSONText(%s) refused = %v, want %v", in, got, bad)
		}
	}
}

func TestCheckKeys(t *testing.T) {
	type inner struct {
		Label string `json:"label"`
	}
	type body struct {
		opField
		Items []inner          `json:"items"`
		Any   json.RawMessage  `json:"any"`
		Map   map[string]inner `json:"map"`
	}
	for in, want := range map[string]string{
		`{"op":"x","items":[{"label":"a"}],"any":{"Label":1},"map":{"K":{"label":"b"}}}`: "",
		`{"Op":"x"}`:                            "Op",
		`{"items":[{"LABEL":"a"}]}`:             "LABEL",
		`{"map":{"k":{"Label":"a"}}}`:           "Label",
		`{"any":{"a":1,"a":2}}`:                 "a",
		`{"items":[{"label":"a","label":"b"}]}`: "label",
		`{"unknown":1}`:                         "", // DisallowUnknownFields reports it
	} {
		if got, _ := CheckKeys([]byte(in), reflect.TypeFor[body]()); got != want {
			t.Errorf("CheckKeys(%s) = %q, want %q", in, got, want)
		}
	}
}

func FuzzCheckJSON(f *testing.F) {
	for _, s := range quickSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		_ = CheckJSONText(raw)
		if json.Valid(raw) {
			CheckKeys(raw, reflect.TypeFor[setPropertyParams]())
		}
	})
}

func TestPathAt(t *testing.T) {
	data := []byte(`{"op":"animator.setClips","clips":[{"id":"a"},{"id":1}],"n":{"deep":[[1,2],[3]]}}`)
	for _, tc := range []struct {
		find string
		want string
	}{
		{`"animator.setClips"`, "op"},
		{`"a"`, "clips[0].id"},
		{`1}`, "clips[1].id"},
		{`2]`, "n.deep[0][1]"},
		{`3]`, "n.deep[1][0]"},
	} {
		i := bytes.Index(data, []byte(tc.find))
		end := int64(i + len(strings.TrimRight(tc.find, "}]")))
		if got := PathAt(data, end); got != tc.want {
			t.Errorf("PathAt(%s) = %q, want %q", tc.find, got, tc.want)
		}
	}
	if got := PathAt(data, int64(len(data)+5)); got != "" {
		t.Errorf("past the end: %q", got)
	}
}
