package store

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"path"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/pocketbase/dbx"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/ops"
)

// exportPage is how many documents an export reads per query.
const exportPage = 500

// ExportWorld writes the world's archive to w, streaming: it never holds more than one
// document's files in memory. It reads the world as it is at one moment (one read
// transaction), so writes during an export do not tear it. progress may be nil. The manifest
// it returns has no Files: manifest.json in the archive lists them. What grows with the world
// (that list and the zip's central directory) waits in temporary files until the end.
func (s *Store) ExportWorld(ctx context.Context, worldID string, w io.Writer, progress ExportProgress) (ArchiveManifest, error) {
	reader, ok := s.app.ConcurrentDB().(*dbx.DB)
	if !ok {
		return ArchiveManifest{}, errors.New("store: the read connections are not a *dbx.DB")
	}
	// A read transaction on SQLite's write-ahead log sees the database as of its first read,
	// whatever commits meanwhile, and blocks no writer.
	tx, err := reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return ArchiveManifest{}, fmt.Errorf("store: export %s: begin: %w", worldID, err)
	}
	defer tx.Rollback() //nolint:errcheck // read only: nothing to keep or lose
	x := &exporter{s: s, ctx: ctx, db: tx, progress: progress}
	m, err := x.run(worldID, w)
	if err != nil {
		return ArchiveManifest{}, fmt.Errorf("store: export %s: %w", worldID, err)
	}
	return m, nil
}

// exporter is one export under way.
type exporter struct {
	s        *Store
	ctx      context.Context
	db       dbx.Builder
	zip      *zipStream
	progress ExportProgress
	files    *manifestFiles
	counts   ArchiveCounts
	// The per-document queries, prepared once: parsing each query again for each of 100,000
	// documents was a fifth of an export's time.
	states, ops, snapshots, linkTarget *dbx.Query
}

func (x *exporter) run(worldID string, w io.Writer) (ArchiveManifest, error) {
	var world World
	if err := x.query("SELECT "+worldCols+" FROM worlds w WHERE w.id = {:id}", dbx.Params{"id": worldID}).One(&world); err != nil {
		return ArchiveManifest{}, notFound(err)
	}
	// Every file carries the world's last update as its time, so archives compare equal.
	modified, _ := time.Parse("2006-01-02 15:04:05.000Z", world.Updated)
	var err error
	if x.zip, err = newZipStream(w, modified); err != nil {
		return ArchiveManifest{}, err
	}
	defer x.zip.Discard()
	if x.files, err = newManifestFiles(); err != nil {
		return ArchiveManifest{}, err
	}
	defer x.files.close()
	x.states = x.db.NewQuery("SELECT era, data, text, version, forkedVersion, deleted, updated FROM document_states WHERE document = {:d} ORDER BY era").Prepare()
	x.ops = x.db.NewQuery("SELECT era, version, ops, actor, credential, client, clientSeq, created FROM document_ops WHERE document = {:d} ORDER BY era, version").Prepare()
	x.snapshots = x.db.NewQuery("SELECT era, version, data, created FROM document_snapshots WHERE document = {:d} ORDER BY era, version").Prepare()
	x.linkTarget = x.db.NewQuery("SELECT name FROM documents WHERE id = {:id} AND world = {:w}").Prepare()
	for _, q := range []*dbx.Query{x.states, x.ops, x.snapshots, x.linkTarget} {
		defer q.Close()
	}
	steps := []func(World) error{x.world, x.members, x.eras, x.projects, x.tools, x.assets, x.documents}
	for _, step := range steps {
		if err := step(world); err != nil {
			return ArchiveManifest{}, err
		}
	}
	m := ArchiveManifest{
		Format: ArchiveFormat, Version: ArchiveVersion,
		ExportedAt: time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		Loreweave:  LoreweaveVersion(),
		World:      ArchiveRef{ID: world.ID, Name: world.Name},
		Counts:     x.counts,
	}
	f, err := x.create("manifest.json")
	if err != nil {
		return ArchiveManifest{}, err
	}
	if err := x.files.writeManifest(f, m); err != nil {
		return ArchiveManifest{}, fmt.Errorf("manifest.json: %w", err)
	}
	if err := x.zip.Close(); err != nil {
		return ArchiveManifest{}, err
	}
	return m, nil
}

// manifestFiles is the "files" list of manifest.json, written entry by entry to a temporary
// file as the archive's files end: for a big world it is most of the manifest (some 150
// bytes a file), and it can only be written once every file is.
type manifestFiles struct {
	f *os.File
	w *bufio.Writer
	n int
}

