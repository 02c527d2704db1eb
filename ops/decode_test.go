package ops

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// The short cuts of decode.go must agree with encoding/json on every input: same name, same
// parameters, and no short cut where the strict decoder would reject.

var quickSeeds = []string{
	`{"op":"card.setProperty","key":"k1","value":"v"}`,
	`{"key":"k1","op":"card.setProperty","value":"v"}`,
	`{"OP":"card.setProperty","Key":"k1","VALUE":"v"}`,
	`{"op":"card.setProperty","op":"card.rename","name":"x"}`,
	`{"op":"card.setProperty","key":"k1","value":"v","extra":1}`,
	`{"op":"card.setProperty","key":1,"value":"v"}`,
	`{"op":"card.setProperty","key":"k\u0031","value":"caf\u00e9"}`,
	`{"op":"card.setProperty","key":"k1","value":"café ☕"}`,
	`{"op":"card.setProperty","k\u0065y":"k1","value":"v"}`,
	`{"op":"card.setProperty","\u212aey":"k1","value":"v"}`,
	`{"op":"card.setProperty","key":null,"value":"v"}`,
	`{"op":"","key":"k"}`,
	`{"op":5}`,
	`{"op":"x"} `,
	` {"op" : "x" , "key" : "a" }`,
	`{"op":"card.addSection","title":"t","index":3}`,
	`{"op":"card.addSection","title":"t","index":"3"}`,
	`{"op":"card.addSection","title":"t","index":3.5e2}`,
	`{"op":"card.setAliases","aliases":["a","b"]}`,
	`{"op":"card.setAliases","aliases":["a",{"b":1}]}`,
	`{"op":"card.editSectionText","id":"sec-1","baseVersion":1,"splices":[{"pos":0,"del":0,"ins":"x"}]}`,
	`{"op":"timeline.addEvent","label":"x","dateMs":-5,"description":"d","precision":"day"}`,
	`[]`, `{}`, `"op"`, `{"op":"a"`, `{"op":"a",}`, `{"op":"a"}x`,
}

func FuzzQuickDecode(f *testing.F) {
	for _, s := range quickSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, raw []byte, replay bool) {
		name, ok := quickOpName(raw)
		strict, err := strictOpName(raw)
		if ok && (err != nil || name != strict) {
			t.Fatalf("quickOpName(%s) = %q, strict %q, %v", raw, name, strict, err)
		}
		if err != nil {
			return
		}
		c := &opCtx{raw: raw, replay: replay, name: strict}
		for _, typ := range []reflect.Type{
			reflect.TypeFor[setPropertyParams](), reflect.TypeFor[addSectionParams](),
			reflect.TypeFor[setAliasesParams](), reflect.TypeFor[addEventParams](),
			reflect.TypeFor[editSectionTextParams](),
		} {
			quick := reflect.New(typ)
			slow := reflect.New(typ)
			slowErr := c.strictParams(slow.Interface())
			if c.quickParams(quick.Interface()) {
				if slowErr != nil {
					t.Fatalf("%s: quick accepted %s, strict said %v", typ, raw, slowErr)
				}
				if !reflect.DeepEqual(quick.Interface(), slow.Interface()) {
					qj, _ := json.Marshal(quick.Interface())
					sj, _ := json.Marshal(slow.Interface())
					t.Fatalf("%s: %s decoded as %s, strict %s", typ, raw, qj, sj)
				}
			} else if !quick.Elem().IsZero() {
				t.Fatalf("%s: quick gave up on %s but left %+v", typ, raw, quick.Elem())
			}
		}
	})
}

// TestQuickDecodeTaken checks that the short cuts are taken for the ops the write bench sends.
func TestQuickDecodeTaken(t *testing.T) {
	raw := []byte(`{"key":"k1","op":"card.setProperty","value":"value 3 of property 1"}`)
	if name, ok := quickOpName(raw); !ok || name != "card.setProperty" {
		t.Fatalf("quickOpName = %q, %v", name, ok)
	}
	var p setPropertyParams
	if !(&opCtx{raw: raw}).quickParams(&p) || *p.Key != "k1" || *p.Value != "value 3 of property 1" || p.Op != "card.setProperty" {
		t.Fatalf("quickParams: %+v", p)
	}
}

