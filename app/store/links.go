package store

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pocketbase/dbx"

	"github.com/loreweave/loreweave/ops"
)

// Links between documents ([[…]] in their Markdown, see ops/links.go) are kept in the
// document_links table, one row per (source document, era, target), written by the content
// write that changes them, in its own transaction. A document's links as seen from an era are
// the rows of the era its state comes from (the nearest era of the chain with its own state
// row): an era's first write copies the document, and its links, into that era.

// linkTargets returns the ids of the documents linked by id in either list, once each: the
// documents whose "Linked from" a change between them may change.
func linkTargets(a, b []ops.Link) []string {
	var out []string
	for _, l := range slices.Concat(a, b) {
		if l.TargetID != "" && !slices.Contains(out, l.TargetID) {
			out = append(out, l.TargetID)
		}
	}
	return out
}

// storedLinks reads a document's link rows in one era.
func (s *Store) storedLinks(docID, era string) ([]ops.Link, error) {
	var rows []struct {
		Target     string `db:"target"`
		TargetName string `db:"targetName"`
		Context    string `db:"context"`
		Secret     bool   `db:"secret"`
	}
	if err := s.app.DB().NewQuery("SELECT target, targetName, context, secret FROM document_links WHERE source = {:doc} AND era = {:era} ORDER BY position").
		Bind(dbx.Params{"doc": docID, "era": era}).All(&rows); err != nil {
		return nil, fmt.Errorf("store: links of %s: %w", docID, err)
	}
	out := make([]ops.Link, len(rows))
	for i, r := range rows {
		out[i] = ops.Link{TargetID: r.Target, TargetName: r.TargetName, Context: r.Context, Secret: r.Secret}
	}
	return out, nil
}

// writeLinks replaces a document's link rows in one era.
func (w *writeTx) writeLinks(world, docID, era string, links []ops.Link) error {
	if _, err := w.exec(w.st.deleteLinks, docID, era); err != nil {
		return fmt.Errorf("store: write links of %s: %w", docID, err)
	}
	for i, l := range links {
		if _, err := w.exec(w.st.insertLink, docID, era, world, i, l.TargetID, l.TargetName, l.Context, l.Secret); err != nil {
			return fmt.Errorf("store: write links of %s: %w", docID, err)
		}
	}
	return nil
}

// resolveName returns a function resolving a link written by name to a document of the
// world visible in the era (whose chain is given): the one document with that name (case
// aside), if exactly one has it.
func (s *Store) resolveName(worldID string, chain []string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		d, ok := s.documentNamed(worldID, chain, name)
		return d.ID, ok
	}
}

func (s *Store) documentNamed(worldID string, chain []string, name string) (Document, bool) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Document{}, false
	}
	where, params := documentsWhere(worldID, chain, DocumentFilter{})
	params["name"] = name
	var found []Document
	if err := s.app.DB().NewQuery("SELECT " + docCols + " FROM documents d WHERE d.name = {:name} COLLATE NOCASE AND " + where + " LIMIT 2").
		Bind(params).All(&found); err != nil || len(found) != 1 {
		return Document{}, false
	}
	return found[0], true
}

// DocumentNamed returns the document of the world visible in eraID with that name (case
// aside), when exactly one has it: where a link written by name leads.
func (s *Store) DocumentNamed(worldID, eraID, name string) (Document, bool) {
	chain, err := s.EraChain(worldID, eraID)
	if err != nil {
		return Document{}, false
	}
	return s.documentNamed(worldID, chain, name)
}

// Backlink is a document that links to another, as seen from one era.
type Backlink struct {
	Source Document
	// Context is the sentence around the first link, as written (links in their stored form).
	Context string
	Secret  bool
}

// Backlinks lists the documents visible in eraID that link to d there, by id or by its name,
// ordered by name; with secrets false, links that only secret parts hold are left out.
func (s *Store) Backlinks(d Document, eraID string, secrets bool, p Page) ([]Backlink, int, error) {
	chain, err := s.EraChain(d.WorldID, eraID)
	if err != nil {
		return nil, 0, err
	}
	in, params := placeholders("era", chain)
	rank := "CASE %s.era"
	for i := range chain {
		rank += " WHEN {:era" + strconv.Itoa(i) + "} THEN " + strconv.Itoa(i)
	}
	rank += " END"
	params["target"] = d.ID
	params["name"] = d.Name
	params["w"] = d.WorldID
	visible, vparams := documentsWhere(d.WorldID, chain, DocumentFilter{})
	for k, v := range vparams {
		params[k] = v
	}
	// A row counts when its era is where the source's state comes from: no nearer era of
	// the chain has a state row of the source (a copy, or a delete).
	where := "(l.target = {:target} OR (l.target = '' AND l.world = {:w} AND l.targetName = {:name}))" +
		" AND l.era IN (" + in + ") AND l.source != {:target}" +
		" AND NOT EXISTS (SELECT 1 FROM document_states t WHERE t.document = l.source AND t.era IN (" + in + ")" +
		" AND " + fmt.Sprintf(rank, "t") + " < " + fmt.Sprintf(rank, "l") + ")" +
		" AND " + visible
	if !secrets {
		where += " AND NOT l.secret"
	}
	from := " FROM document_links l JOIN documents d ON d.id = l.source WHERE " + where
	var total int
	if err := s.app.DB().NewQuery("SELECT COUNT(DISTINCT l.source)" + from).Bind(params).Row(&total); err != nil {
		return nil, 0, fmt.Errorf("store: backlinks of %s: %w", d.ID, err)
	}
	params["limit"] = p.PerPage
	params["offset"] = p.offset()
	var rows []struct {
		Document
		Context string `db:"context"`
		Secret  bool   `db:"secret"`
		First   int64  `db:"first"`
	}
	// One row per source, its first link to the target: with MIN, SQLite takes the other
	// columns from the row that has the minimum.
	if err := s.app.DB().NewQuery("SELECT " + docCols + ", l.context, l.secret, MIN(l.position) AS first" + from +
		" GROUP BY l.source ORDER BY d.name COLLATE NOCASE, d.id LIMIT {:limit} OFFSET {:offset}").
		Bind(params).All(&rows); err != nil {
		return nil, 0, fmt.Errorf("store: backlinks of %s: %w", d.ID, err)
	}
	out := make([]Backlink, len(rows))
	for i, r := range rows {
		out[i] = Backlink{Source: r.Document, Context: r.Context, Secret: r.Secret}
	}
	return out, total, nil
}

