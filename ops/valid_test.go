package ops

import (
	"encoding/json"
	"strings"
	"testing"
)

var validSeeds = []string{
	``, ` `, `{}`, `[]`, `{"a":1}`, `{"a":[1,2,{"b":null}],"c":"d"}`, `[1,]`, `{"a":1,}`, `{,}`, `[,1]`,
	`"x"`, `"\u00e9\n\"\\\/\b\f\r\t"`, `"\u00g0"`, `"\x"`, "\"a\x01\"", "\"caf\xc3\xa9\"", "\"\xff\"",
	`0`, `-0`, `01`, `1.`, `1.5`, `-1.5e10`, `1e`, `1E+2`, `1e-`, `-`, `.5`, `+1`, `1.5E-07`,
	`true`, `false`, `null`, `tru`, `nul`, `truex`, `[true false]`, `{"a" 1}`, `{"a":}`, `{1:2}`,
	` [ 1 , 2 ] `, "\t{\n\"a\"\r:1}", `[1]]`, `[[1]`, `{"a":{"b":{"c":[]}}}`, `{}{}`, `[] x`,
}

func FuzzValidJSON(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := ValidJSON(data), json.Valid(data); got != want {
			t.Fatalf("ValidJSON(%q) = %v, json.Valid %v", data, got, want)
		}
	})
}

func TestValidJSONDepth(t *testing.T) {
	for _, n := range []int{31, 32, 33, 9999, 10000, 10001, 20000} {
		for _, open := range []string{"[", `{"a":`} {
			close := "]"
			if open != "[" {
				close = "}"
			}
			data := []byte(strings.Repeat(open, n) + strings.Repeat(close, n))
			if got, want := ValidJSON(data), json.Valid(data); got != want {
				t.Errorf("%d levels of %s: ValidJSON %v, json.Valid %v", n, open, got, want)
			}
		}
	}
	for _, s := range validSeeds {
		if got, want := ValidJSON([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("ValidJSON(%q) = %v, json.Valid %v", s, got, want)
		}
	}
}

func BenchmarkValidJSON(b *testing.B) {
	body := []byte(`{"ops":[` + strings.TrimSuffix(strings.Repeat(`{"op":"card.setProperty","key":"k1","value":"value 3 of property 1"},`, 10), ",") + `]}`)
	b.Run("ValidJSON", func(b *testing.B) {
		for b.Loop() {
			ValidJSON(body)
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		for b.Loop() {
			json.Valid(body)
		}
	})
}
