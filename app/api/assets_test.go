package api_test

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
)

// upload is a multipart body with one file in field "file"; send and uploadAs send it.
type upload struct {
	name string
	data []byte
}

// multipartBody encodes u as multipart/form-data.
func (u upload) multipartBody(t testing.TB) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	f, err := w.CreateFormFile("file", u.name)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(u.data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.FormDataContentType()
}

func uploadAs(t testing.TB, s *apptest.Server, key, worldID string, u upload) *apptest.Response {
	t.Helper()
	body, ctype := u.multipartBody(t)
	return s.Do(apptest.Request{Method: http.MethodPost, Path: "/api/v1/worlds/" + worldID + "/assets", Key: key, Body: body,
		Header: http.Header{"Content-Type": {ctype}}})
}

func testImage(w, h int) image.Image {
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.Black, color.White})
	img.Set(1, 1, color.White)
	return img
}

func pngBytes(t testing.TB, w, h int) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, testImage(w, h)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func jpegBytes(t testing.TB, w, h int) []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, testImage(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gifBytes(t testing.TB, w, h int) []byte {
	var buf bytes.Buffer
	if err := gif.Encode(&buf, testImage(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// webpBytes is a lossless WebP whose header says w×h (the pixels are never decoded).
func webpBytes(w, h int) []byte {
	vp8l := make([]byte, 5)
	vp8l[0] = 0x2f
	binary.LittleEndian.PutUint32(vp8l[1:], uint32(w-1)|uint32(h-1)<<14)
	chunk := append([]byte("VP8L\x05\x00\x00\x00"), append(vp8l, 0)...)
	body := append([]byte("WEBP"), chunk...)
	out := append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...)
	return append(out, body...)
}

// glbBytes is a glTF 2.0 binary: the 12-byte header and one JSON chunk, padded with
// spaces to at least pad bytes.
func glbBytes(pad ...int) []byte {
	js := []byte(`{"asset":{"version":"2.0"}}`)
	for len(js)%4 != 0 || (len(pad) > 0 && len(js) < pad[0]) {
		js = append(js, ' ')
	}
	out := []byte("glTF")
	out = binary.LittleEndian.AppendUint32(out, 2)
	out = binary.LittleEndian.AppendUint32(out, uint32(12+8+len(js)))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(js)))
	out = append(out, "JSON"...)
	return append(out, js...)
}

type assetBody struct {
	ID, URL, Kind, ContentType, Name string
	Size                             int64
	Width, Height                    int
}

// storedFiles counts the files under the server's storage folder (not the .attrs files
// local storage keeps beside each one).
func storedFiles(t testing.TB, s *apptest.Server) int {
	n := 0
	filepath.Walk(filepath.Join(s.Dir, "storage"), func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && !strings.HasSuffix(info.Name(), ".attrs") {
			n++
		}
		return nil
	})
	return n
}

// TestUploadTypesByContent uploads each supported type and reads back its type, size and an
// image's dimensions from the file, whatever its name.
func TestUploadTypesByContent(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	for _, c := range []struct {
		name, file, ctype, kind string
		data                    []byte
		width, height           int
	}{
		{"png", "map.png", "image/png", "image", pngBytes(t, 30, 20), 30, 20},
		{"jpeg", "map.jpg", "image/jpeg", "image", jpegBytes(t, 17, 9), 17, 9},
		{"gif", "map.gif", "image/gif", "image", gifBytes(t, 5, 7), 5, 7},
		{"webp", "map.webp", "image/webp", "image", webpBytes(640, 480), 640, 480},
		{"gif named png", "map.png", "image/gif", "image", gifBytes(t, 4, 3), 4, 3},
		{"glb", "ship.glb", "model/gltf-binary", "model", glbBytes(), 0, 0},
		{"gltf", "ship.gltf", "model/gltf+json", "model", []byte(` {"asset": {"version": "2.0"}, "scenes": []}`), 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var a assetBody
			uploadAs(t, s, ann.Key, w, upload{c.file, c.data}).JSON(t, &a)
			if a.ContentType != c.ctype || a.Kind != c.kind || a.Width != c.width || a.Height != c.height || a.Size != int64(len(c.data)) || a.Name != c.file {
				t.Fatalf("got %+v, want %s %s %dx%d %d bytes", a, c.ctype, c.kind, c.width, c.height, len(c.data))
			}
			if a.URL != "/api/v1/worlds/"+w+"/assets/"+a.ID+"/file" {
				t.Fatalf("url %q", a.URL)
			}
			res := s.Must(s.Get(ann.Key, a.URL), http.StatusOK)
			if !bytes.Equal(res.Body, c.data) {
				t.Fatalf("served %d bytes, uploaded %d", len(res.Body), len(c.data))
			}
			h := res.Header
			if h.Get("Content-Type") != c.ctype || h.Get("X-Content-Type-Options") != "nosniff" ||
				!strings.HasPrefix(h.Get("Content-Disposition"), `inline; filename="asset-`+a.ID+`.`) ||
				!strings.Contains(h.Get("Cache-Control"), "private") || !strings.Contains(h.Get("Content-Security-Policy"), "sandbox") {
				t.Fatalf("headers: %v", h)
			}
		})
	}
}

