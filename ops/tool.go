package ops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
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

	root      *schema
	schemaRaw json.RawMessage
	ops       []*toolOp
	byOp      map[string]*toolOp
	text      []textField
	layout    []string
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
	msg := p.Message
	if p.Pointer != "" {
		msg = p.Pointer + ": " + msg
	}
	if n := len(e.Problems) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more)", n)
	}
	return msg
}

// Limits of a manifest.
const (
	MaxManifestBytes = 1 << 20
	maxToolTypes     = 20
	maxToolOps       = 100
	maxToolTitle     = 200
	maxToolText      = 2000
)

var (
	toolNameRe = regexp.MustCompile(`^[a-z][a-z0-9-]{1,39}$`)
	typeNameRe = regexp.MustCompile(`^[a-z][a-z0-9_]{1,39}$`)
	opNameRe   = regexp.MustCompile(`^[a-z][a-zA-Z0-9]{0,39}$`)
	prefixRe   = regexp.MustCompile(`^[a-z]{1,8}$`)
	semverRe   = regexp.MustCompile(`^(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})(-[0-9A-Za-z.-]{1,40})?$`)
)

// Op kinds.
const (
	KindSet    = "set"
	KindAppend = "append"
	KindUpdate = "update"
	KindRemove = "remove"
	KindMove   = "move"
	KindText   = "text"
)

var opKinds = []string{KindSet, KindAppend, KindUpdate, KindRemove, KindMove, KindText}

// ParseTool reads and checks a manifest. A manifest with problems is a *ManifestError
// listing every one found.
func ParseTool(data []byte) (*Tool, error) {
	c := &checker{}
	if len(data) > MaxManifestBytes {
		c.add("", "the manifest is %d bytes; the limit is %d", len(data), MaxManifestBytes)
		return nil, &ManifestError{c.problems}
	}
	if msg := CheckJSONText(data); msg != "" {
		c.add("", "the manifest is not valid JSON: %s", msg)
		return nil, &ManifestError{c.problems}
	}
	ms, ok := members(data)
	if !ok {
		c.add("", "the manifest must be a JSON object (without repeated names)")
		return nil, &ManifestError{c.problems}
	}
	get := c.object(ms, "", []string{"$schema", "name", "title", "version", "description", "documentTypes", "appKinds"})
	t := &Tool{}
	c.str(get, "", "name", &t.Name, true)
	if t.Name != "" && !toolNameRe.MatchString(t.Name) {
		c.add("/name", "a tool's name is 2 to 40 lowercase letters, digits and -, starting with a letter")
	}
	c.str(get, "", "title", &t.Title, false)
	c.str(get, "", "description", &t.Description, false)
	c.str(get, "", "version", &t.Version, true)
	if t.Version != "" && !semverRe.MatchString(t.Version) {
		c.add("/version", "the version is MAJOR.MINOR.PATCH, like 1.0.0")
	}
	if t.Title == "" {
		t.Title = t.Name
	}
	types := c.list(get, "", "documentTypes", maxToolTypes)
	for i, raw := range types {
		if tt := c.toolType(raw, "/documentTypes/"+strconv.Itoa(i), t); tt != nil {
			if _, dup := t.Type(tt.Name); dup {
				c.add("/documentTypes/"+strconv.Itoa(i)+"/name", "the type %q is declared twice", tt.Name)
				continue
			}
			t.Types = append(t.Types, tt)
		}
	}
	kinds := c.list(get, "", "appKinds", maxToolTypes)
	for i, raw := range kinds {
		if k, ok := c.appKind(raw, "/appKinds/"+strconv.Itoa(i), t); ok {
			if slices.ContainsFunc(t.AppKinds, func(o AppKind) bool { return o.Name == k.Name }) {
				c.add("/appKinds/"+strconv.Itoa(i)+"/name", "the app kind %q is declared twice", k.Name)
				continue
			}
			t.AppKinds = append(t.AppKinds, k)
		}
	}
	if len(types) == 0 && len(kinds) == 0 && len(c.problems) == 0 {
		c.add("", "a tool adds at least one document type or app kind")
	}
	if len(c.problems) > 0 {
		return nil, &ManifestError{c.problems}
	}
	var buf bytes.Buffer
	_ = json.Compact(&buf, data)
	t.manifest = buf.Bytes()
	return t, nil
}

// object checks an object's member names against allowed and returns its members by name.
func (c *checker) object(ms []member, ptr string, allowed []string) map[string]json.RawMessage {
	get := make(map[string]json.RawMessage, len(ms))
	for _, m := range ms {
		if !slices.Contains(allowed, m.key) {
			c.add(pointer(ptr, m.key), "unknown member %q (expected: %s)", m.key, strings.Join(allowed, ", "))
			continue
		}
		get[m.key] = m.value
	}
	return get
}

