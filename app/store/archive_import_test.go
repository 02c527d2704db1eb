package store_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/store"
)

func importArchive(s *apptest.Server, archive []byte, mode store.ImportMode, owner string) (store.ImportResult, error) {
	return s.LW.Store.ImportWorld(context.Background(), bytes.NewReader(archive), int64(len(archive)), mode, owner)
}

// sameFiles compares two archives' files, manifest.json aside (it says when it was written):
// the same paths in the same order, with the same bytes. fix, when not nil, rewrites b's
// files first (and the order of paths is not compared).
func sameFiles(t *testing.T, a, b archiveFiles, fix func(path string, data []byte) (string, []byte)) {
	t.Helper()
	aOrder := a.order
	var bOrder []string
	bData := map[string][]byte{}
	for _, p := range b.order {
		data := b.data[p]
		if fix != nil {
			p, data = fix(p, data)
		}
		bOrder = append(bOrder, p)
		bData[p] = data
	}
	if fix != nil {
		// Documents come in the order of their ids, which a copy changes.
		aOrder, bOrder = slices.Sorted(slices.Values(aOrder)), slices.Sorted(slices.Values(bOrder))
	}
	if !slices.Equal(aOrder, bOrder) {
		t.Fatalf("the archives' files differ:\n%v\n%v", a.order, bOrder)
	}
	for _, p := range a.order {
		if p == "manifest.json" {
			continue
		}
		if !bytes.Equal(a.data[p], bData[p]) {
			t.Errorf("%s differs:\n%s\n---\n%s", p, a.data[p], bData[p])
		}
	}
}

// TestImportRoundTrip is the round trip: a world with something of everything is
// exported, imported in restore mode into an empty data dir and in copy mode beside the
// original, and exported again: the files are the same (in copy mode once the new ids are
// mapped back to the old), and the imported worlds work.
func TestImportRoundTrip(t *testing.T) {
	s := apptest.Start(t)
	r := s.RichWorld("Eldoria")
	original, _ := exportOf(t, s, r.ID)
	a := readArchive(t, original)

	// Restore into an empty data dir, where the same people have accounts.
	s2 := apptest.Start(t)
	owner2 := s2.NewUser(r.Owner.Name)
	s2.NewUser(r.Admin.Name)
	s2.NewUser(r.Editor.Name)
	res, err := importArchive(s2, original, store.ImportRestore, owner2.ID)
	if err != nil {
		t.Fatal(err)
	}
	if res.World.ID != r.ID || res.Mode != store.ImportRestore || res.World.OwnerID != owner2.ID || res.World.Plan != "studio" {
		t.Fatalf("restored %+v", res)
	}
	if len(res.MembersAdded) != 2 || len(res.MembersSkipped) != 0 || len(res.MembersInvited) != 0 {
		t.Fatalf("members: added %v, invited %v, skipped %v", res.MembersAdded, res.MembersInvited, res.MembersSkipped)
	}
	restored, _ := exportOf(t, s2, r.ID)
	sameFiles(t, a, readArchive(t, restored), nil)
	worldWorks(t, s2, owner2, r, r.ID, func(id string) string { return id })

	// Restoring it again is refused, and changes nothing.
	before := s2.Count("documents", "1=1")
	_, err = importArchive(s2, original, store.ImportRestore, owner2.ID)
	if e := apierr.From(err); e.Status != http.StatusConflict || e.Code != "world_exists" {
		t.Fatalf("second restore: %v", err)
	}
	if n := s2.Count("documents", "1=1"); n != before {
		t.Fatalf("a refused restore changed the documents: %d -> %d", before, n)
	}

	// A copy beside the original.
	res, err = importArchive(s, original, store.ImportCopy, r.Owner.ID)
	if err != nil {
		t.Fatal(err)
	}
	copied, _ := exportOf(t, s, res.World.ID)
	c := readArchive(t, copied)
	back := idsBack(t, a, c)
	if len(back) < 14 { // the world, 2 eras, a project, a tool, 2 assets, 7 documents
		t.Fatalf("only %d ids mapped", len(back))
	}
	for n, o := range back {
		if n == o {
			t.Fatalf("the copy kept the id %s", o)
		}
	}
	if strings.Contains(string(copied), r.ID) || strings.Contains(string(copied), r.Card) {
		t.Fatal("the copy's archive still holds an id of the original")
	}
	var origWorld, copyWorld store.ArchiveWorld
	json.Unmarshal(a.data["world.json"], &origWorld)
	json.Unmarshal(c.data["world.json"], &copyWorld)
	if copyWorld.Slug == origWorld.Slug {
		t.Fatal("the copy has the original's slug")
	}
	sameFiles(t, a, c, func(p string, data []byte) (string, []byte) {
		p = string(store.RemapIDs([]byte(p), back))
		data = store.RemapIDs(data, back)
		switch p {
		case "eras.json":
			data = sameOrder(t, data, a.data[p], func(e store.ArchiveEra) string { return e.Name })
		case "assets.json":
			data = sameOrder(t, data, a.data[p], func(e store.ArchiveAsset) string { return e.Name })
		case "world.json":
			data = bytes.Replace(data, []byte(copyWorld.Slug), []byte(origWorld.Slug), 1)
		case "projects.json":
			var cp, op []store.ArchiveProject
			json.Unmarshal(data, &cp)
			json.Unmarshal(a.data[p], &op)
			for i := range cp {
				data = bytes.Replace(data, []byte(`"slug": "`+cp[i].Slug+`"`), []byte(`"slug": "`+op[i].Slug+`"`), 1)
			}
		}
		return p, data
	})
	toNew := map[string]string{}
	for n, o := range back {
		toNew[o] = n
	}
	worldWorks(t, s, r.Owner, r, res.World.ID, func(id string) string { return toNew[id] })
}

