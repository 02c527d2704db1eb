package ops

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// toolDoc is a document of a tool type: its data as conformed Go values.
type toolDoc struct {
	t    *ToolType
	data map[string]any
}

// Empty returns a new document of the type: every property at its default.
func (t *ToolType) Empty() Document {
	return &toolDoc{t: t, data: t.root.zero().(map[string]any)}
}

// Decode reads stored data of the type. Properties the schema has and the data lacks take
// their defaults; data the schema refuses is an *Error naming the field (JSON Pointer).
func (t *ToolType) Decode(data []byte) (Document, error) {
	if msg := CheckJSONText(data); msg != "" {
		return nil, &Error{Code: CodeInvalidField, Message: "the data is not valid JSON: " + msg}
	}
	v, err := t.root.conform(decodeAny(data), "", true)
	if err != nil {
		return nil, err
	}
	return &toolDoc{t: t, data: v.(map[string]any)}, nil
}

func (d *toolDoc) Type() string { return d.t.Name }
func (d *toolDoc) JSON() []byte { return mustJSON(d.data) }
func (d *toolDoc) clone() Document {
	return &toolDoc{t: d.t, data: cloneValue(d.data).(map[string]any)}
}

// Text is the document's name then the values of the type's text fields, one per line.
func (d *toolDoc) Text(name string) string { return d.PlainText(name, asIs) }

// PlainText is Text with each Markdown field through plain.
func (d *toolDoc) PlainText(name string, plain func(string) string) string {
	parts := []string{name}
	for _, f := range d.t.text {
		d.eachString(f.path, func(s string) {
			if s == "" {
				return
			}
			if f.markdown {
				s = plain(s)
			}
			parts = append(parts, s)
		})
	}
	return strings.Join(parts, "\n")
}

// eachString calls fn with every string value at fp (one per item when fp is in a list).
func (d *toolDoc) eachString(fp fieldPath, fn func(string)) {
	at := func(root map[string]any, path []string) any {
		var cur any = root
		for _, seg := range path {
			m, ok := cur.(map[string]any)
			if !ok {
				return nil
			}
			cur = m[seg]
		}
		return cur
	}
	if fp.list == nil {
		if s, ok := at(d.data, fp.field).(string); ok {
			fn(s)
		}
		return
	}
	items, _ := at(d.data, fp.list).([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			if s, ok := at(m, fp.field).(string); ok {
				fn(s)
			}
		}
	}
}

// ToolData is the data of a tool document as Go values (map[string]any for objects, []any,
// string, int64, float64, bool), for renderers. Nil for other documents.
func ToolData(doc Document) map[string]any {
	if d, ok := doc.(*toolDoc); ok {
		return d.data
	}
	return nil
}

// toolLinks returns the texts that may hold [[links]] (Markdown fields) and the ids of the
// document-link fields, in the type's order.
func (d *toolDoc) toolLinks(text func(s string), link func(id, context string)) {
	var walk func(s *schema, v any, label string)
	walk = func(s *schema, v any, label string) {
		switch {
		case s.typ == "string" && s.markdown:
			if str, _ := v.(string); str != "" {
				text(str)
			}
		case s.typ == "string" && s.format == formatDocumentLink:
			if id, _ := v.(string); id != "" {
				link(id, label)
			}
		case s.typ == "object":
			m, _ := v.(map[string]any)
			for _, p := range s.props {
				walk(p.s, m[p.name], labelOf(p))
			}
		case s.typ == "array" && s.items != nil:
			a, _ := v.([]any)
			for _, e := range a {
				walk(s.items, e, label)
			}
		}
	}
	for _, name := range d.t.layout {
		p := d.t.root.prop(name)
		walk(p, d.data[name], labelOf(prop{name, p}))
	}
}

func labelOf(p prop) string {
	if p.s.title != "" {
		return p.s.title
	}
	return p.name
}

// opFunc returns the function that applies the declared op name, nil for none.
func (t *ToolType) opFunc(name string) opFunc {
	o := t.byOp[name]
	if o == nil {
		return nil
	}
	return func(c *opCtx, doc Document) (any, error) { return o.apply(c, doc.(*toolDoc)) }
}

func (t *ToolType) opNames() []string {
	names := make([]string, len(t.ops))
	for i, o := range t.ops {
		names[i] = o.op
	}
	return names
}

