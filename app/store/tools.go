package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/ops"
)

// ToolInfo is one tool installed in a world.
type ToolInfo struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Title         string   `json:"title"`
	Version       string   `json:"version"`
	Description   string   `json:"description"`
	DocumentTypes []string `json:"documentTypes"`
	AppKinds      []string `json:"appKinds"`
	Installed     string   `json:"installed"`
	Updated       string   `json:"updated"`
}

// MaxBrokenListed bounds the documents an upgrade refusal lists (its total counts them all).
const MaxBrokenListed = 100

// BrokenDocument is a document state an upgrade would leave unreadable.
type BrokenDocument struct {
	DocumentID   string `json:"documentId"`
	Name         string `json:"name"`
	Era          string `json:"era"`
	DocumentType string `json:"documentType"`
	// Field is the JSON Pointer of the value the new type refuses ("" when the type is gone).
	Field   string `json:"field"`
	Message string `json:"message"`
}

// InstallTool installs a manifest (tool.json) in a world, or upgrades the installed tool of
// the same name; upgraded reports which. A manifest with problems is a 422 listing them; an
// upgrade that some documents would not survive is a 409 listing them.
func (s *Store) InstallTool(worldID string, manifest []byte, actor Actor) (info ToolInfo, upgraded bool, err error) {
	if _, err := s.World(worldID); err != nil {
		return ToolInfo{}, false, err
	}
	t, err := ops.ParseTool(manifest)
	if err != nil {
		return ToolInfo{}, false, invalidManifest(err)
	}
	// One install at a time per world in this process; the unique index (world, name)
	// settles a race with another process.
	unlock := s.locks.lock("tools/" + worldID)
	defer unlock()
	installed, err := s.loadTools(worldID)
	if err != nil {
		return ToolInfo{}, false, err
	}
	var old *installedTool
	for i := range installed.tools {
		it := &installed.tools[i]
		if it.info.Name == t.Name {
			old = it
			continue
		}
		for _, tt := range t.Types {
			if other, ok := it.tool.Type(tt.Name); ok {
				return ToolInfo{}, false, apierr.New(http.StatusConflict, "type_conflict",
					"the tool %q, installed in this world, already adds the document type %q; rename the type or uninstall %q first", it.info.Name, other.Name, it.info.Name).
					With("documentType", tt.Name).With("tool", it.info.Name)
			}
		}
		for _, k := range t.AppKinds {
			if slices.ContainsFunc(it.tool.AppKinds, func(o ops.AppKind) bool { return o.Name == k.Name }) {
				return ToolInfo{}, false, apierr.New(http.StatusConflict, "app_kind_conflict",
					"the tool %q, installed in this world, already adds the app kind %q; rename the app kind or uninstall %q first", it.info.Name, k.Name, it.info.Name).
					With("appKind", k.Name).With("tool", it.info.Name)
			}
		}
	}
	if err := s.checkDocumentsFit(worldID, t, old); err != nil {
		return ToolInfo{}, false, err
	}

	info = ToolInfo{Name: t.Name, Title: t.Title, Version: t.Version, Description: t.Description}
	info.Updated = now()
	goneID := installed.goneIDs[t.Name]
	switch {
	case old != nil:
		info.ID, info.Installed = old.info.ID, old.info.Installed
	case goneID != "":
		info.ID, info.Installed = goneID, info.Updated // installed again
	default:
		info.ID, info.Installed = newID(), info.Updated
	}
	fillKinds(&info, t)
	var seq int64
	err = s.app.RunInTransaction(func(tx core.App) error {
		db := tx.DB()
		params := dbx.Params{"id": info.ID, "world": worldID, "name": t.Name, "title": t.Title, "version": t.Version,
			"manifest": string(t.JSON()), "created": info.Installed, "updated": info.Updated}
		var err error
		if old != nil || goneID != "" {
			_, err = db.NewQuery(`UPDATE tools SET title = {:title}, version = {:version}, manifest = {:manifest}, updated = {:updated},
				created = {:created}, uninstalled = '' WHERE id = {:id}`).Bind(params).Execute()
		} else {
			_, err = db.NewQuery(`INSERT INTO tools (id, world, name, title, version, manifest, created, updated)
				VALUES ({:id}, {:world}, {:name}, {:title}, {:version}, {:manifest}, {:created}, {:updated})`).Bind(params).Execute()
		}
		if err != nil {
			if strings.Contains(err.Error(), "UNIQUE") {
				return apierr.New(http.StatusConflict, "conflict", "the tool %q was installed meanwhile; retry to upgrade it", t.Name)
			}
			return fmt.Errorf("store: install tool %s: %w", t.Name, err)
		}
		seq, err = WriteOutbox(db, "tool.installed", worldID, "", "", t.Name)
		return err
	})
	s.tools.forget([]OutboxRow{{Kind: "tool.installed", World: worldID}})
	if err != nil {
		return ToolInfo{}, false, err
	}
	s.publish(Change{Seq: seq, Kind: "tool.installed", WorldID: worldID, Actor: actor})
	return info, old != nil, nil
}