// sameOrder puts the entries of a list file in the order the original has them, by name: a
// list ordered by time, then id, may order entries with the same time differently once they
// have new ids.
func sameOrder[T any](t *testing.T, data, orig []byte, name func(T) string) []byte {
	t.Helper()
	var items, want []T
	if err := json.Unmarshal(data, &items); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(orig, &want)
	pos := map[string]int{}
	for i, w := range want {
		pos[name(w)] = i
	}
	slices.SortStableFunc(items, func(a, b T) int { return pos[name(a)] - pos[name(b)] })
	out, _ := json.MarshalIndent(items, "", "  ")
	return append(out, '\n')
}

// idsBack maps the copy's ids to the original's, pairing what the two archives list by name
// (every name in a RichWorld is unique).
func idsBack(t *testing.T, orig, cp archiveFiles) map[string]string {
	t.Helper()
	back := map[string]string{}
	pair := func(file string, v func() any, key func(any) map[string]string) {
		o, c := v(), v()
		json.Unmarshal(orig.data[file], o)
		json.Unmarshal(cp.data[file], c)
		ok, ck := key(o), key(c)
		for name, id := range ck {
			back[id] = ok[name]
		}
	}
	byName := func(file string, v func() any, f func(any) map[string]string) { pair(file, v, f) }
	byName("world.json", func() any { return &store.ArchiveWorld{} }, func(v any) map[string]string {
		w := v.(*store.ArchiveWorld)
		return map[string]string{w.Name: w.ID}
	})
	byName("eras.json", func() any { return &[]store.ArchiveEra{} }, func(v any) map[string]string {
		m := map[string]string{}
		for _, e := range *v.(*[]store.ArchiveEra) {
			m[e.Name] = e.ID
		}
		return m
	})
	byName("projects.json", func() any { return &[]store.ArchiveProject{} }, func(v any) map[string]string {
		m := map[string]string{}
		for _, e := range *v.(*[]store.ArchiveProject) {
			m[e.Name] = e.ID
		}
		return m
	})
	byName("tools.json", func() any { return &[]store.ArchiveTool{} }, func(v any) map[string]string {
		m := map[string]string{}
		for _, e := range *v.(*[]store.ArchiveTool) {
			m[e.Name] = e.ID
		}
		return m
	})
	byName("assets.json", func() any { return &[]store.ArchiveAsset{} }, func(v any) map[string]string {
		m := map[string]string{}
		for _, e := range *v.(*[]store.ArchiveAsset) {
			m[e.Name] = e.ID
		}
		return m
	})
	docs := func(a archiveFiles) map[string]string {
		m := map[string]string{}
		for _, p := range a.order {
			if strings.HasSuffix(p, "/document.json") {
				var d store.ArchiveDocument
				json.Unmarshal(a.data[p], &d)
				m[d.Name] = d.ID
			}
		}
		return m
	}
	od, cd := docs(orig), docs(cp)
	for name, id := range cd {
		back[id] = od[name]
	}
	for n, o := range back {
		if o == "" {
			t.Fatalf("the copy's %s has no counterpart in the original", n)
		}
	}
	return back
}