// toolParams reads an op's members; allowed names the parameters besides "op".
func (c *opCtx) toolParams(allowed ...string) (map[string]any, error) {
	if field, problem := CheckKeys(c.raw, nil); problem != "" {
		return nil, fieldError(field, "%s: %s", c.name, problem)
	}
	ms, ok := members(c.raw)
	if !ok {
		return nil, fieldError("op", "%s: the operation must be a JSON object without repeated members", c.name)
	}
	out := make(map[string]any, len(ms))
	for _, m := range ms {
		if m.key == "op" {
			continue
		}
		if !slices.Contains(allowed, m.key) {
			if c.replay {
				continue
			}
			return nil, fieldError(Echo(m.key), "%s has no parameter %q; its parameters: %s", c.name, Echo(m.key), listOrNone(allowed))
		}
		out[m.key] = decodeAny(m.value)
	}
	return out, nil
}

// applied builds an op's applied form with its members in order.
type applied []kv

type kv struct {
	k string
	v any
}

func (a applied) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.k)
		v, err := json.Marshal(e.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// parent returns the object that holds the field at path (walking objects from root), and
// the field's name.
func parent(root map[string]any, path []string) (map[string]any, string) {
	cur := root
	for _, seg := range path[:len(path)-1] {
		next, ok := cur[seg].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[seg] = next
		}
		cur = next
	}
	return cur, path[len(path)-1]
}

// items returns the list at the op's list path and the object holding it.
func (o *toolOp) items(d *toolDoc, listPath []string) (map[string]any, string, []any) {
	obj, key := parent(d.data, listPath)
	a, _ := obj[key].([]any)
	return obj, key, a
}

func itemIndex(a []any, id string) int {
	return slices.IndexFunc(a, func(e any) bool {
		m, _ := e.(map[string]any)
		return m["id"] == id
	})
}

// findItem reads the op's "id" and finds the item.
func (o *toolOp) findItem(c *opCtx, p map[string]any, a []any) (int, string, error) {
	raw, ok := p["id"]
	if !ok {
		return 0, "", required(c.name, "id")
	}
	id, ok := raw.(string)
	if !ok {
		return 0, "", fieldError("id", "%s: \"id\" must be a string", c.name)
	}
	i := itemIndex(a, id)
	if i < 0 {
		return 0, "", notFound("item", id)
	}
	return i, id, nil
}

func (o *toolOp) apply(c *opCtx, d *toolDoc) (any, error) {
	switch o.kind {
	case KindSet:
		return o.set(c, d)
	case KindAppend:
		return o.append(c, d)
	case KindUpdate:
		return o.update(c, d)
	case KindRemove:
		return o.remove(c, d)
	case KindMove:
		return o.move(c, d)
	}
	return o.text(c, d)
}

func (o *toolOp) set(c *opCtx, d *toolDoc) (any, error) {
	key := o.path.field[len(o.path.field)-1]
	p, err := c.toolParams(key)
	if err != nil {
		return nil, err
	}
	v, ok := p[key]
	if !ok {
		return nil, required(c.name, key)
	}
	cv, cerr := o.target.conform(v, key, true)
	if cerr != nil {
		return nil, cerr
	}
	obj, k := parent(d.data, o.path.field)
	out := applied{{"op", c.name}, {key, cv}}
	if o.target.markdown {
		old, _ := obj[k].(string)
		out = append(out, kv{"previousLength", utf16Len(old)})
	}
	obj[k] = cv
	return out, nil
}

// itemProps returns the names of an item's properties (without id).
func (o *toolOp) itemProps() []string {
	names := make([]string, len(o.target.items.props))
	for i, p := range o.target.items.props {
		names[i] = p.name
	}
	return names
}

func (o *toolOp) append(c *opCtx, d *toolDoc) (any, error) {
	names := o.itemProps()
	p, err := c.toolParams(append(slices.Clone(names), "id")...)
	if err != nil {
		return nil, err
	}
	if _, given := p["id"]; given && !c.replay {
		return nil, fieldError("id", "%s: the service assigns an item's id; leave \"id\" out", c.name)
	}
	is := o.target.items
	item := make(map[string]any, len(names)+1)
	for _, pr := range is.props {
		v, ok := p[pr.name]
		if !ok {
			if is.required[pr.name] {
				return nil, required(c.name, pr.name)
			}
			item[pr.name] = pr.s.zero()
			continue
		}
		cv, cerr := pr.s.conform(v, pr.name, true)
		if cerr != nil {
			return nil, cerr
		}
		item[pr.name] = cv
	}
	obj, key, a := o.items(d, o.path.field)
	if len(a) >= o.target.maxItems {
		return nil, tooMany(o.path.String(), "items", o.target.maxItems)
	}
	id := c.newID(o.idPrefix + "-")
	if itemIndex(a, id) >= 0 {
		return nil, fieldError("id", "%s: the id %q is already taken", c.name, Echo(id))
	}
	item["id"] = id
	obj[key] = append(a, item)
	c.out.Created = append(c.out.Created, Created{ID: id, Label: itemLabel(is, item)})
	out := applied{{"op", c.name}, {"id", id}}
	for _, n := range names {
		out = append(out, kv{n, item[n]})
	}
	return out, nil
}

