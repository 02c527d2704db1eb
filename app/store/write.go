package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/ops"
	"github.com/pocketbase/dbx"
)

// WriteRequest is one batch of content operations for one document in one era.
type WriteRequest struct {
	// Document is the target, already resolved and visible in EraID.
	Document Document
	EraID    string
	Ops      []json.RawMessage
	Actor    Actor
	// Client is the editor that sent the write, if it said.
	Client Client
	// restore is set by Restore: Ops is a restore op (ops.RestoreOp), which no client may send.
	restore bool
}

// WriteResult is what an accepted batch did.
type WriteResult struct {
	DocumentType string          `json:"documentType"`
	Applied      int             `json:"applied"`
	Created      []ops.Created   `json:"created"`
	Version      int64           `json:"version"`
	Ops          json.RawMessage `json:"ops"` // the ops as applied, a JSON array
	Client
}

// ApplyOps is the one write path for document content. It applies the batch to the
// document's current state in the era (all or none), then commits the new state, one op-log
// row and one outbox row in a single transaction, and only then answers and tells
// subscribers. Writes to one (document, era) are serialised; writes to different documents
// that arrive together share a transaction (group commit), each with its own version.
func (s *Store) ApplyOps(req WriteRequest) (WriteResult, error) {
	d := req.Document
	chain, err := s.EraChain(d.WorldID, req.EraID)
	if err != nil {
		return WriteResult{}, err
	}

	unlock := s.locks.lock(d.ID + "/" + req.EraID)
	res, done, err := s.alreadyApplied(req)
	var change Change
	if err == nil && !done {
		res, change, err = s.applyLocked(req, chain)
	}
	unlock()
	if err != nil {
		return WriteResult{}, err
	}
	if !done {
		s.publish(change)
	}
	return res, nil
}

// alreadyApplied answers a write its client sent before (the same client id and sequence
// number; the answer was lost to a dropped connection) from the op log, so a retry is not
// applied twice. Created ids are not repeated: the ops as applied carry them.
func (s *Store) alreadyApplied(req WriteRequest) (WriteResult, bool, error) {
	if req.Client.ID == "" || req.Client.Seq == 0 {
		return WriteResult{}, false, nil
	}
	var rows []struct {
		Version int64  `db:"version"`
		Ops     string `db:"ops"`
	}
	err := s.app.DB().NewQuery("SELECT version, ops FROM document_ops WHERE document = {:doc} AND era = {:era} AND client = {:client} AND clientSeq = {:seq} LIMIT 1").
		Bind(dbx.Params{"doc": req.Document.ID, "era": req.EraID, "client": req.Client.ID, "seq": req.Client.Seq}).All(&rows)
	if err != nil || len(rows) == 0 {
		return WriteResult{}, false, err
	}
	var applied []json.RawMessage
	if err := json.Unmarshal([]byte(rows[0].Ops), &applied); err != nil {
		return WriteResult{}, false, fmt.Errorf("store: op log v%d of %s: %w", rows[0].Version, req.Document.ID, err)
	}
	return WriteResult{DocumentType: req.Document.DocumentType, Applied: len(applied), Created: []ops.Created{}, Version: rows[0].Version, Ops: json.RawMessage(rows[0].Ops), Client: req.Client}, true, nil
}

