package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/pocketbase/dbx"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/ops"
)

// Document is a document's metadata.
type Document struct {
	ID           string `db:"id"`
	WorldID      string `db:"world"`
	Name         string `db:"name"`
	DocumentType string `db:"documentType"`
	ParentID     string `db:"parent"`
	// EraID is the era the document was created in ("" = the main line); it exists there and
	// in that era's descendants only.
	EraID   string `db:"era"`
	Created string `db:"created"`
	Updated string `db:"updated"`
}

// Content is a document's content as seen from one era.
type Content struct {
	Data    json.RawMessage
	Text    string
	Version int64
	// Source is "live" (the current document state), "stored" (a stored projection served
	// because the type is no longer installed) or "empty" (never written).
	Source string
}

// Public returns the content of d as a viewer of the world may see it: without secret parts
// (a card's secret sections). Content without secrets is returned as it is.
func (c Content) Public(d Document) Content {
	if !bytes.Contains(c.Data, []byte(`"secret":true`)) {
		return c
	}
	doc, err := ops.Decode(d.DocumentType, c.Data)
	if err != nil || !ops.HasSecrets(doc) {
		return c
	}
	pub := ops.Public(doc)
	c.Data, c.Text = pub.JSON(), pub.Text(d.Name)
	return c
}

const docCols = "d.id, d.world, d.name, d.documentType, d.parent, d.era, d.created, d.updated"

