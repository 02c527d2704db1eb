package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pocketbase/dbx"

	"github.com/loreweave/loreweave/ops"
)

// The op log's bound. A document keeps, in each era, its newest op-log entries: at least
// OpLogKeepVersions of them, or those with less than OpLogKeepBytes of entries after them
// if that is fewer. Older entries are deleted every opLogTrimEvery versions, and whenever
// the log's total crosses a multiple of opLogTrimBytes, by the write that does so and in its
// transaction: the log holds at most opLogTrimEvery-1 versions more than OpLogKeepVersions
// and about opLogTrimBytes plus one entry more than OpLogKeepBytes, so one document cannot
// grow its history without limit, however many writes it takes. Entries written before this
// bound existed go at the document's next trim in that era.
//
// The bound is what an edit can be rebased over (ops.MaxRebase versions, and no more than
// OpLogKeepBytes of changes), and more than a stream resume replays. A request for versions
// that are gone gets a snapshot (event streams), a page that starts at the oldest version
// kept and says so (GET …/ops), or stale_base_version (an edit based on such a version).
// An era sees its parent's entries up to where it forked, as long as the parent keeps them.
const (
	// OpLogKeepVersions is how many versions of a document an era's op log keeps.
	OpLogKeepVersions = ops.MaxRebase
	// OpLogKeepBytes is about how many bytes of entries an era's op log keeps of a document.
	OpLogKeepBytes = 16 << 20

	opLogTrimEvery = 50
	opLogTrimBytes = 1 << 20
)

// LogEntry is one accepted batch in a document's op log.
type LogEntry struct {
	Version int64
	Ops     []json.RawMessage
	ActorID string
	Created string
	// Size is the length of the batch as stored: its ops as one JSON array.
	Size int
	// Client is the editor that sent the write, if it said.
	Client
}

// LogSpan is what the op log holds of a document's versions (Since, To] as seen from one
// era.
type LogSpan struct {
	Since, To int64
	// Oldest starts the run of versions the log holds without a gap up to To: Since+1 when it
	// holds them all, To+1 when it holds none. Versions after Since and before Oldest were
	// deleted (see OpLogKeepVersions).
	Oldest int64
	// Bytes is the size of the entries from Oldest to To, as stored.
	Bytes int64
}

// Complete reports whether the log holds every version of the span.
func (sp LogSpan) Complete() bool { return sp.Oldest <= sp.Since+1 }

// OpLogSpan returns what the op log holds of versions (since, to] of a document as seen
// from eraID, and their size, without reading the entries.
func (s *Store) OpLogSpan(d Document, eraID string, since, to int64) (LogSpan, error) {
	chain, err := s.EraChain(d.WorldID, eraID)
	if err != nil {
		return LogSpan{}, err
	}
	return s.opLogSpan(d, chain, since, to)
}

// ScanOpLog calls fn with each entry the op log holds of versions (since, to] of a document
// as seen from eraID, oldest first, skipping versions that are no longer kept. It reads
// about scanChunkBytes of entries at a time and holds no database connection while fn runs,
// so fn may write to a slow client. An error from fn ends the scan and is returned as is.
func (s *Store) ScanOpLog(d Document, eraID string, since, to int64, fn func(LogEntry) error) error {
	chain, err := s.EraChain(d.WorldID, eraID)
	if err != nil {
		return err
	}
	return s.scanOpLog(d, chain, since, to, fn)
}

// segment is a part of a document's op log as an era sees it: the versions (from, to] that
// era's own entries give it.
type segment struct {
	era      string
	from, to int64
}

