package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestSearch(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	base := "/api/v1/worlds/" + w
	tl := s.Document(ann, w, "Chronicle", "timeline")
	s.Document(ann, w, "Vharnagal the Red", "card")
	s.Must(s.Post(ann.Key, base+"/documents/"+tl+"/content", ops(map[string]any{"op": "timeline.addEvent", "label": "Vharnagal burns <script>alert(1)</script> the fleet", "dateMs": 1})), http.StatusOK)
	other := s.World(ann, "Other")
	s.Document(ann, other, "Vharnagal's cousin", "card")

	var r struct {
		Items []struct {
			ID, Name, DocumentType, Snippet string
			Score                           float64
		}
		TotalItems int
	}
	// Indexing follows the commit: poll for up to a second.
	for deadline := time.Now().Add(time.Second); ; time.Sleep(20 * time.Millisecond) {
		s.Must(s.Get(ann.Key, base+"/search?q=vharnagal"), http.StatusOK).JSON(t, &r)
		if r.TotalItems == 2 || time.Now().After(deadline) {
			break
		}
	}
	if r.TotalItems != 2 || r.Items[0].Name != "Vharnagal the Red" || r.Items[1].ID != tl {
		t.Fatalf("results %+v", r)
	}
	snip := r.Items[1].Snippet
	if strings.Contains(snip, "<script>") || !strings.Contains(snip, "&lt;script&gt;") || !strings.Contains(snip, "<mark>") {
		t.Fatalf("snippet not escaped/highlighted: %q", snip)
	}
	s.Must(s.Get(ann.Key, base+"/search?q=vharnagal&documentType=card"), http.StatusOK).JSON(t, &r)
	if r.TotalItems != 1 {
		t.Fatalf("type filter %+v", r)
	}
	for _, q := range []string{"", "%20%20"} {
		if res := s.Get(ann.Key, base+"/search?q="+q); res.Status != 422 || res.ErrorCode() != "invalid_field" {
			t.Fatalf("empty q: %d %s", res.Status, res.Body)
		}
	}
}