// itemLabel is what names an item: its name, title or label, else its first non-empty text.
func itemLabel(s *schema, item map[string]any) string {
	for _, k := range []string{"name", "title", "label"} {
		if v, ok := item[k].(string); ok && v != "" {
			return v
		}
	}
	for _, p := range s.props {
		if v, ok := item[p.name].(string); ok && v != "" && p.s.format != formatDocumentLink {
			return v
		}
	}
	id, _ := item["id"].(string)
	return id
}

func (o *toolOp) update(c *opCtx, d *toolDoc) (any, error) {
	names := o.itemProps()
	p, err := c.toolParams(append(slices.Clone(names), "id", "previousLengths")...)
	if err != nil {
		return nil, err
	}
	_, _, a := o.items(d, o.path.field)
	i, id, err := o.findItem(c, p, a)
	if err != nil {
		return nil, err
	}
	item := a[i].(map[string]any)
	out := applied{{"op", c.name}, {"id", id}}
	lengths := map[string]int{}
	set := 0
	for _, pr := range o.target.items.props {
		v, ok := p[pr.name]
		if !ok {
			continue
		}
		cv, cerr := pr.s.conform(v, pr.name, true)
		if cerr != nil {
			return nil, cerr
		}
		if pr.s.markdown {
			old, _ := item[pr.name].(string)
			lengths[pr.name] = utf16Len(old)
		}
		item[pr.name] = cv
		out = append(out, kv{pr.name, cv})
		set++
	}
	if set == 0 {
		return nil, atLeastOne(c.name, names...)
	}
	if len(lengths) > 0 {
		out = append(out, kv{"previousLengths", lengths})
	}
	return out, nil
}

func (o *toolOp) remove(c *opCtx, d *toolDoc) (any, error) {
	p, err := c.toolParams("id")
	if err != nil {
		return nil, err
	}
	obj, key, a := o.items(d, o.path.field)
	i, id, err := o.findItem(c, p, a)
	if err != nil {
		return nil, err
	}
	obj[key] = slices.Delete(a, i, i+1)
	return applied{{"op", c.name}, {"id", id}}, nil
}

func (o *toolOp) move(c *opCtx, d *toolDoc) (any, error) {
	p, err := c.toolParams("id", "index")
	if err != nil {
		return nil, err
	}
	obj, key, a := o.items(d, o.path.field)
	i, id, err := o.findItem(c, p, a)
	if err != nil {
		return nil, err
	}
	raw, ok := p["index"]
	if !ok {
		return nil, required(c.name, "index")
	}
	n, isNum := raw.(json.Number)
	if !isNum {
		return nil, fieldError("index", "%s: \"index\" must be a number", c.name)
	}
	jn := jsonNumber(n)
	to, err := listIndex("index", &jn, len(a)-1)
	if err != nil {
		return nil, err
	}
	item := a[i]
	obj[key] = slices.Insert(slices.Delete(a, i, i+1), to, item)
	return applied{{"op", c.name}, {"id", id}, {"index", to}}, nil
}

// textKey names a Markdown text of a document for rebasing: its path, and the item's id
// when it is in a list.
func textKey(fp fieldPath, id string) string {
	if id == "" {
		return fp.String()
	}
	return fp.String() + "#" + id
}

func (o *toolOp) text(c *opCtx, d *toolDoc) (any, error) {
	allowed := []string{"baseVersion", "splices"}
	if o.inList() {
		allowed = append(allowed, "id")
	}
	p, err := c.toolParams(allowed...)
	if err != nil {
		return nil, err
	}
	holder := d.data
	id := ""
	if o.inList() {
		_, _, a := o.items(d, o.path.list)
		i, itemID, err := o.findItem(c, p, a)
		if err != nil {
			return nil, err
		}
		holder, id = a[i].(map[string]any), itemID
	}
	var params struct {
		opField
		ID          json.RawMessage `json:"id"` // read above
		BaseVersion *jsonNumber     `json:"baseVersion"`
		Splices     *[]spliceParams `json:"splices"`
	}
	if err := c.params(&params); err != nil {
		return nil, err
	}
	obj, k := parent(holder, o.path.field)
	old, _ := obj[k].(string)
	body, edit, err := c.editText(textKey(o.path, id), old, params.BaseVersion, params.Splices, o.target.maxLength)
	if err != nil {
		return nil, err
	}
	obj[k] = body
	out := applied{{"op", c.name}}
	if id != "" {
		out = append(out, kv{"id", id})
	}
	return append(out, kv{"baseVersion", c.version}, kv{"splices", edit.splices()}), nil
}

