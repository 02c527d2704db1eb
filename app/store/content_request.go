package store

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/ops"
)

// MaxOps bounds the operations of one content request, on every surface.
const MaxOps = 500

// ContentBody is the JSON body of a content-ops request, the same on REST, the web editor
// and MCP: the ops, and optionally the sending client's id and sequence number, which the
// op log keeps and the `ops` event echoes, so an editor recognises its own writes even when
// its user has the document open twice.
type ContentBody struct {
	Ops       *[]json.RawMessage `json:"ops"`
	ClientID  *string            `json:"clientId"`
	ClientSeq *int64             `json:"clientSeq"`
}

// DecodeContentBody reads a content request's body (apierr.DecodeJSON). A member named
// twice inside an op is that op's fault: the error names it as ops.Apply names the op's
// other faults, with opIndex and the field's path inside the op.
func DecodeContentBody(w http.ResponseWriter, r *http.Request) (ContentBody, error) {
	var b ContentBody
	err := apierr.DecodeJSON(w, r, &b)
	var e *apierr.Error
	if errors.As(err, &e) && e.Code == ops.CodeInvalidField {
		field, _ := e.Details["field"].(string)
		if m := inOp.FindStringSubmatch(field); m != nil {
			i, _ := strconv.Atoi(m[1])
			return b, &ops.Error{Code: ops.CodeInvalidField, OpIndex: i, Field: m[2], Message: e.Message}
		}
	}
	return b, err
}

// inOp matches the path of a member inside an op of a ContentBody ("ops[2].clips[0].id").
var inOp = regexp.MustCompile(`^ops\[(\d+)\]\.(.+)$`)

// Client names the editor a write came from: an id the client chose (unique per open
// editor) and its own sequence number for the write. Both are empty for writes that
// carry none.
type Client struct {
	ID  string `json:"clientId,omitempty"`
	Seq int64  `json:"clientSeq,omitempty"`
}

var clientIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// maxClientSeq keeps sequence numbers exact in JavaScript.
const maxClientSeq = 1<<53 - 1

// WriteRequest checks the body and returns the write it asks for.
func (b ContentBody) WriteRequest(d Document, eraID string, actor Actor) (WriteRequest, error) {
	if b.Ops == nil || len(*b.Ops) == 0 {
		return WriteRequest{}, apierr.Field("ops", "\"ops\" must be an array of at least one operation, e.g. [{\"op\": \"timeline.addEvent\", \"label\": \"…\", \"dateMs\": 0}]")
	}
	if len(*b.Ops) > MaxOps {
		return WriteRequest{}, apierr.New(http.StatusRequestEntityTooLarge, "too_many_ops", "a request may carry at most %d operations (got %d); split it", MaxOps, len(*b.Ops)).With("limit", MaxOps)
	}
	var c Client
	if b.ClientID != nil {
		if !clientIDPattern.MatchString(*b.ClientID) {
			return WriteRequest{}, apierr.Field("clientId", "\"clientId\" must be 1 to 64 letters, digits, '-' or '_'")
		}
		c.ID = *b.ClientID
	}
	if b.ClientSeq != nil {
		if c.ID == "" {
			return WriteRequest{}, apierr.Field("clientSeq", "\"clientSeq\" needs a \"clientId\"")
		}
		if *b.ClientSeq < 0 || *b.ClientSeq > maxClientSeq {
			return WriteRequest{}, apierr.Field("clientSeq", "\"clientSeq\" must be an integer from 0 to 2^53-1")
		}
		c.Seq = *b.ClientSeq
	}
	return WriteRequest{Document: d, EraID: eraID, Ops: *b.Ops, Actor: actor, Client: c}, nil
}