// TestUploadRefusals checks that bad uploads get clear errors and store nothing.
func TestUploadRefusals(t *testing.T) {
	s := start(t, apptest.WithUploadLimits(1000, 2000))
	ann, vic := s.NewUser("Ann"), s.NewUser("Vic")
	w := s.World(ann, "Eldoria")
	s.AddMember(ann, w, vic, "viewer")
	big := append(pngBytes(t, 2, 2), make([]byte, 1000)...)
	for _, c := range []struct {
		name   string
		key    string
		u      upload
		status int
		code   string
		detail string
	}{
		{"oversize image", ann.Key, upload{"map.png", big}, 413, "file_too_large", "limit"},
		{"oversize model", ann.Key, upload{"m.glb", append(glbBytes(), make([]byte, 2000)...)}, 413, "file_too_large", "limit"},
		{"text named png", ann.Key, upload{"map.png", []byte("hello, I am not a picture")}, 415, "unsupported_file_type", "detectedType"},
		{"svg", ann.Key, upload{"map.svg", []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)}, 415, "unsupported_file_type", "detectedType"},
		{"truncated png", ann.Key, upload{"map.png", pngBytes(t, 2, 2)[:20]}, 415, "unsupported_file_type", "detectedType"},
		{"json without asset", ann.Key, upload{"x.gltf", []byte(`{"scenes": []}`)}, 415, "unsupported_file_type", "detectedType"},
		{"bad glb length", ann.Key, upload{"x.glb", glbBytes()[:24]}, 415, "unsupported_file_type", "detectedType"},
		{"viewer", vic.Key, upload{"map.png", pngBytes(t, 2, 2)}, 403, "forbidden", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := uploadAs(t, s, c.key, w, c.u)
			if res.Status != c.status || res.ErrorCode() != c.code {
				t.Fatalf("status %d %s, want %d %s", res.Status, res.Body, c.status, c.code)
			}
			if c.detail != "" && res.Map(t)["error"].(map[string]any)[c.detail] == nil {
				t.Fatalf("no %s in %s", c.detail, res.Body)
			}
		})
	}
	// A multipart body without the file, and a body that is not multipart at all.
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("name", "map.png")
	mw.Close()
	res := s.Do(apptest.Request{Method: http.MethodPost, Path: "/api/v1/worlds/" + w + "/assets", Key: ann.Key, Body: buf.Bytes(), Header: http.Header{"Content-Type": {mw.FormDataContentType()}}})
	if res.Status != 422 || res.Map(t)["error"].(map[string]any)["field"] != "file" {
		t.Fatalf("no file: %d %s", res.Status, res.Body)
	}
	if res := s.Post(ann.Key, "/api/v1/worlds/"+w+"/assets", map[string]any{"file": "x"}); res.Status != 415 {
		t.Fatalf("JSON body: %d %s", res.Status, res.Body)
	}
	if n := s.Count("assets", ""); n != 0 {
		t.Fatalf("%d asset rows after refused uploads", n)
	}
	if n := storedFiles(t, s); n != 0 {
		t.Fatalf("%d stored files after refused uploads", n)
	}
}

