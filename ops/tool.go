package ops

import (
	"encoding/json"
	"errors"
)

// A Tool is an installable set of document types and app kinds, described by a manifest
// (tool.json; docs/TOOLS.md). Its types' ops are declared, not coded: one generic engine
// applies them, checking every value against the type's JSON Schema.
type Tool struct {
	Name        string
	Title       string
	Version     string
	Description string
	Types       []*ToolType
	AppKinds    []AppKind
	// manifest is the canonical JSON of the manifest.
	manifest []byte
}

// AppKind is a project kind a tool adds: a page that shows documents of one of its types.
type AppKind struct {
	Name        string  `json:"name"`
	Title       string  `json:"title"`
	Description string  `json:"description,omitempty"`
	View        AppView `json:"view"`
}

// AppView is what an app kind's page shows.
type AppView struct {
	// Type is "list" (a table) or "board" (columns by GroupBy's values).
	Type         string   `json:"type"`
	DocumentType string   `json:"documentType"`
	Fields       []string `json:"fields,omitempty"`
	GroupBy      string   `json:"groupBy,omitempty"`
}

// ToolType is one document type of a tool.
type ToolType struct {
	Name        string
	Title       string
	Description string
	// Tool is the name of the tool that adds the type, ToolVersion its version.
	Tool, ToolVersion string
}

// ManifestError lists what is wrong with a manifest, each problem at a JSON Pointer.
type ManifestError struct {
	Problems []Problem
}

// Problem is one thing wrong with a manifest.
type Problem struct {
	// Pointer is the JSON Pointer of the member at fault ("/documentTypes/0/ops/2/path").
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

func (e *ManifestError) Error() string {
	if len(e.Problems) == 0 {
		return "the tool manifest is not valid"
	}
	p := e.Problems[0]
	return p.Pointer + ": " + p.Message
}

// ParseTool reads and checks a manifest. A manifest with problems is a *ManifestError
// listing every one found.
func ParseTool(data []byte) (*Tool, error) {
	return nil, errors.New("ops: tools not built yet")
}

// JSON returns the manifest's canonical JSON.
func (t *Tool) JSON() []byte { return t.manifest }

// Type returns the tool's type named name.
func (t *Tool) Type(name string) (*ToolType, bool) {
	for _, tt := range t.Types {
		if tt.Name == name {
			return tt, true
		}
	}
	return nil, false
}

// Empty returns a new document of the type: every property at its default.
func (t *ToolType) Empty() Document { return nil }

// Decode reads stored data of the type. Properties the schema has and the data lacks take
// their defaults; data the schema refuses is an *Error naming the field (JSON Pointer).
func (t *ToolType) Decode(data []byte) (Document, error) {
	return nil, errors.New("ops: tools not built yet")
}

// Schema returns the type's data schema, as written in the manifest.
func (t *ToolType) Schema() json.RawMessage { return nil }

// ToolOp describes one declared op of a tool type, for discovery.
type ToolOp struct {
	// Op is the op's "op" value ("faction.setMotto").
	Op      string `json:"op"`
	Kind    string `json:"kind"`
	Path    string `json:"path"`
	Summary string `json:"summary"`
	// Params is the JSON Schema of the op object (its "op" member included).
	Params json.RawMessage `json:"params"`
}

// Ops returns the type's ops in manifest order.
func (t *ToolType) Ops() []ToolOp { return nil }

// FormField is one field of the generic editor's form for a tool type, in layout order.
type FormField struct {
	// Path is the property's path ("motto", "relations", "relations.notes"); Key its last
	// name.
	Path  string `json:"path"`
	Key   string `json:"key"`
	Label string `json:"label"`
	Help  string `json:"help,omitempty"`
	// Kind is one of string, markdown, link, date, datetime, uri, email, enum, integer,
	// number, boolean, values (a list of scalars, set whole), list (a list of items) or
	// object.
	Kind      string   `json:"kind"`
	Enum      []string `json:"enum,omitempty"`
	Minimum   *float64 `json:"minimum,omitempty"`
	Maximum   *float64 `json:"maximum,omitempty"`
	MaxLength int      `json:"maxLength,omitempty"`
	Required  bool     `json:"required,omitempty"`
	// SetOp sets the field (whole), TextOp splices its Markdown: full op names, "" when the
	// type declares none. A field of a list's items is set by the list's UpdateOp.
	SetOp  string `json:"setOp,omitempty"`
	TextOp string `json:"textOp,omitempty"`
	// Fields are an object's properties, or a list's item properties (without id).
	Fields []FormField `json:"fields,omitempty"`
	// A list's ops.
	AppendOp string `json:"appendOp,omitempty"`
	UpdateOp string `json:"updateOp,omitempty"`
	RemoveOp string `json:"removeOp,omitempty"`
	MoveOp   string `json:"moveOp,omitempty"`
}

// Form returns the type's fields for the generic editor, in layout order.
func (t *ToolType) Form() []FormField { return nil }

// ToolData is the data of a tool document as Go values (map[string]any for objects, []any,
// string, int64, float64, bool), for renderers. Nil for other documents.
func ToolData(doc Document) map[string]any { return nil }

// CodeToolNotInstalled is the error of an op on a document whose tool is not installed.
const CodeToolNotInstalled = "tool_not_installed"
