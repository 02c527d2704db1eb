package main

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"mime/multipart"
	"net/http"

	"github.com/pocketbase/pocketbase/core"
)

// benchFiles is the PocketBase collection of the upload baseline: one file field taking
// images as large as Loreweave's default limit, every rule "signed in".
const benchFiles = "bench_files"

func (s *server) createFileCollection() error {
	c := core.NewBaseCollection(benchFiles)
	rule := `@request.auth.id != ""`
	c.ListRule, c.ViewRule, c.CreateRule, c.UpdateRule, c.DeleteRule = &rule, &rule, &rule, &rule, &rule
	c.Fields.Add(
		&core.FileField{Name: "file", MaxSelect: 1, MaxSize: 25 << 20},
		&core.AutodateField{Name: "created", OnCreate: true},
	)
	return s.PB.Save(c)
}

// noisePNG encodes a w×h image of random pixels: a real PNG that deflate cannot shrink, so
// the file is about 4·w·h bytes.
func noisePNG(w, h int) ([]byte, error) {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(rng.Uint32())
	}
	var buf bytes.Buffer
	err := png.Encode(&buf, img)
	return buf.Bytes(), err
}

// multipartFile is a multipart/form-data body holding data as the file of field "file", and
// its content type.
func multipartFile(name string, data []byte) ([]byte, string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	f, _ := mw.CreateFormFile("file", name) // writes to a bytes.Buffer: no error
	_, _ = f.Write(data)
	_ = mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}

// runUpload: a 5 MiB PNG uploaded as an asset (POST /api/v1/worlds/{w}/assets) against
// PocketBase's record create with the same bytes in a file field, at 1 and 4 clients.
func (b *bench) runUpload() error {
	t, err := b.newTarget()
	if err != nil {
		return err
	}
	defer t.close()
	if err := t.srv.createFileCollection(); err != nil {
		return fmt.Errorf("file collection: %w", err)
	}
	w, err := t.world("Upload bench")
	if err != nil {
		return err
	}
	const width, height = 1024, 1280
	img, err := noisePNG(width, height)
	if err != nil {
		return err
	}
	body, ctype := multipartFile("noise.png", img)
	ours := http.Header{"Content-Type": {ctype}, "Authorization": {bearer(t.key)}}
	base := http.Header{"Content-Type": {ctype}, "Authorization": {t.pbAuth}}
	for _, clients := range []int{1, 4} {
		a, bs := pair(clients, b.dur,
			func(int, int) error {
				return t.c.send(http.MethodPost, "/api/v1/worlds/"+w+"/assets", ours, body, http.StatusCreated, nil)
			},
			func(int, int) error {
				return t.c.send(http.MethodPost, "/api/collections/"+benchFiles+"/records", base, body, http.StatusOK, nil)
			})
		r := latencyRow(fmt.Sprintf("asset upload, %.1f MiB PNG", float64(len(img))/(1<<20)), clients, a, "PB record create with the file", bs)
		r.Note = joinNote(r.Note, fmt.Sprintf("a %d-byte PNG of %d×%d random pixels in a %d-byte multipart body, the same bytes both sides; "+
			"ours types it by content and reads its header for the size, PocketBase sniffs its type; both store it under pb_data/storage; %.0f vs %.0f MiB/s",
			len(img), width, height, len(body), r.Rate*float64(len(body))/(1<<20), r.BaseRate*float64(len(body))/(1<<20)))
		b.add(r)
	}
	return nil
}
