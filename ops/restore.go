package ops

import (
	"encoding/json"
	"fmt"
)

// RestoreOp is the operation that sets a document's whole content back to what it was at an
// earlier version: {"op": "document.restore", "version": N, "data": {…}}. Only the service
// makes it (Request.Internal: a restore of the document's history); a client that sends it
// gets unsupported_operation like any op its type lacks. Its applied form is the same object
// with data in canonical form, so the op log can replay it (Replay) and live watchers that
// receive it take its data as the document's new content, as they would a snapshot.
const RestoreOp = "document.restore"

// RestoreOpJSON returns the restore op that sets content back to doc, the content of the
// document at version.
func RestoreOpJSON(version int64, doc Document) json.RawMessage {
	return mustJSON(restoreApplied{Op: RestoreOp, Version: version, Data: doc.JSON()})
}

type restoreApplied struct {
	Op      string          `json:"op"`
	Version int64           `json:"version"`
	Data    json.RawMessage `json:"data"`
}

// restore applies a RestoreOp to a document: it returns the restored content and the op as
// applied.
func restore(current Document, raw json.RawMessage) (Document, any, *Error) {
	var p struct {
		Op      string          `json:"op"`
		Version *int64          `json:"version"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &p); err != nil || p.Version == nil || *p.Version < 0 || len(p.Data) == 0 {
		return nil, nil, &Error{Code: CodeInvalidField, Message: fmt.Sprintf("%s needs a \"version\" (a whole number) and the \"data\" to restore", RestoreOp)}
	}
	var doc Document
	var err error
	if t, ok := current.(*toolDoc); ok {
		doc, err = t.t.Decode(p.Data)
	} else {
		doc, err = Decode(current.Type(), p.Data)
	}
	if err != nil {
		return nil, nil, &Error{Code: CodeInvalidField, Field: "data", Message: err.Error()}
	}
	return doc, restoreApplied{Op: RestoreOp, Version: *p.Version, Data: doc.JSON()}, nil
}

// PublicRestoreOp returns a RestoreOp as applied with its data made public (Public): what a
// reader who may not see secret parts receives of it. Other ops come back as they are, with
// false.
func PublicRestoreOp(docType string, applied json.RawMessage) (json.RawMessage, bool) {
	name, err := opName(applied)
	if err != nil || name != RestoreOp {
		return applied, false
	}
	var p restoreApplied
	if json.Unmarshal(applied, &p) != nil {
		return applied, false
	}
	doc, derr := Decode(docType, p.Data)
	if derr != nil {
		return applied, false
	}
	return RestoreOpJSON(p.Version, Public(doc)), true
}
