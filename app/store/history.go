package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/pocketbase/dbx"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/ops"
)

// A document's history. Version N of a document in an era is rebuilt from a base (its
// empty content at version 0, or a snapshot) by replaying the op log's entries after the
// base up to N (ops.Replay: the ops as applied, recorded ids, transformed splices). The op log
// keeps only a document's newest entries (OpLogKeepVersions), so the write path also keeps a
// snapshot of the whole content every SnapshotEvery versions and, in an era, of what its first
// write inherited (the fork point), in the write's own transaction; snapshots older than the
// oldest op-log entry kept go with it. Rebuilding a version therefore replays fewer than
// SnapshotEvery batches (and never more than the op log's byte bound), and every version from
// the oldest snapshot still kept (or version 0, while the log is complete) to the current
// one can be shown. Older ones are version_unavailable (410).
//
// A snapshot costs one copy of the document per SnapshotEvery writes: at most
// OpLogKeepVersions/SnapshotEvery + 2 of them per document and era.
const SnapshotEvery = 100

// snapshot keeps a whole copy of a document's data at a version (see SnapshotEvery).
func (w *writeTx) snapshot(docID, era string, version int64, data []byte, created string) error {
	if _, err := w.exec(w.st.insertSnapshot, docID, era, version, string(data), created); err != nil {
		return fmt.Errorf("store: snapshot %s v%d: %w", docID, version, err)
	}
	return nil
}

// PastVersion is a document's content at one version, with who made that version and when
// (empty when the op log no longer says).
type PastVersion struct {
	Version int64
	Doc     ops.Document
	ActorID string
	Created string
}

// errVersionUnavailable says how far back a document's history goes.
func errVersionUnavailable(version, oldest int64) error {
	return apierr.New(http.StatusGone, "version_unavailable",
		"version %d is older than this document's history goes: versions from %d on can be shown (the history keeps about the newest %d versions)", version, oldest, OpLogKeepVersions).
		With("oldestVersion", oldest)
}

// errNoSuchVersion refuses a version the document has not reached.
func errNoSuchVersion(version, current int64) error {
	return apierr.New(http.StatusNotFound, "not_found", "the document has no version %d: it is at version %d", version, current).
		With("version", current)
}

// VersionAt returns a document's content at version in eraID, rebuilt from its history.
func (s *Store) VersionAt(d Document, eraID string, version int64) (PastVersion, error) {
	chain, err := s.EraChain(d.WorldID, eraID)
	if err != nil {
		return PastVersion{}, err
	}
	c, err := s.Content(d, eraID)
	if err != nil {
		return PastVersion{}, err
	}
	if version < 0 || version > c.Version {
		return PastVersion{}, errNoSuchVersion(version, c.Version)
	}
	oldest, err := s.historyStart(d, chain, c.Version)
	if err != nil {
		return PastVersion{}, err
	}
	if version < oldest {
		return PastVersion{}, errVersionUnavailable(version, oldest)
	}
	var past PastVersion
	if version == c.Version {
		doc, err := s.Decode(d, c.Data)
		if err != nil {
			if IsToolNotInstalled(err) {
				return PastVersion{}, err
			}
			return PastVersion{}, fmt.Errorf("store: state of %s: %w", d.ID, err)
		}
		past = PastVersion{Version: version, Doc: doc}
	} else if past, err = s.rebuild(d, chain, version); err != nil {
		return PastVersion{}, err
	}
	if past.ActorID == "" && version > 0 {
		// Who made it: the entry of the version itself (rebuild read it unless it started
		// from a snapshot at that very version).
		err := s.scanOpLog(d, chain, version-1, version, func(e LogEntry) error {
			past.ActorID, past.Created = e.ActorID, e.Created
			return nil
		})
		if err != nil {
			return PastVersion{}, err
		}
	}
	return past, nil
}

