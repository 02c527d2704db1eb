package web_test

import (
	"archive/zip"
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// The web app's export route downloads the archive with the session: owners and admins;
// an editor is refused with a page, a stranger sees the shared 404, a visitor signs in.
func TestExportWorldPage(t *testing.T) {
	s := apptest.Start(t)
	r := s.RichWorld("Web Export")
	w, err := s.LW.Store.World(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	path := "/w/" + w.Slug + "/export"
	for _, u := range []apptest.User{r.Owner, r.Admin} {
		res := s.Must(s.Do(apptest.Request{Method: http.MethodGet, Path: path, Client: s.SignIn(u)}), http.StatusOK)
		if res.Header.Get("Content-Type") != "application/zip" || !strings.HasPrefix(res.Header.Get("Content-Disposition"), `attachment; filename="`+w.Slug+"-") {
			t.Fatalf("headers %v", res.Header)
		}
		z, err := zip.NewReader(bytes.NewReader(res.Body), int64(len(res.Body)))
		if err != nil || z.File[len(z.File)-1].Name != "manifest.json" {
			t.Fatalf("not a whole archive: %v", err)
		}
	}
	s.Must(s.Do(apptest.Request{Method: http.MethodGet, Path: path, Client: s.SignIn(r.Editor)}), http.StatusForbidden)
	s.Must(s.Do(apptest.Request{Method: http.MethodGet, Path: path, Client: s.SignIn(s.NewUser("Stranger"))}), http.StatusNotFound)
	if res := s.Do(apptest.Request{Method: http.MethodGet, Path: path, Client: s.Browser()}); res.Status != http.StatusSeeOther && res.Status != http.StatusFound {
		t.Fatalf("a visitor: %d", res.Status)
	}
}
