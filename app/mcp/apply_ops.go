package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

// maxOpsPerCall bounds one apply_content_ops call, like the REST route.
const maxOpsPerCall = 500

// applyOpsSchema is apply_content_ops's input schema: ApplyOpsIn's, with each op typed. The
// items are a oneOf of every built-in op's closed schema (the catalogue the decoder is
// described by) and, last, any op of a type an installed tool adds (list_types has those).
func applyOpsSchema() *jsonschema.Schema {
	s, err := jsonschema.For[ApplyOpsIn](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: apply_content_ops schema: %v", err)) // a fixed Go type: cannot fail
	}
	var variants []any
	for _, spec := range ops.Catalog() {
		variants = append(variants, spec.Schema())
	}
	variants = append(variants, map[string]any{
		"type": "object", "title": "an installed tool's op",
		"description": "An operation of a document type added by a tool installed in the world: call list_types for its parameters.",
		"required":    []string{"op"},
		// Tool types cannot take a built-in type's name, so no built-in type's op is one.
		"properties": map[string]any{"op": map[string]any{"type": "string", "pattern": `^[a-z][a-z0-9_]*\.[a-z][A-Za-z0-9]*$`,
			"not": map[string]any{"pattern": "^(" + strings.Join(ops.Types(), "|") + `)\.`}}},
	})
	data, err := json.Marshal(map[string]any{"oneOf": variants})
	if err != nil {
		panic(fmt.Sprintf("mcp: apply_content_ops schema: %v", err))
	}
	var items jsonschema.Schema
	if err := json.Unmarshal(data, &items); err != nil {
		panic(fmt.Sprintf("mcp: apply_content_ops schema: %v", err))
	}
	opsProp := s.Properties["ops"]
	opsProp.Items = &items
	opsProp.MinItems = new(1)
	opsProp.MaxItems = new(maxOpsPerCall)
	return s
}

// outputSchema is the output schema the SDK would infer for T.
func outputSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: output schema: %v", err)) // a fixed Go type: cannot fail
	}
	return s
}

// applyOps runs one apply_content_ops call: its arguments read strictly, then the one write
// path.
func (s *Server) applyOps(req *sdk.CallToolRequest) (*opsResultJSON, store.Document, error) {
	var in ApplyOpsIn
	if err := strictArgs(req.Params.Arguments, &in); err != nil {
		return nil, store.Document{}, err
	}
	switch {
	case in.WorldID == "":
		return nil, store.Document{}, apierr.Field("worldId", "\"worldId\" is required")
	case in.DocumentID == "":
		return nil, store.Document{}, apierr.Field("documentId", "\"documentId\" is required")
	case len(in.Ops) == 0:
		return nil, store.Document{}, apierr.Field("ops", "\"ops\" must hold at least one operation")
	case len(in.Ops) > maxOpsPerCall:
		return nil, store.Document{}, apierr.New(413, "too_many_ops", "at most %d operations per call", maxOpsPerCall).With("limit", maxOpsPerCall)
	}
	d, _, err := s.document(req, in.WorldID, in.DocumentID, in.Era, auth.EditContent)
	if err != nil {
		return nil, store.Document{}, err
	}
	p, _ := principal(req)
	res, err := s.Store.ApplyOps(store.WriteRequest{Document: d, EraID: in.Era, Ops: in.Ops, Actor: p.Actor()})
	if err != nil {
		return nil, store.Document{}, err
	}
	return &opsResultJSON{DocumentType: res.DocumentType, Applied: res.Applied, Created: res.Created, Version: res.Version, Ops: res.Ops}, d, nil
}

// opsResultJSON is OpsResult as sent: the ops as applied, byte for byte (a map would read
// their numbers as floats).
type opsResultJSON struct {
	DocumentType string          `json:"documentType"`
	Applied      int             `json:"applied"`
	Created      []ops.Created   `json:"created"`
	Version      int64           `json:"version"`
	Ops          json.RawMessage `json:"ops"`
}

// strictArgs decodes a tool's arguments into dst: an unknown argument or one of the wrong
// type is an invalid_field error naming it.
func strictArgs(args json.RawMessage, dst any) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		return apierr.Field(te.Field, "%q must be %s", te.Field, ops.JSONKind(te.Type.Kind().String()))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := ops.Echo(strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`))
		return apierr.Field(name, "unknown argument %q", name)
	default:
		return apierr.Field("arguments", "the arguments are not a JSON object: %v", err)
	}
}

// inputSchema is the input schema the SDK would infer for T, with some properties replaced.
func inputSchema[T any](props map[string]*jsonschema.Schema) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema: %v", err)) // a fixed Go type: cannot fail
	}
	for name, p := range props {
		if _, ok := s.Properties[name]; !ok {
			panic("mcp: input schema: no property " + name)
		}
		s.Properties[name] = p
	}
	return s
}

// openEnum is a string that is one of the built-in values or, since a world's tools add
// their own, another name of that form: clients offer the built-in ones.
func openEnum(description string, builtin []string) *jsonschema.Schema {
	values := make([]any, len(builtin))
	for i, v := range builtin {
		values[i] = v
	}
	return &jsonschema.Schema{Type: "string", Description: description, AnyOf: []*jsonschema.Schema{
		{Enum: values},
		{Pattern: `^[a-z][a-z0-9_-]{1,39}$`, Description: "one that a tool installed in the world adds (list_types)"},
	}}
}
