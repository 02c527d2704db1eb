// Package ops holds Loreweave's typed content operations: for every document type, the shape
// of its data, the operations that change it, and its plain-text projection.
//
// It is pure: no I/O, no storage, no HTTP. Callers hand in the current state and a batch of
// operations and get back the new state, or an *Error that names the failing operation. A
// batch applies all or none; the state handed in is never modified.
//
// An operation is a JSON object {"op": "<type>.<verb>", ...params}; Catalog lists them all.
// An op that addresses an existing item names it "id"; other parameters are named as in the
// data. Unknown parameters are rejected. Ids the service assigns are a type prefix ("evt-",
// "sec-", "pin-") and a random suffix. Every list in a document has a maximum length, and
// every string a maximum length in characters (runes), so a document cannot grow without
// bound.
//
// Each op returns its applied form, what the op log stores and live watchers receive: a
// complete op object with the final values. An add op carries the whole new item (id
// included), an update op the id and the fields it set, a remove op the id.
//
// Text positions in card.editSectionText are UTF-16 code units, as in JavaScript strings; see
// TransformSplices for how concurrent edits are merged.
package ops

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// MaxNesting is the deepest JSON nesting accepted in an operation.
const MaxNesting = 32

// Document is one document's decoded content. Implementations are owned by this package;
// callers treat a Document as an immutable value.
type Document interface {
	// Type is the document type ("timeline", "card", ...).
	Type() string
	// JSON is the canonical encoding of the data, as stored and served.
	JSON() []byte
	// Text is the plain-text projection used by reads and search. name is the document's
	// metadata name; a type whose data carries its own name (card) prefers that one.
	Text(name string) string
	// clone returns a deep copy that apply may change freely.
	clone() Document
}

// MarkdownText is implemented by documents part of whose text is Markdown (a card's section
// bodies, a folder's description). PlainText is Text with each Markdown part passed through
// plain first: search indexes the text as the page shows it, without the marks.
type MarkdownText interface {
	PlainText(name string, plain func(markdown string) string) string
}

// Secretive is implemented by documents that can hold parts only the world's editors may
// see (a card's secret sections).
type Secretive interface {
	HasSecrets() bool
	// Public returns the document without its secret parts (itself when it has none).
	Public() Document
	// SecretText is the plain text of the secret parts, each Markdown part through plain.
	SecretText(plain func(markdown string) string) string
}

// Public returns what a viewer of the world may see of doc: doc without its secret parts.
func Public(doc Document) Document {
	if s, ok := doc.(Secretive); ok {
		return s.Public()
	}
	return doc
}

// HasSecrets reports whether doc holds parts only editors may see.
func HasSecrets(doc Document) bool {
	s, ok := doc.(Secretive)
	return ok && s.HasSecrets()
}

// asIs leaves Markdown as it is written.
func asIs(markdown string) string { return markdown }

// Env is what an operation may need to know about the world around the document. Every
// field is optional; a nil function means "not available" and ops that need it reject.
type Env struct {
	// NewID returns a fresh random suffix for an id with the given prefix ("evt-"). Nil uses
	// crypto/rand. Tests set it for deterministic output.
	NewID func(prefix string) string
	// DocumentExists reports whether id names a document of the same world (map pin links).
	DocumentExists func(id string) bool
	// History returns the batches applied to this document after version since, oldest
	// first, each with its ops as applied: every version from since+1 to the request's
	// Version, else the edit is rejected as stale. Used to transform concurrent text edits
	// (card.editSectionText); an error or a nil func makes such an edit stale_base_version.
	History func(since int64) ([]Batch, error)
}

// Batch is one accepted request from the op log: its version, its ops as applied and the
// client id of the editor that sent it ("" for none), which settles ties between concurrent
// text edits (see the package comment on concurrent text editing).
type Batch struct {
	Version  int64             `json:"version"`
	Ops      []json.RawMessage `json:"ops"`
	ClientID string            `json:"clientId,omitempty"`
}