// OutLink is one link a document holds, as seen from one era.
type OutLink struct {
	ops.Link
	// Target is the linked document when it is visible in the era (by id, or the one
	// document with the name); ok is false for a broken or unresolved link.
	Target Document
	OK     bool
}

// OutgoingLinks lists the documents d links to in eraID, in the order they first appear;
// with secrets false, links that only secret parts hold are left out.
func (s *Store) OutgoingLinks(d Document, eraID string, secrets bool) ([]OutLink, error) {
	c, err := s.Content(d, eraID)
	if err != nil {
		return nil, err
	}
	doc, err := s.Decode(d, c.Data)
	if err != nil {
		return []OutLink{}, nil // a type whose content cannot be read has no links to show
	}
	out := []OutLink{}
	for _, l := range ops.DocumentLinks(doc) {
		if l.Secret && !secrets {
			continue
		}
		o := OutLink{Link: l}
		if l.TargetID != "" {
			o.Target, err = s.Document(d.WorldID, l.TargetID, eraID)
			o.OK = err == nil
		} else {
			o.Target, o.OK = s.DocumentNamed(d.WorldID, eraID, l.TargetName)
		}
		out = append(out, o)
	}
	return out, nil
}

// LinkContext is a link's surrounding sentence as a reader sees it: each link in it replaced
// by its shown text or its target's current name in eraID.
func (s *Store) LinkContext(worldID, eraID, context string) string {
	return ops.LinkLabels(context, func(id string) string {
		if d, err := s.Document(worldID, id, eraID); err == nil {
			return d.Name
		}
		return "missing document"
	})
}

// LinkJSON is one link of GET …/documents/{documentId}/links (and the MCP tool get_links):
// a document linked to, or one that links.
type LinkJSON struct {
	// DocumentID is the other document's id; for a broken link the id written; empty for an
	// unresolved one.
	DocumentID   string `json:"documentId"`
	Name         string `json:"name"`
	DocumentType string `json:"documentType"`
	// Status is "ok", "broken" (the target was deleted or is not in this era) or
	// "unresolved" (written by a name no single document has); incoming links are "ok".
	Status string `json:"status"`
	// Context is the sentence around the link, links in it shown by name.
	Context string `json:"context"`
	Secret  bool   `json:"secret"`
}

// LinkList is one page of links.
type LinkList struct {
	Items      []LinkJSON `json:"items"`
	Page       int        `json:"page"`
	PerPage    int        `json:"perPage"`
	TotalItems int        `json:"totalItems"`
}

// LinksJSON is a document's links in one era, one page of each direction.
type LinksJSON struct {
	Outgoing LinkList `json:"outgoing"`
	Incoming LinkList `json:"incoming"`
}

// LinksJSON returns a page of d's outgoing links and of its backlinks as seen in eraID; with
// secrets false, links that only secret sections hold are left out.
func (s *Store) LinksJSON(d Document, eraID string, secrets bool, pg Page) (LinksJSON, error) {
	outgoing, err := s.OutgoingLinks(d, eraID, secrets)
	if err != nil {
		return LinksJSON{}, err
	}
	from := len(outgoing) // a page past the end (and no overflow for a huge page number)
	if pg.Page-1 <= len(outgoing)/pg.PerPage {
		from = min((pg.Page-1)*pg.PerPage, len(outgoing))
	}
	to := min(from+pg.PerPage, len(outgoing))
	outs := make([]LinkJSON, 0, to-from)
	for _, l := range outgoing[from:to] {
		o := LinkJSON{Context: s.LinkContext(d.WorldID, eraID, l.Context), Secret: l.Secret}
		switch {
		case l.OK:
			o.DocumentID, o.Name, o.DocumentType, o.Status = l.Target.ID, l.Target.Name, l.Target.DocumentType, "ok"
		case l.TargetID != "":
			o.DocumentID, o.Status = l.TargetID, "broken"
		default:
			o.Name, o.Status = l.TargetName, "unresolved"
		}
		outs = append(outs, o)
	}
	incoming, total, err := s.Backlinks(d, eraID, secrets, pg)
	if err != nil {
		return LinksJSON{}, err
	}
	ins := make([]LinkJSON, len(incoming))
	for i, b := range incoming {
		ins[i] = LinkJSON{DocumentID: b.Source.ID, Name: b.Source.Name, DocumentType: b.Source.DocumentType, Status: "ok",
			Context: s.LinkContext(d.WorldID, eraID, b.Context), Secret: b.Secret}
	}
	return LinksJSON{
		Outgoing: LinkList{Items: outs, Page: pg.Page, PerPage: pg.PerPage, TotalItems: len(outgoing)},
		Incoming: LinkList{Items: ins, Page: pg.Page, PerPage: pg.PerPage, TotalItems: total},
	}, nil
}
