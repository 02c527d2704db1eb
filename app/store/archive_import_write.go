package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/security"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/ops"
)

// The second pass of an import (see archive_import.go): writing a checked archive.

// importDefaultPlan is the plan of an imported world when the Store was given none.
const importDefaultPlan = "free"

// importCacheSize is SQLite's page cache for the import's transaction (PRAGMA cache_size:
// negative is KiB). The connection's own, PocketBase's 32 MB, filled with the pages of a
// world being written, was a third of an import's peak RSS; 8 MB writes as fast.
const importCacheSize = -8000

// setCacheSize sets the page cache of the connection db runs on (a transaction's: the pragma
// is per connection) and returns what puts the old size back, for the pool's next user.
func setCacheSize(db dbx.Builder, size int64) (restore func(), err error) {
	var old int64
	if err := db.NewQuery("PRAGMA cache_size").Row(&old); err != nil {
		return nil, fmt.Errorf("store: read cache_size: %w", err)
	}
	if _, err := db.NewQuery(fmt.Sprintf("PRAGMA cache_size = %d", size)).Execute(); err != nil {
		return nil, fmt.Errorf("store: set cache_size: %w", err)
	}
	return func() { _, _ = db.NewQuery(fmt.Sprintf("PRAGMA cache_size = %d", old)).Execute() }, nil
}