// toolTextChanges returns the changes an op as applied made to the type's Markdown texts.
func (t *ToolType) toolTextChanges(op json.RawMessage) ([]*textChange, error) {
	name, _ := opName(op)
	o := t.byOp[name]
	if o == nil {
		return nil, nil
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(op, &p); err != nil {
		return nil, fmt.Errorf("ops: read applied op: %w", err)
	}
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(p[k], &s)
		return s
	}
	var id string
	_ = json.Unmarshal(p["id"], &id)
	switch o.kind {
	case KindText:
		var sp []Splice
		if err := json.Unmarshal(p["splices"], &sp); err != nil {
			return nil, fmt.Errorf("ops: read applied op: %w", err)
		}
		return []*textChange{{key: textKey(o.path, id), splices: sp}}, nil
	case KindSet:
		if o.target.markdown {
			var prev int
			_ = json.Unmarshal(p["previousLength"], &prev)
			return []*textChange{{key: textKey(o.path, ""), splices: []Splice{{Pos: 0, Del: prev, Ins: str(o.path.field[len(o.path.field)-1])}}}}, nil
		}
		if o.target.typ == "object" {
			// Every text under the object was replaced whole.
			return []*textChange{{key: o.path.String() + ".", reset: true}}, nil
		}
	case KindAppend, KindUpdate:
		var prev map[string]int
		_ = json.Unmarshal(p["previousLengths"], &prev)
		var out []*textChange
		for _, pr := range o.target.items.props {
			if _, given := p[pr.name]; !given || !pr.s.markdown {
				continue
			}
			fp := fieldPath{list: o.path.field, field: []string{pr.name}}
			v := str(pr.name)
			if o.kind == KindAppend && v == "" {
				continue
			}
			out = append(out, &textChange{key: textKey(fp, id), splices: []Splice{{Pos: 0, Del: prev[pr.name], Ins: v}}})
		}
		return out, nil
	}
	return nil, nil
}

// validate checks the whole document against the type's schema.
func (d *toolDoc) validate() *Error {
	_, err := d.t.root.conform(d.data, "", false)
	return err
}

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
func (t *ToolType) Ops() []ToolOp {
	out := make([]ToolOp, len(t.ops))
	for i, o := range t.ops {
		out[i] = ToolOp{Op: o.op, Kind: o.kind, Path: o.path.String(), Summary: o.describe(), Params: mustJSON(o.paramsSchema())}
	}
	return out
}

func (o *toolOp) describe() string {
	if o.summary != "" {
		return o.summary
	}
	label := o.path.String()
	switch o.kind {
	case KindSet:
		return "Sets " + label + "."
	case KindAppend:
		return "Adds an item at the end of " + label + "; the service assigns its id (" + o.idPrefix + "-…)."
	case KindUpdate:
		return "Changes properties of an item of " + label + ", by id."
	case KindRemove:
		return "Removes an item of " + label + ", by id."
	case KindMove:
		return "Moves an item of " + label + " to index (0 is first), by id."
	}
	return "Edits the Markdown text " + label + " with splices {pos, del, ins} in UTF-16 code units made on the text at baseVersion; the server rebases them over concurrent changes."
}

// jsonSchema returns s as JSON Schema.
func (s *schema) jsonSchema() map[string]any {
	out := map[string]any{"type": s.typ}
	if s.title != "" {
		out["title"] = s.title
	}
	if s.description != "" {
		out["description"] = s.description
	}
	if len(s.enum) > 0 {
		out["enum"] = s.enum
	}
	if s.def != nil {
		out["default"] = s.def
	}
	switch s.typ {
	case "object":
		props := map[string]any{}
		for _, p := range s.props {
			props[p.name] = p.s.jsonSchema()
		}
		if s.item {
			props["id"] = map[string]any{"type": "string"}
		}
		out["properties"], out["additionalProperties"] = props, false
		if req := s.requiredNames(); len(req) > 0 {
			out["required"] = req
		}
	case "array":
		out["items"], out["maxItems"] = s.items.jsonSchema(), s.maxItems
	case "string":
		out["maxLength"] = s.maxLength
		if s.minLength > 0 {
			out["minLength"] = s.minLength
		}
		if s.format != "" {
			out["format"] = s.format
		}
		if s.markdown {
			out["contentMediaType"] = mediaMarkdown
		}
	case "integer", "number":
		if s.min != nil {
			out["minimum"] = *s.min
		}
		if s.max != nil {
			out["maximum"] = *s.max
		}
	}
	return out
}

