package store

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/pocketbase/dbx"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/ops"
)

// Importing a world archive (see archive.go for the format) happens in two passes. The
// first reads the archive without writing anything: every file's size and checksum against
// the manifest, every JSON file decoded strictly, every value and reference checked; it
// collects what is wrong (up to MaxArchiveProblems) into one 422 invalid_archive. The second
// writes the world in one transaction, rebuilding what the archive leaves out (each state's
// text, the document links), and after the commit writes the outbox rows that make search
// index the world and tell the caches. Only metadata stays in memory between the passes:
// each document's files are read again, one document at a time, when it is written.
//
// Assets are stored in PocketBase's file storage before the transaction; if anything fails
// they are deleted again, so a failed import leaves no stray files.

// MaxArchiveProblems bounds the problems an invalid_archive error lists.
const MaxArchiveProblems = 100

// maxArchiveJSON bounds one JSON file of an archive read whole (an ops.jsonl or
// snapshots.jsonl line is bounded by it too).
const maxArchiveJSON = 256 << 20

// ArchiveProblem is one thing wrong with an archive: the file and what is wrong in it.
type ArchiveProblem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// archiveProblems collects the problems of an archive.
type archiveProblems struct {
	list  []ArchiveProblem
	total int
}

// add notes a problem of file; the values it repeats from the archive are cut short
// (ops.Echo).
func (p *archiveProblems) add(file, format string, args ...any) {
	p.total++
	if len(p.list) < MaxArchiveProblems {
		p.list = append(p.list, ArchiveProblem{Path: file, Message: ops.EchoSprintf(format, args...)})
	}
}

func (p *archiveProblems) full() bool { return p.total >= MaxArchiveProblems }

// err is the 422 invalid_archive listing the problems, nil when there are none.
func (p *archiveProblems) err() error {
	if p.total == 0 {
		return nil
	}
	first := p.list[0]
	where := first.Path
	if where == "" {
		where = "the archive"
	}
	msg := fmt.Sprintf("this is not a valid world archive: %s: %s", where, first.Message)
	if p.total > 1 {
		msg += fmt.Sprintf(" (and %d more problems, listed in problems)", p.total-1)
	}
	return apierr.New(http.StatusUnprocessableEntity, "invalid_archive", "%s; nothing was imported", msg).
		With("problems", p.list).With("total", p.total)
}

// archiveTimeLayout is the layout of times in an archive.
const archiveTimeLayout = "2006-01-02T15:04:05.000Z"

// dbTimeOf turns an archive time into a database time; ok is false when s is not one.
func dbTimeOf(s string) (string, bool) {
	t, err := time.Parse(archiveTimeLayout, s)
	if err != nil || t.Format(archiveTimeLayout) != s {
		return "", false
	}
	return t.Format(dbTime), true
}