func (c *checker) str(get map[string]json.RawMessage, ptr, key string, dst *string, required bool) {
	v, ok := get[key]
	if !ok {
		if required {
			c.add(pointer(ptr, key), "%q is required", key)
		}
		return
	}
	if json.Unmarshal(v, dst) != nil {
		c.add(pointer(ptr, key), "%q must be a string", key)
		return
	}
	limit := maxToolTitle
	if key == "description" || key == "summary" {
		limit = maxToolText
	}
	if len([]rune(*dst)) > limit {
		c.add(pointer(ptr, key), "%q is at most %d characters", key, limit)
	}
	if r, bad := UnsafeRuneIn(*dst); bad {
		c.add(pointer(ptr, key), "%q holds the control character U+%04X", key, r)
	}
}

func (c *checker) list(get map[string]json.RawMessage, ptr, key string, max int) []json.RawMessage {
	v, ok := get[key]
	if !ok {
		return nil
	}
	var out []json.RawMessage
	if json.Unmarshal(v, &out) != nil {
		c.add(pointer(ptr, key), "%q must be a list", key)
		return nil
	}
	if len(out) > max {
		c.add(pointer(ptr, key), "at most %d entries", max)
		return out[:max]
	}
	return out
}

func (c *checker) strings(get map[string]json.RawMessage, ptr, key string) []string {
	v, ok := get[key]
	if !ok {
		return nil
	}
	var out []string
	if json.Unmarshal(v, &out) != nil {
		c.add(pointer(ptr, key), "%q must be a list of strings", key)
		return nil
	}
	return out
}

func (c *checker) toolType(raw json.RawMessage, ptr string, tool *Tool) *ToolType {
	ms, ok := members(raw)
	if !ok {
		c.add(ptr, "a document type must be a JSON object")
		return nil
	}
	before := len(c.problems)
	get := c.object(ms, ptr, []string{"name", "title", "description", "schema", "ops", "text", "layout"})
	t := &ToolType{Tool: tool.Name, ToolVersion: tool.Version, byOp: map[string]*toolOp{}}
	c.str(get, ptr, "name", &t.Name, true)
	switch {
	case t.Name == "":
	case !typeNameRe.MatchString(t.Name):
		c.add(pointer(ptr, "name"), "a type's name is 2 to 40 lowercase letters, digits and _, starting with a letter")
	case IsBuiltin(t.Name):
		c.add(pointer(ptr, "name"), "%q is a built-in type", t.Name)
	}
	c.str(get, ptr, "title", &t.Title, false)
	c.str(get, ptr, "description", &t.Description, false)
	if t.Title == "" {
		t.Title = t.Name
	}
	sraw, ok := get["schema"]
	if !ok {
		c.add(pointer(ptr, "schema"), "\"schema\" is required: the data's JSON Schema")
		return nil
	}
	if t.root = c.compileSchema(sraw, pointer(ptr, "schema"), 0, false); t.root == nil {
		return nil
	}
	if t.root.typ != "object" {
		c.add(pointer(pointer(ptr, "schema"), "type"), "a document's schema is an object")
		return nil
	}
	var buf bytes.Buffer
	_ = json.Compact(&buf, sraw)
	t.schemaRaw = buf.Bytes()
	opsRaw := c.list(get, ptr, "ops", maxToolOps)
	if len(opsRaw) == 0 {
		c.add(pointer(ptr, "ops"), "a type declares at least one op")
	}
	for i, r := range opsRaw {
		if op := c.toolOp(r, pointer(pointer(ptr, "ops"), strconv.Itoa(i)), t); op != nil {
			if t.byOp[op.op] != nil {
				c.add(pointer(pointer(pointer(ptr, "ops"), strconv.Itoa(i)), "name"), "the op %q is declared twice", op.name)
				continue
			}
			t.ops = append(t.ops, op)
			t.byOp[op.op] = op
		}
	}
	if _, has := get["text"]; has {
		for i, p := range c.strings(get, ptr, "text") {
			fp, s, err := t.resolve(p)
			switch {
			case err != "":
				c.add(pointer(pointer(ptr, "text"), strconv.Itoa(i)), "%s", err)
			case s.typ != "string" || s.format == formatDocumentLink:
				c.add(pointer(pointer(ptr, "text"), strconv.Itoa(i)), "%q is not a text field (a string that is not a link)", p)
			default:
				t.text = append(t.text, textField{fp, s.markdown})
			}
		}
	} else {
		t.text = t.defaultText()
	}
	layout := c.strings(get, ptr, "layout")
	for i, name := range layout {
		switch {
		case t.root.prop(name) == nil:
			c.add(pointer(pointer(ptr, "layout"), strconv.Itoa(i)), "%q is not a property of the schema", name)
		case slices.Contains(t.layout, name):
			c.add(pointer(pointer(ptr, "layout"), strconv.Itoa(i)), "%q is listed twice", name)
		default:
			t.layout = append(t.layout, name)
		}
	}
	for _, p := range t.root.props {
		if !slices.Contains(t.layout, p.name) {
			t.layout = append(t.layout, p.name)
		}
	}
	if len(c.problems) > before {
		return nil
	}
	return t
}