func (s *Store) applyLocked(req WriteRequest, chain []string) (WriteResult, Change, error) {
	d := req.Document
	// The name goes into the stored text; a rename that committed while this write waited
	// for its lock is seen here (it holds the same lock while it rewrites the texts).
	if e, err := s.docEntry(d.ID); err == nil {
		d.Name = e.doc.Name
	}
	var row stateRow
	var found bool
	// A tool document changes only while its tool is installed (tool_not_installed).
	typ, err := s.toolTypeOf(d)
	if err != nil {
		return WriteResult{}, Change{}, err
	}
	doc := emptyOf(typ, d)
	var oldSize int // of the stored data
	var oldLinks []ops.Link
	linksKnown := false
	prevTotal := int64(-1) // the op log's total at row.Version, when known
	if st, ok := s.liveState(d, req.EraID, typ); ok {
		row, found, doc, oldSize = st.row, true, st.doc, len(st.data)
		oldLinks, linksKnown = st.links, st.linksKnown
		if st.opTotalKnown {
			prevTotal = st.opTotal
		}
	} else {
		row, found, err = s.loadState(s.app.DB(), d, chain)
		if err != nil {
			return WriteResult{}, Change{}, err
		}
		if found && row.Deleted {
			return WriteResult{}, Change{}, apierr.ErrNotFound
		}
		if found {
			oldSize = len(row.Data)
			if doc, err = decodeOf(typ, d, []byte(row.Data)); err != nil {
				return WriteResult{}, Change{}, fmt.Errorf("store: stored state of %s: %w", d.ID, err)
			}
		}
	}
	// Links written by name become links by id where exactly one document has the name.
	batch := ops.ResolveLinkNames(req.Ops, s.resolveName(d.WorldID, chain))
	res, err := ops.Apply(doc, ops.Request{Version: row.Version, Ops: batch, Env: s.opsEnv(d, req.EraID, chain, row.Version), Internal: req.restore, ClientID: req.Client.ID})
	if err != nil {
		return WriteResult{}, Change{}, err
	}

	version := row.Version + 1
	data := res.Doc.JSON()
	if len(data) > MaxDocumentBytes && len(data) >= oldSize {
		return WriteResult{}, Change{}, apierr.New(http.StatusRequestEntityTooLarge, "document_too_large",
			"this request would make the document %d bytes, over the limit of %d bytes; remove or shorten some of its content first", len(data), MaxDocumentBytes).
			With("limit", MaxDocumentBytes)
	}
	text := res.Doc.Text(d.Name)
	applied := jsonArray(res.Applied)
	own := found && row.Era == req.EraID
	rowID := row.ID
	if !own {
		rowID = newID()
	}
	// The backlinks table follows the document's links: rewritten when they changed, and on
	// an era's first write (the era's own rows now stand for the document there).
	links := ops.DocumentLinks(res.Doc)
	if !linksKnown && found {
		if oldLinks, err = s.storedLinks(d.ID, row.Era); err != nil {
			return WriteResult{}, Change{}, err
		}
	}
	linksMoved := !slices.Equal(oldLinks, links)
	writeLinks := !own || linksMoved
	var forkData []byte // what a first write in this era inherited
	if !own && found {
		if forkData = []byte(row.Data); len(forkData) == 0 {
			forkData = doc.JSON()
		}
	}
	if !own {
		prevTotal = -1 // what was known is another era's
	}
	var seq, total int64
	err = s.commits.do(func(w *writeTx) error {
		t := now()
		if own {
			r, err := w.exec(w.st.updateState, string(data), text, version, t, row.ID, row.Version)
			if err != nil {
				return err
			}
			if n, _ := r.RowsAffected(); n != 1 {
				if err := w.documentExists(d.ID); err != nil {
					return err // deleted meanwhile, by another process
				}
				return errConflict
			}
		} else {
			// First write in this era: the inherited state is copied here, the parent stays.
			if _, err := w.exec(w.st.insertState, rowID, d.ID, req.EraID, string(data), text, version, row.Version, t); err != nil {
				return err
			}
			// An updated row proves the document exists (a main-line delete removes its
			// states with it); a new one does not. Checked after the insert, not before: a
			// transaction that reads first holds a read snapshot, which a checkpoint can
			// leave too old to start writing from (SQLITE_BUSY).
			if err := w.documentExists(d.ID); err != nil {
				return err
			}
		}
		if !own && found {
			// The era's history starts here: keep what it inherited (see SnapshotEvery).
			if err := w.snapshot(d.ID, req.EraID, row.Version, forkData, t); err != nil {
				return err
			}
		}
		if version%SnapshotEvery == 0 {
			if err := w.snapshot(d.ID, req.EraID, version, data, t); err != nil {
				return err
			}
		}
		var err error
		if total, err = w.appendOp(d.ID, req.EraID, version, prevTotal, applied, req.Actor.UserID, req.Actor.Credential, t, req.Client); err != nil {
			return err
		}
		if writeLinks {
			if err := w.writeLinks(d.WorldID, d.ID, req.EraID, links); err != nil {
				return err
			}
		}
		seq, err = w.outbox("document.content", d.WorldID, d.ID, req.EraID, "")
		return err
	})

	if err != nil {
		s.states.drop(d.ID, req.EraID, false) // whatever happened, reread from the database
	}
	if errors.Is(err, errConflict) {
		return WriteResult{}, Change{}, apierr.New(http.StatusConflict, "conflict", "the document changed while this request was applied; retry it")
	}
	if errors.Is(err, errDeleted) {
		return WriteResult{}, Change{}, apierr.ErrNotFound
	}
	if err != nil {
		return WriteResult{}, Change{}, fmt.Errorf("store: commit %s: %w", d.ID, err)
	}

	forked := row.ForkedVersion
	if !own {
		forked = row.Version
	}
	s.states.put(d.ID, &liveState{row: stateRow{ID: rowID, Era: req.EraID, Version: version, ForkedVersion: forked}, typ: typ, doc: res.Doc, data: data, links: links, linksKnown: true, opTotal: total, opTotalKnown: true})
	out := WriteResult{DocumentType: d.DocumentType, Applied: len(res.Applied), Created: res.Created, Version: version, Ops: applied, Client: req.Client}
	change := Change{Seq: seq, Kind: "document.content", WorldID: d.WorldID, DocumentID: d.ID, EraID: req.EraID,
		DocumentType: d.DocumentType, Version: version, Ops: applied, Actor: req.Actor, Client: req.Client}
	if linksMoved {
		change.LinkTargets = linkTargets(oldLinks, links)
	}
	// Secret sections: what a viewer's stream may be sent of this write.
	change.Public, change.Doc = ops.PublicBatch(doc, res.Doc, res.Applied), res.Doc
	return out, change, nil
}