// contentBody has the shape of a content write's body (store.ContentBody), which request
// bodies decode with QuickDecode.
type contentBody struct {
	Ops       *[]json.RawMessage `json:"ops"`
	ClientID  *string            `json:"clientId"`
	ClientSeq *int64             `json:"clientSeq"`
}

var bodySeeds = []string{
	`{"ops":[{"op":"card.setProperty","key":"k1","value":"v"}]}`,
	`{"ops":[ {"op":"a"} , {"op":"b","x":[1,{"y":"]"}]} ],"clientId":"c-1","clientSeq":3}`,
	`{"ops":[]}`, `{"ops":[ ]}`, `{"ops":null}`, `{"ops":{}}`, `{"ops":"x"}`, `{"ops":[1,"two",null,true]}`,
	`{"ops":[[]],"ops":[]}`, `{"Ops":[]}`, `{"clientSeq":1.5}`, `{"clientId":"caf\u00e9"}`, `{"other":1}`,
}

// FuzzQuickDecodeBody checks QuickDecode against the strict decoder on request bodies.
func FuzzQuickDecodeBody(f *testing.F) {
	for _, s := range bodySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if _, problem := CheckKeys(raw, reflect.TypeFor[*contentBody]()); !json.Valid(raw) || problem != "" {
			return // QuickDecode runs after both
		}
		var quick, slow contentBody
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		slowOK := dec.Decode(&slow) == nil
		if QuickDecode(raw, &quick) {
			if !slowOK {
				t.Fatalf("quick accepted %s, strict refused it", raw)
			}
			if !reflect.DeepEqual(quick, slow) {
				t.Fatalf("%s decoded as %+v, strict %+v", raw, quick, slow)
			}
		} else if !reflect.ValueOf(quick).IsZero() {
			t.Fatalf("quick gave up on %s but left %+v", raw, quick)
		}
	})
}

// A destination that holds something goes to the strict decoder, untouched: encoding/json
// writes through the pointers it holds, which a failed short cut could not undo.
func TestQuickDecodeLeavesFilledDestinations(t *testing.T) {
	seq := int64(7)
	b := contentBody{ClientSeq: &seq}
	if QuickDecode([]byte(`{"clientSeq":5}`), &b) || seq != 7 || b.ClientSeq != &seq {
		t.Fatalf("QuickDecode wrote into a filled destination: %d", seq)
	}
}

func TestQuickDecodeBodyTaken(t *testing.T) {
	var b contentBody
	raw := []byte(`{"ops":[{"op":"card.setProperty","key":"k1","value":"v"}, {"op":"card.rename","name":"N"}],"clientId":"c"}`)
	if !QuickDecode(raw, &b) || len(*b.Ops) != 2 || string((*b.Ops)[1]) != `{"op":"card.rename","name":"N"}` || *b.ClientID != "c" {
		t.Fatalf("QuickDecode: %+v", b)
	}
}

func TestEscapesCR(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"ins":"a\u000db"}`: true, `{"ins":"a\u000Db"}`: true, `{"ins":"a\u000ab"}`: false,
		`{"ins":"a\u000"}`: false, `{"ins":"\u000a\u000d"}`: true, `{"ins":"plain"}`: false, `\u000`: false,
	} {
		if got := escapesCR([]byte(raw)); got != want {
			t.Errorf("escapesCR(%s) = %v, want %v", raw, got, want)
		}
	}
}

// A field tagged ",string" takes a number written as a string: the short cut leaves such
// structs to encoding/json.
func TestQuickDecodeLeavesQuotedNumbers(t *testing.T) {
	var v struct {
		N int64 `json:"n,string"`
	}
	if QuickDecode([]byte(`{"n":5}`), &v) || QuickDecode([]byte(`{"n":"5"}`), &v) {
		t.Fatalf("QuickDecode took a struct with a ,string field: %+v", v)
	}
}
