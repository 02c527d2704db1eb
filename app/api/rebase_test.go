package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// An editSectionText whose rebase would read more than 16 MiB of op log is refused as stale
// (the client re-reads and edits again) instead of loading it all while holding the lock;
// the op log no longer keeps that much (store.OpLogKeepBytes) in any case.
func TestRebaseOverAHugeHistoryIsStale(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	card := s.Document(ann, w, "Ada", "card")
	content := "/api/v1/worlds/" + w + "/documents/" + card + "/content"
	var added struct {
		Created []struct{ ID string }
	}
	s.Must(s.Post(ann.Key, content, ops(map[string]any{"op": "card.addSection", "title": "Life", "body": "Born."})), http.StatusOK).JSON(t, &added)
	sec := added.Created[0].ID

	// 18 versions of about 1 MB of ops each; the card itself stays small.
	for i := range 18 {
		s.Must(s.Post(ann.Key, content, apptest.BigCardWrite(i)), http.StatusOK)
	}
	edit := func(base int) map[string]any {
		return ops(map[string]any{"op": "card.editSectionText", "id": sec, "baseVersion": base, "splices": []any{map[string]any{"pos": 0, "del": 0, "ins": "Once "}}})
	}
	res := s.Post(ann.Key, content, edit(1))
	if res.Status != http.StatusUnprocessableEntity || res.ErrorCode() != "stale_base_version" || !strings.Contains(string(res.Body), "MiB") {
		t.Fatalf("rebase over ~18 MB: %d %s", res.Status, res.Body)
	}
	s.Must(s.Post(ann.Key, content, edit(17)), http.StatusOK) // one version back: a small rebase
}