// MaxDocumentBytes bounds a document's stored state (its data as JSON): every later write
// re-indexes and re-sends the whole document, so one editor must not grow it without bound
// through many requests that are each under the body limit. A batch that would take a
// document past it is refused whole (413 document_too_large); one that leaves an already
// larger document (stored before the limit) no larger is accepted, so it can be trimmed.
const MaxDocumentBytes = 4 << 20

var errConflict = errors.New("store: state row changed underneath the write")

// opsEnv gives ops what it may need to know about the world around the document, whose
// version in the era is version.
func (s *Store) opsEnv(d Document, eraID string, chain []string, version int64) ops.Env {
	return ops.Env{
		DocumentExists: func(id string) bool {
			_, err := s.Document(d.WorldID, id, eraID)
			return err == nil
		},
		History: func(since int64) ([]ops.Batch, error) {
			// Rebasing reads every batch since; a history too large to read, or no longer
			// kept, is refused (stale_base_version: the client re-reads and edits again)
			// rather than loaded.
			span, err := s.opLogSpan(d, chain, since, version)
			if err != nil {
				return nil, err
			}
			if !span.Complete() {
				return nil, fmt.Errorf("the op log no longer holds the changes after version %d: it keeps a document's newest %d versions and %d MiB", since, OpLogKeepVersions, OpLogKeepBytes>>20)
			}
			if span.Bytes > OpLogKeepBytes {
				return nil, fmt.Errorf("the changes since version %d are %d MiB, more than the %d MiB an edit can be rebased over", since, span.Bytes>>20, OpLogKeepBytes>>20)
			}
			var out []ops.Batch
			err = s.scanOpLog(d, chain, since, version, func(e LogEntry) error {
				out = append(out, ops.Batch{Version: e.Version, Ops: e.Ops, ClientID: e.Client.ID})
				return nil
			})
			return out, err
		},
	}
}

// jsonArray joins compact JSON values (ops.Apply's output) into an array without
// re-validating them, as json.Marshal of []json.RawMessage would.
func jsonArray(items []json.RawMessage) []byte {
	n := 2
	for _, it := range items {
		n += len(it) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	return append(out, ']')
}