func newManifestFiles() (*manifestFiles, error) {
	f, err := os.CreateTemp("", "loreweave-export-*.files")
	if err != nil {
		return nil, err
	}
	_ = os.Remove(f.Name()) // gone when closed, whatever happens (close removes it where an open file cannot be)
	return &manifestFiles{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// add writes one file's entry as json.MarshalIndent writes it inside the manifest.
func (m *manifestFiles) add(f ArchiveFile) error {
	entry, err := json.MarshalIndent(f, "    ", "  ")
	if err != nil {
		return err
	}
	if m.n > 0 {
		m.w.WriteByte(',')
	}
	m.w.WriteString("\n    ")
	_, err = m.w.Write(entry)
	m.n++
	return err
}

// writeManifest writes manifest.json, with the entries added as its Files, exactly as
// json.MarshalIndent writes the whole manifest (and an ending newline).
func (m *manifestFiles) writeManifest(w io.Writer, man ArchiveManifest) error {
	if err := m.w.Flush(); err != nil {
		return err
	}
	man.Files = []ArchiveFile{}
	head, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return err
	}
	// Files is the last member: head ends with `"files": []` and the closing brace.
	cut := bytes.LastIndex(head, []byte("[]"))
	if cut < 0 {
		return errors.New("no files member")
	}
	if _, err := w.Write(head[:cut+1]); err != nil {
		return err
	}
	if _, err := m.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.Copy(w, m.f); err != nil {
		return err
	}
	if m.n > 0 {
		if _, err := io.WriteString(w, "\n  "); err != nil {
			return err
		}
	}
	_, err = w.Write(append(head[cut+1:], '\n'))
	return err
}

func (m *manifestFiles) close() {
	m.f.Close()
	_ = os.Remove(m.f.Name())
}

func (x *exporter) query(sql string, params dbx.Params) *dbx.Query {
	return x.db.NewQuery(sql).Bind(params).WithContext(x.ctx)
}

// create starts a file of the archive.
func (x *exporter) create(name string) (io.Writer, error) {
	if err := x.ctx.Err(); err != nil {
		return nil, err
	}
	if err := x.zip.Create(name); err != nil {
		return nil, err
	}
	return x.zip, nil
}

// file is an archive file being written: its size and checksum are counted as it goes.
type file struct {
	w    io.Writer
	sum  hash.Hash
	size int64
}

func (f *file) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	f.sum.Write(p[:n])
	f.size += int64(n)
	return n, err
}

// open starts a file that the manifest lists; close it with done.
func (x *exporter) open(name string) (*file, error) {
	w, err := x.create(name)
	if err != nil {
		return nil, err
	}
	return &file{w: w, sum: sha256.New()}, nil
}

// done records the file's checksum in the manifest.
func (x *exporter) done(name string, f *file) error {
	return x.files.add(ArchiveFile{Path: name, Size: f.size, SHA256: hex.EncodeToString(f.sum.Sum(nil))})
}

// writeJSON writes one JSON file of the archive, indented.
func (x *exporter) writeJSON(name string, v any) error {
	body, err := indentJSON(v)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	f, err := x.open(name)
	if err != nil {
		return err
	}
	if _, err := f.Write(body); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return x.done(name, f)
}

// indentJSON is the archive's JSON: two-space indentation and a final newline.
func indentJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// archiveTime turns a stored time ("2006-01-02 15:04:05.000Z") into the archive's.
func archiveTime(t string) string { return strings.Replace(t, " ", "T", 1) }

// rawJSON is a stored JSON value as a json.RawMessage; an empty one is null.
func rawJSON(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("null")
	}
	return json.RawMessage(s)
}

func (x *exporter) world(w World) error {
	return x.writeJSON("world.json", ArchiveWorld{ID: w.ID, Name: w.Name, Slug: w.Slug, Genre: w.Genre, Theme: w.Theme,
		Created: archiveTime(w.Created), Updated: archiveTime(w.Updated)})
}

func (x *exporter) members(w World) error {
	var rows []Member
	if err := x.query("SELECT "+memberCols+" FROM world_members m JOIN users u ON u.id = m.user WHERE m.world = {:w} ORDER BY u.email, m.user",
		dbx.Params{"w": w.ID}).All(&rows); err != nil {
		return fmt.Errorf("members: %w", err)
	}
	out := make([]ArchiveMember, len(rows))
	for i, m := range rows {
		out[i] = ArchiveMember{Email: m.Email, Name: m.Name, Role: m.Role, Joined: archiveTime(m.Created)}
	}
	x.counts.Members = len(out)
	return x.writeJSON("members.json", out)
}

