package api_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// zipBody is a request body sent as application/zip.
type zipBody []byte

func postArchive(s *apptest.Server, key, query string, archive []byte) *apptest.Response {
	return s.Do(apptest.Request{Method: "POST", Path: "/api/v1/worlds/import" + query, Key: key, Body: []byte(archive),
		Header: http.Header{"Content-Type": {"application/zip"}}})
}

// POST /api/v1/worlds/import: a copy by the owner and by someone else (who owns theirs; the
// archive's owner becomes an admin of it), a restore of a world the server has (409), a bad
// mode, a body that is not a zip, a bad archive and one over the limit; no temporary file is
// left behind.
func TestImportWorldRoute(t *testing.T) {
	s := start(t)
	r := s.RichWorld("Route Import")
	archive := s.Must(s.Get(r.Owner.Key, "/api/v1/worlds/"+r.ID+"/export"), http.StatusOK).Body

	var res struct {
		World struct {
			ID, Role, OwnerID, Plan string
		}
		Mode    string
		Counts  struct{ Documents, Assets, Snapshots int }
		Members struct {
			Added, Invited, Skipped []string
		}
	}
	s.Must(postArchive(s, r.Owner.Key, "?mode=copy", archive), http.StatusCreated).JSON(t, &res)
	if res.World.ID == r.ID || res.World.Role != "owner" || res.World.OwnerID != r.Owner.ID || res.Mode != "copy" ||
		res.Counts.Documents != 7 || res.Counts.Assets != 2 || res.Counts.Snapshots == 0 || len(res.Members.Added) != 2 {
		t.Fatalf("copy: %+v", res)
	}
	s.Must(s.Get(r.Owner.Key, "/api/v1/worlds/"+res.World.ID+"/documents"), http.StatusOK)

	stranger := s.NewUser("Route Stranger")
	s.Must(postArchive(s, stranger.Key, "?mode=copy", archive), http.StatusCreated).JSON(t, &res)
	var members struct {
		Items []struct{ UserID, Role string }
	}
	s.Must(s.Get(stranger.Key, "/api/v1/worlds/"+res.World.ID+"/members"), http.StatusOK).JSON(t, &members)
	roles := map[string]string{}
	for _, m := range members.Items {
		roles[m.UserID] = m.Role
	}
	if roles[stranger.ID] != "owner" || roles[r.Owner.ID] != "admin" || roles[r.Admin.ID] != "admin" || roles[r.Editor.ID] != "editor" {
		t.Fatalf("members of a stranger's copy: %v", roles)
	}

	if res := postArchive(s, r.Owner.Key, "", archive); res.Status != http.StatusConflict || res.ErrorCode() != "world_exists" {
		t.Fatalf("restore of a world the server has: %d %s", res.Status, res.Body)
	}
	if res := postArchive(s, r.Owner.Key, "?mode=merge", archive); res.Status != http.StatusUnprocessableEntity || res.ErrorCode() != "invalid_field" {
		t.Fatalf("a bad mode: %d %s", res.Status, res.Body)
	}
	if res := s.Post(r.Owner.Key, "/api/v1/worlds/import", map[string]any{"name": "x"}); res.Status != http.StatusUnsupportedMediaType {
		t.Fatalf("JSON: %d %s", res.Status, res.Body)
	}
	res2 := postArchive(s, r.Owner.Key, "?mode=copy", archive[:len(archive)/3])
	if res2.Status != http.StatusUnprocessableEntity || res2.ErrorCode() != "invalid_archive" || !strings.Contains(string(res2.Body), `"problems"`) {
		t.Fatalf("a truncated archive: %d %s", res2.Status, res2.Body)
	}
	if res := postArchive(s, "", "?mode=copy", archive); res.Status != http.StatusUnauthorized {
		t.Fatalf("no key: %d", res.Status)
	}

	small := start(t, apptest.WithImportLimit(1000))
	u := small.NewUser("Small Server")
	if res := postArchive(small, u.Key, "?mode=copy", archive); res.Status != http.StatusRequestEntityTooLarge || res.ErrorCode() != "archive_too_large" {
		t.Fatalf("over the limit: %d %s", res.Status, res.Body)
	}
	if n := small.Count("worlds", "1=1"); n != 0 {
		t.Fatalf("%d worlds on the small server", n)
	}
	for _, srv := range []*apptest.Server{s, small} {
		entries, _ := os.ReadDir(srv.Dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".import-") {
				t.Fatalf("%s is left in the data dir", e.Name())
			}
		}
	}
}

// archive returns the fixture world's archive, exported once (imported as copies).
func (f *matrixFixture) archive() []byte {
	if f.zip == nil {
		f.zip = f.s.Must(f.s.Get(f.users["owner"].Key, "/api/v1/worlds/"+f.world+"/export"), http.StatusOK).Body
	}
	return f.zip
}