func (s *schema) requiredNames() []string {
	var out []string
	for _, p := range s.props {
		if s.required[p.name] {
			out = append(out, p.name)
		}
	}
	return out
}

func (o *toolOp) paramsSchema() map[string]any {
	props := map[string]any{"op": map[string]any{"const": o.op}}
	req := []string{"op"}
	idSchema := map[string]any{"type": "string", "description": "The item's id."}
	switch o.kind {
	case KindSet:
		key := o.path.field[len(o.path.field)-1]
		props[key], req = o.target.jsonSchema(), append(req, key)
	case KindAppend:
		for _, p := range o.target.items.props {
			props[p.name] = p.s.jsonSchema()
		}
		req = append(req, o.target.items.requiredNames()...)
	case KindUpdate:
		for _, p := range o.target.items.props {
			props[p.name] = p.s.jsonSchema()
		}
		props["id"], req = idSchema, append(req, "id")
	case KindRemove:
		props["id"], req = idSchema, append(req, "id")
	case KindMove:
		props["id"], props["index"] = idSchema, map[string]any{"type": "integer", "minimum": 0, "description": "The item's position once moved; 0 is first."}
		req = append(req, "id", "index")
	case KindText:
		if o.inList() {
			props["id"], req = idSchema, append(req, "id")
		}
		props["baseVersion"] = map[string]any{"type": "integer", "minimum": 0, "description": "The document version the splices were made on."}
		props["splices"] = map[string]any{"type": "array", "minItems": 1, "maxItems": maxSplices, "items": map[string]any{
			"type": "object", "additionalProperties": false, "required": []string{"pos"},
			"properties": map[string]any{
				"pos": map[string]any{"type": "integer", "minimum": 0},
				"del": map[string]any{"type": "integer", "minimum": 0},
				"ins": map[string]any{"type": "string"},
			}}}
		req = append(req, "baseVersion", "splices")
	}
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

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
func (t *ToolType) Form() []FormField {
	out := make([]FormField, 0, len(t.layout))
	for _, name := range t.layout {
		out = append(out, t.formField(t.root, name, nil, []string{name}))
	}
	return out
}

func (t *ToolType) formField(parentSchema *schema, name string, list, field []string) FormField {
	s := parentSchema.prop(name)
	fp := fieldPath{list: list, field: field}
	f := FormField{Path: fp.String(), Key: name, Label: labelOf(prop{name, s}), Help: s.description,
		Kind: s.typ, Minimum: s.min, Maximum: s.max, Required: parentSchema.required[name]}
	opOf := func(kind string) string {
		for _, o := range t.ops {
			if o.kind == kind && o.path.String() == f.Path {
				return o.op
			}
		}
		return ""
	}
	switch s.typ {
	case "string":
		f.MaxLength = s.maxLength
		switch {
		case s.markdown:
			f.Kind = "markdown"
		case s.format == formatDocumentLink:
			f.Kind = "link"
		case s.format == "date-time":
			f.Kind = "datetime"
		case s.format != "":
			f.Kind = s.format
		}
	case "array":
		if s.itemList() {
			f.Kind = "list"
			for _, p := range s.items.props {
				f.Fields = append(f.Fields, t.formField(s.items, p.name, field, []string{p.name}))
			}
			f.AppendOp, f.UpdateOp, f.RemoveOp, f.MoveOp = opOf(KindAppend), opOf(KindUpdate), opOf(KindRemove), opOf(KindMove)
		} else {
			f.Kind = "values"
		}
	case "object":
		for _, p := range s.props {
			f.Fields = append(f.Fields, t.formField(s, p.name, list, append(slices.Clone(field), p.name)))
		}
	}
	if len(s.enum) > 0 {
		f.Kind = "enum"
		for _, v := range s.enum {
			switch x := v.(type) {
			case string:
				f.Enum = append(f.Enum, x)
			default:
				b, _ := json.Marshal(x)
				f.Enum = append(f.Enum, string(b))
			}
		}
	}
	if list == nil {
		f.SetOp = opOf(KindSet)
	}
	f.TextOp = opOf(KindText)
	return f
}