func (x *exporter) eras(w World) error {
	var rows []Era
	if err := x.query("SELECT id, world, name, parent, created FROM eras WHERE world = {:w} ORDER BY created, id",
		dbx.Params{"w": w.ID}).All(&rows); err != nil {
		return fmt.Errorf("eras: %w", err)
	}
	out := make([]ArchiveEra, 0, len(rows))
	for _, e := range parentsFirst(rows) {
		out = append(out, ArchiveEra{ID: e.ID, Name: e.Name, ParentID: e.ParentID, Created: archiveTime(e.Created)})
	}
	x.counts.Eras = len(out)
	return x.writeJSON("eras.json", out)
}

// parentsFirst keeps eras in their order (by creation, then id) but moves each era after
// its parent: an era and the one forked from it can share a creation time to the
// millisecond, and then the child's id may come first.
func parentsFirst(eras []Era) []Era {
	out := make([]Era, 0, len(eras))
	placed := map[string]bool{MainLine: true}
	for len(out) < len(eras) {
		progress := false
		for _, e := range eras {
			if !placed[e.ID] && placed[e.ParentID] {
				out, placed[e.ID], progress = append(out, e), true, true
			}
		}
		if !progress { // a parent outside the world: keep the rest as they are
			for _, e := range eras {
				if !placed[e.ID] {
					out, placed[e.ID] = append(out, e), true
				}
			}
		}
	}
	return out
}

func (x *exporter) projects(w World) error {
	var rows []Project
	if err := x.query("SELECT id, world, kind, name, slug, config, created, updated FROM projects WHERE world = {:w} ORDER BY created, id",
		dbx.Params{"w": w.ID}).All(&rows); err != nil {
		return fmt.Errorf("projects: %w", err)
	}
	out := make([]ArchiveProject, len(rows))
	for i, p := range rows {
		out[i] = ArchiveProject{ID: p.ID, Kind: p.Kind, Name: p.Name, Slug: p.Slug, Config: rawJSON(p.Config),
			Created: archiveTime(p.Created), Updated: archiveTime(p.Updated)}
	}
	x.counts.Projects = len(out)
	return x.writeJSON("projects.json", out)
}

func (x *exporter) tools(w World) error {
	var rows []struct {
		ID          string `db:"id"`
		Name        string `db:"name"`
		Title       string `db:"title"`
		Version     string `db:"version"`
		Manifest    string `db:"manifest"`
		Uninstalled string `db:"uninstalled"`
		Created     string `db:"created"`
		Updated     string `db:"updated"`
	}
	if err := x.query("SELECT id, name, title, version, manifest, uninstalled, created, updated FROM tools WHERE world = {:w} ORDER BY name, id",
		dbx.Params{"w": w.ID}).All(&rows); err != nil {
		return fmt.Errorf("tools: %w", err)
	}
	out := make([]ArchiveTool, len(rows))
	for i, t := range rows {
		out[i] = ArchiveTool{ID: t.ID, Name: t.Name, Title: t.Title, Version: t.Version, Manifest: rawJSON(t.Manifest),
			Uninstalled: archiveTime(t.Uninstalled), Created: archiveTime(t.Created), Updated: archiveTime(t.Updated)}
	}
	x.counts.Tools = len(out)
	return x.writeJSON("tools.json", out)
}

// assets writes assets.json, then each distinct content once. The rows do not keep their
// files' checksums, so each file is read twice: once to hash it, once to copy it.
func (x *exporter) assets(w World) error {
	var rows []Asset
	if err := x.query("SELECT "+assetColumns+" FROM assets WHERE world = {:w} ORDER BY created, id",
		dbx.Params{"w": w.ID}).All(&rows); err != nil {
		return fmt.Errorf("assets: %w", err)
	}
	out := make([]ArchiveAsset, len(rows))
	for i, a := range rows {
		sum, err := x.hashAsset(a)
		if err != nil {
			return err
		}
		out[i] = ArchiveAsset{ID: a.ID, Name: a.Name, Kind: a.Kind, ContentType: a.ContentType, Size: a.Size,
			Width: a.Width, Height: a.Height, SHA256: sum, Created: archiveTime(a.Created)}
	}
	x.counts.Assets = len(out)
	if err := x.writeJSON("assets.json", out); err != nil {
		return err
	}
	written := map[string]bool{}
	for i, a := range rows {
		sum := out[i].SHA256
		if written[sum] {
			continue
		}
		written[sum] = true
		if err := x.copyAsset(a, "assets/"+sum); err != nil {
			return err
		}
	}
	return nil
}