// logSegments returns the segments that make up versions (since, to] of a document as seen
// from the era chain, oldest first. An era's log continues its parent's log up to the
// version it was forked at.
func (s *Store) logSegments(d Document, chain []string, since, to int64) ([]segment, error) {
	if to <= since {
		return nil, nil
	}
	in, params := placeholders("era", chain)
	params["doc"] = d.ID
	var states []stateRow
	if err := s.app.DB().NewQuery("SELECT era, forkedVersion FROM document_states WHERE document = {:doc} AND era IN (" + in + ")").
		Bind(params).All(&states); err != nil {
		return nil, fmt.Errorf("store: op log states of %s: %w", d.ID, err)
	}
	forked := make(map[string]int64, len(states))
	for _, st := range states {
		forked[st.Era] = st.ForkedVersion
	}
	// Walk from the era down to the main line: each era with its own state gives the versions
	// after its fork, up to where the nearer era took over.
	var segs []segment
	upper := to
	for _, era := range chain {
		f, own := forked[era]
		if !own {
			continue
		}
		if from := max(since, f); from < upper {
			segs = append(segs, segment{era: era, from: from, to: upper})
		}
		if upper = min(upper, f); upper <= since {
			break
		}
	}
	for i, j := 0, len(segs)-1; i < j; i, j = i+1, j-1 {
		segs[i], segs[j] = segs[j], segs[i]
	}
	return segs, nil
}

func (s *Store) opLogSpan(d Document, chain []string, since, to int64) (LogSpan, error) {
	span := LogSpan{Since: since, To: to, Oldest: since + 1}
	segs, err := s.logSegments(d, chain, since, to)
	if err != nil || len(segs) == 0 {
		if to > since {
			span.Oldest = to + 1 // nothing in the log
		}
		return span, err
	}
	// From the newest segment back, as long as each is whole: the run without a gap.
	span.Oldest = to + 1
	for i := len(segs) - 1; i >= 0; i-- {
		sg := segs[i]
		p := dbx.Params{"doc": d.ID, "era": sg.era, "from": sg.from, "to": sg.to}
		var first struct {
			Version int64 `db:"version"`
			Total   int64 `db:"total"`
			Size    int64 `db:"size"`
		}
		err := s.app.DB().NewQuery("SELECT version, total, octet_length(ops) AS size FROM document_ops" +
			" WHERE document = {:doc} AND era = {:era} AND version > {:from} AND version <= {:to} ORDER BY version LIMIT 1").Bind(p).One(&first)
		if errors.Is(err, sql.ErrNoRows) {
			break // all of the segment is gone
		}
		if err != nil {
			return LogSpan{}, fmt.Errorf("store: op log span of %s: %w", d.ID, err)
		}
		var last int64
		if err := s.app.DB().NewQuery("SELECT total FROM document_ops" +
			" WHERE document = {:doc} AND era = {:era} AND version > {:from} AND version <= {:to} ORDER BY version DESC LIMIT 1").Bind(p).Row(&last); err != nil {
			return LogSpan{}, fmt.Errorf("store: op log span of %s: %w", d.ID, err)
		}
		span.Oldest = first.Version
		span.Bytes += last - first.Total + first.Size
		if first.Version > sg.from+1 {
			break // the segment's older entries are gone
		}
	}
	return span, nil
}

// scanChunkBytes is about how much of the op log ScanOpLog reads at a time.
const scanChunkBytes = 256 << 10

// opLogRow is one row of document_ops as read.
type opLogRow struct {
	Version   int64  `db:"version"`
	Ops       string `db:"ops"`
	Actor     string `db:"actor"`
	Created   string `db:"created"`
	Client    string `db:"client"`
	ClientSeq int64  `db:"clientSeq"`
}

func (s *Store) scanOpLog(d Document, chain []string, since, to int64, fn func(LogEntry) error) error {
	segs, err := s.logSegments(d, chain, since, to)
	if err != nil {
		return err
	}
	for _, sg := range segs {
		for from := sg.from; from < sg.to; {
			chunk, more, err := s.opLogChunk(d.ID, sg, from)
			if err != nil {
				return err
			}
			for _, r := range chunk {
				var batch []json.RawMessage
				if err := json.Unmarshal([]byte(r.Ops), &batch); err != nil {
					return fmt.Errorf("store: op log v%d of %s: %w", r.Version, d.ID, err)
				}
				if err := fn(LogEntry{Version: r.Version, Ops: batch, ActorID: r.Actor, Created: r.Created, Size: len(r.Ops), Client: Client{ID: r.Client, Seq: r.ClientSeq}}); err != nil {
					return err
				}
			}
			if !more {
				break
			}
			from = chunk[len(chunk)-1].Version
		}
	}
	return nil
}