// fieldPath is a property path: the names down to a list of items (list, may be empty) and
// from there (or from the root) to the field (field).
type fieldPath struct {
	list, field []string
}

func (p fieldPath) String() string {
	return strings.Join(append(slices.Clone(p.list), p.field...), ".")
}

// resolve finds the schema at a dotted path, which may cross one list of items.
func (t *ToolType) resolve(path string) (fieldPath, *schema, string) {
	var fp fieldPath
	if path == "" {
		return fp, nil, "a path names a property, like \"motto\" or \"relations.notes\""
	}
	segs := strings.Split(path, ".")
	cur := t.root
	for i, seg := range segs {
		if cur.typ != "object" {
			return fp, nil, fmt.Sprintf("%q: %q is not an object", path, strings.Join(segs[:i], "."))
		}
		next := cur.prop(seg)
		if next == nil {
			return fp, nil, fmt.Sprintf("%q: no property %q%s", path, seg, cur.propsHint())
		}
		fp.field = append(fp.field, seg)
		if i < len(segs)-1 && next.typ == "array" {
			if !next.itemList() || fp.list != nil {
				return fp, nil, fmt.Sprintf("%q: a path may go into the items of one list of objects, no deeper", path)
			}
			fp.list, fp.field = fp.field, nil
			cur = next.items
			continue
		}
		cur = next
	}
	return fp, cur, ""
}

// defaultText is every string field that is not a link, in layout order, lists' items
// included.
func (t *ToolType) defaultText() []textField {
	var out []textField
	var walk func(s *schema, list, field []string)
	walk = func(s *schema, list, field []string) {
		switch {
		case s.typ == "string" && s.format != formatDocumentLink:
			out = append(out, textField{fieldPath{list: list, field: slices.Clone(field)}, s.markdown})
		case s.typ == "object":
			for _, p := range s.props {
				walk(p.s, list, append(slices.Clone(field), p.name))
			}
		case s.itemList() && list == nil:
			walk(s.items, field, nil)
		}
	}
	for _, p := range t.root.props {
		walk(p.s, nil, []string{p.name})
	}
	return out
}

// textField is one field of a type's text projection, and whether it holds Markdown (read
// once, when the manifest is).
type textField struct {
	path     fieldPath
	markdown bool
}

// toolOp is one declared op of a tool type.
type toolOp struct {
	op                  string // "faction.setMotto"
	name, kind, summary string
	path                fieldPath
	target              *schema
	idPrefix            string
}

// inList reports whether the op's target is inside a list's items.
func (o *toolOp) inList() bool { return o.path.list != nil }

