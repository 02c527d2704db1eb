package ops

import (
	"fmt"
	"strings"
	"testing"
)

const coast = `{"image":{"url":"/coast.png","width":100,"height":50},"pins":[
	{"id":"pin-a","x":10,"y":10,"label":"Harbour","documentId":""},
	{"id":"pin-b","x":90,"y":40,"label":"Tower","documentId":"doc-1"}]}`

// manyPins returns a 100×50 map with n pins.
func manyPins(n int) string {
	pins := make([]string, n)
	for i := range pins {
		pins[i] = fmt.Sprintf(`{"id":"pin-%d","x":1,"y":1,"label":"P"}`, i)
	}
	return `{"image":{"url":"/m.png","width":100,"height":50},"pins":[` + strings.Join(pins, ",") + `]}`
}

func TestMapOps(t *testing.T) {
	docs := Env{DocumentExists: func(id string) bool { return id == "doc-1" || id == "doc-2" }}
	withPin := func(pin string) string {
		return strings.Replace(coast, `"documentId":"doc-1"}`, `"documentId":"doc-1"},`+pin, 1)
	}
	runCases(t, "map", []opCase{
		{name: "setImage", ops: []string{`{"op":"map.setImage","url":"https://example.com/m.png","width":800,"height":600}`},
			want:    `{"image":{"url":"https://example.com/m.png","width":800,"height":600},"pins":[]}`,
			applied: []string{`{"op":"map.setImage","url":"https://example.com/m.png","width":800,"height":600}`}},
		{name: "setImage just fitting the pins", data: coast, ops: []string{`{"op":"map.setImage","url":"/small.png","width":90,"height":40}`},
			want: strings.Replace(coast, `"url":"/coast.png","width":100,"height":50`, `"url":"/small.png","width":90,"height":40`, 1)},
		{name: "setImage too narrow for a pin", data: coast, ops: []string{`{"op":"map.setImage","url":"/small.png","width":89,"height":50}`}, code: CodeInvalidField, field: "width"},
		{name: "setImage too short for a pin", data: coast, ops: []string{`{"op":"map.setImage","url":"/small.png","width":100,"height":39}`}, code: CodeInvalidField, field: "height"},
		{name: "setImage without url", ops: []string{`{"op":"map.setImage","width":1,"height":1}`}, code: CodeInvalidField, field: "url"},
		{name: "setImage bad url", ops: []string{`{"op":"map.setImage","url":"javascript:alert(1)","width":1,"height":1}`}, code: CodeInvalidField, field: "url"},
		{name: "setImage without width", ops: []string{`{"op":"map.setImage","url":"/m.png","height":1}`}, code: CodeInvalidField, field: "width"},
		{name: "setImage zero width", ops: []string{`{"op":"map.setImage","url":"/m.png","width":0,"height":1}`}, code: CodeInvalidField, field: "width"},
		{name: "setImage too wide", ops: []string{`{"op":"map.setImage","url":"/m.png","width":100001,"height":1}`}, code: CodeInvalidField, field: "width"},
		{name: "setImage fractional height", ops: []string{`{"op":"map.setImage","url":"/m.png","width":1,"height":1.5}`}, code: CodeInvalidField, field: "height"},
		{name: "setImage height a string", ops: []string{`{"op":"map.setImage","url":"/m.png","width":1,"height":"1"}`}, code: CodeInvalidField, field: "height"},

		{name: "addPin", data: coast, env: docs, ops: []string{`{"op":"map.addPin","x":12.5,"y":0,"label":"Cave","documentId":"doc-2"}`},
			want:    withPin(`{"id":"pin-1","x":12.5,"y":0,"label":"Cave","documentId":"doc-2"}`),
			applied: []string{`{"op":"map.addPin","id":"pin-1","x":12.5,"y":0,"label":"Cave","documentId":"doc-2"}`},
			created: []Created{{"pin-1", "Cave"}}},
		{name: "addPin on the far corner, no link, no checker", data: coast, ops: []string{`{"op":"map.addPin","x":100,"y":50,"label":"Edge","documentId":""}`},
			want: withPin(`{"id":"pin-1","x":100,"y":50,"label":"Edge","documentId":""}`)},
		{name: "addPin at -0", data: coast, ops: []string{`{"op":"map.addPin","x":-0,"y":-0.0,"label":"Zero"}`},
			want: withPin(`{"id":"pin-1","x":0,"y":0,"label":"Zero","documentId":""}`)},
		{name: "addPin without an image", ops: []string{`{"op":"map.addPin","x":1,"y":1,"label":"P"}`}, code: CodeInvalidField, field: "x"},
		{name: "addPin right of the image", data: coast, ops: []string{`{"op":"map.addPin","x":100.5,"y":1,"label":"P"}`}, code: CodeInvalidField, field: "x"},
		{name: "addPin above the image", data: coast, ops: []string{`{"op":"map.addPin","x":1,"y":-1,"label":"P"}`}, code: CodeInvalidField, field: "y"},
		{name: "addPin without x", data: coast, ops: []string{`{"op":"map.addPin","y":1,"label":"P"}`}, code: CodeInvalidField, field: "x"},
		{name: "addPin without y", data: coast, ops: []string{`{"op":"map.addPin","x":1,"label":"P"}`}, code: CodeInvalidField, field: "y"},
		{name: "addPin x not a number", data: coast, ops: []string{`{"op":"map.addPin","x":"1","y":1,"label":"P"}`}, code: CodeInvalidField, field: "x"},
		{name: "addPin x overflowing", data: coast, ops: []string{`{"op":"map.addPin","x":1e400,"y":1,"label":"P"}`}, code: CodeInvalidField, field: "x"},
		{name: "addPin without label", data: coast, ops: []string{`{"op":"map.addPin","x":1,"y":1}`}, code: CodeInvalidField, field: "label"},
		{name: "addPin label too long", data: coast, ops: []string{`{"op":"map.addPin","x":1,"y":1,"label":"` + strings.Repeat("l", maxLabel+1) + `"}`}, code: CodeInvalidField, field: "label"},
		{name: "addPin to an unknown document", data: coast, env: docs, ops: []string{`{"op":"map.addPin","x":1,"y":1,"label":"P","documentId":"doc-9"}`}, code: CodeInvalidField, field: "documentId"},
		{name: "addPin link without a checker", data: coast, ops: []string{`{"op":"map.addPin","x":1,"y":1,"label":"P","documentId":"doc-1"}`}, code: CodeInvalidField, field: "documentId"},
		{name: "addPin documentId too long", data: coast, env: docs, ops: []string{`{"op":"map.addPin","x":1,"y":1,"label":"P","documentId":"` + strings.Repeat("d", maxID+1) + `"}`}, code: CodeInvalidField, field: "documentId"},
		{name: "addPin to a full map", data: manyPins(maxPins), ops: []string{`{"op":"map.addPin","x":1,"y":1,"label":"P"}`}, code: CodeInvalidField, field: "pins"},
		{name: "addPin with an id", data: coast, ops: []string{`{"op":"map.addPin","id":"pin-x","x":1,"y":1,"label":"P"}`}, code: CodeInvalidField, field: "id"},

		{name: "movePin", data: coast, ops: []string{`{"op":"map.movePin","id":"pin-a","x":0,"y":50}`},
			want:    strings.Replace(coast, `"x":10,"y":10`, `"x":0,"y":50`, 1),
			applied: []string{`{"op":"map.movePin","id":"pin-a","x":0,"y":50}`}},
		{name: "movePin off the image", data: coast, ops: []string{`{"op":"map.movePin","id":"pin-a","x":101,"y":1}`}, code: CodeInvalidField, field: "x"},
		{name: "movePin without y", data: coast, ops: []string{`{"op":"map.movePin","id":"pin-a","x":1}`}, code: CodeInvalidField, field: "y"},
		{name: "movePin unknown id", data: coast, ops: []string{`{"op":"map.movePin","id":"pin-z","x":1,"y":1}`}, code: CodeNotFoundInDocument, field: "id"},
		{name: "movePin without id", data: coast, ops: []string{`{"op":"map.movePin","x":1,"y":1}`}, code: CodeInvalidField, field: "id"},

		{name: "updatePin label", data: coast, ops: []string{`{"op":"map.updatePin","id":"pin-a","label":"Old harbour"}`},
			want:    strings.Replace(coast, `"Harbour"`, `"Old harbour"`, 1),
			applied: []string{`{"op":"map.updatePin","id":"pin-a","label":"Old harbour"}`}},
		{name: "updatePin clears the link", data: coast, ops: []string{`{"op":"map.updatePin","id":"pin-b","documentId":""}`},
			want:    strings.Replace(coast, `"doc-1"`, `""`, 1),
			applied: []string{`{"op":"map.updatePin","id":"pin-b","documentId":""}`}},
		{name: "updatePin links", data: coast, env: docs, ops: []string{`{"op":"map.updatePin","id":"pin-a","documentId":"doc-2"}`},
			want: strings.Replace(coast, `"Harbour","documentId":""`, `"Harbour","documentId":"doc-2"`, 1)},
		{name: "updatePin unknown document", data: coast, env: docs, ops: []string{`{"op":"map.updatePin","id":"pin-a","documentId":"doc-9"}`}, code: CodeInvalidField, field: "documentId"},
		{name: "updatePin empty label", data: coast, ops: []string{`{"op":"map.updatePin","id":"pin-a","label":""}`}, code: CodeInvalidField, field: "label"},
		{name: "updatePin sets nothing", data: coast, ops: []string{`{"op":"map.updatePin","id":"pin-a"}`}, code: CodeInvalidField, field: "op"},
		{name: "updatePin unknown id", data: coast, ops: []string{`{"op":"map.updatePin","id":"pin-z","label":"x"}`}, code: CodeNotFoundInDocument, field: "id"},
		{name: "updatePin cannot move", data: coast, ops: []string{`{"op":"map.updatePin","id":"pin-a","x":1}`}, code: CodeInvalidField, field: "x"},

		{name: "removePin", data: coast, ops: []string{`{"op":"map.removePin","id":"pin-a"}`},
			want:    `{"image":{"url":"/coast.png","width":100,"height":50},"pins":[{"id":"pin-b","x":90,"y":40,"label":"Tower","documentId":"doc-1"}]}`,
			applied: []string{`{"op":"map.removePin","id":"pin-a"}`}},
		{name: "removePin unknown id", data: coast, ops: []string{`{"op":"map.removePin","id":"pin-z"}`}, code: CodeNotFoundInDocument, field: "id"},
	})
}

func TestSetImageNamesThePinOutside(t *testing.T) {
	doc, _ := Decode("map", []byte(coast))
	_, err := Apply(doc, Request{Ops: raws([]string{`{"op":"map.setImage","url":"/s.png","width":50,"height":50}`})})
	e := err.(*Error)
	if e.Details["id"] != "pin-b" || !strings.Contains(e.Message, "pin-b") || !strings.Contains(e.Message, "50×50") {
		t.Fatalf("%#v", e)
	}
}