// worldWorks checks an imported world through the API: its documents read and take writes,
// search finds them, links and backlinks are there, and so is their history.
func worldWorks(t *testing.T, s *apptest.Server, owner apptest.User, r apptest.RichWorld, world string, id func(string) string) {
	t.Helper()
	base := "/api/v1/worlds/" + world + "/documents/"
	card := s.Must(s.Get(owner.Key, base+id(r.Card)), http.StatusOK).Map(t)
	if card["name"] != "Eldoria: the City" {
		t.Fatalf("card: %v", card)
	}
	links := s.Must(s.Get(owner.Key, base+id(r.Other)+"/links"), http.StatusOK)
	if !strings.Contains(string(links.Body), id(r.Card)) {
		t.Fatalf("the card's backlink to %s is missing: %s", r.Other, links.Body)
	}
	s.Must(s.Post(owner.Key, base+id(r.Card)+"/content", map[string]any{
		"ops": []any{map[string]any{"op": "card.setProperty", "key": "Ruler", "value": "Queen Ysolde"}}}), http.StatusOK)
	ops := s.Must(s.Get(owner.Key, base+id(r.Timeline)+"/ops"), http.StatusOK).Map(t)
	if items, _ := ops["items"].([]any); len(items) == 0 {
		t.Fatalf("the timeline's op log is empty: %v", ops)
	}
	past := s.Must(s.Get(owner.Key, base+id(r.Timeline)+"?version=50"), http.StatusOK).Map(t)
	if past["version"] != float64(50) {
		t.Fatalf("version 50: %v", past)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		res := s.Must(s.Get(owner.Key, "/api/v1/worlds/"+world+"/search?q=Ysolde"), http.StatusOK)
		if strings.Contains(string(res.Body), id(r.Card)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("search does not find the imported card: %s", res.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	res := s.Must(s.Get(owner.Key, "/api/v1/worlds/"+world+"/search?q=Vharn"), http.StatusOK)
	if !strings.Contains(string(res.Body), id(r.Other)) {
		t.Fatalf("search does not find an imported card that was not written since: %s", res.Body)
	}
	file := s.Get(owner.Key, "/api/v1/worlds/"+world+"/assets/"+id(r.Asset)+"/file")
	if file.Status != http.StatusOK || len(file.Body) == 0 {
		t.Fatalf("asset file: %d", file.Status)
	}
}

// rewrite rebuilds an archive with some files changed (nil removes one), and the manifest's
// checksums made to fit unless keepManifest.
func rewrite(t *testing.T, a archiveFiles, change map[string][]byte, keepManifest bool) []byte {
	t.Helper()
	var m store.ArchiveManifest
	if err := json.Unmarshal(a.data["manifest.json"], &m); err != nil {
		t.Fatal(err)
	}
	data := map[string][]byte{}
	for p, b := range a.data {
		data[p] = b
	}
	order := slices.Clone(a.order[:len(a.order)-1]) // manifest.json is last
	for p, b := range change {
		if b == nil {
			delete(data, p)
			continue
		}
		if _, ok := data[p]; !ok {
			order = append(order, p)
		}
		data[p] = b
	}
	if !keepManifest {
		m.Files = nil
		for _, p := range order {
			if b, ok := data[p]; ok {
				sum := sha256.Sum256(b)
				m.Files = append(m.Files, store.ArchiveFile{Path: p, Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])})
			}
		}
	}
	mb, _ := json.MarshalIndent(m, "", "  ")
	data["manifest.json"] = append(mb, '\n')
	order = append(order, "manifest.json")
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, p := range order {
		b, ok := data[p]
		if !ok {
			continue
		}
		w, err := z.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// storedFiles counts the files in a data dir's file storage.
func storedFiles(t *testing.T, s *apptest.Server) int {
	n := 0
	filepath.WalkDir(filepath.Join(s.Dir, "storage"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(d.Name(), ".attrs") { // the file storage's metadata beside each file
			n++
		}
		return nil
	})
	return n
}

// TestImportRefusesBadArchives: a truncated archive, a bad checksum, a dangling reference,
// an unknown document type and an asset that is not what it says each answer 422
// invalid_archive naming the file at fault, and change nothing: no world, no files.
func TestImportRefusesBadArchives(t *testing.T) {
	s := apptest.Start(t)
	r := s.RichWorld("Umbria")
	archive, _ := exportOf(t, s, r.ID)
	a := readArchive(t, archive)
	folder := func(id string) string {
		for _, p := range a.order {
			if strings.HasPrefix(p, "documents/") && strings.HasSuffix(p, id+"/document.json") {
				return strings.TrimSuffix(p, "document.json")
			}
		}
		t.Fatalf("no folder for %s", id)
		return ""
	}
	edit := func(path, old, new string) []byte {
		b := a.data[path]
		if !bytes.Contains(b, []byte(old)) {
			t.Fatalf("%s has no %q", path, old)
		}
		return bytes.Replace(b, []byte(old), []byte(new), 1)
	}
	card := folder(r.Card)
	var assetFile string
	for _, p := range a.order {
		if strings.HasPrefix(p, "assets/") {
			assetFile = p
		}
	}
	svg := []byte("<svg onload=alert(1)></svg>")
	svgSum := sha256.Sum256(svg)
	svgFile := "assets/" + hex.EncodeToString(svgSum[:])
	checksumFlip := slices.Clone(a.data[card+"content.json"])
	checksumFlip[10] ^= 1

	s2 := apptest.Start(t)
	owner := s2.NewUser(r.Owner.Name)
	for _, c := range []struct {
		name, path, says string
		archive          []byte
	}{
		{"truncated", "", "truncated", archive[:len(archive)/2]},
		{"bad checksum", card + "content.json", "sha256", rewrite(t, a, map[string][]byte{card + "content.json": checksumFlip}, true)},
		{"missing file", card + "content.json", "missing", rewrite(t, a, map[string][]byte{card + "content.json": nil}, true)},
		{"file not listed", "extra.txt", "not listed", rewrite(t, a, map[string][]byte{"extra.txt": []byte("hi")}, true)},
		{"dangling parent", card + "document.json", "parentId", rewrite(t, a, map[string][]byte{
			card + "document.json": edit(card+"document.json", `"parentId": ""`, `"parentId": "nosuchdocument1"`)}, false)},
		{"its own parent", folder(r.Folder) + "document.json", "own parent", rewrite(t, a, map[string][]byte{
			folder(r.Folder) + "document.json": edit(folder(r.Folder)+"document.json", `"parentId": ""`, `"parentId": "`+r.Folder+`"`)}, false)},
		{"unknown type", card + "document.json", "spaceship", rewrite(t, a, map[string][]byte{
			card + "document.json": edit(card+"document.json", `"documentType": "card"`, `"documentType": "spaceship"`)}, false)},
		{"era of nothing", "eras.json", "parent", rewrite(t, a, map[string][]byte{
			"eras.json": edit("eras.json", `"parentId": "`+r.Era+`"`, `"parentId": "nosuchera000000"`)}, false)},
		// Member names are case-sensitive, as in the REST API's ops: "Op" names no operation.
		{"op in capitals", card + "ops.jsonl", "no operation", rewrite(t, a, map[string][]byte{
			card + "ops.jsonl": edit(card+"ops.jsonl", `[{"op":`, `[{"Op":`)}, false)},
		{"unknown field", "world.json", "unknown field", rewrite(t, a, map[string][]byte{
			"world.json": edit("world.json", `"genre"`, `"colour": "red", "genre"`)}, false)},
		{"not an image", svgFile, "image/svg+xml", rewrite(t, a, map[string][]byte{assetFile: nil, svgFile: svg,
			"assets.json": bytes.ReplaceAll(bytes.ReplaceAll(a.data["assets.json"], []byte(strings.TrimPrefix(assetFile, "assets/")), []byte(strings.TrimPrefix(svgFile, "assets/"))),
				[]byte(fmt.Sprintf(`"size": %d,`, len(a.data[assetFile]))), []byte(fmt.Sprintf(`"size": %d,`, len(svg))))}, false)},
	} {
		t.Run(c.name, func(t *testing.T) {
			worlds, files := s2.Count("worlds", "1=1"), storedFiles(t, s2)
			_, err := importArchive(s2, c.archive, store.ImportRestore, owner.ID)
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status != http.StatusUnprocessableEntity || e.Code != "invalid_archive" {
				t.Fatalf("got %v", err)
			}
			problems, _ := e.Details["problems"].([]store.ArchiveProblem)
			found := false
			for _, p := range problems {
				if p.Path == c.path && strings.Contains(p.Message, c.says) {
					found = true
				}
			}
			if !found {
				t.Fatalf("no problem of %q saying %q: %+v", c.path, c.says, problems)
			}
			if !strings.Contains(e.Message, "nothing was imported") {
				t.Errorf("message: %s", e.Message)
			}
			if n := s2.Count("worlds", "1=1"); n != worlds {
				t.Errorf("worlds %d -> %d", worlds, n)
			}
			if n := storedFiles(t, s2); n != files {
				t.Errorf("stored files %d -> %d", files, n)
			}
		})
	}
}

// Two restores of one archive at once: one makes the world, the other is a 409 whichever
// check catches it (before writing, or the database's unique ids at commit), and leaves no
// asset files behind.
func TestImportConcurrentRestores(t *testing.T) {
	s := apptest.Start(t)
	r := s.RichWorld("Twice")
	archive, _ := exportOf(t, s, r.ID)
	s2 := apptest.Start(t)
	owner := s2.NewUser(r.Owner.Name)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := importArchive(s2, archive, store.ImportRestore, owner.ID)
			errs <- err
		}()
	}
	var failed []error
	for range 2 {
		if err := <-errs; err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) != 1 {
		t.Fatalf("%d of two restores failed: %v", len(failed), failed)
	}
	if e := apierr.From(failed[0]); e.Status != http.StatusConflict || e.Code != "world_exists" {
		t.Fatalf("the second restore: %v", failed[0])
	}
	if n := s2.Count("assets", "1=1"); n != 2 {
		t.Fatalf("%d assets", n)
	}
	if n := storedFiles(t, s2); n != 2 {
		t.Fatalf("%d stored files for 2 assets", n)
	}
}
