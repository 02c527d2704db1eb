package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/store"
)

// A document grows by requests that are each under 1 MiB until the next one would take its
// stored state past store.MaxDocumentBytes: that request is refused whole with 413
// document_too_large and the document stays as it was.
func TestDocumentSizeCap(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	tl := s.Document(ann, w, "History", "timeline")
	docPath := "/api/v1/worlds/" + w + "/documents/" + tl
	content := docPath + "/content"

	// 50 events of 20,000 characters: about 1 MB of state a request, under the body limit.
	batch := func(n int) map[string]any {
		events := make([]any, 50)
		for i := range events {
			events[i] = map[string]any{"op": "timeline.addEvent", "label": "Age", "dateMs": n*100 + i, "description": strings.Repeat("a", 20000)}
		}
		return map[string]any{"ops": events}
	}

	type read struct {
		Version int64
		Content struct{ Data json.RawMessage }
	}
	var accepted int
	for n := 0; ; n++ {
		if n > 10 {
			t.Fatalf("%d requests of about 1 MB were all accepted", n)
		}
		var before read
		s.Must(s.Get(ann.Key, docPath), http.StatusOK).JSON(t, &before)
		rows := counts(s)

		res := s.Post(ann.Key, content, batch(n))
		if res.Status == http.StatusOK {
			accepted++
			continue
		}
		if res.Status != http.StatusRequestEntityTooLarge || res.ErrorCode() != "document_too_large" {
			t.Fatalf("request %d: %d %s", n, res.Status, res.Body)
		}
		e := res.Map(t)["error"].(map[string]any)
		if e["limit"] != float64(store.MaxDocumentBytes) {
			t.Errorf("limit = %v, want %d", e["limit"], store.MaxDocumentBytes)
		}
		if msg, _ := e["message"].(string); !strings.Contains(msg, "4194304") {
			t.Errorf("message does not name the limit: %q", msg)
		}

		var after read
		s.Must(s.Get(ann.Key, docPath), http.StatusOK).JSON(t, &after)
		if after.Version != before.Version || !bytes.Equal(after.Content.Data, before.Content.Data) {
			t.Fatalf("the refused request changed the document: version %d -> %d", before.Version, after.Version)
		}
		if got := counts(s); got != rows {
			t.Fatalf("the refused request changed the database: %s -> %s", rows, got)
		}
		break
	}
	if accepted < 3 {
		t.Fatalf("only %d requests were accepted before the cap", accepted)
	}

	// A write that still fits is accepted.
	s.Must(s.Post(ann.Key, content, ops(map[string]any{"op": "timeline.addEvent", "label": "Later", "dateMs": 1})), http.StatusOK)
}
