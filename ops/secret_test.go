package ops

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPublicBatch(t *testing.T) {
	secretB := strings.Replace(adaCard, `"body":"Notes 😀."}`, `"body":"Notes 😀.","secret":true}`, 1)
	for _, tc := range []struct {
		name string
		typ  string
		data string
		ops  []string
		want bool
	}{
		{"rename with secrets", "card", secretB, []string{`{"op":"card.rename","name":"Augusta"}`}, true},
		{"property with secrets", "card", secretB, []string{`{"op":"card.setProperty","key":"Born","value":"1816"}`, `{"op":"card.removeProperty","key":"Died"}`}, true},
		{"aliases", "card", secretB, []string{`{"op":"card.setAliases","aliases":["A"]}`}, true},
		{"edit a public section", "card", secretB, []string{`{"op":"card.updateSection","id":"sec-a","body":"Born in Marylebone."}`}, true},
		{"type in a public section", "card", secretB, []string{`{"op":"card.editSectionText","id":"sec-a","baseVersion":0,"splices":[{"pos":0,"del":0,"ins":"Hi "}]}`}, true},
		{"edit a secret section", "card", secretB, []string{`{"op":"card.updateSection","id":"sec-b","body":"Plans."}`}, false},
		{"type in a secret section", "card", secretB, []string{edit(0, `[{"pos":0,"del":0,"ins":"Hi "}]`)}, false},
		{"a safe op then an unsafe one", "card", secretB, []string{`{"op":"card.rename","name":"A"}`, `{"op":"card.updateSection","id":"sec-b","title":"Plans"}`}, false},
		{"mark secret", "card", adaCard, []string{`{"op":"card.setSectionSecret","id":"sec-b","secret":true}`}, false},
		{"mark public", "card", secretB, []string{`{"op":"card.setSectionSecret","id":"sec-b","secret":false}`}, false},
		{"edit a section then mark it secret", "card", adaCard, []string{`{"op":"card.updateSection","id":"sec-b","body":"Plans."}`, `{"op":"card.setSectionSecret","id":"sec-b","secret":true}`}, false},
		{"mark secret, write, remove: no secrets before or after", "card", adaCard, []string{`{"op":"card.setSectionSecret","id":"sec-b","secret":true}`, `{"op":"card.updateSection","id":"sec-b","body":"twist"}`, `{"op":"card.removeSection","id":"sec-b"}`}, false},
		{"unmark a section that was never secret", "card", adaCard, []string{`{"op":"card.setSectionSecret","id":"sec-b","secret":false}`}, true},
		{"add a public section, no secrets", "card", adaCard, []string{`{"op":"card.addSection","title":"Later","index":0}`}, true},
		{"add a public section among secrets", "card", secretB, []string{`{"op":"card.addSection","title":"Later"}`}, false},
		{"add a secret section", "card", adaCard, []string{`{"op":"card.addSection","title":"Plot","secret":true}`}, false},
		{"add a secret section and remove it", "card", adaCard, []string{`{"op":"card.addSection","title":"Plot","body":"twist","secret":true}`, `{"op":"card.removeSection","id":"sec-new"}`}, false},
		{"move, no secrets", "card", adaCard, []string{`{"op":"card.moveSection","id":"sec-b","index":0}`}, true},
		{"move among secrets", "card", secretB, []string{`{"op":"card.moveSection","id":"sec-a","index":1}`}, false},
		{"remove a public section among secrets", "card", secretB, []string{`{"op":"card.removeSection","id":"sec-a"}`}, false},
		{"remove a secret section", "card", secretB, []string{`{"op":"card.removeSection","id":"sec-b"}`}, false},
		{"remove, no secrets", "card", adaCard, []string{`{"op":"card.removeSection","id":"sec-a"}`}, true},
		{"a folder", "folder", `{"description":""}`, []string{`{"op":"folder.setDescription","description":"x"}`}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := Decode(tc.typ, []byte(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			raw := make([]json.RawMessage, len(tc.ops))
			for i, o := range tc.ops {
				raw[i] = json.RawMessage(o)
			}
			res, err := Apply(before, Request{Ops: raw, Env: Env{NewID: func(p string) string { return "new" }}})
			if err != nil {
				t.Fatal(err)
			}
			if got := PublicBatch(before, res.Doc, res.Applied); got != tc.want {
				t.Fatalf("PublicBatch = %v, want %v (applied %s)", got, tc.want, res.Applied)
			}
		})
	}
	if PublicBatch(Empty("card"), Empty("card"), []json.RawMessage{json.RawMessage(`{"op":"card.someFutureOp"}`)}) {
		t.Fatal("an op PublicBatch does not know is safe")
	}
}

func TestIsSecretPart(t *testing.T) {
	doc, err := Decode("card", []byte(strings.Replace(adaCard, `"body":"Notes 😀."}`, `"body":"Notes 😀.","secret":true}`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if !IsSecretPart(doc, "sec-b") || IsSecretPart(doc, "sec-a") || IsSecretPart(doc, "sec-z") || IsSecretPart(Empty("folder"), "sec-b") {
		t.Fatal("IsSecretPart")
	}
	if !CanHoldSecrets("card") || CanHoldSecrets("timeline") || CanHoldSecrets("some-tool-type") {
		t.Fatal("CanHoldSecrets")
	}
}