// opLogChunk reads the segment's entries after version from, oldest first, until they hold
// scanChunkBytes (one at least); more is true when it stopped there.
func (s *Store) opLogChunk(docID string, sg segment, from int64) (chunk []opLogRow, more bool, err error) {
	rows, err := s.app.DB().NewQuery("SELECT version, ops, actor, created, client, clientSeq FROM document_ops" +
		" WHERE document = {:doc} AND era = {:era} AND version > {:from} AND version <= {:to} ORDER BY version").
		Bind(dbx.Params{"doc": docID, "era": sg.era, "from": from, "to": sg.to}).Rows()
	if err != nil {
		return nil, false, fmt.Errorf("store: op log of %s: %w", docID, err)
	}
	defer rows.Close()
	size := 0
	for rows.Next() {
		var r opLogRow
		if err := rows.ScanStruct(&r); err != nil {
			return nil, false, fmt.Errorf("store: op log of %s: %w", docID, err)
		}
		chunk = append(chunk, r)
		if size += len(r.Ops); size >= scanChunkBytes {
			return chunk, true, nil
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("store: op log of %s: %w", docID, err)
	}
	return chunk, false, nil
}

// appendOp adds a write's entry to the op log, then, when a trim is due, deletes the entries
// of the same document and era that fall out of the op log's bound (see OpLogKeepVersions).
// prevTotal is the total of the era's previous entry when the caller knows it (-1: read
// it); appendOp returns the new entry's.
func (w *writeTx) appendOp(docID, era string, version, prevTotal int64, ops []byte, actor, credential, created string, client Client) (int64, error) {
	total := prevTotal // of the era's previous entry, which is always kept
	if total < 0 {
		total = 0
		if err := w.tx.Stmt(w.st.opTotal).QueryRow(docID, era, version-1).Scan(&total); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("store: op log total of %s: %w", docID, err)
		}
	}
	total += int64(len(ops))
	if _, err := w.exec(w.st.insertOp, docID, era, version, total, string(ops), actor, credential, created, client.ID, client.Seq); err != nil {
		return 0, err
	}
	// The entries to delete are the oldest ones: read from the oldest on, up to the first
	// entry kept (usually the first one read). A log of fewer versions and bytes than the
	// bound (total counts every entry the era ever had) has none to delete; a longer one is
	// trimmed at every opLogTrimEvery-th version, and when its total crosses a multiple of
	// opLogTrimBytes, rather than at every write (three statements each).
	cut := version - OpLogKeepVersions
	due := version%opLogTrimEvery == 0 || total/opLogTrimBytes != (total-int64(len(ops)))/opLogTrimBytes
	if cut <= 0 && total < OpLogKeepBytes || !due {
		return total, nil
	}
	rows, err := w.tx.Stmt(w.st.opsAfter).Query(docID, era, cut)
	if err != nil {
		return 0, fmt.Errorf("store: trim op log of %s: %w", docID, err)
	}
	for rows.Next() {
		var v, t int64
		if err := rows.Scan(&v, &t); err != nil {
			rows.Close()
			return 0, fmt.Errorf("store: trim op log of %s: %w", docID, err)
		}
		if total-t < OpLogKeepBytes {
			break
		}
		cut = v
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return 0, fmt.Errorf("store: trim op log of %s: %w", docID, err)
	}
	if cut > 0 {
		if _, err := w.exec(w.st.trimOps, docID, era, cut); err != nil {
			return 0, fmt.Errorf("store: trim op log of %s: %w", docID, err)
		}
		// A snapshot older than the oldest entry kept can no longer start a replay.
		if _, err := w.exec(w.st.trimSnapshots, docID, era, cut); err != nil {
			return 0, fmt.Errorf("store: trim snapshots of %s: %w", docID, err)
		}
	}
	return total, nil
}