// Created names an item a batch created, for the response's "created" list.
type Created struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// Result is the outcome of a successful batch.
type Result struct {
	// Doc is the new content; the input document is unchanged.
	Doc Document
	// Applied holds each op as applied: ids the service assigned filled in, text splices
	// transformed. It is what the op log stores and live watchers receive.
	Applied []json.RawMessage
	// Created lists the items created, in op order.
	Created []Created

	// splices counts the text splices of the request so far (maxRequestSplices).
	splices int
	// rebaseWork counts the request's rebasing so far (maxRebaseWork).
	rebaseWork int
	// history holds the op log's changes to one section, read once per request.
	history *textHistory
	// priorEdits holds what the request's ops applied so far changed to texts, read once
	// each; priorRead counts the ops read.
	priorEdits []*textChange
	priorRead  int
}

// Request is one batch to apply to one document.
type Request struct {
	// Version is the document's version before this batch (0 if never written).
	Version int64
	Ops     []json.RawMessage
	Env     Env
	// Internal lets the batch hold ops only the service makes (RestoreOp).
	Internal bool
	// ClientID is the client id of the editor sending the batch ("" for none): where its
	// text edits and concurrent ones insert at one point, the smaller id's text comes first.
	ClientID string
}

// docType describes one built-in document type.
type docType struct {
	name   string
	empty  func() Document
	decode func(data []byte) (Document, error)
	ops    map[string]opFunc
}

// opCtx is what one op sees while it is applied.
type opCtx struct {
	index int
	name  string
	raw   json.RawMessage
	// written is the op as the client wrote it, before normalizeNewlines.
	written json.RawMessage
	env     Env
	client  string // the request's ClientID
	version int64
	// prior holds the ops of this batch already applied, for text transforms.
	prior []json.RawMessage
	out   *Result
	// replay is set when re-applying ops as applied (Replay): parameters the applied form
	// adds are accepted, and a new item takes the id the op recorded.
	replay   bool
	replayID string
	// changesOf returns what an op as applied changed in the document's texts, for rebasing
	// text edits.
	changesOf func(op json.RawMessage) ([]*textChange, error)
}

// opFunc applies one op to doc (a private clone) and returns the op as applied.
type opFunc func(c *opCtx, doc Document) (applied any, err error)

var registry = map[string]*docType{}

func register(t *docType) { registry[t.name] = t }

// Types returns the built-in document types, sorted.
func Types() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// IsBuiltin reports whether docType is a built-in document type.
func IsBuiltin(docType string) bool {
	_, ok := registry[docType]
	return ok
}

