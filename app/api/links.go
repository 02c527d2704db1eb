package api

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// OutgoingLinkJSON is one document a document links to.
type OutgoingLinkJSON struct {
	// DocumentID is the target's id; empty for a link by a name no single document has.
	DocumentID   string `json:"documentId"`
	Name         string `json:"name"`
	DocumentType string `json:"documentType"`
	// Status is "ok", "broken" (the target was deleted or is not in this era) or
	// "unresolved" (written by a name no single document has).
	Status  string `json:"status"`
	Context string `json:"context"`
	Secret  bool   `json:"secret"`
}

// IncomingLinkJSON is one document that links to a document.
type IncomingLinkJSON struct {
	Document DocumentJSON `json:"document"`
	Context  string       `json:"context"`
	Secret   bool         `json:"secret"`
}

// LinksJSON is GET …/documents/{documentId}/links.
type LinksJSON struct {
	Outgoing List[OutgoingLinkJSON] `json:"outgoing"`
	Incoming List[IncomingLinkJSON] `json:"incoming"`
}

// documentLinks serves the links a document holds and the documents that link to it, in
// ?era=, one page of each. Links that only secret sections hold are for the world's editors.
func (a *API) documentLinks(e *core.RequestEvent) error {
	_, d, role, err := a.documentAs(e, auth.ReadContent)
	if err != nil {
		return err
	}
	pg, err := page(e)
	if err != nil {
		return err
	}
	out, err := DocumentLinks(a.Store, d, era(e), store.CanEdit(role), pg)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, out)
}

// DocumentLinks is the links of d in eraID as the API and MCP answer them.
func DocumentLinks(s *store.Store, d store.Document, eraID string, secrets bool, pg store.Page) (LinksJSON, error) {
	outgoing, err := s.OutgoingLinks(d, eraID, secrets)
	if err != nil {
		return LinksJSON{}, err
	}
	from := len(outgoing) // a page past the end (and no overflow for a huge page number)
	if pg.Page-1 <= len(outgoing)/pg.PerPage {
		from = min((pg.Page-1)*pg.PerPage, len(outgoing))
	}
	to := min(from+pg.PerPage, len(outgoing))
	outs := make([]OutgoingLinkJSON, 0, to-from)
	for _, l := range outgoing[from:to] {
		o := OutgoingLinkJSON{Context: s.LinkContext(d.WorldID, eraID, l.Context), Secret: l.Secret}
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
	ins := make([]IncomingLinkJSON, len(incoming))
	for i, b := range incoming {
		ins[i] = IncomingLinkJSON{Document: documentJSON(b.Source), Context: s.LinkContext(d.WorldID, eraID, b.Context), Secret: b.Secret}
	}
	return LinksJSON{Outgoing: list(outs, pg, len(outgoing)), Incoming: list(ins, pg, total)}, nil
}