// openAsset opens an asset's file for the archive. A file missing from the storage stops
// the export with a conflict naming the asset: the file routes' 404 would read here as "no
// such world".
func (x *exporter) openAsset(a Asset) (AssetFile, error) {
	r, err := x.s.OpenAsset(a)
	if e, ok := errors.AsType[*apierr.Error](err); ok && e.Code == "asset_file_missing" {
		return nil, apierr.New(http.StatusConflict, "asset_file_missing",
			"the export cannot include asset %s (%q): its file is missing from the server's file storage (the data directory's storage folder was not restored with its database?); put the file back, or stop using the asset and delete it, then export again", a.ID, a.Name).With("id", a.ID)
	}
	return r, err
}

func (x *exporter) hashAsset(a Asset) (string, error) {
	r, err := x.openAsset(a)
	if err != nil {
		return "", err
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", fmt.Errorf("asset %s: %w", a.ID, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (x *exporter) copyAsset(a Asset, name string) error {
	r, err := x.openAsset(a)
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := x.open(name)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		return fmt.Errorf("asset %s: %w", a.ID, err)
	}
	return x.done(name, f)
}

// documents writes every document's folder, a page of documents at a time.
func (x *exporter) documents(w World) error {
	var total int
	if err := x.query("SELECT COUNT(*) FROM documents WHERE world = {:w}", dbx.Params{"w": w.ID}).Row(&total); err != nil {
		return fmt.Errorf("documents: %w", err)
	}
	if x.progress != nil {
		x.progress(0, total)
	}
	// Pages in the order of ids. Through the world's index each page sorts what is left of the
	// world, which costs a big world's export time in the square of its size; walking the ids'
	// own index (+d.world keeps the planner off the world's) and skipping other worlds'
	// documents costs one pass over the server's documents in all.
	pageQuery := "SELECT " + docCols + " FROM documents d WHERE d.world = {:w} AND d.id > {:after} ORDER BY d.id LIMIT {:limit}"
	if total > 10*exportPage {
		pageQuery = strings.Replace(pageQuery, "d.world =", "+d.world =", 1)
	}
	done, after := 0, ""
	for {
		var page []Document
		if err := x.query(pageQuery, dbx.Params{"w": w.ID, "after": after, "limit": exportPage}).All(&page); err != nil {
			return fmt.Errorf("documents: %w", err)
		}
		for _, d := range page {
			if err := x.document(d); err != nil {
				return fmt.Errorf("document %s: %w", d.ID, err)
			}
			done++
			if x.progress != nil {
				x.progress(done, max(total, done))
			}
		}
		if len(page) < exportPage {
			return nil
		}
		after = page[len(page)-1].ID
	}
}

// document writes one document's folder.
func (x *exporter) document(d Document) error {
	dir := "documents/" + ArchiveFolder(d.Name, d.ID) + "/"
	x.counts.Documents++
	if err := x.writeJSON(dir+"document.json", ArchiveDocument{ID: d.ID, Name: d.Name, DocumentType: d.DocumentType,
		ParentID: d.ParentID, EraID: d.EraID, Created: archiveTime(d.Created), Updated: archiveTime(d.Updated)}); err != nil {
		return err
	}
	var states []struct {
		Era           string `db:"era"`
		Data          string `db:"data"`
		Text          string `db:"text"`
		Version       int64  `db:"version"`
		ForkedVersion int64  `db:"forkedVersion"`
		Deleted       bool   `db:"deleted"`
		Updated       string `db:"updated"`
	}
	if err := x.states.Bind(dbx.Params{"d": d.ID}).WithContext(x.ctx).All(&states); err != nil {
		return fmt.Errorf("states: %w", err)
	}
	content := make([]ArchiveState, len(states))
	for i, st := range states {
		content[i] = ArchiveState{Era: st.Era, Version: st.Version, ForkedVersion: st.ForkedVersion, Deleted: st.Deleted,
			Updated: archiveTime(st.Updated), Data: rawJSON(st.Data)}
	}
	x.counts.States += len(content)
	if err := x.writeJSON(dir+"content.json", content); err != nil {
		return err
	}
	n, err := x.lines(dir+"ops.jsonl", x.ops, d.ID, func(rows *dbx.Rows) (any, error) {
		var op struct {
			Era        string `db:"era"`
			Version    int64  `db:"version"`
			Ops        string `db:"ops"`
			Actor      string `db:"actor"`
			Credential string `db:"credential"`
			Client     string `db:"client"`
			ClientSeq  int64  `db:"clientSeq"`
			Created    string `db:"created"`
		}
		err := rows.ScanStruct(&op)
		return ArchiveOp{Era: op.Era, Version: op.Version, Ops: rawJSON(op.Ops), Actor: op.Actor, Credential: op.Credential,
			Client: op.Client, ClientSeq: op.ClientSeq, Created: archiveTime(op.Created)}, err
	})
	if err != nil {
		return fmt.Errorf("ops: %w", err)
	}
	x.counts.Ops += n
	n, err = x.lines(dir+"snapshots.jsonl", x.snapshots, d.ID, func(rows *dbx.Rows) (any, error) {
		var sn struct {
			Era     string `db:"era"`
			Version int64  `db:"version"`
			Data    string `db:"data"`
			Created string `db:"created"`
		}
		err := rows.ScanStruct(&sn)
		return ArchiveSnapshot{Era: sn.Era, Version: sn.Version, Data: rawJSON(sn.Data), Created: archiveTime(sn.Created)}, err
	})
	if err != nil {
		return fmt.Errorf("snapshots: %w", err)
	}
	x.counts.Snapshots += n
	for _, st := range states {
		name := "index.md"
		if st.Era != "" {
			name = "index." + st.Era + ".md"
		}
		md, err := x.markdown(d, st.Text)
		if err != nil {
			return err
		}
		if err := x.writeBytes(dir+name, md); err != nil {
			return err
		}
	}
	return nil
}