func (c *checker) toolOp(raw json.RawMessage, ptr string, t *ToolType) *toolOp {
	ms, ok := members(raw)
	if !ok {
		c.add(ptr, "an op must be a JSON object")
		return nil
	}
	before := len(c.problems)
	get := c.object(ms, ptr, []string{"name", "kind", "path", "idPrefix", "summary"})
	o := &toolOp{}
	var path string
	c.str(get, ptr, "name", &o.name, true)
	c.str(get, ptr, "kind", &o.kind, true)
	c.str(get, ptr, "path", &path, true)
	c.str(get, ptr, "summary", &o.summary, false)
	c.str(get, ptr, "idPrefix", &o.idPrefix, false)
	if o.name != "" && !opNameRe.MatchString(o.name) {
		c.add(pointer(ptr, "name"), "an op's name is 1 to 40 letters and digits starting with a lowercase letter, like \"setMotto\"")
	}
	if o.kind != "" && !slices.Contains(opKinds, o.kind) {
		c.add(pointer(ptr, "kind"), "the kinds are %s", strings.Join(opKinds, ", "))
	}
	if len(c.problems) > before || path == "" {
		return nil
	}
	o.op = t.Name + "." + o.name
	fp, s, err := t.resolve(path)
	if err != "" {
		c.add(pointer(ptr, "path"), "%s", err)
		return nil
	}
	o.path, o.target = fp, s
	switch o.kind {
	case KindSet:
		if o.inList() {
			c.add(pointer(ptr, "path"), "a set op changes a property of the document, not of a list's items: items change with an update op")
		} else if s.itemList() {
			c.add(pointer(ptr, "path"), "%q is a list of items: it changes with append, update, remove and move ops", path)
		}
	case KindAppend, KindUpdate, KindRemove, KindMove:
		if o.inList() || !s.itemList() {
			c.add(pointer(ptr, "path"), "a %s op acts on a list of items (an array of objects), and %q is not one", o.kind, path)
		}
	case KindText:
		if s.typ != "string" || !s.markdown {
			c.add(pointer(ptr, "path"), "a text op edits a Markdown text (a string with \"contentMediaType\": \"text/markdown\"), and %q is not one", path)
		}
	}
	if o.kind == KindAppend {
		if o.idPrefix == "" {
			o.idPrefix = defaultPrefix(o.path.field[len(o.path.field)-1])
		}
		if !prefixRe.MatchString(o.idPrefix) {
			c.add(pointer(ptr, "idPrefix"), "an id prefix is 1 to 8 lowercase letters, like \"rel\"")
		}
	} else if _, has := get["idPrefix"]; has {
		c.add(pointer(ptr, "idPrefix"), "only an append op assigns ids")
	}
	if len(c.problems) > before {
		return nil
	}
	return o
}

// defaultPrefix is a list's first three letters, lowercase.
func defaultPrefix(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' && b.Len() < 3 {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "itm"
	}
	return b.String()
}

func (c *checker) appKind(raw json.RawMessage, ptr string, tool *Tool) (AppKind, bool) {
	ms, ok := members(raw)
	if !ok {
		c.add(ptr, "an app kind must be a JSON object")
		return AppKind{}, false
	}
	before := len(c.problems)
	get := c.object(ms, ptr, []string{"name", "title", "description", "view"})
	var k AppKind
	c.str(get, ptr, "name", &k.Name, true)
	c.str(get, ptr, "title", &k.Title, false)
	c.str(get, ptr, "description", &k.Description, false)
	switch {
	case k.Name == "":
	case !toolNameRe.MatchString(k.Name):
		c.add(pointer(ptr, "name"), "an app kind's name is 2 to 40 lowercase letters, digits and -, starting with a letter")
	case k.Name == "wiki":
		c.add(pointer(ptr, "name"), "\"wiki\" is a built-in app kind")
	}
	if k.Title == "" {
		k.Title = k.Name
	}
	vptr := pointer(ptr, "view")
	vms, ok := members(get["view"])
	if !ok {
		c.add(vptr, "\"view\" is required: {\"type\": \"list\" or \"board\", \"documentType\": …}")
		return AppKind{}, false
	}
	vget := c.object(vms, vptr, []string{"type", "documentType", "fields", "groupBy"})
	c.str(vget, vptr, "type", &k.View.Type, true)
	c.str(vget, vptr, "documentType", &k.View.DocumentType, true)
	c.str(vget, vptr, "groupBy", &k.View.GroupBy, false)
	k.View.Fields = c.strings(vget, vptr, "fields")
	if k.View.Type != "" && k.View.Type != "list" && k.View.Type != "board" {
		c.add(pointer(vptr, "type"), "a view is a \"list\" or a \"board\"")
	}
	tt, found := tool.Type(k.View.DocumentType)
	if k.View.DocumentType != "" && !found {
		c.add(pointer(vptr, "documentType"), "%q is not a document type of this tool", k.View.DocumentType)
	}
	if found {
		for i, f := range k.View.Fields {
			if s := tt.root.prop(f); s == nil || s.typ == "object" || s.typ == "array" {
				c.add(pointer(pointer(vptr, "fields"), strconv.Itoa(i)), "%q is not a scalar property of %s", f, tt.Name)
			}
		}
		if k.View.Type == "board" {
			s := tt.root.prop(k.View.GroupBy)
			if s == nil || s.typ != "string" || len(s.enum) == 0 {
				c.add(pointer(vptr, "groupBy"), "a board groups by a string property with an \"enum\" of %s", tt.Name)
			}
		} else if k.View.GroupBy != "" {
			c.add(pointer(vptr, "groupBy"), "only a board groups")
		}
	}
	return k, len(c.problems) == before
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

// Schema returns the type's data schema, as written in the manifest.
func (t *ToolType) Schema() json.RawMessage { return t.schemaRaw }

// CodeToolNotInstalled is the error of an op on a document whose tool is not installed.
const CodeToolNotInstalled = "tool_not_installed"
