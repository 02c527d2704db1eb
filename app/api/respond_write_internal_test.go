package api

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

// A content write's answer is what e.JSON writes, byte for byte and header for header,
// whichever way it is made (by hand, or by the encoder for ops it would escape and for
// PocketBase's field picking).
func TestRespondWriteIsEJSON(t *testing.T) {
	applied := func(raw ...string) (json.RawMessage, []ops.Created) {
		var rs []json.RawMessage
		for _, r := range raw {
			rs = append(rs, json.RawMessage(r))
		}
		res, err := ops.Apply(&ops.Timeline{}, ops.Request{Ops: rs})
		if err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(res.Applied)
		return out, res.Created
	}
	odd, oddCreated := applied(`{"op":"timeline.addEvent","label":"The <b>fall</b> & \"rise\" of Eldoria é","dateMs":12}`)
	plain, plainCreated := applied(`{"op":"timeline.addEvent","label":"Founding","dateMs":1}`, `{"op":"timeline.addEvent","label":"Ruin","dateMs":2}`)
	for _, tc := range []struct {
		name, query string
		res         store.WriteResult
	}{
		{"plain", "", store.WriteResult{DocumentType: "timeline", Applied: 2, Created: plainCreated, Version: 7, Ops: plain}},
		{"client", "", store.WriteResult{DocumentType: "timeline", Applied: 2, Created: plainCreated, Version: 1 << 52, Ops: plain, Client: store.Client{ID: "tab-1_x", Seq: 42}}},
		{"nothing created", "", store.WriteResult{DocumentType: "card", Applied: 0, Created: nil, Version: 0, Ops: json.RawMessage(`[]`)}},
		{"none created", "", store.WriteResult{DocumentType: "card", Applied: 1, Created: []ops.Created{}, Version: 3, Ops: json.RawMessage(`[{"op":"card.setProperty","key":"k","value":"v"}]`)}},
		{"escaped label", "", store.WriteResult{DocumentType: "timeline <x>", Applied: 1, Created: oddCreated, Version: 2, Ops: odd}},
		{"created with odd label", "", store.WriteResult{DocumentType: "timeline", Applied: 1, Created: []ops.Created{{ID: "e1", Label: "a\"b\\c<d>&é\u2029\x01"}}, Version: 2, Ops: plain}},
		{"fields", "?fields=version", store.WriteResult{DocumentType: "timeline", Applied: 2, Created: plainCreated, Version: 9, Ops: plain}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer := func(respond func(e *core.RequestEvent) error) *httptest.ResponseRecorder {
				rec := httptest.NewRecorder()
				e := &core.RequestEvent{}
				e.Request = httptest.NewRequest("POST", "/content"+tc.query, nil)
				e.Response = rec
				if err := respond(e); err != nil {
					t.Fatal(err)
				}
				return rec
			}
			want := answer(func(e *core.RequestEvent) error { return e.JSON(200, tc.res) })
			got := answer(func(e *core.RequestEvent) error { return RespondWrite(e, tc.res) })
			if !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
				t.Fatalf("\n got %s\nwant %s", got.Body.Bytes(), want.Body.Bytes())
			}
			if got.Code != want.Code || got.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
				t.Fatalf("status %d %q, want %d %q", got.Code, got.Header().Get("Content-Type"), want.Code, want.Header().Get("Content-Type"))
			}
		})
	}
}