// scanDocuments runs q, which selects docCols, and returns its documents. It scans each row
// into its fields directly: dbx's reflection took two fifths of a list page's time.
func scanDocuments(q *dbx.Query) ([]Document, error) {
	rows, err := q.Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Document{}
	for rows.Next() {
		var d Document
		if err := rows.Scan(&d.ID, &d.WorldID, &d.Name, &d.DocumentType, &d.ParentID, &d.EraID, &d.Created, &d.Updated); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// CreateDocument creates a document's metadata in era (or the main line). The name must be
// 1 to MaxName characters, the type one of the world's document types, and the parent, when
// given, a folder of the world visible in the era.
func (s *Store) CreateDocument(worldID, eraID, name, docType, parentID string, actor Actor) (Document, error) {
	name, err := CleanName("name", name)
	if err != nil {
		return Document{}, err
	}
	if _, err := s.EraChain(worldID, eraID); err != nil {
		return Document{}, err
	}
	if err := s.checkDocumentType(worldID, docType); err != nil {
		return Document{}, err
	}
	if parentID != "" {
		if err := s.checkFolder(worldID, parentID, eraID); err != nil {
			return Document{}, err
		}
	}
	d := Document{ID: newID(), WorldID: worldID, Name: name, DocumentType: docType, ParentID: parentID, EraID: eraID}
	d.Created = now()
	d.Updated = d.Created
	// Through the committer, so that creates share transactions with each other and with
	// content writes instead of taking the write connection one by one.
	var seq int64
	gen := s.cache.generation()
	err = s.commits.do(func(w *writeTx) error {
		if _, err := w.exec(w.st.insertDocument, d.ID, worldID, name, docType, parentID, eraID, d.Created, d.Created); err != nil {
			return err
		}
		var err error
		seq, err = w.worldOutbox("document.created", worldID, d.ID, eraID, "")
		return err
	})
	if err != nil {
		return Document{}, fmt.Errorf("store: create document: %w", err)
	}
	// Cached at once: the indexer and the first read would each look it up. Not if anything
	// was forgotten since the commit began (a rename of it, however unlikely, included).
	s.cache.putDoc(gen, docEntry{doc: d})
	s.publish(Change{Seq: seq, Kind: "document.created", WorldID: worldID, DocumentID: d.ID, EraID: eraID, DocumentType: docType, Actor: actor})
	return d, nil
}

// Document returns a document of worldID that is visible in eraID: created in the era or
// one it descends from, and not deleted in any of them.
func (s *Store) Document(worldID, docID, eraID string) (Document, error) {
	e, err := s.docEntry(docID)
	if err != nil || e.doc.WorldID != worldID {
		return Document{}, apierr.ErrNotFound
	}
	chain, err := s.EraChain(worldID, eraID)
	if err != nil {
		return Document{}, err
	}
	if !slices.Contains(chain, e.doc.EraID) {
		return Document{}, apierr.ErrNotFound
	}
	for _, era := range e.deleted {
		if slices.Contains(chain, era) {
			return Document{}, apierr.ErrNotFound // deleted in this era or one it descends from
		}
	}
	return e.doc, nil
}

// docEntry returns a document's metadata and deletions, from memory when it can.
func (s *Store) docEntry(docID string) (docEntry, error) {
	if e, ok := s.cache.doc(docID); ok {
		return e, nil
	}
	gen := s.cache.generation()
	var e docEntry
	if err := s.app.DB().NewQuery("SELECT " + docCols + " FROM documents d WHERE d.id = {:id}").Bind(dbx.Params{"id": docID}).One(&e.doc); err != nil {
		return docEntry{}, notFound(err)
	}
	var rows []struct {
		Era string `db:"era"`
	}
	if err := s.app.DB().NewQuery("SELECT era FROM document_states WHERE document = {:doc} AND deleted").Bind(dbx.Params{"doc": docID}).All(&rows); err != nil {
		return docEntry{}, fmt.Errorf("store: deletions of %s: %w", docID, err)
	}
	for _, r := range rows {
		e.deleted = append(e.deleted, r.Era)
	}
	s.cache.putDoc(gen, e)
	return e, nil
}

// DocumentFilter narrows a document list.
type DocumentFilter struct {
	EraID        string
	DocumentType string
	// ParentID, when not nil, keeps only the children of that folder ("" = top level).
	ParentID *string
}

// Documents lists the documents of a world visible in an era, oldest first.
func (s *Store) Documents(worldID string, f DocumentFilter, p Page) ([]Document, int, error) {
	chain, err := s.EraChain(worldID, f.EraID)
	if err != nil {
		return nil, 0, err
	}
	total, err := countDocuments(s.app.DB(), worldID, chain, f)
	if err != nil {
		return nil, 0, err
	}
	if total == 0 && f.DocumentType != "" {
		// A type the world does not know is a mistake to say, not an empty list; a type
		// whose tool was uninstalled still lists its documents (there are some, so total > 0).
		if err := s.checkDocumentType(worldID, f.DocumentType); err != nil {
			return nil, 0, err
		}
	}
	where, params := documentsWhere(worldID, chain, f)
	params["limit"] = p.PerPage
	params["offset"] = p.offset()
	items, err := scanDocuments(s.app.DB().NewQuery("SELECT " + docCols + " FROM documents d WHERE " + where + " ORDER BY d.created, d.rowid LIMIT {:limit} OFFSET {:offset}").
		Bind(params))
	if err != nil {
		return nil, 0, fmt.Errorf("store: list documents: %w", err)
	}
	return items, total, nil
}

// countDocuments counts the documents of a world visible in an era (whose chain is given),
// narrowed by f, as db sees them (a transaction sees its own changes): those of the chain's
// eras (the world's index holds their eras) less those deleted in one of them (deleted
// states have an index of their own), rather than a look for a deleted state under each one.
func countDocuments(db dbx.Builder, worldID string, chain []string, f DocumentFilter) (int, error) {
	in, params, where := documentsOf(worldID, chain, f)
	var all, deleted int
	if err := db.NewQuery("SELECT COUNT(*) FROM documents d WHERE " + where).Bind(params).Row(&all); err != nil {
		return 0, fmt.Errorf("store: count documents: %w", err)
	}
	if err := db.NewQuery("SELECT COUNT(DISTINCT t.document) FROM document_states t CROSS JOIN documents d ON d.id = t.document" +
		" WHERE t.deleted AND t.era IN (" + in + ") AND " + where).Bind(params).Row(&deleted); err != nil {
		return 0, fmt.Errorf("store: count documents: %w", err)
	}
	return all - deleted, nil
}

// documentsWhere is the condition on documents d that selects a document list.
func documentsWhere(worldID string, chain []string, f DocumentFilter) (string, dbx.Params) {
	in, params, where := documentsOf(worldID, chain, f)
	return where + " AND NOT EXISTS (SELECT 1 FROM document_states t WHERE t.document = d.id AND t.deleted AND t.era IN (" + in + "))", params
}

// documentsOf is the condition on documents d of a world's documents in a chain's eras,
// narrowed by f, deleted ones included; in lists the chain's eras as placeholders.
func documentsOf(worldID string, chain []string, f DocumentFilter) (in string, params dbx.Params, where string) {
	in, params = placeholders("era", chain)
	params["w"] = worldID
	where = "d.world = {:w} AND d.era IN (" + in + ")"
	if f.DocumentType != "" {
		where += " AND d.documentType = {:type}"
		params["type"] = f.DocumentType
	}
	if f.ParentID != nil {
		where += " AND d.parent = {:parent}"
		params["parent"] = *f.ParentID
	}
	return in, params, where
}

// stateRow is one row of document_states.
type stateRow struct {
	ID            string `db:"id"`
	Era           string `db:"era"`
	Data          string `db:"data"`
	Text          string `db:"text"`
	Version       int64  `db:"version"`
	ForkedVersion int64  `db:"forkedVersion"`
	Deleted       bool   `db:"deleted"`
}

// loadState returns the state a document has in eraID: the first row found along the era's
// chain, and whether that row belongs to eraID itself. ok is false if no row exists.
func (s *Store) loadState(db dbx.Builder, d Document, chain []string) (row stateRow, ok bool, err error) {
	in, params := placeholders("era", chain)
	params["doc"] = d.ID
	var rows []stateRow
	if err := db.NewQuery("SELECT id, era, data, text, version, forkedVersion, deleted FROM document_states WHERE document = {:doc} AND era IN (" + in + ")").
		Bind(params).All(&rows); err != nil {
		return stateRow{}, false, fmt.Errorf("store: load state %s: %w", d.ID, err)
	}
	for _, era := range chain {
		for _, r := range rows {
			if r.Era == era {
				return r, true, nil
			}
		}
	}
	return stateRow{}, false, nil
}

// Content returns a document's content as seen from eraID.
func (s *Store) Content(d Document, eraID string) (Content, error) {
	typ, typErr := s.toolTypeOf(d) // typErr: its tool is not installed
	if st, ok := s.liveState(d, eraID, typ); ok && typErr == nil {
		return Content{Data: st.data, Text: st.doc.Text(d.Name), Version: st.row.Version, Source: "live"}, nil
	}
	chain, err := s.EraChain(d.WorldID, eraID)
	if err != nil {
		return Content{}, err
	}
	row, ok, err := s.loadState(s.app.DB(), d, chain)
	if err != nil {
		return Content{}, err
	}
	if !ok {
		empty := ops.Empty(d.DocumentType) // a type no installed tool adds: an empty object
		if typErr == nil {
			empty = emptyOf(typ, d)
		}
		return Content{Data: empty.JSON(), Text: empty.Text(d.Name), Source: "empty"}, nil
	}
	doc, err := decodeOf(typ, d, []byte(row.Data))
	if typErr != nil || err != nil {
		// The state cannot be produced as the type's data (its tool was uninstalled, or its
		// shape changed): serve what was stored.
		return Content{Data: json.RawMessage(row.Data), Text: row.Text, Version: row.Version, Source: "stored"}, nil
	}
	data := doc.JSON()
	if row.Era == eraID && !row.Deleted {
		row.Data, row.Text = "", ""
		s.states.put(d.ID, &liveState{row: row, typ: typ, doc: doc, data: data})
	}
	return Content{Data: data, Text: doc.Text(d.Name), Version: row.Version, Source: "live"}, nil
}

// StateEras returns the eras that hold their own state row of a document.
func (s *Store) StateEras(docID string) (map[string]bool, error) {
	var rows []struct {
		Era string `db:"era"`
	}
	if err := s.app.DB().NewQuery("SELECT era FROM document_states WHERE document = {:doc}").Bind(dbx.Params{"doc": docID}).All(&rows); err != nil {
		return nil, fmt.Errorf("store: state eras: %w", err)
	}
	out := make(map[string]bool, len(rows))
	for _, r := range rows {
		out[r.Era] = true
	}
	return out, nil
}

// DocumentByID returns a document's metadata whatever its era.
func (s *Store) DocumentByID(docID string) (Document, error) {
	e, err := s.docEntry(docID)
	return e.doc, err
}

// State is one stored state of a document: its content in one era.
type State struct {
	Era     string `db:"era"`
	Data    string `db:"data"`
	Text    string `db:"text"`
	Version int64  `db:"version"`
	Deleted bool   `db:"deleted"`
}

// States returns every stored state of a document, one per era that has its own.
func (s *Store) States(docID string) ([]State, error) {
	var out []State
	if err := s.app.DB().NewQuery("SELECT era, data, text, version, deleted FROM document_states WHERE document = {:doc} ORDER BY era").
		Bind(dbx.Params{"doc": docID}).All(&out); err != nil {
		return nil, fmt.Errorf("store: states of %s: %w", docID, err)
	}
	return out, nil
}

// StatesOf returns the stored states of several documents at once, by document id.
func (s *Store) StatesOf(docIDs []string) (map[string][]State, error) {
	out := make(map[string][]State, len(docIDs))
	if len(docIDs) == 0 {
		return out, nil
	}
	in, params := placeholders("doc", docIDs)
	var rows []struct {
		Document string `db:"document"`
		State
	}
	if err := s.app.DB().NewQuery("SELECT document, era, data, text, version, deleted FROM document_states WHERE document IN (" + in + ") ORDER BY era").
		Bind(params).All(&rows); err != nil {
		return nil, fmt.Errorf("store: states: %w", err)
	}
	for _, r := range rows {
		out[r.Document] = append(out[r.Document], r.State)
	}
	return out, nil
}

// AllDocuments returns up to limit documents of every world that come after the document
// after (the zero Document: from the start), in the order world, created, id: a world's
// documents come together, which is what the search index builds fastest (its terms are
// per world).
func (s *Store) AllDocuments(after Document, limit int) ([]Document, error) {
	var out []Document
	if after.WorldID != "" {
		var err error
		if out, err = scanDocuments(s.app.DB().NewQuery("SELECT " + docCols + " FROM documents d WHERE d.world = {:world} AND d.created >= {:created}" +
			" AND (d.created > {:created} OR d.id > {:id}) ORDER BY d.created, d.id LIMIT {:limit}").
			Bind(dbx.Params{"world": after.WorldID, "created": after.Created, "id": after.ID, "limit": limit})); err != nil {
			return nil, fmt.Errorf("store: all documents: %w", err)
		}
	}
	if len(out) < limit {
		next, err := scanDocuments(s.app.DB().NewQuery("SELECT " + docCols + " FROM documents d WHERE d.world > {:world} ORDER BY d.world, d.created, d.id LIMIT {:limit}").
			Bind(dbx.Params{"world": after.WorldID, "limit": limit - len(out)}))
		if err != nil {
			return nil, fmt.Errorf("store: all documents: %w", err)
		}
		out = append(out, next...)
	}
	return out, nil
}

// checkDocumentType refuses a type that is neither built in nor added by a tool installed in
// the world, naming the ones it has.
func (s *Store) checkDocumentType(worldID, docType string) error {
	types, err := s.DocumentTypes(worldID)
	if err != nil {
		return err
	}
	if !slices.Contains(types, docType) {
		return apierr.New(http.StatusUnprocessableEntity, "unsupported_document_type",
			"%q is not a document type of this world; allowed: %s", docType, strings.Join(types, ", ")).
			With("field", "documentType").With("allowed", types)
	}
	return nil
}