// Supported returns the ops a document type accepts, sorted; empty for a type with none.
func Supported(docType string) []string {
	t, ok := registry[docType]
	if !ok {
		return []string{}
	}
	names := make([]string, 0, len(t.ops))
	for n := range t.ops {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Empty returns the empty content of a document type. Types without a built-in shape (those
// of installed tools) get an empty object.
func Empty(docType string) Document {
	if t, ok := registry[docType]; ok {
		return t.empty()
	}
	return &opaque{typ: docType, data: []byte("{}")}
}

// Decode reads stored data of a document type. Data of a type without a built-in shape is
// kept as it is (it must still be a JSON object).
func Decode(docType string, data []byte) (Document, error) {
	if len(bytes.TrimSpace(data)) == 0 || bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return Empty(docType), nil
	}
	if t, ok := registry[docType]; ok {
		d, err := t.decode(data)
		if err != nil {
			return nil, fmt.Errorf("ops: decode %s: %w", docType, err)
		}
		return d, nil
	}
	if !ValidJSON(data) || bytes.TrimSpace(data)[0] != '{' {
		return nil, fmt.Errorf("ops: decode %s: data is not a JSON object", docType)
	}
	return &opaque{typ: docType, data: slices.Clone(data)}, nil
}

// Apply applies a batch of ops to doc, in order, all or none. doc is not modified. On failure
// the error is an *Error naming the op (OpIndex) that failed.
func Apply(doc Document, req Request) (Result, error) {
	return apply(doc, req, false)
}

// Replay re-applies ops as they were applied (from the op log) to the state they were
// applied to, and returns the same result: assigned ids are the recorded ones, text splices
// are already transformed, links were checked when first applied. It rebuilds a document's
// state from its history.
func Replay(doc Document, version int64, applied []json.RawMessage) (Document, error) {
	env := Env{
		DocumentExists: func(string) bool { return true },
		History:        func(int64) ([]Batch, error) { return nil, nil },
	}
	res, err := apply(doc, Request{Version: version, Ops: applied, Env: env}, true)
	if err != nil {
		return nil, err
	}
	return res.Doc, nil
}

func apply(doc Document, req Request, replay bool) (Result, error) {
	if req.Env.History != nil {
		req.Env.History = memoHistory(req.Env.History)
	}
	t := registry[doc.Type()]
	tool, _ := doc.(*toolDoc)
	changesOf := cardTextChanges
	if tool != nil {
		changesOf = tool.t.toolTextChanges
	}
	work := doc.clone()
	res := Result{Applied: make([]json.RawMessage, 0, len(req.Ops)), Created: []Created{}}
	for i, raw := range req.Ops {
		written := raw
		if !replay {
			raw = normalizeNewlines(raw)
		}
		name, err := opName(raw)
		if err != nil {
			err.OpIndex = i
			return Result{}, err
		}
		if name == RestoreOp && (replay || req.Internal) {
			restored, applied, rErr := restore(doc, raw)
			if rErr != nil {
				rErr.OpIndex = i
				return Result{}, rErr
			}
			work = restored
			res.Applied = append(res.Applied, mustJSON(applied))
			continue
		}
		var fn opFunc
		switch {
		case tool != nil:
			fn = tool.t.opFunc(name)
		case t != nil:
			fn = t.ops[name]
		}
		if fn == nil {
			supported := Supported(doc.Type())
			if tool != nil {
				supported = tool.t.opNames()
			}
			return Result{}, &Error{
				Code:    CodeUnsupportedOperation,
				Message: fmt.Sprintf("%s documents do not support the operation %q; supported: %s", doc.Type(), Echo(name), listOrNone(supported)),
				OpIndex: i,
				Details: map[string]any{"supported": supported, "documentType": doc.Type()},
			}
		}
		c := &opCtx{index: i, name: name, raw: raw, written: written, env: req.Env, client: req.ClientID, version: req.Version, prior: res.Applied, out: &res, replay: replay, changesOf: changesOf}
		if replay {
			var rec struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(raw, &rec)
			c.replayID = rec.ID
		}
		applied, opErr := fn(c, work)
		if opErr != nil {
			if e, ok := opErr.(*Error); ok {
				e.OpIndex = i
				return Result{}, e
			}
			return Result{}, &Error{Code: CodeInvalidField, Message: opErr.Error(), OpIndex: i}
		}
		b, mErr := json.Marshal(applied)
		if mErr != nil {
			return Result{}, fmt.Errorf("ops: encode applied %s: %w", name, mErr)
		}
		res.Applied = append(res.Applied, b)
	}
	if d, ok := work.(*toolDoc); ok && !replay && len(req.Ops) > 0 {
		// A tool type's data always validates: each op checks what it writes, and the
		// whole document is checked once its ops are applied.
		if err := d.validate(); err != nil {
			err.OpIndex = len(req.Ops) - 1
			err.Message = "the request would leave the document invalid: " + err.Message
			return Result{}, err
		}
	}
	res.Doc = work
	return res, nil
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// opName reads the "op" member of one operation object.
func opName(raw json.RawMessage) (string, *Error) {
	if name, ok := quickOpName(raw); ok {
		return name, nil
	}
	return strictOpName(raw)
}

// strictOpName is opName without the short cut: encoding/json decides.
func strictOpName(raw json.RawMessage) (string, *Error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return "", &Error{Code: CodeInvalidField, Field: "op", Message: "each operation must be a JSON object with an \"op\" member"}
	}
	// The member is "op" exactly (member names are case-sensitive; a struct field would
	// also take "OP" or "Op"); the last of duplicates, as encoding/json keeps.
	var members map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &members); err != nil {
		return "", &Error{Code: CodeInvalidField, Field: "op", Message: "each operation must be a JSON object with an \"op\" member"}
	}
	op, ok := members["op"]
	if !ok {
		return "", &Error{Code: CodeInvalidField, Field: "op", Message: "the operation has no \"op\" member naming it (for example \"timeline.addEvent\")"}
	}
	var name string
	if err := json.Unmarshal(op, &name); err != nil || name == "" {
		return "", &Error{Code: CodeInvalidField, Field: "op", Message: "\"op\" must be a non-empty string naming the operation (for example \"timeline.addEvent\")"}
	}
	return name, nil
}

// newID returns prefix + a random suffix.
func (c *opCtx) newID(prefix string) string {
	if c.replay && strings.HasPrefix(c.replayID, prefix) {
		return c.replayID
	}
	if c.env.NewID != nil {
		return prefix + c.env.NewID(prefix)
	}
	return prefix + randomSuffix(12)
}

const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

func randomSuffix(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("ops: crypto/rand failed: %v", err))
	}
	for i := range b {
		b[i] = idAlphabet[int(b[i])%len(idAlphabet)]
	}
	return string(b)
}

