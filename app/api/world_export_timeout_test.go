package api_test

import (
	"archive/zip"
	"bytes"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/api"
	"github.com/loreweave/loreweave/app/store"
)

// TestExportOutlivesServerTimeouts: an export that takes longer than the server's read and
// write timeouts (here 300 ms; PocketBase's are 5 minutes) to reach a slow client is still
// whole: the write deadline moves on with each write (without, the connection is cut once the
// write timeout passes), and the read timeout does not apply once the request is read
// (net/http clears it for its background read).
func TestExportOutlivesServerTimeouts(t *testing.T) {
	s := start(t)
	r := s.RichWorld("Slow Reader")
	big := make([]byte, 12<<20) // incompressible, so the archive outgrows the socket buffers
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	if _, err := s.LW.Store.CreateAsset(store.NewAsset{WorldID: r.ID, UploaderID: r.Owner.ID, Name: "big.glb", Kind: store.AssetModel,
		ContentType: "model/gltf-binary", Ext: ".glb", Data: big}); err != nil {
		t.Fatal(err)
	}
	w, err := s.LW.Store.World(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		e := &core.RequestEvent{App: s.PB}
		e.Response, e.Request = rw, req
		if err := api.ServeArchive(e, s.LW.Store, w); err != nil {
			t.Errorf("ServeArchive: %v", err)
		}
	}))
	const timeout = 300 * time.Millisecond
	srv.Config.ReadTimeout, srv.Config.WriteTimeout = timeout, timeout
	srv.Start()
	defer srv.Close()

	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	start := time.Now()
	var body bytes.Buffer
	for {
		_, err := io.CopyN(&body, res.Body, 512<<10)
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("after %s and %d bytes: %v", time.Since(start), body.Len(), err)
		}
		time.Sleep(40 * time.Millisecond)
	}
	// Reading well past both timeouts (the read is paced above: about a second) shows the
	// deadline moved with the writes.
	if took := time.Since(start); took < 2*timeout {
		t.Fatalf("the client read it all in %s: the test did not outlast the timeouts", took)
	}
	z, err := zip.NewReader(bytes.NewReader(body.Bytes()), int64(body.Len()))
	if err != nil {
		t.Fatalf("a torn archive (%d bytes): %v", body.Len(), err)
	}
	if last := z.File[len(z.File)-1].Name; last != "manifest.json" {
		t.Fatalf("the archive ends with %s", last)
	}
}
