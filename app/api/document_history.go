package api

import (
	"net/http"
	"strconv"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

// PastVersionJSON is a read of a document as it was at an earlier version (?version=N): the
// single-document read's shape, with who made that version and when.
type PastVersionJSON struct {
	DocumentWithContentJSON
	// CurrentVersion is the document's version now.
	CurrentVersion int64           `json:"currentVersion"`
	Actor          CredentialActor `json:"versionActor"`
	Created        string          `json:"versionCreated"`
}

// getPastVersion serves GET …/documents/{documentId}?version=N: the content rebuilt from the
// document's history (store.VersionAt), without secret parts for a viewer.
func (a *API) getPastVersion(e *core.RequestEvent, d store.Document, role, v string) error {
	version, err := strconv.ParseInt(v, 10, 64)
	if err != nil || version < 0 {
		return apierr.Field("version", "version must be a version of the document: a whole number from 0")
	}
	past, err := a.Store.VersionAt(d, era(e), version)
	if err != nil {
		return err
	}
	doc := past.Doc
	if !store.CanEdit(role) {
		doc = ops.Public(doc)
	}
	c, err := a.Store.Content(d, era(e))
	if err != nil {
		return err
	}
	out := PastVersionJSON{
		DocumentWithContentJSON: DocumentWithContentJSON{
			DocumentJSON: documentJSON(d),
			Version:      version,
			Content:      ContentJSON{Data: doc.JSON(), Source: "history", Text: doc.Text(d.Name)},
		},
		CurrentVersion: c.Version,
		Actor:          CredentialActor{ID: past.ActorID},
		Created:        apiTime(past.Created),
	}
	return e.JSON(http.StatusOK, out)
}

type restoreBody struct {
	Version *int64 `json:"version"`
}

// restoreDocument serves POST …/documents/{documentId}/restore {"version": N}: a new version
// whose content equals version N's, written like any content write (store.Restore); it
// answers like a content write.
func (a *API) restoreDocument(e *core.RequestEvent) error {
	_, d, err := a.document(e, auth.EditContent)
	if err != nil {
		return err
	}
	var body restoreBody
	if err := decode(e, &body); err != nil {
		return err
	}
	if body.Version == nil || *body.Version < 0 {
		return apierr.Field("version", "\"version\" must be the version to restore: a whole number from 0")
	}
	res, err := a.Store.Restore(d, era(e), *body.Version, auth.PrincipalOf(e).Actor())
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, res)
}