// rebuild replays the op log onto the nearest base at or before version.
func (s *Store) rebuild(d Document, chain []string, version int64) (PastVersion, error) {
	base, doc, err := s.base(d, chain, version)
	if err != nil {
		return PastVersion{}, err
	}
	span, err := s.opLogSpan(d, chain, base, version)
	if err != nil {
		return PastVersion{}, err
	}
	if !span.Complete() {
		return PastVersion{}, errVersionUnavailable(version, span.Oldest)
	}
	past := PastVersion{Version: version}
	err = s.scanOpLog(d, chain, base, version, func(e LogEntry) error {
		next, err := ops.Replay(doc, e.Version-1, e.Ops)
		if err != nil {
			return fmt.Errorf("store: replay %s v%d: %w", d.ID, e.Version, err)
		}
		doc = next
		past.ActorID, past.Created = e.ActorID, e.Created
		return nil
	})
	if err != nil {
		return PastVersion{}, err
	}
	past.Doc = doc
	return past, nil
}

// base returns the newest snapshot at or before version that the era chain sees (version 0,
// the empty content, when there is none).
func (s *Store) base(d Document, chain []string, version int64) (int64, ops.Document, error) {
	segs, err := s.logSegments(d, chain, 0, version)
	if err != nil {
		return 0, nil, err
	}
	for _, sg := range slices.Backward(segs) {
		var snap struct {
			Version int64  `db:"version"`
			Data    string `db:"data"`
		}
		err := s.app.DB().NewQuery("SELECT version, data FROM document_snapshots WHERE document = {:doc} AND era = {:era} AND version >= {:from} AND version <= {:to} ORDER BY version DESC LIMIT 1").
			Bind(dbx.Params{"doc": d.ID, "era": sg.era, "from": sg.from, "to": sg.to}).One(&snap)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return 0, nil, fmt.Errorf("store: snapshot of %s: %w", d.ID, err)
		}
		doc, err := s.Decode(d, []byte(snap.Data))
		if IsToolNotInstalled(err) {
			return 0, nil, err
		}
		if err != nil {
			return 0, nil, fmt.Errorf("store: snapshot of %s v%d: %w", d.ID, snap.Version, err)
		}
		return snap.Version, doc, nil
	}
	empty, err := s.emptyDoc(d)
	if err != nil {
		return 0, nil, err
	}
	return 0, empty, nil
}

// historyStart returns the oldest version of a document (at version current) that can be
// rebuilt: 0 while the op log holds every version, else the oldest snapshot the log
// continues from, else current.
func (s *Store) historyStart(d Document, chain []string, current int64) (int64, error) {
	span, err := s.opLogSpan(d, chain, 0, current)
	if err != nil || span.Complete() {
		return 0, err
	}
	segs, err := s.logSegments(d, chain, 0, current)
	if err != nil {
		return 0, err
	}
	for _, sg := range segs {
		var v sql.NullInt64
		err := s.app.DB().NewQuery("SELECT MIN(version) FROM document_snapshots WHERE document = {:doc} AND era = {:era} AND version >= {:from} AND version <= {:to}").
			Bind(dbx.Params{"doc": d.ID, "era": sg.era, "from": max(sg.from, span.Oldest-1), "to": sg.to}).Row(&v)
		if err != nil {
			return 0, fmt.Errorf("store: snapshots of %s: %w", d.ID, err)
		}
		if v.Valid {
			return v.Int64, nil
		}
	}
	return current, nil
}

// HistoryEntry is one version in a document's history.
type HistoryEntry struct {
	Version int64
	ActorID string
	// ActorName is the name of the user who made it ("" if the user has none, DeletedAccount
	// if the account is gone).
	ActorName string
	Created   string
	// Summary says what the version changed, in words (ops.Summarize).
	Summary []string
	// Viewable is false for a version older than the history can rebuild.
	Viewable bool
}

// HistoryPage is a page of a document's history, newest first.
type HistoryPage struct {
	// Version is the document's current version.
	Version int64
	Items   []HistoryEntry
	// Older is the version to pass as before for the next page (0: there is none).
	Older int64
}

