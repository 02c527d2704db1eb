package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
)

// DocumentJSON is a document's metadata.
type DocumentJSON struct {
	ID           string `json:"id"`
	WorldID      string `json:"worldId"`
	Name         string `json:"name"`
	DocumentType string `json:"documentType"`
	ParentID     string `json:"parentId"`
	EraID        string `json:"eraId"`
	Created      string `json:"created"`
	Updated      string `json:"updated"`
}

// DocumentWithContentJSON is a single-document read: metadata, version and content.
type DocumentWithContentJSON struct {
	DocumentJSON
	Version int64       `json:"version"`
	Content ContentJSON `json:"content"`
}

// ContentJSON is a document's content as read.
type ContentJSON struct {
	Data   json.RawMessage `json:"data"`
	Source string          `json:"source"`
	Text   string          `json:"text"`
}

func documentJSON(d store.Document) DocumentJSON {
	return DocumentJSON{ID: d.ID, WorldID: d.WorldID, Name: d.Name, DocumentType: d.DocumentType, ParentID: d.ParentID,
		EraID: d.EraID, Created: apiTime(d.Created), Updated: apiTime(d.Updated)}
}

// era reads ?era= ("" is the main line).
func era(e *core.RequestEvent) string { return e.Request.URL.Query().Get("era") }

// document resolves the world (checked for need) and a document visible in ?era=.
func (a *API) document(e *core.RequestEvent, need auth.Need) (store.World, store.Document, error) {
	w, d, _, err := a.documentAs(e, need)
	return w, d, err
}

// documentAs is document that also returns the caller's role in the world: content reads
// leave secret parts out for roles that may not edit (see readContent).
func (a *API) documentAs(e *core.RequestEvent, need auth.Need) (store.World, store.Document, string, error) {
	w, role, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), need)
	if err != nil {
		return store.World{}, store.Document{}, "", err
	}
	if _, err := a.Store.EraChain(w.ID, era(e)); err != nil {
		return store.World{}, store.Document{}, "", err
	}
	d, err := a.Store.Document(w.ID, e.Request.PathValue("documentId"), era(e))
	if err != nil {
		return store.World{}, store.Document{}, "", apierr.NotFound("document")
	}
	return w, d, role, nil
}

// readContent reads d's content in ?era= as role may see it: the world's editors see secret
// sections, viewers get the content without them.
func (a *API) readContent(e *core.RequestEvent, d store.Document, role string) (store.Content, error) {
	c, err := a.Store.Content(d, era(e))
	if err != nil || store.CanEdit(role) {
		return c, err
	}
	return c.Public(d), nil
}

type createDocumentBody struct {
	Name         *string `json:"name"`
	DocumentType *string `json:"documentType"`
	ParentID     *string `json:"parentId"`
}

func (a *API) createDocument(e *core.RequestEvent) error {
	p := auth.PrincipalOf(e)
	w, _, err := a.Access.World(p, e.Request.PathValue("worldId"), auth.Edit)
	if err != nil {
		return err
	}
	if _, err := a.Store.EraChain(w.ID, era(e)); err != nil {
		return err
	}
	var body createDocumentBody
	if err := decode(e, &body); err != nil {
		return err
	}
	n, err := required("name", body.Name)
	if err != nil {
		return err
	}
	docType, err := required("documentType", body.DocumentType)
	if err != nil {
		return err
	}
	d, err := a.Store.CreateDocument(w.ID, era(e), n, docType, deref(body.ParentID), p.Actor())
	if err != nil {
		return err
	}
	return e.JSON(http.StatusCreated, documentJSON(d))
}

func (a *API) listDocuments(e *core.RequestEvent) error {
	w, _, err := a.Access.World(auth.PrincipalOf(e), e.Request.PathValue("worldId"), auth.ReadMeta)
	if err != nil {
		return err
	}
	pg, err := page(e)
	if err != nil {
		return err
	}
	ds, total, err := a.Store.Documents(w.ID, store.DocumentFilter{EraID: era(e), DocumentType: e.Request.URL.Query().Get("documentType")}, pg)
	if err != nil {
		return err
	}
	items := make([]DocumentJSON, len(ds))
	for i, d := range ds {
		items[i] = documentJSON(d)
	}
	return e.JSON(http.StatusOK, list(items, pg, total))
}

func (a *API) getDocument(e *core.RequestEvent) error {
	_, d, role, err := a.documentAs(e, auth.ReadContent)
	if err != nil {
		return err
	}
	if v := e.Request.URL.Query().Get("version"); v != "" {
		return a.getPastVersion(e, d, role, v)
	}
	c, err := a.readContent(e, d, role)
	if err != nil {
		return err
	}
	out := DocumentWithContentJSON{
		DocumentJSON: documentJSON(d),
		Version:      c.Version,
		Content:      ContentJSON{Data: c.Data, Source: c.Source, Text: c.Text},
	}
	if e.Request.URL.Query().Has("fields") { // PocketBase's field picking
		return e.JSON(http.StatusOK, out)
	}
	body, ok := out.appendJSON(nil)
	if !ok {
		return e.JSON(http.StatusOK, out)
	}
	e.Response.Header().Set("Content-Type", "application/json")
	e.Response.WriteHeader(http.StatusOK)
	_, err = e.Response.Write(body)
	return err
}