// TestAssetLifecycle lists, reads and deletes assets: members only, deletion refused while a
// document uses the file, and the world's total size.
func TestAssetLifecycle(t *testing.T) {
	s := start(t)
	ann, vic, eve := s.NewUser("Ann"), s.NewUser("Vic"), s.NewUser("Eve")
	w := s.World(ann, "Eldoria")
	s.AddMember(ann, w, vic, "viewer")
	base := "/api/v1/worlds/" + w + "/assets"
	var img, model assetBody
	s.Must(uploadAs(t, s, ann.Key, w, upload{"map.png", pngBytes(t, 64, 48)}), http.StatusCreated).JSON(t, &img)
	s.Must(uploadAs(t, s, ann.Key, w, upload{"ship.glb", glbBytes()}), http.StatusCreated).JSON(t, &model)

	var l struct {
		Items      []assetBody
		TotalItems int
		TotalSize  int64
	}
	s.Must(s.Get(vic.Key, base+"?perPage=1"), http.StatusOK).JSON(t, &l)
	if l.TotalItems != 2 || len(l.Items) != 1 || l.Items[0].ID != img.ID || l.TotalSize != img.Size+model.Size {
		t.Fatalf("list: %+v", l)
	}
	s.Must(s.Get(vic.Key, base+"/"+img.ID), http.StatusOK)

	// Members with their session cookie load the file (as <img> does); strangers get 404.
	browser := s.SignIn(vic)
	s.Must(s.Do(apptest.Request{Method: http.MethodGet, Path: img.URL, Client: browser}), http.StatusOK)
	for _, p := range []string{base, base + "/" + img.ID, img.URL} {
		if res := s.Get(eve.Key, p); res.Status != http.StatusNotFound {
			t.Fatalf("stranger GET %s: %d", p, res.Status)
		}
	}
	if res := s.Do(apptest.Request{Method: http.MethodGet, Path: img.URL, Client: s.SignIn(eve)}); res.Status != http.StatusNotFound {
		t.Fatalf("stranger's session: %d", res.Status)
	}
	if res := s.Do(del(vic.Key, base+"/"+img.ID)); res.Status != http.StatusForbidden {
		t.Fatalf("viewer delete: %d", res.Status)
	}

	// An animator using the model keeps it too, in an era as well as on the main line.
	var era struct{ ID string }
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/eras", map[string]any{"name": "Second Age"}), http.StatusCreated).JSON(t, &era)
	anim := s.Document(ann, w, "Ship", "animator")
	s.Must(s.Post(ann.Key, "/api/v1/worlds/"+w+"/documents/"+anim+"/content?era="+era.ID, map[string]any{"ops": []any{map[string]any{"op": "animator.setModel", "url": model.URL}}}), http.StatusOK)
	if res := s.Do(del(ann.Key, base+"/"+model.ID)); res.Status != http.StatusConflict || res.Map(t)["error"].(map[string]any)["documentIds"].([]any)[0] != anim {
		t.Fatalf("delete model in use: %d %s", res.Status, res.Body)
	}

	// A map using the image keeps it from being deleted; once it points elsewhere, it goes.
	m := s.Document(ann, w, "Coast", "map")
	content := "/api/v1/worlds/" + w + "/documents/" + m + "/content"
	s.Must(s.Post(ann.Key, content, map[string]any{"ops": []any{map[string]any{"op": "map.setImage", "url": img.URL, "width": img.Width, "height": img.Height}}}), http.StatusOK)
	res := s.Do(del(ann.Key, base+"/"+img.ID))
	if res.Status != http.StatusConflict || res.ErrorCode() != "asset_in_use" {
		t.Fatalf("delete in use: %d %s", res.Status, res.Body)
	}
	s.Must(s.Post(ann.Key, content, map[string]any{"ops": []any{map[string]any{"op": "map.setImage", "url": "https://example.com/map.png", "width": 64, "height": 48}}}), http.StatusOK)
	s.Must(s.Do(del(ann.Key, base+"/"+img.ID)), http.StatusNoContent)
	s.Must(s.Get(ann.Key, img.URL), http.StatusNotFound)
	s.Must(s.Get(ann.Key, base+"/"+img.ID), http.StatusNotFound)
	// PocketBase removes a deleted record's files in the background.
	for i := 0; storedFiles(t, s) != 1; i++ {
		if i == 100 {
			t.Fatalf("%d stored files after deleting one of two", storedFiles(t, s))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestUploadPastPocketBaseBodyLimit uploads a model larger than PocketBase's default 32 MiB
// request limit: uploads are bounded by their own limits only.
func TestUploadPastPocketBaseBodyLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads 33 MiB")
	}
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	data := glbBytes(33 << 20)
	var a assetBody
	s.Must(uploadAs(t, s, ann.Key, w, upload{"big.glb", data}), http.StatusCreated).JSON(t, &a)
	if a.Size != int64(len(data)) {
		t.Fatalf("size %d, want %d", a.Size, len(data))
	}
}

// An asset whose file is gone from the file storage (a database restored without its storage
// folder) answers 404 asset_file_missing, saying so, not an opaque 500.
func TestAssetFileMissing(t *testing.T) {
	s := start(t)
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	var a assetBody
	uploadAs(t, s, ann.Key, w, upload{"map.png", pngBytes(t, 3, 2)}).JSON(t, &a)
	removed := 0
	filepath.Walk(filepath.Join(s.Dir, "storage"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.Contains(p, a.ID) {
			if os.Remove(p) == nil {
				removed++
			}
		}
		return nil
	})
	if removed == 0 {
		t.Fatal("no stored file found to remove")
	}
	res := s.Get(ann.Key, a.URL)
	if res.Status != http.StatusNotFound || res.ErrorCode() != "asset_file_missing" || !strings.Contains(string(res.Body), "storage folder") {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	// The world's export says which asset it cannot include (a 404 would read as no world).
	if res := s.Get(ann.Key, "/api/v1/worlds/"+w+"/export"); res.Status != http.StatusConflict || res.ErrorCode() != "asset_file_missing" || !strings.Contains(string(res.Body), a.ID) {
		t.Fatalf("export: %d %.300s", res.Status, res.Body)
	}
}
