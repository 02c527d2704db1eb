package store_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/store"
)

// archiveFiles is an archive's files by path, in archive order.
type archiveFiles struct {
	order []string
	data  map[string][]byte
}

func readArchive(t *testing.T, b []byte) archiveFiles {
	t.Helper()
	z, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	out := archiveFiles{data: map[string][]byte{}}
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if _, dup := out.data[f.Name]; dup {
			t.Fatalf("%s is in the archive twice", f.Name)
		}
		out.order = append(out.order, f.Name)
		out.data[f.Name] = body
	}
	return out
}

// strict decodes an archive JSON file into v, refusing unknown fields, and checks it is
// written as the format says (indented, with a final newline).
func strict(t *testing.T, name string, body []byte, v any) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want, _ := json.MarshalIndent(v, "", "  ")
	if !bytes.Equal(append(want, '\n'), body) {
		t.Fatalf("%s is not written as the format says:\n%s", name, body)
	}
}

func exportOf(t *testing.T, s *apptest.Server, world string) ([]byte, store.ArchiveManifest) {
	t.Helper()
	var buf bytes.Buffer
	var calls, last int
	m, err := s.LW.Store.ExportWorld(context.Background(), world, &buf, func(done, total int) {
		calls++
		if done < last || done > total {
			t.Fatalf("progress went %d -> %d of %d", last, done, total)
		}
		last = done
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last != m.Counts.Documents {
		t.Fatalf("progress ended at %d of %d documents after %d calls", last, m.Counts.Documents, calls)
	}
	return buf.Bytes(), m
}

// TestExportWorld exports a world with something of everything and checks the archive
// against the format: layout, order, checksums, each JSON file, index.md's links, and that a
// second export writes the same bytes.
func TestExportWorld(t *testing.T) {
	s := apptest.Start(t)
	r := s.RichWorld("Eldoria")
	body, m := exportOf(t, s, r.ID)
	a := readArchive(t, body)

	// The manifest comes last and lists every other file, in archive order, with its checksum.
	if a.order[len(a.order)-1] != "manifest.json" {
		t.Fatalf("the last file is %s", a.order[len(a.order)-1])
	}
	var manifest store.ArchiveManifest
	strict(t, "manifest.json", a.data["manifest.json"], &manifest)
	if manifest.Format != store.ArchiveFormat || manifest.Version != store.ArchiveVersion || manifest.World.ID != r.ID || manifest.Loreweave == "" {
		t.Fatalf("manifest: %+v", manifest)
	}
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`).MatchString(manifest.ExportedAt) {
		t.Fatalf("exportedAt %q", manifest.ExportedAt)
	}
	if len(manifest.Files) != len(a.order)-1 {
		t.Fatalf("the manifest lists %d files, the archive has %d besides it", len(manifest.Files), len(a.order)-1)
	}
	for i, f := range manifest.Files {
		data := a.data[f.Path]
		sum := sha256.Sum256(data)
		if f.Path != a.order[i] || f.Size != int64(len(data)) || f.SHA256 != hex.EncodeToString(sum[:]) {
			t.Fatalf("manifest file %d %+v does not match %s (%d bytes)", i, f, a.order[i], len(data))
		}
	}
	if manifest.Counts != m.Counts {
		t.Fatalf("manifest counts %+v, returned %+v", manifest.Counts, m.Counts)
	}
	want := store.ArchiveCounts{Members: 3, Eras: 2, Projects: 1, Tools: 1, Assets: 2, Documents: 7, States: 9,
		Ops: 6 + store.SnapshotEvery + 5 + 2, Snapshots: 0}
	got := manifest.Counts
	if got.Snapshots < 1 {
		t.Fatalf("no snapshot in %+v", got)
	}
	got.Snapshots = 0
	if got != want {
		t.Fatalf("counts %+v, want %+v", got, want)
	}

	// The fixed files, in the format's order.
	fixed := []string{"world.json", "members.json", "eras.json", "projects.json", "tools.json", "assets.json"}
	if !slices.Equal(a.order[:len(fixed)], fixed) {
		t.Fatalf("the archive starts %v", a.order[:len(fixed)])
	}
	var world store.ArchiveWorld
	strict(t, "world.json", a.data["world.json"], &world)
	if world.ID != r.ID || world.Name != "Eldoria" || !strings.Contains(world.Created, "T") {
		t.Fatalf("world.json %+v", world)
	}
	var members []store.ArchiveMember
	strict(t, "members.json", a.data["members.json"], &members)
	if len(members) != 3 || !slices.IsSortedFunc(members, func(a, b store.ArchiveMember) int { return strings.Compare(a.Email, b.Email) }) {
		t.Fatalf("members.json %+v", members)
	}
	roles := map[string]string{}
	for _, mb := range members {
		roles[mb.Email] = mb.Role
	}
	if roles[r.Owner.Email] != "owner" || roles[r.Admin.Email] != "admin" || roles[r.Editor.Email] != "editor" {
		t.Fatalf("roles %v", roles)
	}
	var eras []store.ArchiveEra
	strict(t, "eras.json", a.data["eras.json"], &eras)
	if len(eras) != 2 || eras[0].ID != r.Era || eras[0].ParentID != "" || eras[1].ID != r.ChildEra || eras[1].ParentID != r.Era {
		t.Fatalf("eras.json %+v", eras)
	}
	var projects []store.ArchiveProject
	strict(t, "projects.json", a.data["projects.json"], &projects)
	if len(projects) != 1 || projects[0].ID != r.Project || projects[0].Kind != "wiki" {
		t.Fatalf("projects.json %+v", projects)
	}
	var tools []store.ArchiveTool
	strict(t, "tools.json", a.data["tools.json"], &tools)
	if len(tools) != 1 || tools[0].Name != "quests" || !bytes.Contains(tools[0].Manifest, []byte(`"quest"`)) || tools[0].Uninstalled != "" {
		t.Fatalf("tools.json %+v", tools)
	}
	var assets []store.ArchiveAsset
	strict(t, "assets.json", a.data["assets.json"], &assets)
	if len(assets) != 2 || assets[0].SHA256 != assets[1].SHA256 || assets[0].Width != 16 {
		t.Fatalf("assets.json %+v", assets)
	}
	// One content, stored once.
	pic := a.data["assets/"+assets[0].SHA256]
	sum := sha256.Sum256(pic)
	if a.order[len(fixed)] != "assets/"+assets[0].SHA256 || hex.EncodeToString(sum[:]) != assets[0].SHA256 || int64(len(pic)) != assets[0].Size {
		t.Fatalf("asset file: %s, %d bytes", a.order[len(fixed)], len(pic))
	}
	if a.order[len(fixed)+1] == "assets/"+assets[0].SHA256 {
		t.Fatal("an asset's content is in the archive twice")
	}

	// Documents: by id, each folder's files in the format's order.
	var docs []store.ArchiveDocument
	folders := map[string]string{} // id -> folder
	rest := a.order[len(fixed)+1 : len(a.order)-1]
	fileOrder := []string{"document.json", "content.json", "ops.jsonl", "snapshots.jsonl", "index.md"}
	lastRank, lastFolder := -1, ""
	for _, p := range rest {
		dir, name, ok := strings.Cut(strings.TrimPrefix(p, "documents/"), "/")
		if !ok || !strings.HasPrefix(p, "documents/") {
			t.Fatalf("unexpected file %s", p)
		}
		rank := slices.Index(fileOrder, name)
		if strings.HasPrefix(name, "index.") && rank < 0 {
			rank = len(fileOrder)
		}
		if dir != lastFolder {
			lastRank, lastFolder = -1, dir
		}
		if rank < lastRank || rank < 0 {
			t.Fatalf("%s out of order", p)
		}
		lastRank = rank
		if name == "document.json" {
			var d store.ArchiveDocument
			strict(t, p, a.data[p], &d)
			if store.ArchiveFolder(d.Name, d.ID) != dir {
				t.Fatalf("%s holds document %s (%s)", dir, d.ID, d.Name)
			}
			docs = append(docs, d)
			folders[d.ID] = dir
		}
	}
	if len(docs) != 7 || !slices.IsSortedFunc(docs, func(a, b store.ArchiveDocument) int { return strings.Compare(a.ID, b.ID) }) {
		t.Fatalf("%d documents, in order %v", len(docs), docs)
	}
	types := map[string]bool{}
	for _, d := range docs {
		types[d.DocumentType] = true
	}
	for _, typ := range []string{"card", "timeline", "map", "folder", "animator", "quest"} {
		if !types[typ] {
			t.Fatalf("no %s in %v", typ, types)
		}
	}
	if folders[r.Card] != "eldoria-the-city-"+r.Card {
		t.Fatalf("the card's folder is %s", folders[r.Card])
	}

	// The card has its own copy in the era: two states, the main line first, and two Markdown files.
	cardDir := "documents/" + folders[r.Card] + "/"
	var content []store.ArchiveState
	strict(t, cardDir+"content.json", a.data[cardDir+"content.json"], &content)
	if len(content) != 2 || content[0].Era != "" || content[1].Era != r.Era || content[1].ForkedVersion != 1 || !bytes.Contains(content[1].Data, []byte("Ruin")) {
		t.Fatalf("the card's content.json %+v", content)
	}
	md := string(a.data[cardDir+"index.md"])
	wantMD := "# Eldoria: the City\n\n"
	if !strings.HasPrefix(md, wantMD) ||
		!strings.Contains(md, "Founded by [Vharn the Grey](../"+folders[r.Other]+"/index.md)") ||
		!strings.Contains(md, "see [the chronicle](../"+folders[r.Timeline]+"/index.md)") ||
		!strings.Contains(md, "and a lost page.") || strings.Contains(md, "[[") {
		t.Fatalf("the card's index.md:\n%s", md)
	}
	if era := string(a.data[cardDir+"index."+r.Era+".md"]); !strings.Contains(era, "Burnt; [Vharn the Grey](../"+folders[r.Other]+"/index.md) fled.") {
		t.Fatalf("the card's era index.md:\n%s", era)
	}
	if _, ok := a.data["documents/"+folders[r.Folder]+"/snapshots.jsonl"]; ok {
		t.Fatal("a document with no snapshot has a snapshots.jsonl")
	}

	// The timeline's history: ops by era ("" first) then version, and its snapshot.
	tlDir := "documents/" + folders[r.Timeline] + "/"
	var ops []store.ArchiveOp
	for i, line := range strings.SplitAfter(string(a.data[tlDir+"ops.jsonl"]), "\n") {
		if line == "" {
			continue
		}
		var op store.ArchiveOp
		d := json.NewDecoder(strings.NewReader(line))
		d.DisallowUnknownFields()
		if err := d.Decode(&op); err != nil {
			t.Fatalf("ops.jsonl line %d: %v", i+1, err)
		}
		compact, _ := json.Marshal(op)
		if string(compact)+"\n" != line {
			t.Fatalf("ops.jsonl line %d is not compact JSON: %s", i+1, line)
		}
		ops = append(ops, op)
	}
	if len(ops) != store.SnapshotEvery+6 || ops[0].Era != "" || ops[0].Version != 1 || ops[len(ops)-1].Era != r.ChildEra ||
		ops[0].Actor != r.Owner.ID || ops[0].Credential != "api_key" || !strings.Contains(ops[0].Created, "T") {
		t.Fatalf("the timeline's ops: %d, first %+v, last %+v", len(ops), ops[0], ops[len(ops)-1])
	}
	var snap store.ArchiveSnapshot
	first, _, _ := strings.Cut(string(a.data[tlDir+"snapshots.jsonl"]), "\n")
	if err := json.Unmarshal([]byte(first), &snap); err != nil || snap.Version != store.SnapshotEvery || !bytes.Contains(snap.Data, []byte("Year 99")) {
		t.Fatalf("the timeline's snapshot %+v (%v)", snap, err)
	}

	// A second export writes the same bytes, manifest.json aside.
	again, _ := exportOf(t, s, r.ID)
	b := readArchive(t, again)
	if !slices.Equal(a.order, b.order) {
		t.Fatal("a second export has other files or another order")
	}
	for _, p := range a.order {
		if p != "manifest.json" && !bytes.Equal(a.data[p], b.data[p]) {
			t.Fatalf("%s differs between two exports", p)
		}
	}
}

// TestExportUnknownWorld: exporting a world that does not exist is not found and writes
// nothing.
func TestExportUnknownWorld(t *testing.T) {
	s := apptest.Start(t)
	var buf bytes.Buffer
	if _, err := s.LW.Store.ExportWorld(context.Background(), "nosuchworld", &buf, nil); err == nil || buf.Len() != 0 {
		t.Fatalf("err %v, %d bytes written", err, buf.Len())
	}
}

func TestArchiveFolder(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"Eldoria: the City", "eldoria-the-city-abc"},
		{"  Ünïcode & more!! ", "n-code-more-abc"},
		{"東京", "abc"},
	} {
		if got := store.ArchiveFolder(c.name, "abc"); got != c.want {
			t.Errorf("ArchiveFolder(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if got := store.ArchiveFolder(strings.Repeat("ab ", 100), "abc"); len(got) > 64 || !strings.HasPrefix(got, "ab-ab-") || !strings.HasSuffix(got, "-ab-abc") {
		t.Errorf("a long name's folder is %q", got)
	}
}

// TestExportBigWorld: a world of more than ten pages of documents (read through the ids'
// own index, skipping another world's documents) exports each of its documents once, by id.
func TestExportBigWorld(t *testing.T) {
	s := apptest.Start(t)
	u := s.NewUser("Ann")
	big, other := s.World(u, "Big"), s.World(u, "Other")
	now := time.Now().UTC().Format("2006-01-02 15:04:05.000Z")
	want := map[string]bool{}
	err := s.PB.RunInTransaction(func(tx core.App) error {
		ins := tx.DB().NewQuery(`INSERT INTO documents (id, world, name, documentType, parent, era, created, updated)
			VALUES ({:id}, {:w}, {:name}, 'folder', '', '', {:t}, {:t})`).Prepare()
		defer ins.Close()
		for i := range 5600 {
			w := big
			if i%8 == 0 {
				w = other
			}
			id := core.GenerateDefaultRandomId()
			if w == big {
				want[id] = true
			}
			if _, err := ins.Bind(dbx.Params{"id": id, "w": w, "name": fmt.Sprint("Folder ", i), "t": now}).Execute(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	body, m := exportOf(t, s, big)
	z, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range z.File {
		if strings.HasSuffix(f.Name, "/document.json") {
			dir := strings.TrimSuffix(strings.TrimPrefix(f.Name, "documents/"), "/document.json")
			ids = append(ids, dir[strings.LastIndex(dir, "-")+1:])
		}
	}
	if m.Counts.Documents != len(want) || len(ids) != len(want) || !slices.IsSorted(ids) {
		t.Fatalf("%d documents counted, %d in the archive (sorted: %v), want %d", m.Counts.Documents, len(ids), slices.IsSorted(ids), len(want))
	}
	for _, id := range ids {
		if !want[id] {
			t.Fatalf("document %s is not the world's", id)
		}
	}
}