// appendJSON appends d as encoding/json's Encoder writes it (a line), copying the content's
// data as it is: the stored data is compact JSON with HTML characters escaped, as ops wrote
// it, which the encoder would check and compact again byte by byte (single reads of long
// timelines spent a twentieth of the server's CPU there under the mixed load). ok is false
// for data that might read differently once encoded (a character the encoder escapes);
// the caller then encodes d the usual way.
func (d DocumentWithContentJSON) appendJSON(b []byte) (_ []byte, ok bool) {
	data := d.Content.Data
	if encoderEscapes(data) || !isJSONContainer(data) {
		return b, false
	}
	head, err := json.Marshal(struct {
		DocumentJSON
		Version int64 `json:"version"`
	}{d.DocumentJSON, d.Version})
	if err != nil {
		return b, false
	}
	source, _ := json.Marshal(d.Content.Source) // strings: cannot fail
	text, _ := json.Marshal(d.Content.Text)
	b = append(b, head[:len(head)-1]...)
	b = append(b, `,"content":{"data":`...)
	b = append(b, data...)
	b = append(b, `,"source":`...)
	b = append(b, source...)
	b = append(b, `,"text":`...)
	b = append(b, text...)
	return append(b, "}}\n"...), true
}

// encoderEscapes reports whether encoding/json would write JSON text b differently: it
// escapes <, >, & and the line and paragraph separators U+2028 and U+2029. One search per
// character (vector instructions): bytes.ContainsAny with the separators decodes b rune by
// rune, 50 times slower (0.13 ms for a 58 KB timeline, on every read of one).
func encoderEscapes(b []byte) bool {
	return bytes.IndexByte(b, '<') >= 0 || bytes.IndexByte(b, '>') >= 0 || bytes.IndexByte(b, '&') >= 0 ||
		bytes.Contains(b, []byte("\u2028")) || bytes.Contains(b, []byte("\u2029"))
}

// isJSONContainer reports whether data starts and ends like one JSON object or array, as
// the data ops write does (anything else, nothing included, goes through the encoder).
func isJSONContainer(data []byte) bool {
	if len(data) == 0 {
		return false
	}
	first, last := data[0], data[len(data)-1]
	return first == '{' && last == '}' || first == '[' && last == ']'
}

func (a *API) applyContentOps(e *core.RequestEvent) error {
	_, d, err := a.document(e, auth.EditContent)
	if err != nil {
		return err
	}
	body, err := store.DecodeContentBody(e.Response, e.Request)
	if err != nil {
		return err
	}
	req, err := body.WriteRequest(d, era(e), auth.PrincipalOf(e).Actor())
	if err != nil {
		return err
	}
	res, err := a.Store.ApplyOps(req)
	if err != nil {
		return err
	}
	return RespondWrite(e, res)
}

// RespondWrite answers a content write (REST or the web editor's) with res, as e.JSON would
// (a line of JSON) but without encoding/json's reflection and its second pass over the
// applied ops, which are compact JSON already (a twentieth of a 10-op write's CPU went
// there). With PocketBase's field picking asked for, or ops the encoder would escape
// differently, it is e.JSON.
func RespondWrite(e *core.RequestEvent, res store.WriteResult) error {
	if e.Request.URL.Query().Has("fields") || encoderEscapes(res.Ops) || !isJSONContainer(res.Ops) {
		return e.JSON(http.StatusOK, res)
	}
	b := make([]byte, 0, 128+len(res.Ops))
	b = append(b, `{"documentType":`...)
	b = appendJSONString(b, res.DocumentType)
	b = append(b, `,"applied":`...)
	b = strconv.AppendInt(b, int64(res.Applied), 10)
	b = append(b, `,"created":`...)
	if res.Created == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, c := range res.Created {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = appendJSONString(b, c.ID)
			b = append(b, `,"label":`...)
			b = appendJSONString(b, c.Label)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, res.Version, 10)
	b = append(b, `,"ops":`...)
	b = append(b, res.Ops...)
	if res.Client.ID != "" {
		b = append(b, `,"clientId":`...)
		b = appendJSONString(b, res.Client.ID)
	}
	if res.Client.Seq != 0 {
		b = append(b, `,"clientSeq":`...)
		b = strconv.AppendInt(b, res.Client.Seq, 10)
	}
	b = append(b, "}\n"...)
	e.Response.Header().Set("Content-Type", "application/json")
	e.Response.WriteHeader(http.StatusOK)
	_, err := e.Response.Write(b)
	return err
}

// appendJSONString appends s as encoding/json writes it: quoted as it is when it holds
// only printable ASCII the encoder leaves alone, else by the encoder.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string: cannot fail
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