// writeImport is the second pass: the files of the assets, then everything else in one
// transaction, then the caches.
func (s *Store) writeImport(ctx context.Context, p *importPlan, mode ImportMode, ids map[string]string, ownerID, ownerEmail string) (res ImportResult, err error) {
	id := func(old string) string {
		if n, ok := ids[old]; ok {
			return n
		}
		return old
	}
	remap := func(b []byte) []byte { return RemapIDs(b, ids) }
	worldID := id(p.world.ID)

	stored, err := s.storeAssetFiles(p, id)
	if err != nil {
		return ImportResult{}, err
	}
	committed := false
	defer func() {
		if !committed {
			s.removeAssetFiles(stored)
		}
	}()

	res = ImportResult{Mode: mode, Counts: p.counts, MembersAdded: []string{}, MembersInvited: []string{}, MembersSkipped: []string{}}
	var memberIDs []string
	err = s.app.RunInTransaction(func(tx core.App) error {
		db := tx.DB()
		restore, err := setCacheSize(db, importCacheSize)
		if err != nil {
			return err
		}
		defer restore()
		if err := s.insertWorld(db, p, mode, worldID, ownerID); err != nil {
			return err
		}
		if memberIDs, err = insertMembers(db, p, worldID, ownerID, ownerEmail, &res); err != nil {
			return err
		}
		for _, e := range p.eras {
			created, _ := dbTimeOf(e.Created)
			if _, err := db.NewQuery("INSERT INTO eras (id, world, name, parent, created) VALUES ({:id}, {:w}, {:name}, {:parent}, {:t})").
				Bind(dbx.Params{"id": id(e.ID), "w": worldID, "name": e.Name, "parent": id(e.ParentID), "t": created}).Execute(); err != nil {
				return fmt.Errorf("era %s: %w", e.ID, err)
			}
		}
		for _, t := range p.tools {
			created, _ := dbTimeOf(t.Created)
			updated, _ := dbTimeOf(t.Updated)
			gone := ""
			if t.Uninstalled != "" {
				gone, _ = dbTimeOf(t.Uninstalled)
			}
			if _, err := db.NewQuery(`INSERT INTO tools (id, world, name, title, version, manifest, created, updated, uninstalled)
				VALUES ({:id}, {:w}, {:name}, {:title}, {:version}, {:manifest}, {:created}, {:updated}, {:gone})`).
				Bind(dbx.Params{"id": id(t.ID), "w": worldID, "name": t.Name, "title": t.Title, "version": t.Version,
					"manifest": string(compactJSON(t.Manifest)), "created": created, "updated": updated, "gone": gone}).Execute(); err != nil {
				return fmt.Errorf("tool %s: %w", t.Name, err)
			}
		}
		for _, pr := range p.projects {
			slug := pr.Slug
			if mode == ImportCopy || !slugFree(db, "projects", slug) {
				if slug, err = projectSlug(db, pr.Name); err != nil {
					return err
				}
			}
			created, _ := dbTimeOf(pr.Created)
			updated, _ := dbTimeOf(pr.Updated)
			config := "{}"
			if c := bytes.TrimSpace(pr.Config); len(c) > 0 && !bytes.Equal(c, []byte("null")) {
				config = string(remap(compactJSON(c)))
			}
			if _, err := db.NewQuery(`INSERT INTO projects (id, world, kind, name, slug, config, created, updated)
				VALUES ({:id}, {:w}, {:kind}, {:name}, {:slug}, {:config}, {:created}, {:updated})`).
				Bind(dbx.Params{"id": id(pr.ID), "w": worldID, "kind": pr.Kind, "name": pr.Name, "slug": slug, "config": config, "created": created, "updated": updated}).Execute(); err != nil {
				return fmt.Errorf("project %s: %w", pr.ID, err)
			}
		}
		for i, a := range p.assets {
			created, _ := dbTimeOf(a.Created)
			if _, err := db.NewQuery(`INSERT INTO assets (id, world, file, name, kind, contentType, size, width, height, uploader, created)
				VALUES ({:id}, {:w}, {:file}, {:name}, {:kind}, {:ct}, {:size}, {:width}, {:height}, {:uploader}, {:created})`).
				Bind(dbx.Params{"id": id(a.ID), "w": worldID, "file": stored[i].file, "name": a.Name, "kind": a.Kind, "ct": a.ContentType,
					"size": a.Size, "width": a.Width, "height": a.Height, "uploader": ownerID, "created": created}).Execute(); err != nil {
				return fmt.Errorf("asset %s: %w", a.ID, err)
			}
		}
		w := &importWriter{db: db, plan: p, id: id, remap: remap, worldID: worldID}
		if err := w.prepare(); err != nil {
			return err
		}
		defer w.close()
		for _, d := range p.docs {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := w.document(d); err != nil {
				return fmt.Errorf("document %s: %w", d.ID, err)
			}
		}
		if _, err := WriteOutbox(db, "world.created", worldID, "", "", ""); err != nil {
			return err
		}
		for _, u := range memberIDs {
			if _, err := WriteOutbox(db, "member.added", worldID, "", "", u); err != nil {
				return err
			}
		}
		// One row per document (not a world event): the search indexer indexes each.
		for _, d := range p.docs {
			if _, err := WriteOutbox(db, "document.imported", worldID, id(d.ID), "", ""); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return ImportResult{}, err
		}
		if mode == ImportRestore && strings.Contains(err.Error(), "UNIQUE constraint failed") {
			// Another import of the same world committed between the check and this one.
			return ImportResult{}, apierr.New(http.StatusConflict, "world_exists",
				"this server already has the world %s (%q), restored meanwhile; import the archive with mode=copy to make a copy beside it", p.world.ID, p.world.Name).
				With("id", p.world.ID).With("kind", "world")
		}
		return ImportResult{}, fmt.Errorf("store: import %s: %w", p.world.ID, err)
	}
	committed = true
	s.forgetImported(worldID, p, id, memberIDs)
	if res.World, err = s.World(worldID); err != nil {
		return ImportResult{}, err
	}
	return res, nil
}

// slugFree reports whether no row of table has the slug.
func slugFree(db dbx.Builder, table, slug string) bool {
	var n int
	err := db.NewQuery("SELECT COUNT(*) FROM " + table + " WHERE slug = {:slug}").Bind(dbx.Params{"slug": slug}).Row(&n)
	return err == nil && n == 0
}

func (s *Store) insertWorld(db dbx.Builder, p *importPlan, mode ImportMode, worldID, ownerID string) error {
	w := p.world
	slug := w.Slug
	if mode == ImportCopy || !slugFree(db, "worlds", slug) {
		base := slugify(w.Name)
		for {
			slug = base + "-" + security.RandomStringWithAlphabet(5, "abcdefghijklmnopqrstuvwxyz0123456789")
			if slugFree(db, "worlds", slug) {
				break
			}
		}
	}
	plan := s.DefaultPlan
	if plan == "" {
		plan = importDefaultPlan
	}
	created, _ := dbTimeOf(w.Created)
	updated, _ := dbTimeOf(w.Updated)
	_, err := db.NewQuery(`INSERT INTO worlds (id, slug, name, genre, theme, plan, owner, created, updated)
		VALUES ({:id}, {:slug}, {:name}, {:genre}, {:theme}, {:plan}, {:owner}, {:created}, {:updated})`).
		Bind(dbx.Params{"id": worldID, "slug": slug, "name": w.Name, "genre": w.Genre, "theme": w.Theme, "plan": plan,
			"owner": ownerID, "created": created, "updated": updated}).Execute()
	if err != nil {
		return fmt.Errorf("world: %w", err)
	}
	return nil
}

// insertMembers makes the importer the owner and adds the archive's other members that have
// an account here (matched by email), with their role, and invites the others (their
// invitations wait for a sign-up with the email); the archive's owner, if someone else,
// becomes an admin. It returns the user ids added.
func insertMembers(db dbx.Builder, p *importPlan, worldID, ownerID, ownerEmail string, res *ImportResult) ([]string, error) {
	joined := now()
	for _, m := range p.members {
		if strings.EqualFold(m.Email, ownerEmail) {
			joined, _ = dbTimeOf(m.Joined)
		}
	}
	if err := insertMemberAt(db, worldID, ownerID, "owner", joined); err != nil {
		return nil, err
	}
	added := []string{ownerID}
	for _, m := range p.members {
		if strings.EqualFold(m.Email, ownerEmail) {
			continue
		}
		var user struct {
			ID string `db:"id"`
		}
		role := m.Role
		if role == "owner" {
			role = "admin"
		}
		err := db.NewQuery("SELECT id FROM users WHERE email = {:email} COLLATE NOCASE LIMIT 1").Bind(dbx.Params{"email": m.Email}).One(&user)
		if err != nil {
			// Nobody here has the email yet: the invitation waits for a sign-up with it.
			if err := insertInvitation(db, worldID, NormalizeEmail(m.Email), role, ownerID); err != nil {
				return nil, err
			}
			res.MembersInvited = append(res.MembersInvited, m.Email)
			continue
		}
		t, _ := dbTimeOf(m.Joined)
		if err := insertMemberAt(db, worldID, user.ID, role, t); err != nil {
			return nil, err
		}
		res.MembersAdded = append(res.MembersAdded, m.Email)
		added = append(added, user.ID)
	}
	return added, nil
}

func insertInvitation(db dbx.Builder, worldID, email, role, invitedBy string) error {
	t := time.Now().UTC()
	_, err := db.NewQuery(`INSERT INTO invitations (id, world, email, role, invitedBy, expires, created, updated)
		VALUES ({:id}, {:w}, {:e}, {:role}, {:by}, {:expires}, {:t}, {:t})`).
		Bind(dbx.Params{"id": newID(), "w": worldID, "e": email, "role": role, "by": invitedBy,
			"expires": t.Add(InvitationTTL).Format(dbTime), "t": t.Format(dbTime)}).Execute()
	if err != nil {
		return fmt.Errorf("invitation of %s: %w", email, err)
	}
	return nil
}

func insertMemberAt(db dbx.Builder, worldID, userID, role, t string) error {
	_, err := db.NewQuery(`INSERT INTO world_members (id, world, user, role, created, updated)
		VALUES ({:id}, {:world}, {:user}, {:role}, {:t}, {:t})`).
		Bind(dbx.Params{"id": newID(), "world": worldID, "user": userID, "role": role, "t": t}).Execute()
	if err != nil {
		return fmt.Errorf("member %s: %w", userID, err)
	}
	return nil
}

// storedAsset is an asset file put in file storage by an import.
type storedAsset struct{ key, file string }

// storeAssetFiles puts the assets' files into PocketBase's file storage, where the assets
// collection keeps them (<collection>/<record>/<file>).
func (s *Store) storeAssetFiles(p *importPlan, id func(string) string) (stored []storedAsset, err error) {
	if len(p.assets) == 0 {
		return nil, nil
	}
	col, err := s.app.FindCachedCollectionByNameOrId("assets")
	if err != nil {
		return nil, fmt.Errorf("store: assets collection: %w", err)
	}
	fsys, err := s.app.NewFilesystem()
	if err != nil {
		return nil, fmt.Errorf("store: open file storage: %w", err)
	}
	defer fsys.Close()
	defer func() {
		if err != nil {
			s.removeAssetFiles(stored)
			stored = nil
		}
	}()
	for _, a := range p.assets {
		data, err := readAll(p.zip, p.files.get("assets/"+a.SHA256))
		if err != nil {
			return stored, fmt.Errorf("store: import asset %s: %w", a.ID, err)
		}
		file := "asset_" + security.RandomStringWithAlphabet(10, "abcdefghijklmnopqrstuvwxyz0123456789") + p.assetTypes["assets/"+a.SHA256].ext
		key := col.Id + "/" + id(a.ID) + "/" + file
		if err := fsys.Upload(data, key); err != nil {
			return stored, fmt.Errorf("store: import asset %s: %w", a.ID, err)
		}
		stored = append(stored, storedAsset{key: key, file: file})
	}
	return stored, nil
}

// removeAssetFiles deletes files storeAssetFiles stored (an import that failed after): those
// files only, not their folders, which a restore shares with a concurrent restore of the same
// assets that may have won.
func (s *Store) removeAssetFiles(stored []storedAsset) {
	if len(stored) == 0 {
		return
	}
	fsys, err := s.app.NewFilesystem()
	if err != nil {
		s.app.Logger().Error("store: import: cannot open file storage to remove asset files", "error", err.Error())
		return
	}
	defer fsys.Close()
	for _, a := range stored {
		if err := fsys.Delete(a.key); err != nil {
			s.app.Logger().Error("store: import: cannot remove an asset file", "key", a.key, "error", err.Error())
		}
	}
}

func readAll(r io.ReaderAt, zf *archiveEntry) ([]byte, error) {
	rc, err := zf.Open(r)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// compactJSON returns data without insignificant white space (as the store writes JSON);
// data that is not JSON is returned as it is (the first pass refused it).
func compactJSON(data []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		return data
	}
	return b.Bytes()
}

// importWriter writes documents in the import's transaction with prepared statements.
type importWriter struct {
	db      dbx.Builder
	plan    *importPlan
	id      func(string) string
	remap   func([]byte) []byte
	worldID string

	doc, state, op, snapshot, link *dbx.Query
}

func (w *importWriter) prepare() error {
	w.doc = w.db.NewQuery(`INSERT INTO documents (id, world, name, documentType, parent, era, created, updated)
		VALUES ({:id}, {:world}, {:name}, {:type}, {:parent}, {:era}, {:created}, {:updated})`).Prepare()
	w.state = w.db.NewQuery(`INSERT INTO document_states (id, document, era, data, text, version, forkedVersion, deleted, updated)
		VALUES ({:id}, {:doc}, {:era}, {:data}, {:text}, {:version}, {:forked}, {:deleted}, {:updated})`).Prepare()
	w.op = w.db.NewQuery(`INSERT INTO document_ops (document, era, version, total, ops, actor, credential, created, client, clientSeq)
		VALUES ({:doc}, {:era}, {:version}, {:total}, {:ops}, {:actor}, {:credential}, {:created}, {:client}, {:clientSeq})`).Prepare()
	w.snapshot = w.db.NewQuery(`INSERT OR REPLACE INTO document_snapshots (document, era, version, data, created)
		VALUES ({:doc}, {:era}, {:version}, {:data}, {:created})`).Prepare()
	w.link = w.db.NewQuery(`INSERT INTO document_links (source, era, world, position, target, targetName, context, secret)
		VALUES ({:source}, {:era}, {:world}, {:position}, {:target}, {:targetName}, {:context}, {:secret})`).Prepare()
	return nil
}

func (w *importWriter) close() {
	for _, q := range []*dbx.Query{w.doc, w.state, w.op, w.snapshot, w.link} {
		if q != nil {
			_ = q.Close()
		}
	}
}

// document writes one document: its row, states (with their text and links), op log and
// snapshots.
func (w *importWriter) document(d *importDoc) error {
	p := w.plan
	dir := "documents/" + d.folder + "/"
	docID := w.id(d.ID)
	created, _ := dbTimeOf(d.Created)
	updated, _ := dbTimeOf(d.Updated)
	if _, err := w.doc.Bind(dbx.Params{"id": docID, "world": w.worldID, "name": d.Name, "type": d.DocumentType,
		"parent": w.id(d.ParentID), "era": w.id(d.EraID), "created": created, "updated": updated}).Execute(); err != nil {
		return err
	}
	var states []ArchiveState
	var probs archiveProblems
	if !p.readJSON(dir+"content.json", &states, &probs) {
		return probs.err()
	}
	for _, st := range states {
		data := w.remap(compactJSON(st.Data))
		doc, err := p.decodeData(d.DocumentType, data)
		if err != nil {
			return fmt.Errorf("content of era %q: %w", st.Era, err)
		}
		t, _ := dbTimeOf(st.Updated)
		era := w.id(st.Era)
		if _, err := w.state.Bind(dbx.Params{"id": newID(), "doc": docID, "era": era, "data": string(data), "text": doc.Text(d.Name),
			"version": st.Version, "forked": st.ForkedVersion, "deleted": st.Deleted, "updated": t}).Execute(); err != nil {
			return err
		}
		for i, l := range ops.DocumentLinks(doc) {
			if _, err := w.link.Bind(dbx.Params{"source": docID, "era": era, "world": w.worldID, "position": i, "target": l.TargetID,
				"targetName": l.TargetName, "context": l.Context, "secret": l.Secret}).Execute(); err != nil {
				return err
			}
		}
	}
	if d.ops {
		totals := map[string]int64{}
		var werr error
		err := readLines(p, p.files.get(dir+"ops.jsonl"), func(_ int, o ArchiveOp) bool {
			batch := w.remap(compactJSON(o.Ops))
			totals[o.Era] += int64(len(batch))
			t, _ := dbTimeOf(o.Created)
			_, werr = w.op.Bind(dbx.Params{"doc": docID, "era": w.id(o.Era), "version": o.Version, "total": totals[o.Era], "ops": string(batch),
				"actor": o.Actor, "credential": o.Credential, "created": t, "client": o.Client, "clientSeq": o.ClientSeq}).Execute()
			return werr == nil
		})
		if err := errors.Join(err, werr); err != nil {
			return fmt.Errorf("op log: %w", err)
		}
	}
	if d.snaps {
		var werr error
		err := readLines(p, p.files.get(dir+"snapshots.jsonl"), func(_ int, sn ArchiveSnapshot) bool {
			t, _ := dbTimeOf(sn.Created)
			_, werr = w.snapshot.Bind(dbx.Params{"doc": docID, "era": w.id(sn.Era), "version": sn.Version,
				"data": string(w.remap(compactJSON(sn.Data))), "created": t}).Execute()
			return werr == nil
		})
		if err := errors.Join(err, werr); err != nil {
			return fmt.Errorf("snapshots: %w", err)
		}
	}
	return nil
}

// forgetImported tells this process's caches about the imported world (a restored world's
// ids may have been cached while it was here before), and wakes the outbox's followers, which
// tell other processes' caches and the search index.
func (s *Store) forgetImported(worldID string, p *importPlan, id func(string) string, members []string) {
	rows := []OutboxRow{{Kind: "world.updated", World: worldID}}
	for _, u := range members {
		rows = append(rows, OutboxRow{Kind: "member.added", World: worldID, Subject: u})
	}
	for _, d := range p.docs {
		rows = append(rows, OutboxRow{Kind: "document.deleted", World: worldID, Document: id(d.ID)})
		s.states.drop(id(d.ID), "", true)
	}
	s.cache.forget(rows)
	s.tools.forget([]OutboxRow{{Kind: "tool.installed", World: worldID}})
	s.publish(Change{Kind: "world.created", WorldID: worldID})
}