// invalidManifest is the 422 for a manifest ParseTool refused, listing its problems.
func invalidManifest(err error) error {
	var me *ops.ManifestError
	problems := []ops.Problem{{Pointer: "", Message: err.Error()}}
	if errors.As(err, &me) && len(me.Problems) > 0 {
		problems = me.Problems
	}
	msg := "the tool manifest is not valid: "
	if p := problems[0]; p.Pointer != "" {
		msg += p.Pointer + ": "
	}
	msg += problems[0].Message
	if len(problems) > 1 {
		msg += fmt.Sprintf(" (and %d more problems)", len(problems)-1)
	}
	return apierr.New(http.StatusUnprocessableEntity, "invalid_manifest", "%s", msg).With("problems", problems)
}

// checkDocumentsFit refuses (409 tool_upgrade_breaks_documents) a tool whose types would not
// read every existing document of theirs, in every era where it is not deleted, or that
// drops a type of old (the version installed) that documents have. Documents of its types
// may also be there from before: made with an earlier install, since uninstalled.
func (s *Store) checkDocumentsFit(worldID string, t *ops.Tool, old *installedTool) error {
	types := map[string]*ops.ToolType{}
	for _, tt := range t.Types {
		types[tt.Name] = tt
	}
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	if old != nil {
		for _, tt := range old.tool.Types {
			if _, kept := types[tt.Name]; !kept {
				names = append(names, tt.Name)
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	in, params := placeholders("type", names)
	params["world"] = worldID
	q := s.app.DB().NewQuery(`SELECT d.id, d.name, d.documentType, st.era, st.data FROM document_states st
		JOIN documents d ON d.id = st.document
		WHERE d.world = {:world} AND d.documentType IN (` + in + `) AND st.deleted = 0
		ORDER BY d.name, d.id, st.era`).Bind(params)
	rows, err := q.Rows()
	if err != nil {
		return fmt.Errorf("store: documents of tool %s: %w", t.Name, err)
	}
	defer rows.Close()
	broken := []BrokenDocument{}
	total := 0
	for rows.Next() {
		var r struct {
			ID           string `db:"id"`
			Name         string `db:"name"`
			DocumentType string `db:"documentType"`
			Era          string `db:"era"`
			Data         string `db:"data"`
		}
		if err := rows.ScanStruct(&r); err != nil {
			return fmt.Errorf("store: documents of tool %s: %w", t.Name, err)
		}
		b := BrokenDocument{DocumentID: r.ID, Name: r.Name, Era: r.Era, DocumentType: r.DocumentType}
		tt, ok := types[r.DocumentType]
		if !ok {
			b.Message = fmt.Sprintf("version %s of %s no longer has the document type %q", t.Version, t.Name, r.DocumentType)
		} else if _, err := decodeTool(tt, []byte(r.Data)); err != nil {
			b.Message = err.Error()
			var oe *ops.Error
			if errors.As(err, &oe) {
				b.Field, b.Message = oe.Field, oe.Message
			}
		} else {
			continue
		}
		total++
		if len(broken) < MaxBrokenListed {
			broken = append(broken, b)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: documents of tool %s: %w", t.Name, err)
	}
	if total == 0 {
		return nil
	}
	verb := "installing"
	if old != nil {
		verb = "upgrading to"
	}
	first := broken[0]
	return apierr.New(http.StatusConflict, "tool_upgrade_breaks_documents",
		"%s %s %s would leave %d document state(s) unreadable, for example %q: %s; change those documents first or keep their types compatible",
		verb, t.Name, t.Version, total, first.Name, first.Message).
		With("documents", broken).With("total", total)
}

// Tools lists the tools installed in a world, by name.
func (s *Store) Tools(worldID string) ([]ToolInfo, error) {
	wt, err := s.worldTools(worldID)
	if err != nil {
		return nil, err
	}
	out := make([]ToolInfo, 0, len(wt.tools))
	for _, it := range wt.tools {
		out = append(out, it.info)
	}
	return out, nil
}

// Tool returns one installed tool, by id or name, with its manifest.
func (s *Store) Tool(worldID, idOrName string) (ToolInfo, json.RawMessage, error) {
	wt, err := s.worldTools(worldID)
	if err != nil {
		return ToolInfo{}, nil, err
	}
	if it, ok := wt.find(idOrName); ok {
		return it.info, json.RawMessage(it.tool.JSON()), nil
	}
	return ToolInfo{}, nil, apierr.NotFound("tool")
}

// UninstallTool removes a tool from a world; its documents stay (read as "stored").
func (s *Store) UninstallTool(worldID, idOrName string, actor Actor) error {
	unlock := s.locks.lock("tools/" + worldID)
	defer unlock()
	var name string
	var seq int64
	err := s.app.RunInTransaction(func(tx core.App) error {
		db := tx.DB()
		err := db.NewQuery("SELECT name FROM tools WHERE world = {:w} AND (id = {:x} OR name = {:x}) AND uninstalled = '' LIMIT 1").
			Bind(dbx.Params{"w": worldID, "x": idOrName}).Row(&name)
		if err := notFound(err); err == apierr.ErrNotFound {
			return apierr.NotFound("tool")
		} else if err != nil {
			return fmt.Errorf("store: uninstall tool: %w", err)
		}
		// The row stays, marked: an op on one of the tool's documents can name it.
		if _, err := db.NewQuery("UPDATE tools SET uninstalled = {:t} WHERE world = {:w} AND name = {:name}").
			Bind(dbx.Params{"w": worldID, "name": name, "t": now()}).Execute(); err != nil {
			return fmt.Errorf("store: uninstall tool %s: %w", name, err)
		}
		seq, err = WriteOutbox(db, "tool.uninstalled", worldID, "", "", name)
		return err
	})
	s.tools.forget([]OutboxRow{{Kind: "tool.uninstalled", World: worldID}})
	if err != nil {
		return err
	}
	s.publish(Change{Seq: seq, Kind: "tool.uninstalled", WorldID: worldID, Actor: actor})
	return nil
}

// ToolType returns the installed tool type docType of a world.
func (s *Store) ToolType(worldID, docType string) (*ops.ToolType, bool) {
	if ops.IsBuiltin(docType) {
		return nil, false
	}
	wt, err := s.worldTools(worldID)
	if err != nil {
		return nil, false
	}
	tt, ok := wt.types[docType]
	return tt, ok
}

// AppKind returns the installed app kind of a world named kind, with the tool that adds it.
func (s *Store) AppKind(worldID, kind string) (ops.AppKind, *ops.ToolType, bool) {
	wt, err := s.worldTools(worldID)
	if err != nil {
		return ops.AppKind{}, nil, false
	}
	k, ok := wt.kinds[kind]
	if !ok {
		return ops.AppKind{}, nil, false
	}
	return k.kind, k.typ, true
}

// Decode reads a document's stored data as its type: a built-in type, or the installed tool
// type of its world. A document whose tool is not installed is a 409 tool_not_installed.
func (s *Store) Decode(d Document, data []byte) (ops.Document, error) {
	typ, err := s.toolTypeOf(d)
	if err != nil {
		return nil, err
	}
	return decodeOf(typ, d, data)
}

// emptyDoc returns the content a document of d's type starts from.
func (s *Store) emptyDoc(d Document) (ops.Document, error) {
	typ, err := s.toolTypeOf(d)
	if err != nil {
		return nil, err
	}
	return emptyOf(typ, d), nil
}

// toolTypeOf returns the installed tool type of d: nil for a built-in type, a 409
// tool_not_installed when no installed tool of its world adds it.
func (s *Store) toolTypeOf(d Document) (*ops.ToolType, error) {
	if ops.IsBuiltin(d.DocumentType) {
		return nil, nil
	}
	wt, err := s.worldTools(d.WorldID)
	if err != nil {
		return nil, err
	}
	tt, ok := wt.types[d.DocumentType]
	if !ok {
		return nil, toolNotInstalled(d.DocumentType, wt.gone[d.DocumentType])
	}
	return tt, nil
}

// decodeOf reads data of d's type: typ (from toolTypeOf), or its built-in type when nil.
func decodeOf(typ *ops.ToolType, d Document, data []byte) (ops.Document, error) {
	if typ == nil {
		return ops.Decode(d.DocumentType, data)
	}
	return decodeTool(typ, data)
}

// emptyOf is the empty document of d's type: typ (from toolTypeOf), or its built-in type.
func emptyOf(typ *ops.ToolType, d Document) ops.Document {
	if typ == nil {
		return ops.Empty(d.DocumentType)
	}
	return typ.Empty()
}

// decodeTool reads stored data of a tool type; no data (a state never written) is its empty
// document.
func decodeTool(tt *ops.ToolType, data []byte) (ops.Document, error) {
	if t := bytes.TrimSpace(data); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return tt.Empty(), nil
	}
	return tt.Decode(data)
}

// toolNotInstalled is the answer to a change of a document whose type no installed tool adds.
// tool is the tool that added it, "" when unknown.
func toolNotInstalled(docType, tool string) error {
	if tool == "" {
		return apierr.New(http.StatusConflict, ops.CodeToolNotInstalled,
			"the document type %q belongs to a tool that is not installed in this world; its documents can be read (as stored) but not changed until the tool is installed again", docType).
			With("documentType", docType)
	}
	return apierr.New(http.StatusConflict, ops.CodeToolNotInstalled,
		"the tool %q, which adds the document type %q, is not installed in this world; its documents can be read (as stored) but not changed until the tool is installed again", tool, docType).
		With("documentType", docType).With("tool", tool)
}

// IsToolNotInstalled reports whether err says a document's tool is not installed.
func IsToolNotInstalled(err error) bool {
	var e *apierr.Error
	return errors.As(err, &e) && e.Code == ops.CodeToolNotInstalled
}

// installedTool is one row of the tools table, parsed.
type installedTool struct {
	info ToolInfo
	tool *ops.Tool
}

// appKindOf is an installed app kind and the type its view shows.
type appKindOf struct {
	kind ops.AppKind
	typ  *ops.ToolType
}

// toolSet is what the tools installed in one world add to it.
type toolSet struct {
	tools []installedTool // by name
	types map[string]*ops.ToolType
	kinds map[string]appKindOf
	// gone holds the tools uninstalled from the world (their rows stay, marked), by the
	// types they added: an op on one of their documents names the tool to install again.
	gone map[string]string
	// goneIDs holds the row ids of uninstalled tools, by name: installing one again reuses
	// its row.
	goneIDs map[string]string
}

func (ts *toolSet) find(idOrName string) (installedTool, bool) {
	for _, it := range ts.tools {
		if it.info.ID == idOrName || it.info.Name == idOrName {
			return it, true
		}
	}
	return installedTool{}, false
}

// worldTools returns the tools of a world, parsed once and kept until a tool of the world
// changes.
func (s *Store) worldTools(worldID string) (*toolSet, error) {
	if ts, ok := s.tools.get(worldID); ok {
		return ts, nil
	}
	gen := s.tools.generation()
	ts, err := s.loadTools(worldID)
	if err != nil {
		return nil, err
	}
	s.tools.put(gen, worldID, ts)
	return ts, nil
}

// loadTools reads and parses the tools of a world. A row whose manifest no longer parses
// (written by an older version) adds nothing.
func (s *Store) loadTools(worldID string) (*toolSet, error) {
	var rows []struct {
		ID       string `db:"id"`
		Name     string `db:"name"`
		Manifest string `db:"manifest"`
		Created  string `db:"created"`
		Updated  string `db:"updated"`
		Gone     string `db:"uninstalled"`
	}
	if err := s.app.DB().NewQuery("SELECT id, name, manifest, created, updated, uninstalled FROM tools WHERE world = {:w} ORDER BY name, id").
		Bind(dbx.Params{"w": worldID}).All(&rows); err != nil {
		return nil, fmt.Errorf("store: tools of %s: %w", worldID, err)
	}
	ts := &toolSet{tools: []installedTool{}, types: map[string]*ops.ToolType{}, kinds: map[string]appKindOf{}, gone: map[string]string{}, goneIDs: map[string]string{}}
	for _, r := range rows {
		t, err := ops.ParseTool([]byte(r.Manifest))
		if err != nil {
			s.app.Logger().Warn("store: an installed tool's manifest does not parse", "world", worldID, "tool", r.Name, "error", err.Error())
			continue
		}
		if r.Gone != "" {
			ts.goneIDs[r.Name] = r.ID
			for _, tt := range t.Types {
				ts.gone[tt.Name] = r.Name
			}
			continue
		}
		info := ToolInfo{ID: r.ID, Name: t.Name, Title: t.Title, Version: t.Version, Description: t.Description, Installed: r.Created, Updated: r.Updated}
		fillKinds(&info, t)
		ts.tools = append(ts.tools, installedTool{info: info, tool: t})
		for _, tt := range t.Types {
			ts.types[tt.Name] = tt
		}
		for _, k := range t.AppKinds {
			typ, _ := t.Type(k.View.DocumentType)
			ts.kinds[k.Name] = appKindOf{kind: k, typ: typ}
		}
	}
	return ts, nil
}

func fillKinds(info *ToolInfo, t *ops.Tool) {
	info.DocumentTypes, info.AppKinds = []string{}, []string{}
	for _, tt := range t.Types {
		info.DocumentTypes = append(info.DocumentTypes, tt.Name)
	}
	for _, k := range t.AppKinds {
		info.AppKinds = append(info.AppKinds, k.Name)
	}
}

// toolRows are the outbox rows a change of a tools record made as a PocketBase record
// writes (see OnRecordChange): the world's tools changed.
func toolRows(op string, rec *core.Record) []OutboxRow {
	kind := "tool.installed"
	if op == "delete" {
		kind = "tool.uninstalled"
	}
	rows := []OutboxRow{{Kind: kind, World: rec.GetString("world"), Subject: rec.GetString("name")}}
	if old := rec.Original(); op == "committed" && old.GetString("world") != rec.GetString("world") {
		rows = append(rows, OutboxRow{Kind: "tool.uninstalled", World: old.GetString("world"), Subject: old.GetString("name")})
	}
	return rows
}
