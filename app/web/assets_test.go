package web_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"os"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
)

// fileBody is a multipart/form-data body with the file in the field "file", and its
// Content-Type.
func fileBody(t *testing.T, name string, data []byte) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), mw.FormDataContentType()
}

// editorUpload sends a file as the map and animator editors do: multipart, the session's
// cookies and the page's CSRF token in X-CSRF-Token (none when token is empty).
func editorUpload(t *testing.T, s *apptest.Server, b *http.Client, token, path, name string, data []byte) *apptest.Response {
	t.Helper()
	body, ctype := fileBody(t, name, data)
	h := http.Header{"Origin": {s.URL}, "Sec-Fetch-Site": {"same-origin"}, "Content-Type": {ctype}}
	if token != "" {
		h.Set("X-CSRF-Token", token)
	}
	return s.Do(apptest.Request{Method: http.MethodPost, Path: path, Body: body, Header: h, Client: b})
}

// TestEditorUpload: the editors' upload route stores a file for an editor, through the same
// checks as the API, and refuses everyone else, and a forged request, with a JSON error,
// storing nothing.
func TestEditorUpload(t *testing.T) {
	s := apptest.Start(t, apptest.WithUploadLimits(64<<10, 1<<20))
	ann, vic, oz := s.NewUser("Ann"), s.NewUser("Vic"), s.NewUser("Oz")
	w := newWorld(t, s, ann, "Tidewater")
	s.AddMember(ann, w.ID, vic, "viewer")
	path := "/w/" + w.Slug + "/assets"
	img, err := os.ReadFile(pngFile(t, "coast.png", 40, 30, false))
	if err != nil {
		t.Fatal(err)
	}

	annB, vicB, ozB := s.SignIn(ann), s.SignIn(vic), s.SignIn(oz)
	annT := s.CSRFToken(annB, "/")
	for _, c := range []struct {
		name   string
		res    *apptest.Response
		status int
		code   string
	}{
		// Without the header the request is a plain form's, refused with the form's error page.
		{"no CSRF token", editorUpload(t, s, annB, "", path, "coast.png", img), http.StatusForbidden, ""},
		{"a wrong CSRF token", editorUpload(t, s, annB, "forged-forged-forged-forged-forged-forged", path, "coast.png", img), http.StatusForbidden, "csrf_failed"},
		{"a viewer", editorUpload(t, s, vicB, s.CSRFToken(vicB, "/"), path, "coast.png", img), http.StatusForbidden, "forbidden"},
		{"a non-member", editorUpload(t, s, ozB, s.CSRFToken(ozB, "/"), path, "coast.png", img), http.StatusNotFound, "not_found"},
		{"signed out", editorUpload(t, s, &http.Client{}, "", path, "coast.png", img), http.StatusForbidden, ""},
		{"not what its name says", editorUpload(t, s, annB, annT, path, "coast.png", []byte("just words\n")), http.StatusUnsupportedMediaType, "unsupported_file_type"},
		{"too large", editorUpload(t, s, annB, annT, path, "huge.png", bytes.Repeat(img, 3000)), http.StatusRequestEntityTooLarge, "file_too_large"},
	} {
		if c.res.Status != c.status || c.res.ErrorCode() != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.name, c.res.Status, c.res.Body, c.status, c.code)
		}
	}
	if n := s.Count("assets", ""); n != 0 {
		t.Fatalf("refused uploads stored %d assets", n)
	}

	var a struct {
		ID, URL, Kind string
		Width, Height int
	}
	s.Must(editorUpload(t, s, annB, annT, path, "coast.png", img), http.StatusCreated).JSON(t, &a)
	if a.Kind != "image" || a.Width != 40 || a.Height != 30 || a.URL != "/api/v1/worlds/"+w.ID+"/assets/"+a.ID+"/file" {
		t.Fatalf("asset %+v", a)
	}
	s.Must(s.Get(vic.Key, a.URL), http.StatusOK)
	s.Must(s.Get(oz.Key, a.URL), http.StatusNotFound)
}