// History lists the versions of a document in eraID before version before (0: from the
// current one), newest first, at most limit of them. public leaves the titles of secret
// sections out of the summaries (a viewer's history).
func (s *Store) History(d Document, eraID string, before int64, limit int, public bool) (HistoryPage, error) {
	chain, err := s.EraChain(d.WorldID, eraID)
	if err != nil {
		return HistoryPage{}, err
	}
	c, err := s.Content(d, eraID)
	if err != nil {
		return HistoryPage{}, err
	}
	to := c.Version
	if before > 0 {
		to = min(to, before-1)
	}
	since := max(0, to-int64(limit))
	page := HistoryPage{Version: c.Version, Items: []HistoryEntry{}}
	oldest, err := s.historyStart(d, chain, c.Version)
	if err != nil {
		return HistoryPage{}, err
	}
	// The summaries name the items each batch touched as they were before it: start from
	// the content at since and replay the page's batches (fewer than SnapshotEvery + limit
	// replays), or, past the history's start, name them by id.
	var doc ops.Document
	if since >= oldest {
		past, err := s.rebuild(d, chain, since)
		if err == nil {
			doc = past.Doc
		}
	}
	err = s.scanOpLog(d, chain, since, to, func(e LogEntry) error {
		before := doc
		if before == nil {
			if before, err = s.emptyDoc(d); err != nil {
				before = ops.Empty(d.DocumentType) // its tool is not installed: ops named as sent
			}
		}
		page.Items = append(page.Items, HistoryEntry{Version: e.Version, ActorID: e.ActorID, Created: e.Created,
			Summary: ops.Summarize(before, e.Ops, public), Viewable: e.Version >= oldest})
		if doc != nil {
			if doc, err = ops.Replay(doc, e.Version-1, e.Ops); err != nil {
				doc = nil
			}
		}
		return nil
	})
	if err != nil {
		return HistoryPage{}, err
	}
	slices.Reverse(page.Items)
	if since > 0 {
		span, err := s.opLogSpan(d, chain, 0, since)
		if err != nil {
			return HistoryPage{}, err
		}
		if span.Oldest <= since {
			page.Older = since + 1
		}
	}
	if err := s.nameActors(page.Items); err != nil {
		return HistoryPage{}, err
	}
	return page, nil
}

// nameActors fills in the names of the users who made the entries.
func (s *Store) nameActors(items []HistoryEntry) error {
	var ids []string
	for _, it := range items {
		if it.ActorID != "" && !slices.Contains(ids, it.ActorID) {
			ids = append(ids, it.ActorID)
		}
	}
	names, err := s.UserNames(ids)
	if err != nil {
		return err
	}
	for i := range items {
		items[i].ActorName = names[items[i].ActorID]
	}
	return nil
}

// DeletedAccount is the name history shows for a user whose account was deleted: the ops
// they made keep their id.
const DeletedAccount = "Deleted account"

// UserNames returns the display names of users by id: a user without one is missing, a user
// whose account is gone is DeletedAccount.
func (s *Store) UserNames(ids []string) (map[string]string, error) {
	names := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return names, nil
	}
	in, params := placeholders("u", ids)
	var rows []struct {
		ID   string `db:"id"`
		Name string `db:"name"`
	}
	if err := s.app.DB().NewQuery("SELECT id, name FROM users WHERE id IN (" + in + ")").Bind(params).All(&rows); err != nil {
		return nil, fmt.Errorf("store: user names: %w", err)
	}
	for _, id := range ids {
		names[id] = DeletedAccount
	}
	for _, r := range rows {
		names[r.ID] = r.Name
	}
	for id, n := range names {
		if n == "" {
			delete(names, id)
		}
	}
	return names, nil
}

// Restore makes a new version of a document in eraID whose content equals its content at
// version: one write through ApplyOps (the op ops.RestoreOp, carrying that content), so the
// op log, watchers and search see it like any other write. Restoring the current version is
// 422 nothing_to_restore.
func (s *Store) Restore(d Document, eraID string, version int64, actor Actor) (WriteResult, error) {
	past, err := s.VersionAt(d, eraID, version)
	if err != nil {
		return WriteResult{}, err
	}
	c, err := s.Content(d, eraID)
	if err != nil {
		return WriteResult{}, err
	}
	if version == c.Version {
		return WriteResult{}, apierr.New(http.StatusUnprocessableEntity, "nothing_to_restore", "version %d is the current version: there is nothing to restore", version)
	}
	return s.ApplyOps(WriteRequest{Document: d, EraID: eraID, Actor: actor,
		Ops: []json.RawMessage{ops.RestoreOpJSON(version, past.Doc)}, restore: true})
}
