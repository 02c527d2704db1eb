package ops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
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
		`{"Op":"x"}`: "Op",
		`{"items":[{"label":"a"},{"LABEL":"a"}]}`:    "items[1].LABEL",
		`{"map":{"k":{"Label":"a"}}}`:                "map.k.Label",
		`{"any":{"a":1,"a":2}}`:                      "any.a",
		`{"any":[[1],[2,{"b":[{},{"a":1,"a":2}]}]]}`: "any[1][1].b[1].a",
		`{"items":[{"label":"a","label":"b"}]}`:      "items[0].label",
		`{"unknown":1}`:                              "", // DisallowUnknownFields reports it
	} {
		if got, _ := CheckKeys([]byte(in), reflect.TypeFor[body]()); got != want {
			t.Errorf("CheckKeys(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckKeysEmptyName(t *testing.T) {
	if field, problem := CheckKeys([]byte(`{"":1,"":2}`), nil); field != "" || problem == "" {
		t.Errorf(`CheckKeys of "" twice = %q, %q; want "", a problem`, field, problem)
	}
	if field, problem := CheckKeys([]byte(`{"any":{"":1,"":2}}`), nil); field != "any." || problem == "" {
		t.Errorf(`CheckKeys of "" twice in any = %q, %q; want "any.", a problem`, field, problem)
	}
}

func BenchmarkCheckKeys(b *testing.B) {
	body := []byte(`{"ops":[{"op":"card.setProperty","key":"k1","value":"value 1 of property 1"},{"op":"card.setProperty","key":"k2","value":"value 1 of property 2"},{"op":"card.setProperty","key":"k3","value":"value 1 of property \u00e9"}]}`)
	for _, walker := range []struct {
		name  string
		check func([]byte, reflect.Type) (string, string)
	}{{"bytes", CheckKeys}, {"tokens", checkKeysTokens}} {
		b.Run(walker.name, func(b *testing.B) {
			for b.Loop() {
				walker.check(body, nil)
			}
		})
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

// checkKeysTokens is CheckKeys as it was written first, on encoding/json's tokens: the
// reference the byte walker is fuzzed against.
func checkKeysTokens(data []byte, t reflect.Type) (field, problem string) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var walk func(t reflect.Type) (string, string, error)
	walk = func(t reflect.Type) (string, string, error) {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == rawMessage || t != nil && t.Kind() == reflect.Interface {
			t = nil
		}
		tok, err := dec.Token()
		if err != nil {
			return "", "", err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return "", "", err
				}
				key, _ := kt.(string)
				if seen[key] {
					return key, fmt.Sprintf("the member %q appears twice in one object", key), nil
				}
				seen[key] = true
				var member reflect.Type
				if t != nil {
					switch t.Kind() {
					case reflect.Map:
						member = t.Elem()
					case reflect.Struct:
						var folded bool
						if member, folded = structMember(t, key); folded {
							return key, fmt.Sprintf("unknown member %q (member names are case-sensitive)", key), nil
						}
					}
				}
				if f, p, err := walk(member); p != "" || err != nil {
					return memberPath(key, f), p, err
				}
			}
		case json.Delim('['):
			var elem reflect.Type
			if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
				elem = t.Elem()
			}
			for i := 0; dec.More(); i++ {
				if f, p, err := walk(elem); p != "" || err != nil {
					return elementPath(i, f), p, err
				}
			}
		default:
			return "", "", nil
		}
		_, err = dec.Token()
		return "", "", err
	}
	field, problem, _ = walk(t)
	return field, problem
}

// keysBody has every kind of member CheckKeys tells apart.
type keysBody struct {
	opField
	Items []struct {
		Label string `json:"label"`
	} `json:"items"`
	Any json.RawMessage              `json:"any"`
	Map map[string]setPropertyParams `json:"map"`
	Ptr *setPropertyParams           `json:"ptr"`
}

func TestCheckKeysMatchesTokens(t *testing.T) {
	many := `{"a0":1`
	for i := 1; i < 40; i++ {
		many += fmt.Sprintf(`,"a%d":%d`, i, i)
	}
	for _, in := range []string{
		`{"op":"x","items":[{"label":"a"}],"any":{"Label":1},"map":{"K":{"key":"b"}}}`,
		`{"items":[],"map":{},"any":[1,2,{"a":1,"a":2}]}`,
		`{"\u006fp":"x","op":"y"}`,
		`{"ptr":{"KEY":1}}`,
		` { "items" : [ { "label" : "a" } , { "label" : "b" , "LABEL" : 1 } ] } `,
		`{"any":"\"}{\"a\":1,\"a\":2"}`,
		`[1,true,null,-2.5e3,"s",{"x":[{"y":1,"y":2}]}]`,
		many + `}`,
		many + `,"a39":1}`,
	} {
		for _, typ := range []reflect.Type{nil, reflect.TypeFor[keysBody](), reflect.TypeFor[setPropertyParams]()} {
			gf, gp := CheckKeys([]byte(in), typ)
			wf, wp := checkKeysTokens([]byte(in), typ)
			if gf != wf || gp != wp {
				t.Errorf("CheckKeys(%s, %v) = %q, %q; tokens say %q, %q", in, typ, gf, gp, wf, wp)
			}
		}
	}
}

// FuzzCheckKeys holds the byte walker to the token walker on valid JSON, and to not hanging
// or panicking on anything else.
func FuzzCheckKeys(f *testing.F) {
	for _, s := range quickSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"items":[{"label":"a","label":"b"}],"map":{"k":{"Key":1}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, typ := range []reflect.Type{nil, reflect.TypeFor[keysBody]()} {
			gf, gp := CheckKeys(raw, typ)
			if !json.Valid(raw) || !utf8.Valid(raw) {
				continue
			}
			if wf, wp := checkKeysTokens(raw, typ); gf != wf || gp != wp {
				t.Fatalf("CheckKeys(%q, %v) = %q, %q; tokens say %q, %q", raw, typ, gf, gp, wf, wp)
			}
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

// TestStringAt: stringAt finds the string at a path, and nothing where the path is missing
// or holds another kind of value (it once answered with the last string it passed).
func TestStringAt(t *testing.T) {
	data := []byte(`{"op":"x","clips":[{"id":"a"},{"id":7}],"body":"a\rb"}`)
	for _, c := range []struct {
		path string
		want string
		ok   bool
	}{
		{"op", "x", true},
		{"clips[0].id", "a", true},
		{"body", "a\rb", true},
		{"clips[1].id", "", false},
		{"missing", "", false},
	} {
		if s, ok := stringAt(data, c.path); s != c.want || ok != c.ok {
			t.Errorf("stringAt(%q) = %q, %v; want %q, %v", c.path, s, ok, c.want, c.ok)
		}
	}
}