// opaque is the content of a type without a built-in shape (an installed tool's type).
type opaque struct {
	typ  string
	data []byte
}

func (o *opaque) Type() string            { return o.typ }
func (o *opaque) JSON() []byte            { return o.data }
func (o *opaque) Text(name string) string { return name }
func (o *opaque) clone() Document         { return &opaque{typ: o.typ, data: slices.Clone(o.data)} }

// memoHistory reads the history once per request: every editSectionText op of a request asks
// for the changes since its baseVersion, and reading (and decoding) the op log once per op
// made a request of many such ops cost its length times the history's. A later call for an
// older version reads again, from there.
func memoHistory(history func(since int64) ([]Batch, error)) func(since int64) ([]Batch, error) {
	from, cached := int64(-1), []Batch(nil)
	return func(since int64) ([]Batch, error) {
		if from < 0 || since < from {
			b, err := history(since)
			if err != nil {
				return nil, err
			}
			from, cached = since, b
		}
		i := sort.Search(len(cached), func(i int) bool { return cached[i].Version > since })
		return cached[i:], nil
	}
}

// normalizeNewlines returns op with every "\r\n" and lone "\r" in its strings made "\n":
// text has one line ending, as in the browser editor, so positions counted by a client and
// by the server cannot drift apart. An op without a carriage return is returned as it is.
func normalizeNewlines(op json.RawMessage) json.RawMessage {
	if !bytes.Contains(op, []byte(`\r`)) && !escapesCR(op) {
		return op
	}
	dec := json.NewDecoder(bytes.NewReader(op))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return op // the op's own decoding reports it
	}
	out, err := json.Marshal(crlfToLF(v))
	if err != nil {
		return op
	}
	return out
}

// escapesCR reports whether op may hold a carriage return written as \u000d or \u000D.
func escapesCR(op []byte) bool {
	for {
		i := bytes.Index(op, []byte(`\u000`))
		if i < 0 || i+5 >= len(op) {
			return false
		}
		if op[i+5]|0x20 == 'd' {
			return true
		}
		op = op[i+5:]
	}
}

func crlfToLF(v any) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(strings.ReplaceAll(x, "\r\n", "\n"), "\r", "\n")
	case []any:
		for i := range x {
			x[i] = crlfToLF(x[i])
		}
	case map[string]any:
		for k, e := range x {
			x[k] = crlfToLF(e)
		}
	}
	return v
}