var (
	slugPattern   = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	sha256Pattern = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// importDoc is what the first pass keeps of one document.
type importDoc struct {
	ArchiveDocument
	folder        string
	ops, snaps    bool // the folder has ops.jsonl, snapshots.jsonl
	documentValid bool
}

// archiveFiles are the files of an archive, sorted by name: half a million entries in a
// slice rather than in a map of pointers.
type archiveFiles []archiveEntry

// get is the file of this name, nil when there is none.
func (f archiveFiles) get(name string) *archiveEntry {
	i, ok := slices.BinarySearchFunc(f, name, func(e archiveEntry, name string) int { return strings.Compare(e.name, name) })
	if !ok {
		return nil
	}
	return &f[i]
}

// importPlan is an archive read and checked by the first pass.
type importPlan struct {
	zip      io.ReaderAt
	files    archiveFiles
	manifest ArchiveManifest
	world    ArchiveWorld
	members  []ArchiveMember
	eras     []ArchiveEra
	projects []ArchiveProject
	tools    []ArchiveTool
	assets   []ArchiveAsset
	docs     []*importDoc
	// types are the tool types the archive's tools add, installed or not, by name.
	types map[string]*ops.ToolType
	// assetTypes are the detected types of the asset files, by path.
	assetTypes map[string]fileType
	counts     ArchiveCounts
	// copyBuf and lineBuf are reused for every file read: a big archive has hundreds of
	// thousands of small files.
	copyBuf, lineBuf []byte
}

// ImportWorld reads an archive and makes a world of it owned by ownerID. It checks every
// file's checksum and every reference before it writes anything, then writes in one
// transaction: a bad archive changes nothing and the error (an *apierr.Error, code
// invalid_archive, 422) names each problem; a restore of a world this server already has is
// a 409 world_exists.
func (s *Store) ImportWorld(ctx context.Context, r io.ReaderAt, size int64, mode ImportMode, ownerID string) (ImportResult, error) {
	if mode != ImportRestore && mode != ImportCopy {
		return ImportResult{}, apierr.Field("mode", "mode must be %q or %q", ImportRestore, ImportCopy)
	}
	var owner struct {
		Email string `db:"email"`
	}
	if err := s.app.DB().NewQuery("SELECT email FROM users WHERE id = {:id}").Bind(dbx.Params{"id": ownerID}).One(&owner); err != nil {
		return ImportResult{}, fmt.Errorf("store: import: the importing user: %w", notFound(err))
	}
	defer limitImportMemory()()
	plan, err := readArchive(ctx, r, size)
	if err != nil {
		return ImportResult{}, err
	}
	if mode == ImportRestore {
		if err := s.checkRestorable(plan); err != nil {
			return ImportResult{}, err
		}
	}
	ids := map[string]string{}
	if mode == ImportCopy {
		ids = plan.newIDs()
	}
	return s.writeImport(ctx, plan, mode, ids, ownerID, owner.Email)
}

// readArchive is the first pass: it reads and checks the whole archive.
func readArchive(ctx context.Context, r io.ReaderAt, size int64) (*importPlan, error) {
	var probs archiveProblems
	p := &importPlan{zip: r, types: map[string]*ops.ToolType{}, assetTypes: map[string]fileType{},
		copyBuf: make([]byte, 32<<10), lineBuf: make([]byte, 0, 64<<10)}
	err := readZipDirectory(r, size, func(e *archiveEntry) { p.files = append(p.files, *e) })
	slices.SortStableFunc(p.files, func(a, b archiveEntry) int { return strings.Compare(a.name, b.name) })
	p.files = slices.CompactFunc(p.files, func(a, b archiveEntry) bool {
		if a.name == b.name {
			probs.add(a.name, "the archive holds two files of this name")
			return true
		}
		return false
	})
	if err != nil {
		probs.add("", "not a zip file, or a truncated one (%v)", err)
		return nil, probs.err()
	}
	bad, ok := p.checkManifest(ctx, &probs)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !ok {
		return nil, probs.err()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.checkContents(ctx, bad, &probs)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := probs.err(); err != nil {
		return nil, err
	}
	// What the second pass does not read goes (the Markdown files, and each document.json,
	// kept in p.docs): between the passes, memory holds one small record per document and
	// an entry per file read again.
	p.files = slices.Clone(slices.DeleteFunc(p.files, func(e archiveEntry) bool {
		return strings.HasSuffix(e.name, ".md") || strings.HasSuffix(e.name, "/document.json")
	}))
	return p, nil
}

// checkManifest reads manifest.json and compares the archive's files with it: each listed
// file is there with its size and checksum, no other file is, and each is where the format
// puts files. It returns the files that failed; ok is false when the manifest itself cannot
// be read or is of another format. The file list is checked as it is read, one entry at a
// time: a big archive's list is never held whole.
func (p *importPlan) checkManifest(ctx context.Context, probs *archiveProblems) (bad map[string]bool, ok bool) {
	bad = map[string]bool{}
	// A listed file of the archive is marked on its entry; listedAbsent holds the listed
	// paths the archive does not have, which are problems, so few.
	listedAbsent := map[string]bool{}
	check := func(f ArchiveFile) {
		zf := p.files.get(f.Path)
		if zf != nil && zf.listed || zf == nil && listedAbsent[f.Path] {
			probs.add("manifest.json", "%s is listed twice", f.Path)
			return
		}
		if zf != nil {
			zf.listed = true
		} else {
			listedAbsent[f.Path] = true
		}
		if !knownArchivePath(f.Path) {
			probs.add(f.Path, "this file has no place in a world archive")
			bad[f.Path] = true
			return
		}
		if zf == nil {
			probs.add(f.Path, "listed in the manifest but missing from the archive")
			bad[f.Path] = true
			return
		}
		if problem := p.checkFile(zf, f); problem != "" {
			probs.add(f.Path, "%s", problem)
			bad[f.Path] = true
		}
	}
	zf := p.files.get("manifest.json")
	if zf == nil {
		probs.add("manifest.json", "missing from the archive")
		return nil, false
	}
	zf.listed = true
	rc, err := zf.Open(p.zip)
	if err != nil {
		probs.add("manifest.json", "cannot be read (%v)", err)
		return nil, false
	}
	defer rc.Close()
	if err := p.streamManifest(ctx, json.NewDecoder(rc), check); err != nil {
		probs.add("manifest.json", "not valid JSON of its kind: %v", err)
		return nil, false
	}
	if p.manifest.Format != ArchiveFormat || p.manifest.Version != ArchiveVersion {
		probs.add("manifest.json", "format %q version %d is not one this server reads (%q version %d)", p.manifest.Format, p.manifest.Version, ArchiveFormat, ArchiveVersion)
		return nil, false
	}
	for _, e := range p.files {
		if !e.listed {
			probs.add(e.name, "not listed in the manifest")
			bad[e.name] = true
		}
	}
	return bad, true
}

// streamManifest decodes manifest.json strictly into p.manifest, but for its file list,
// whose entries it hands to check one at a time.
func (p *importPlan) streamManifest(ctx context.Context, dec *json.Decoder, check func(ArchiveFile)) error {
	dec.DisallowUnknownFields()
	delim := func(want json.Delim) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if tok != want {
			return fmt.Errorf("expected %v, found %v", want, tok)
		}
		return nil
	}
	if err := delim('{'); err != nil {
		return err
	}
	m := &p.manifest
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var v any
		switch key {
		case "format":
			v = &m.Format
		case "version":
			v = &m.Version
		case "exportedAt":
			v = &m.ExportedAt
		case "loreweave":
			v = &m.Loreweave
		case "world":
			v = &m.World
		case "counts":
			v = &m.Counts
		case "files":
			if err := delim('['); err != nil {
				return fmt.Errorf("files: %w", err)
			}
			for dec.More() {
				if err := ctx.Err(); err != nil {
					return err
				}
				var f ArchiveFile
				if err := dec.Decode(&f); err != nil {
					return fmt.Errorf("files: %w", err)
				}
				check(f)
			}
			if err := delim(']'); err != nil {
				return fmt.Errorf("files: %w", err)
			}
			continue
		default:
			return fmt.Errorf("json: unknown field %q", key)
		}
		if err := dec.Decode(v); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	if err := delim('}'); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more than one JSON value")
	}
	return nil
}