// lines writes one JSON-lines file from a query's rows, and nothing when there are none.
func (x *exporter) lines(name string, q *dbx.Query, docID string, row func(*dbx.Rows) (any, error)) (int, error) {
	rows, err := q.Bind(dbx.Params{"d": docID}).WithContext(x.ctx).Rows()
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var f *file
	n := 0
	for rows.Next() {
		v, err := row(rows)
		if err != nil {
			return n, err
		}
		line, err := json.Marshal(v)
		if err != nil {
			return n, err
		}
		if f == nil {
			if f, err = x.open(name); err != nil {
				return n, err
			}
		}
		if _, err := f.Write(append(line, '\n')); err != nil {
			return n, err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	if f != nil {
		return n, x.done(name, f)
	}
	return n, nil
}

func (x *exporter) writeBytes(name string, b []byte) error {
	f, err := x.open(name)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		return err
	}
	return x.done(name, f)
}

// markdown is a document's index.md: its name as a heading, then its text with links to
// other documents of the world as relative links to their index.md.
func (x *exporter) markdown(d Document, text string) ([]byte, error) {
	var ids []string
	for _, r := range ops.ParseLinks(text) {
		if r.ID != "" && !slices.Contains(ids, r.ID) {
			ids = append(ids, r.ID)
		}
	}
	targets := map[string]string{} // id -> name, for the documents of the world
	for _, id := range ids {
		var name string
		err := x.linkTarget.Bind(dbx.Params{"id": id, "w": d.WorldID}).WithContext(x.ctx).Row(&name)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		} else if err != nil {
			return nil, fmt.Errorf("link target %s: %w", id, err)
		}
		targets[id] = name
	}
	body := ops.ReplaceLinks(text, func(r ops.LinkRef) string {
		name, ok := targets[r.ID]
		if r.ID == "" || !ok {
			switch {
			case r.Text != "":
				return r.Text
			case r.Name != "":
				return r.Name
			}
			return r.ID
		}
		return "[" + markdownLabel(r.Label(name)) + "](" + path.Join("..", ArchiveFolder(name, r.ID), "index.md") + ")"
	})
	var b bytes.Buffer
	b.WriteString("# " + d.Name + "\n\n")
	b.WriteString(body)
	if !strings.HasSuffix(body, "\n") {
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// markdownLabel escapes what would end a link's text early.
func markdownLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`).Replace(s)
}

// ArchiveFolder is the folder of a document in an archive, under documents/: its name made
// safe for file systems (lower-case ASCII letters, digits and dashes; empty when nothing of
// the name is left), a dash, and its id; just the id when the name leaves nothing.
func ArchiveFolder(name, id string) string {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	var b strings.Builder
	for _, w := range words {
		if b.Len() > 0 {
			if b.Len()+1+len(w) > maxFolderName {
				break
			}
			b.WriteByte('-')
		}
		b.WriteString(w[:min(len(w), maxFolderName-b.Len())])
	}
	slug := b.String()
	if slug == "" {
		return id
	}
	return slug + "-" + id
}

// maxFolderName bounds the name part of a folder: file systems cap a name at 255 bytes.
const maxFolderName = 60

// LoreweaveVersion is this build's version, from the module's build information; "dev" for
// a build from a work tree.
func LoreweaveVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}
