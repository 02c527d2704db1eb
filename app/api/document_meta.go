package api

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

type updateDocumentBody struct {
	Name     *string `json:"name"`
	ParentID *string `json:"parentId"`
}

// updateDocument renames or moves a document (editors).
func (a *API) updateDocument(e *core.RequestEvent) error {
	_, d, err := a.document(e, auth.Edit)
	if err != nil {
		return err
	}
	var body updateDocumentBody
	if err := decode(e, &body); err != nil {
		return err
	}
	if body.Name == nil && body.ParentID == nil {
		return apierr.NothingToChange("name", "parentId")
	}
	d, err = a.Store.UpdateDocument(d, era(e), store.MetaChange{Name: body.Name, ParentID: body.ParentID}, auth.PrincipalOf(e).Actor())
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, documentJSON(d))
}

// deleteDocument deletes a document on the main line, or hides it in an era.
func (a *API) deleteDocument(e *core.RequestEvent) error {
	_, d, err := a.document(e, auth.Edit)
	if err != nil {
		return err
	}
	if err := a.Store.DeleteDocument(d, era(e), auth.PrincipalOf(e).Actor()); err != nil {
		return err
	}
	return e.NoContent(http.StatusNoContent)
}

// OpLogJSON is a page of a document's op log.
type OpLogJSON struct {
	DocumentType string `json:"documentType"`
	Version      int64  `json:"version"`
	Since        int64  `json:"since"`
	// OldestVersion is the oldest version the op log still holds: it holds every version
	// from there up to Version (store.OpLogKeepVersions).
	OldestVersion int64 `json:"oldestVersion"`
	// Truncated is true when versions after Since are no longer held: the page starts at
	// OldestVersion instead.
	Truncated bool            `json:"truncated"`
	Items     []OpLogItemJSON `json:"items"`
	HasMore   bool            `json:"hasMore"`
}

// OpLogItemJSON is one accepted request in the op log.
type OpLogItemJSON struct {
	Version int64           `json:"version"`
	Ops     []any           `json:"ops"`
	Actor   CredentialActor `json:"actor"`
	Created string          `json:"created"`
	// The editor that sent the write, if it said (ContentOpsRequest's clientId, clientSeq).
	store.Client
}

// CredentialActor names who made a change.
type CredentialActor struct {
	ID string `json:"id"`
}

// MaxOpLogPageBytes bounds a page of the op log by the size of its entries' ops (as stored),
// as ?limit= bounds it by count: a page holds no more than the largest document
// (store.MaxDocumentBytes), except one entry larger than that alone.
const MaxOpLogPageBytes = 4 << 20

// errPageFull ends the op-log scan of a full page.
var errPageFull = errors.New("api: op log page full")

// opLog returns the accepted requests after ?since= (default 0), oldest first, at most
// ?limit= (default 100, at most 1000) and MaxOpLogPageBytes of them. When the versions after
// since are no longer kept, the page starts at the oldest version kept and says so.
//
// A viewer is refused the op log of a document type that can hold secret parts (cards): its
// entries carry the text of secret sections, and of sections that were secret when they
// were written (a section marked secret, then removed, leaves no mark a filter could go
// by). Viewers follow such documents by reading them or through their event stream, which
// send the public form.
func (a *API) opLog(e *core.RequestEvent) error {
	_, d, role, err := a.documentAs(e, auth.ReadContent)
	if err != nil {
		return err
	}
	q := e.Request.URL.Query()
	since, limit := int64(0), 100
	if v := q.Get("since"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return apierr.Field("since", "since must be a version: a whole number from 0")
		}
		since = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return apierr.Field("limit", "limit must be a whole number from 1 to 1000")
		}
		limit = n
	}
	out, err := OpLogPage(a.Store, d, era(e), role, since, limit)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, out)
}

// OpLogPage is the page of d's op log in an era that GET …/ops answers (and MCP's
// get_history): the accepted requests after since, oldest first, at most limit (1 to 1000)
// and MaxOpLogPageBytes of them; role is the caller's (viewers may not read the op log of a
// type that can hold secrets).
func OpLogPage(st *store.Store, d store.Document, eraID, role string, since int64, limit int) (OpLogJSON, error) {
	if !store.CanEdit(role) && ops.CanHoldSecrets(d.DocumentType) {
		return OpLogJSON{}, apierr.Forbidden("the op log of a %s is for the world's owners, admins and editors: it can hold secret sections; read the document or follow its event stream instead", d.DocumentType)
	}
	if since < 0 {
		return OpLogJSON{}, apierr.Field("since", "since must be a version: a whole number from 0")
	}
	if limit < 1 || limit > 1000 {
		return OpLogJSON{}, apierr.Field("limit", "limit must be a whole number from 1 to 1000")
	}
	c, err := st.Content(d, eraID)
	if err != nil {
		return OpLogJSON{}, err
	}
	kept, err := st.OpLogSpan(d, eraID, 0, c.Version)
	if err != nil {
		return OpLogJSON{}, err
	}
	start := max(since, kept.Oldest-1)
	out := OpLogJSON{DocumentType: d.DocumentType, Version: c.Version, Since: since, OldestVersion: kept.Oldest, Truncated: start > since, Items: []OpLogItemJSON{}}
	size := 0
	err = st.ScanOpLog(d, eraID, start, c.Version, func(en store.LogEntry) error {
		if n := len(out.Items); n > 0 && (n == limit || size+en.Size > MaxOpLogPageBytes || en.Version != out.Items[n-1].Version+1) {
			// Full, or a gap: entries went while the page was read, and the next page
			// starts at the oldest version kept.
			out.HasMore = true
			return errPageFull
		}
		if len(out.Items) == 0 && en.Version > start+1 { // as above, before the first entry
			out.OldestVersion, out.Truncated = en.Version, true
		}
		ops := make([]any, len(en.Ops))
		for j, op := range en.Ops {
			ops[j] = op
		}
		out.Items = append(out.Items, OpLogItemJSON{Version: en.Version, Ops: ops, Actor: CredentialActor{ID: en.ActorID}, Created: apiTime(en.Created), Client: en.Client})
		size += en.Size
		return nil
	})
	if err != nil && !errors.Is(err, errPageFull) {
		return OpLogJSON{}, err
	}
	return out, nil
}