// checkFile reads one file whole and compares it with its manifest entry; it returns what
// is wrong, or "". An asset's type is detected on the way.
func (p *importPlan) checkFile(zf *archiveEntry, want ArchiveFile) string {
	if zf.size != want.Size {
		return fmt.Sprintf("%d bytes, but the manifest says %d", zf.size, want.Size)
	}
	rc, err := zf.Open(p.zip)
	if err != nil {
		return fmt.Sprintf("cannot be read (%v)", err)
	}
	defer rc.Close()
	h := sha256.New()
	var head headWriter
	var dst io.Writer = h
	if strings.HasPrefix(want.Path, "assets/") {
		dst = io.MultiWriter(h, &head) // its type is detected from its first bytes
	}
	n, err := io.CopyBuffer(dst, io.LimitReader(rc, want.Size+1), p.copyBuf)
	if err != nil {
		return fmt.Sprintf("cannot be read: truncated or corrupt (%v)", err)
	}
	if n != want.Size {
		return fmt.Sprintf("%d bytes, but the manifest says %d", n, want.Size)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != want.SHA256 {
		return fmt.Sprintf("its sha256 is %s, but the manifest says %s", sum, want.SHA256)
	}
	if sha, ok := strings.CutPrefix(want.Path, "assets/"); ok {
		if sha != want.SHA256 {
			return "an asset's file must be named by its sha256"
		}
		p.assetTypes[want.Path] = sniff(head.b)
	}
	return ""
}

// headWriter keeps the first sniffHead bytes written to it.
type headWriter struct{ b []byte }

func (w *headWriter) Write(b []byte) (int, error) {
	if room := sniffHead - len(w.b); room > 0 {
		w.b = append(w.b, b[:min(room, len(b))]...)
	}
	return len(b), nil
}

// knownArchivePath reports whether a path is one the format has.
func knownArchivePath(p string) bool {
	switch p {
	case "world.json", "members.json", "eras.json", "projects.json", "tools.json", "assets.json":
		return true
	}
	if sha, ok := strings.CutPrefix(p, "assets/"); ok {
		return sha256Pattern.MatchString(sha)
	}
	rest, ok := strings.CutPrefix(p, "documents/")
	if !ok {
		return false
	}
	folder, file, ok := strings.Cut(rest, "/")
	if !ok || folder == "" || strings.Contains(file, "/") || folder != path.Clean(folder) || strings.HasPrefix(folder, ".") {
		return false
	}
	switch file {
	case "document.json", "content.json", "ops.jsonl", "snapshots.jsonl", "index.md":
		return true
	}
	era, ok := strings.CutPrefix(file, "index.")
	era, md := strings.CutSuffix(era, ".md")
	return ok && md && IsID(era)
}

// readJSON decodes a whole JSON file strictly (unknown fields refused) into v.
func (p *importPlan) readJSON(name string, v any, probs *archiveProblems) bool {
	zf := p.files.get(name)
	if zf == nil {
		probs.add(name, "missing from the archive")
		return false
	}
	rc, err := zf.Open(p.zip)
	if err != nil {
		probs.add(name, "cannot be read (%v)", err)
		return false
	}
	defer rc.Close()
	dec := json.NewDecoder(io.LimitReader(rc, maxArchiveJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		probs.add(name, "not valid JSON of its kind: %v", err)
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		probs.add(name, "holds more than one JSON value")
		return false
	}
	return true
}

// readLines calls fn with each line of a JSON-lines file, decoded strictly into a fresh T,
// and its line number; it stops at the first line fn returns false for.
func readLines[T any](p *importPlan, zf *archiveEntry, fn func(line int, v T) bool) error {
	rc, err := zf.Open(p.zip)
	if err != nil {
		return err
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	sc.Buffer(p.lineBuf[:0], maxArchiveJSON)
	for n := 1; sc.Scan(); n++ {
		var v T
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if _, err := dec.Token(); err != io.EOF {
			return fmt.Errorf("line %d: more than one JSON value", n)
		}
		if !fn(n, v) {
			return nil
		}
	}
	return sc.Err()
}

// checkContents decodes and checks every JSON file (those in bad failed their checksum and
// are skipped), filling the plan.
func (p *importPlan) checkContents(ctx context.Context, bad map[string]bool, probs *archiveProblems) {
	read := func(name string, v any) bool { return !bad[name] && p.readJSON(name, v, probs) }
	if read("world.json", &p.world) {
		w := p.world
		checkID(probs, "world.json", "id", w.ID)
		checkName(probs, "world.json", "name", w.Name, true)
		checkName(probs, "world.json", "genre", w.Genre, false)
		if len(w.Slug) > 120 || !slugPattern.MatchString(w.Slug) {
			probs.add("world.json", "slug %q is not a slug (lower-case letters and digits joined by dashes)", w.Slug)
		}
		if len(w.Theme) > 50 {
			probs.add("world.json", "theme is longer than 50 characters")
		}
		checkTimes(probs, "world.json", w.Created, w.Updated)
	}
	if p.manifest.World.ID != p.world.ID {
		probs.add("manifest.json", "names the world %q, but world.json holds %q", p.manifest.World.ID, p.world.ID)
	}
	p.checkMembers(read, probs)
	eras := p.checkEras(read, probs)
	p.checkTools(read, probs)
	p.checkProjects(read, probs)
	p.checkAssets(read, probs)
	p.checkDocuments(ctx, bad, eras, probs)

	c := p.counts
	c.Members, c.Eras, c.Projects, c.Tools, c.Assets, c.Documents = len(p.members), len(p.eras), len(p.projects), len(p.tools), len(p.assets), len(p.docs)
	p.counts = c
	if !probs.full() && probs.total == 0 && c != p.manifest.Counts {
		probs.add("manifest.json", "its counts %+v do not match what the archive holds %+v", p.manifest.Counts, c)
	}
}

func (p *importPlan) checkMembers(read func(string, any) bool, probs *archiveProblems) {
	if !read("members.json", &p.members) {
		return
	}
	seen := map[string]bool{}
	for _, m := range p.members {
		email := strings.ToLower(m.Email)
		if !strings.Contains(email, "@") {
			probs.add("members.json", "%q is not an email address", m.Email)
		}
		if seen[email] {
			probs.add("members.json", "%s is listed twice", m.Email)
		}
		seen[email] = true
		if !slices.Contains(Roles, m.Role) {
			probs.add("members.json", "%s has the role %q (one of %s)", m.Email, m.Role, strings.Join(Roles, ", "))
		}
		checkTimes(probs, "members.json", m.Joined)
	}
}

func checkID(probs *archiveProblems, file, field, id string) bool {
	if !IsID(id) {
		probs.add(file, "%s %q is not an id (15 lower-case letters and digits)", field, id)
		return false
	}
	return true
}

func checkName(probs *archiveProblems, file, field, name string, required bool) {
	clean, err := CleanOptional(field, name)
	switch {
	case err != nil:
		probs.add(file, "%s: %s", field, apierr.From(err).Message)
	case required && clean == "":
		probs.add(file, "%s must not be empty", field)
	case clean != name:
		probs.add(file, "%s %q has spaces around it", field, name)
	}
}

func checkTimes(probs *archiveProblems, file string, times ...string) {
	for _, t := range times {
		if _, ok := dbTimeOf(t); !ok {
			probs.add(file, "%q is not a time of the form %s", t, archiveTimeLayout)
		}
	}
}

// checkEras checks eras.json and returns the era ids (with "" for the main line).
func (p *importPlan) checkEras(read func(string, any) bool, probs *archiveProblems) map[string]bool {
	eras := map[string]bool{MainLine: true}
	if !read("eras.json", &p.eras) {
		return eras
	}
	parent := map[string]string{}
	for _, e := range p.eras {
		if !checkID(probs, "eras.json", "era id", e.ID) {
			continue
		}
		if eras[e.ID] {
			probs.add("eras.json", "the era %s is listed twice", e.ID)
		}
		eras[e.ID] = true
		parent[e.ID] = e.ParentID
		checkName(probs, "eras.json", "name", e.Name, true)
		checkTimes(probs, "eras.json", e.Created)
	}
	for _, e := range p.eras {
		if !eras[e.ParentID] {
			probs.add("eras.json", "the era %s has the parent %q, which is not an era of the archive", e.ID, e.ParentID)
			continue
		}
		depth := 1
		for id := e.ParentID; id != MainLine; id = parent[id] {
			if depth++; depth > MaxEraDepth || id == e.ID {
				probs.add("eras.json", "the era %s's parents go round in a cycle or deeper than %d", e.ID, MaxEraDepth)
				break
			}
		}
	}
	return eras
}

func (p *importPlan) checkTools(read func(string, any) bool, probs *archiveProblems) {
	if !read("tools.json", &p.tools) {
		return
	}
	names := map[string]bool{}
	for _, t := range p.tools {
		checkID(probs, "tools.json", "tool id", t.ID)
		if names[t.Name] {
			probs.add("tools.json", "the tool %q is listed twice", t.Name)
		}
		names[t.Name] = true
		checkTimes(probs, "tools.json", t.Created, t.Updated)
		if t.Uninstalled != "" {
			checkTimes(probs, "tools.json", t.Uninstalled)
		}
		parsed, err := ops.ParseTool(t.Manifest)
		if err != nil {
			probs.add("tools.json", "the manifest of %q does not parse: %v", t.Name, err)
			continue
		}
		if parsed.Name != t.Name {
			probs.add("tools.json", "the tool %q has a manifest named %q", t.Name, parsed.Name)
		}
		for _, tt := range parsed.Types {
			if _, taken := p.types[tt.Name]; taken && t.Uninstalled != "" {
				continue // an installed tool's type wins over an uninstalled one's
			}
			p.types[tt.Name] = tt
		}
	}
}

func (p *importPlan) checkProjects(read func(string, any) bool, probs *archiveProblems) {
	if !read("projects.json", &p.projects) {
		return
	}
	kinds := slices.Clone(BuiltinAppKinds)
	for _, t := range p.tools {
		if t.Uninstalled != "" {
			continue
		}
		if parsed, err := ops.ParseTool(t.Manifest); err == nil {
			for _, k := range parsed.AppKinds {
				kinds = append(kinds, k.Name)
			}
		}
	}
	for _, pr := range p.projects {
		checkID(probs, "projects.json", "project id", pr.ID)
		checkName(probs, "projects.json", "name", pr.Name, true)
		checkTimes(probs, "projects.json", pr.Created, pr.Updated)
		if !slices.Contains(kinds, pr.Kind) {
			probs.add("projects.json", "the project %s is of the kind %q, which neither Loreweave nor a tool of the archive has", pr.ID, pr.Kind)
		}
		if len(pr.Slug) > 120 || !slugPattern.MatchString(pr.Slug) {
			probs.add("projects.json", "the project %s's slug %q is not a slug", pr.ID, pr.Slug)
		}
		if c := bytes.TrimSpace(pr.Config); len(c) > 0 && !bytes.Equal(c, []byte("null")) && c[0] != '{' {
			probs.add("projects.json", "the project %s's config is not a JSON object", pr.ID)
		}
	}
}

func (p *importPlan) checkAssets(read func(string, any) bool, probs *archiveProblems) {
	if !read("assets.json", &p.assets) {
		return
	}
	for _, a := range p.assets {
		checkID(probs, "assets.json", "asset id", a.ID)
		checkName(probs, "assets.json", "name", a.Name, false)
		checkTimes(probs, "assets.json", a.Created)
		file := "assets/" + a.SHA256
		zf := p.files.get(file)
		switch {
		case a.Kind != AssetImage && a.Kind != AssetModel:
			probs.add("assets.json", "the asset %s is of the kind %q (%q or %q)", a.ID, a.Kind, AssetImage, AssetModel)
		case zf == nil:
			probs.add("assets.json", "the asset %s's file %s is missing", a.ID, file)
		case zf.size != a.Size:
			probs.add("assets.json", "the asset %s is %d bytes, its file %s %d", a.ID, a.Size, file, zf.size)
		default:
			if t, ok := p.assetTypes[file]; ok && t.kind != a.Kind {
				probs.add(file, "the asset %s is a %s, but its file is %s", a.ID, a.Kind, t.contentType)
			}
		}
	}
}

// checkDocuments checks every document's folder.
func (p *importPlan) checkDocuments(ctx context.Context, bad map[string]bool, eras map[string]bool, probs *archiveProblems) {
	folders := map[string]*importDoc{}
	var order []string
	for _, e := range p.files {
		name := e.name
		rest, ok := strings.CutPrefix(name, "documents/")
		if !ok || bad[name] {
			continue
		}
		folder, file, _ := strings.Cut(rest, "/")
		d := folders[folder]
		if d == nil {
			d = &importDoc{folder: folder}
			folders[folder] = d
			order = append(order, folder)
		}
		switch file {
		case "ops.jsonl":
			d.ops = true
		case "snapshots.jsonl":
			d.snaps = true
		}
	}
	slices.Sort(order)
	byID := map[string]*importDoc{}
	for _, folder := range order {
		d := folders[folder]
		file := "documents/" + folder + "/document.json"
		if bad[file] || !p.readJSON(file, &d.ArchiveDocument, probs) {
			continue
		}
		if !checkID(probs, file, "id", d.ID) {
			continue
		}
		if folder != d.ID && !strings.HasSuffix(folder, "-"+d.ID) {
			probs.add(file, "the folder of the document %s must end with its id", d.ID)
		}
		if byID[d.ID] != nil {
			probs.add(file, "the document %s has two folders", d.ID)
			continue
		}
		byID[d.ID] = d
		p.docs = append(p.docs, d)
		checkName(probs, file, "name", d.Name, true)
		checkTimes(probs, file, d.Created, d.Updated)
		if !eras[d.EraID] {
			probs.add(file, "eraId %q is not an era of the archive", d.EraID)
		}
		d.documentValid = ops.IsBuiltin(d.DocumentType) || p.types[d.DocumentType] != nil
		if !d.documentValid {
			probs.add(file, "documentType %q is neither a built-in type nor one of the archive's tools", d.DocumentType)
		}
	}
	slices.SortFunc(p.docs, func(a, b *importDoc) int { return strings.Compare(a.ID, b.ID) })
	for _, d := range p.docs {
		if d.ParentID == "" {
			continue
		}
		file := "documents/" + d.folder + "/document.json"
		switch parent := byID[d.ParentID]; {
		case parent == nil:
			probs.add(file, "parentId %q is not a document of the archive", d.ParentID)
		case parent.DocumentType != "folder":
			probs.add(file, "parentId %q is a %s, not a folder", d.ParentID, parent.DocumentType)
		case parent.ID == d.ID:
			probs.add(file, "the document is its own parent")
		default:
			// Folders nest without a cycle: the chain of parents ends at the top level.
			seen := map[string]bool{d.ID: true}
			for up := parent; up != nil && up.ParentID != ""; up = byID[up.ParentID] {
				if seen[up.ParentID] {
					probs.add(file, "its parents go round in a cycle")
					break
				}
				seen[up.ID] = true
			}
		}
	}
	for _, d := range p.docs {
		if ctx.Err() != nil || probs.full() {
			return
		}
		if d.documentValid {
			p.checkDocumentFiles(d, bad, eras, probs)
		}
	}
}

// typeOf returns the tool type of a document (nil for a built-in type).
func (p *importPlan) typeOf(docType string) *ops.ToolType {
	if ops.IsBuiltin(docType) {
		return nil
	}
	return p.types[docType]
}

// decodeData reads a document's data as its type.
func (p *importPlan) decodeData(docType string, data []byte) (ops.Document, error) {
	if tt := p.typeOf(docType); tt != nil {
		return decodeTool(tt, data)
	}
	return ops.Decode(docType, data)
}

// supportedOps returns the ops a document type accepts, the restore op included.
func (p *importPlan) supportedOps(docType string) map[string]bool {
	names := map[string]bool{ops.RestoreOp: true}
	if tt := p.typeOf(docType); tt != nil {
		for _, o := range tt.Ops() {
			names[o.Op] = true
		}
		return names
	}
	for _, n := range ops.Supported(docType) {
		names[n] = true
	}
	return names
}

// checkDocumentFiles checks a document's content, op log and snapshots.
func (p *importPlan) checkDocumentFiles(d *importDoc, bad map[string]bool, eras map[string]bool, probs *archiveProblems) {
	dir := "documents/" + d.folder + "/"
	stateEras := map[string]bool{}
	var states []ArchiveState
	if !bad[dir+"content.json"] && p.readJSON(dir+"content.json", &states, probs) {
		for i, st := range states {
			switch {
			case !eras[st.Era]:
				probs.add(dir+"content.json", "state %d is of the era %q, which is not an era of the archive", i, st.Era)
			case stateEras[st.Era]:
				probs.add(dir+"content.json", "two states of the era %q", st.Era)
			}
			stateEras[st.Era] = true
			if st.Version < 0 || st.ForkedVersion < 0 || st.ForkedVersion > st.Version && !st.Deleted {
				probs.add(dir+"content.json", "state %d has the version %d forked at %d", i, st.Version, st.ForkedVersion)
			}
			checkTimes(probs, dir+"content.json", st.Updated)
			if _, err := p.decodeData(d.DocumentType, st.Data); err != nil {
				probs.add(dir+"content.json", "state %d (era %q) is not %s content: %v", i, st.Era, d.DocumentType, err)
			}
		}
		p.counts.States += len(states)
	}
	if d.ops && !bad[dir+"ops.jsonl"] {
		supported := p.supportedOps(d.DocumentType)
		last := map[string]int64{}
		err := readLines(p, p.files.get(dir+"ops.jsonl"), func(n int, o ArchiveOp) bool {
			p.counts.Ops++
			if !stateEras[o.Era] {
				probs.add(dir+"ops.jsonl", "line %d is of the era %q, in which the document has no state", n, o.Era)
			}
			if o.Version <= last[o.Era] {
				probs.add(dir+"ops.jsonl", "line %d: version %d does not follow %d", n, o.Version, last[o.Era])
			}
			last[o.Era] = o.Version
			checkTimes(probs, dir+"ops.jsonl", o.Created)
			// Each op's "op" member exactly, as ops reads it: a struct field would also take
			// "Op" or "OP".
			var batch []map[string]json.RawMessage
			if err := json.Unmarshal(o.Ops, &batch); err != nil {
				probs.add(dir+"ops.jsonl", "line %d: ops is not a list of operations (%v)", n, err)
			}
			for _, op := range batch {
				var name string
				_ = json.Unmarshal(op["op"], &name)
				if !supported[name] {
					probs.add(dir+"ops.jsonl", "line %d: %s documents have no operation %q", n, d.DocumentType, name)
					break
				}
			}
			return !probs.full()
		})
		if err != nil {
			probs.add(dir+"ops.jsonl", "not valid JSON lines: %v", err)
		}
	}
	if d.snaps && !bad[dir+"snapshots.jsonl"] {
		last := map[string]int64{}
		err := readLines(p, p.files.get(dir+"snapshots.jsonl"), func(n int, sn ArchiveSnapshot) bool {
			p.counts.Snapshots++
			if !stateEras[sn.Era] {
				probs.add(dir+"snapshots.jsonl", "line %d is of the era %q, in which the document has no state", n, sn.Era)
			}
			if sn.Version < 0 || sn.Version <= last[sn.Era] && last[sn.Era] != 0 {
				probs.add(dir+"snapshots.jsonl", "line %d: version %d does not follow %d", n, sn.Version, last[sn.Era])
			}
			last[sn.Era] = sn.Version
			checkTimes(probs, dir+"snapshots.jsonl", sn.Created)
			if _, err := p.decodeData(d.DocumentType, sn.Data); err != nil {
				probs.add(dir+"snapshots.jsonl", "line %d is not %s content: %v", n, d.DocumentType, err)
			}
			return !probs.full()
		})
		if err != nil {
			probs.add(dir+"snapshots.jsonl", "not valid JSON lines: %v", err)
		}
	}
}

// newIDs gives every id of the archive a new one (a copy).
func (p *importPlan) newIDs() map[string]string {
	ids := map[string]string{p.world.ID: newID()}
	for _, e := range p.eras {
		ids[e.ID] = newID()
	}
	for _, pr := range p.projects {
		ids[pr.ID] = newID()
	}
	for _, t := range p.tools {
		ids[t.ID] = newID()
	}
	for _, a := range p.assets {
		ids[a.ID] = newID()
	}
	for _, d := range p.docs {
		ids[d.ID] = newID()
	}
	return ids
}

// checkRestorable refuses a restore of ids this server has already.
func (s *Store) checkRestorable(p *importPlan) error {
	exists := func(table, what string, ids []string) error {
		for chunk := range slices.Chunk(ids, 500) {
			in, params := placeholders("id", chunk)
			var found []struct {
				ID string `db:"id"`
			}
			if err := s.app.DB().NewQuery("SELECT id FROM " + table + " WHERE id IN (" + in + ") LIMIT 1").Bind(params).All(&found); err != nil {
				return fmt.Errorf("store: import: look for %s: %w", table, err)
			}
			if len(found) > 0 {
				msg := fmt.Sprintf("this server already has the %s %s of this archive", what, found[0].ID)
				if what == "world" {
					msg = fmt.Sprintf("this server already has the world %s (%q)", p.world.ID, p.world.Name)
					var deleted string
					if err := s.app.DB().NewQuery("SELECT deleted FROM worlds WHERE id = {:id}").Bind(dbx.Params{"id": p.world.ID}).Row(&deleted); err == nil && deleted != "" {
						// Deleted, but in the trash until it is purged: it still holds the ids.
						// (Named as the archive names it: the importer may not be a member.)
						return apierr.New(http.StatusConflict, "world_exists", "this server has the world %s (%q) in its trash: its owner can restore it from there (POST /api/v1/worlds/%s/restore, or Restore in the web app's trash), or import the archive with mode=copy to make a copy beside it",
							p.world.ID, p.world.Name, p.world.ID).With("id", p.world.ID).With("kind", what).With("trashed", true)
					}
				}
				return apierr.New(http.StatusConflict, "world_exists", "%s; import the archive with mode=copy to make a copy beside it, or delete the world first", msg).
					With("id", found[0].ID).With("kind", what)
			}
		}
		return nil
	}
	ids := func(n int, id func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = id(i)
		}
		return out
	}
	for _, c := range []struct {
		table, what string
		ids         []string
	}{
		{"worlds", "world", []string{p.world.ID}},
		{"eras", "era", ids(len(p.eras), func(i int) string { return p.eras[i].ID })},
		{"documents", "document", ids(len(p.docs), func(i int) string { return p.docs[i].ID })},
		{"projects", "project", ids(len(p.projects), func(i int) string { return p.projects[i].ID })},
		{"tools", "tool", ids(len(p.tools), func(i int) string { return p.tools[i].ID })},
		{"assets", "asset", ids(len(p.assets), func(i int) string { return p.assets[i].ID })},
	} {
		if err := exists(c.table, c.what, c.ids); err != nil {
			return err
		}
	}
	return nil
}
