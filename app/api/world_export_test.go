package api_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"testing"

	"github.com/loreweave/loreweave/app/store"
)

// TestExportWorldRoute: the owner and an admin download the world's archive as an
// attachment named after its slug; an editor is refused, a stranger is told nothing, and a
// free world exports too.
func TestExportWorldRoute(t *testing.T) {
	s := start(t)
	r := s.RichWorld("Export Route")
	if err := s.LW.Store.SetPlan(r.ID, "free"); err != nil {
		t.Fatal(err)
	}
	var w struct{ Slug string }
	s.Must(s.Get(r.Owner.Key, "/api/v1/worlds/"+r.ID), http.StatusOK).JSON(t, &w)
	for _, u := range []string{r.Owner.Key, r.Admin.Key} {
		res := s.Must(s.Get(u, "/api/v1/worlds/"+r.ID+"/export"), http.StatusOK)
		if ct := res.Header.Get("Content-Type"); ct != "application/zip" {
			t.Fatalf("Content-Type %q", ct)
		}
		if cd := res.Header.Get("Content-Disposition"); !regexp.MustCompile(`^attachment; filename="` + w.Slug + `-\d{4}-\d\d-\d\d\.zip"$`).MatchString(cd) {
			t.Fatalf("Content-Disposition %q", cd)
		}
		z, err := zip.NewReader(bytes.NewReader(res.Body), int64(len(res.Body)))
		if err != nil {
			t.Fatal(err)
		}
		last := z.File[len(z.File)-1]
		f, err := last.Open()
		if err != nil {
			t.Fatal(err)
		}
		var m store.ArchiveManifest
		if err := json.NewDecoder(f).Decode(&m); err != nil || last.Name != "manifest.json" || m.World.ID != r.ID || m.Counts.Documents != 7 {
			t.Fatalf("%s: %+v (%v)", last.Name, m, err)
		}
	}
	if code := s.Must(s.Get(r.Editor.Key, "/api/v1/worlds/"+r.ID+"/export"), http.StatusForbidden).ErrorCode(); code != "forbidden" {
		t.Fatalf("an editor: %s", code)
	}
	stranger := s.NewUser("Stranger")
	s.Must(s.Get(stranger.Key, "/api/v1/worlds/"+r.ID+"/export"), http.StatusNotFound)
	s.Must(s.Get(r.Owner.Key, "/api/v1/worlds/nosuchworld/export"), http.StatusNotFound)
}
