package ops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// schema is one node of a tool type's data schema: the JSON Schema 2020-12 subset of
// docs/TOOLS.md, compiled.
type schema struct {
	typ         string // object, array, string, integer, number or boolean
	title       string
	description string
	def         any // the default, conformed; nil for none
	enum        []any
	// object
	props    []prop
	required map[string]bool
	// array
	items              *schema
	minItems, maxItems int
	// item marks the object schema of a list's items: it has an "id" the service assigns.
	item bool
	// string
	minLength, maxLength int
	format               string
	markdown             bool
	// integer, number
	min, max *float64
}

type prop struct {
	name string
	s    *schema
}

func (s *schema) prop(name string) *schema {
	for _, p := range s.props {
		if p.name == name {
			return p.s
		}
	}
	return nil
}

// itemList reports whether s is a list of items (an array of objects, each with an id).
func (s *schema) itemList() bool {
	return s.typ == "array" && s.items != nil && s.items.typ == "object"
}

// Limits of the schema subset.
const (
	defaultMaxItems     = 1000
	limitMaxItems       = 10000
	defaultMaxLength    = 5000
	defaultMaxMarkdown  = 100000
	limitMaxLength      = 1000000
	maxEnum             = 100
	maxProps            = 200
	maxSchemaDepth      = 8
	formatDocumentLink  = "document-link"
	mediaMarkdown       = "text/markdown"
	maxDocumentLinkSize = 64
)

var formats = []string{"date", "date-time", "uri", "email", formatDocumentLink}

// reservedNames are the ops' own parameters: no property may take one.
var reservedNames = []string{"op", "index", "baseVersion", "splices", "previousLength", "previousLengths"}

var schemaKeywords = map[string][]string{
	"":        {"type", "title", "description", "$comment"},
	"object":  {"properties", "required", "additionalProperties"},
	"array":   {"items", "minItems", "maxItems"},
	"string":  {"default", "enum", "minLength", "maxLength", "format", "contentMediaType"},
	"integer": {"default", "enum", "minimum", "maximum"},
	"number":  {"default", "enum", "minimum", "maximum"},
	"boolean": {"default"},
}

// member is one member of a JSON object, in document order.
type member struct {
	key   string
	value json.RawMessage
}

// members reads a JSON object's members in order; nil and false when raw is not an object
// or repeats a name.
func members(raw json.RawMessage) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out []member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil || seen[key] {
			return nil, false
		}
		seen[key] = true
		out = append(out, member{key, v})
	}
	return out, true
}

// checker collects a manifest's problems.
type checker struct{ problems []Problem }

func (c *checker) add(ptr, format string, args ...any) {
	if len(c.problems) < 100 {
		c.problems = append(c.problems, Problem{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
	}
}

// pointer is the JSON Pointer of member name of the value at parent.
func pointer(parent, name string) string {
	if strings.ContainsAny(name, "~/") {
		name = pointerEscaper.Replace(name)
	}
	return parent + "/" + name
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// compileSchema reads a schema at ptr; nil when it has problems (recorded in c).
func (c *checker) compileSchema(raw json.RawMessage, ptr string, depth int, inItems bool) *schema {
	ms, ok := members(raw)
	if !ok {
		c.add(ptr, "a schema must be a JSON object without repeated names")
		return nil
	}
	if depth > maxSchemaDepth {
		c.add(ptr, "schemas nest at most %d levels deep", maxSchemaDepth)
		return nil
	}
	get := map[string]json.RawMessage{}
	for _, m := range ms {
		get[m.key] = m.value
	}
	s := &schema{item: inItems}
	if json.Unmarshal(get["type"], &s.typ) != nil || schemaKeywords[s.typ] == nil || s.typ == "" {
		c.add(pointer(ptr, "type"), "\"type\" must be one of object, array, string, integer, number, boolean (one type, not a list)")
		return nil
	}
	before := len(c.problems)
	allowed := append(slices.Clone(schemaKeywords[""]), schemaKeywords[s.typ]...)
	if depth == 0 {
		allowed = append(allowed, "$schema", "$id")
	}
	for _, m := range ms {
		if !slices.Contains(allowed, m.key) {
			c.add(pointer(ptr, m.key), "the keyword %q is not supported on a %s schema (supported: %s)", m.key, s.typ, strings.Join(allowed, ", "))
		}
	}
	str := func(key string, dst *string) {
		if v, ok := get[key]; ok && json.Unmarshal(v, dst) != nil {
			c.add(pointer(ptr, key), "%q must be a string", key)
		}
	}
	str("title", &s.title)
	str("description", &s.description)
	count := func(key string, dst *int, def, limit int) {
		*dst = def
		v, ok := get[key]
		if !ok {
			return
		}
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || n < 0 || n > int64(limit) {
			c.add(pointer(ptr, key), "%q must be a whole number from 0 to %d", key, limit)
			return
		}
		*dst = int(n)
	}
	switch s.typ {
	case "object":
		if v, ok := get["additionalProperties"]; ok && string(bytes.TrimSpace(v)) != "false" {
			c.add(pointer(ptr, "additionalProperties"), "objects are closed: \"additionalProperties\" may only be false")
		}
		props, ok := members(get["properties"])
		if _, has := get["properties"]; has && !ok {
			c.add(pointer(ptr, "properties"), "\"properties\" must be an object of schemas")
		}
		if len(props) > maxProps {
			c.add(pointer(ptr, "properties"), "at most %d properties", maxProps)
		}
		for _, p := range props {
			pp := pointer(pointer(ptr, "properties"), p.key)
			if slices.Contains(reservedNames, p.key) {
				c.add(pp, "the name %q is reserved for the operations' own parameters", p.key)
				continue
			}
			if !validPropName(p.key) {
				c.add(pp, "a property name is 1 to 64 letters, digits, _ or -, starting with a letter")
				continue
			}
			if inItems && p.key == "id" {
				var idType struct {
					Type string `json:"type"`
				}
				if json.Unmarshal(p.value, &idType) != nil || idType.Type != "string" {
					c.add(pp, "an item's id is a string the service assigns: {\"type\": \"string\"}")
				}
				continue
			}
			if ps := c.compileSchema(p.value, pp, depth+1, false); ps != nil {
				s.props = append(s.props, prop{p.key, ps})
			}
		}
		s.required = map[string]bool{}
		if v, ok := get["required"]; ok {
			var names []string
			if json.Unmarshal(v, &names) != nil {
				c.add(pointer(ptr, "required"), "\"required\" must be a list of property names")
			}
			for i, n := range names {
				switch {
				case inItems && n == "id":
				case s.prop(n) == nil && !slices.ContainsFunc(props, func(m member) bool { return m.key == n }):
					c.add(pointer(pointer(ptr, "required"), strconv.Itoa(i)), "%q is not a property of this object", n)
				default:
					s.required[n] = true
				}
			}
		}
	case "array":
		v, ok := get["items"]
		if !ok {
			c.add(ptr, "an array needs \"items\": an object schema (a list of items) or a scalar schema")
			break
		}
		count("minItems", &s.minItems, 0, limitMaxItems)
		count("maxItems", &s.maxItems, defaultMaxItems, limitMaxItems)
		if s.minItems > 0 {
			c.add(pointer(ptr, "minItems"), "a new document starts with an empty list, so \"minItems\" must be 0")
		}
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(v, &head)
		if head.Type == "array" {
			c.add(pointer(ptr, "items"), "lists of lists are not supported")
			break
		}
		s.items = c.compileSchema(v, pointer(ptr, "items"), depth+1, head.Type == "object")
	case "string":
		var media string
		str("contentMediaType", &media)
		if media != "" && media != mediaMarkdown {
			c.add(pointer(ptr, "contentMediaType"), "the only content media type is %q (Markdown text)", mediaMarkdown)
		}
		s.markdown = media == mediaMarkdown
		str("format", &s.format)
		if s.format != "" && !slices.Contains(formats, s.format) {
			c.add(pointer(ptr, "format"), "unknown format %q; the formats are %s", s.format, strings.Join(formats, ", "))
		}
		if s.markdown && s.format != "" {
			c.add(pointer(ptr, "format"), "a Markdown text has no format")
		}
		def := defaultMaxLength
		if s.markdown {
			def = defaultMaxMarkdown
		}
		count("minLength", &s.minLength, 0, limitMaxLength)
		count("maxLength", &s.maxLength, def, limitMaxLength)
		if s.format == formatDocumentLink {
			s.maxLength = min(s.maxLength, maxDocumentLinkSize)
		}
		if s.minLength > s.maxLength {
			c.add(pointer(ptr, "minLength"), "\"minLength\" is more than \"maxLength\"")
		}
	case "integer", "number":
		bound := func(key string) *float64 {
			v, ok := get[key]
			if !ok {
				return nil
			}
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil || math.IsInf(f, 0) || (s.typ == "integer" && (f != math.Trunc(f) || math.Abs(f) > maxSafeInteger)) {
				c.add(pointer(ptr, key), "%q must be a%s number", key, map[bool]string{true: " whole", false: ""}[s.typ == "integer"])
				return nil
			}
			return &f
		}
		s.min, s.max = bound("minimum"), bound("maximum")
		if s.min != nil && s.max != nil && *s.min > *s.max {
			c.add(pointer(ptr, "minimum"), "\"minimum\" is more than \"maximum\"")
		}
	}
	if len(c.problems) > before {
		return nil
	}
	if v, ok := get["enum"]; ok {
		var vals []json.RawMessage
		if json.Unmarshal(v, &vals) != nil || len(vals) == 0 || len(vals) > maxEnum {
			c.add(pointer(ptr, "enum"), "\"enum\" must list 1 to %d values", maxEnum)
			return nil
		}
		for i, raw := range vals {
			val, err := s.conformScalar(decodeAny(raw), "")
			if err != nil {
				c.add(pointer(pointer(ptr, "enum"), strconv.Itoa(i)), "%s", err.Message)
				return nil
			}
			if slices.Contains(s.enum, val) {
				c.add(pointer(pointer(ptr, "enum"), strconv.Itoa(i)), "the value is listed twice")
				return nil
			}
			s.enum = append(s.enum, val)
		}
	}
	if v, ok := get["default"]; ok {
		val, err := s.conform(decodeAny(v), "", false)
		if err != nil {
			c.add(pointer(ptr, "default"), "the default is not valid: %s", err.Message)
			return nil
		}
		s.def = val
	}
	// The empty value must itself be valid: a new document starts with it.
	if _, err := s.conform(s.zero(), "", false); err != nil {
		c.add(ptr, "a new document would not be valid: %s; give a \"default\"", err.Message)
		return nil
	}
	return s
}

func validPropName(s string) bool {
	if len(s) == 0 || len(s) > 64 || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// decodeAny reads JSON with numbers kept as json.Number; invalid JSON gives an invalid marker.
func decodeAny(raw json.RawMessage) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return invalidJSON{}
	}
	return v
}

type invalidJSON struct{}

// zero is the value a new document or item starts with.
func (s *schema) zero() any {
	if s.def != nil {
		return cloneValue(s.def)
	}
	if len(s.enum) > 0 {
		return s.enum[0]
	}
	switch s.typ {
	case "object":
		m := make(map[string]any, len(s.props))
		for _, p := range s.props {
			m[p.name] = p.s.zero()
		}
		return m
	case "array":
		return []any{}
	case "string":
		return ""
	case "integer":
		if s.min != nil && *s.min > 0 {
			return int64(*s.min)
		}
		if s.max != nil && *s.max < 0 {
			return int64(*s.max)
		}
		return int64(0)
	case "number":
		if s.min != nil && *s.min > 0 {
			return *s.min
		}
		if s.max != nil && *s.max < 0 {
			return *s.max
		}
		return float64(0)
	case "boolean":
		return false
	}
	return nil
}

// conform checks v (as decoded by decodeAny, or already conformed) against s and returns it
// in canonical form: integers int64, numbers float64, objects with every property. fill
// gives a missing property its zero value; without it a missing property is an error. ptr is
// the JSON Pointer of v, for the error.
func (s *schema) conform(v any, ptr string, fill bool) (any, *Error) {
	switch s.typ {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return nil, s.typeError(v, ptr)
		}
		if !fill {
			// Checking only: the value is already in canonical form, nothing is built.
			return m, s.checkObject(m, ptr)
		}
		out := make(map[string]any, len(s.props))
		for k := range m {
			if s.prop(k) == nil && !(s.item && k == "id") {
				return nil, fieldError(pointer(ptr, Echo(k)), "%s has no property %q%s", where(ptr), Echo(k), s.propsHint())
			}
		}
		for _, p := range s.props {
			pv, ok := m[p.name]
			if !ok {
				out[p.name] = p.s.zero()
				continue
			}
			cv, err := p.s.conform(pv, pointer(ptr, p.name), fill)
			if err != nil {
				return nil, err
			}
			out[p.name] = cv
		}
		if id, ok := m["id"]; ok && s.item {
			out["id"] = id
		}
		return out, nil
	case "array":
		a, ok := v.([]any)
		if !ok {
			return nil, s.typeError(v, ptr)
		}
		if len(a) > s.maxItems {
			return nil, fieldError(ptr, "%s holds %d items; the limit is %d", where(ptr), len(a), s.maxItems)
		}
		if len(a) < s.minItems {
			return nil, fieldError(ptr, "%s needs at least %d items", where(ptr), s.minItems)
		}
		var out []any
		if fill {
			out = make([]any, len(a))
		}
		var ids map[string]bool
		if s.itemList() {
			ids = make(map[string]bool, len(a))
		}
		for i, e := range a {
			ep := pointer(ptr, strconv.Itoa(i))
			cv, err := s.items.conform(e, ep, fill)
			if err != nil {
				return nil, err
			}
			if ids != nil {
				id, _ := cv.(map[string]any)["id"].(string)
				if !validLinkID(id) { // the same rule as a document id
					return nil, fieldError(pointer(ep, "id"), "every item has an \"id\": a string of 1 to %d letters, digits, - or _", maxItemID)
				}
				if ids[id] {
					return nil, fieldError(pointer(ep, "id"), "the id %q is used twice in %s", Echo(id), where(ptr))
				}
				ids[id] = true
			}
			if fill {
				out[i] = cv
			}
		}
		if !fill {
			return a, nil
		}
		return out, nil
	}
	val, err := s.conformScalar(v, ptr)
	if err != nil {
		return nil, err
	}
	if len(s.enum) > 0 && !slices.Contains(s.enum, val) {
		return nil, fieldError(ptr, "%s must be one of %s", where(ptr), enumList(s.enum))
	}
	return val, nil
}

const maxItemID = 64

// checkObject is conform of an object without fill: every property present and valid, no
// other (an item's id aside).
func (s *schema) checkObject(m map[string]any, ptr string) *Error {
	for k := range m {
		if s.prop(k) == nil && !(s.item && k == "id") {
			return fieldError(pointer(ptr, Echo(k)), "%s has no property %q%s", where(ptr), Echo(k), s.propsHint())
		}
	}
	for _, p := range s.props {
		pv, ok := m[p.name]
		if !ok {
			return fieldError(pointer(ptr, p.name), "%s is missing the property %q", where(ptr), p.name)
		}
		if _, err := p.s.conform(pv, pointer(ptr, p.name), false); err != nil {
			return err
		}
	}
	return nil
}

func (s *schema) propsHint() string {
	if len(s.props) == 0 {
		return ""
	}
	names := make([]string, len(s.props))
	for i, p := range s.props {
		names[i] = p.name
	}
	return " (its properties: " + strings.Join(names, ", ") + ")"
}

func enumList(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		b, _ := json.Marshal(v)
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}

// where names the value at ptr in a message.
func where(ptr string) string {
	if ptr == "" {
		return "the document"
	}
	return strconv.Quote(ptr)
}

func (s *schema) typeError(v any, ptr string) *Error {
	article := "a"
	if s.typ == "object" || s.typ == "array" || s.typ == "integer" {
		article = "an"
	}
	return fieldError(ptr, "%s must be %s %s, not %s", where(ptr), article, s.typ, kindOf(v))
}

func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number, int64, float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "invalid JSON"
}

// unsafeRuneIn is UnsafeRuneIn for a value of s: Markdown text is written in lines (and
// may indent with tabs), so line breaks and tabs are its own; other strings are one line.
func (s *schema) unsafeRuneIn(str string) (rune, bool) {
	if !s.markdown {
		return UnsafeRuneIn(str)
	}
	for _, r := range str {
		if r != '\n' && r != '\t' && UnsafeRune(r) {
			return r, true
		}
	}
	return 0, false
}

// conformScalar checks a string, integer, number or boolean.
func (s *schema) conformScalar(v any, ptr string) (any, *Error) {
	switch s.typ {
	case "string":
		str, ok := v.(string)
		if !ok {
			return nil, s.typeError(v, ptr)
		}
		if !utf8.ValidString(str) {
			return nil, fieldError(ptr, "%s is not valid UTF-8", where(ptr))
		}
		if r, bad := s.unsafeRuneIn(str); bad {
			return nil, fieldError(ptr, "%s holds the control character U+%04X", where(ptr), r)
		}
		n := utf8.RuneCountInString(str)
		if n < s.minLength || n > s.maxLength {
			return nil, fieldError(ptr, "%s must be %d to %d characters long, not %d", where(ptr), s.minLength, s.maxLength, n)
		}
		if str != "" {
			if msg := checkFormat(s.format, str); msg != "" {
				return nil, fieldError(ptr, "%s %s", where(ptr), msg)
			}
		}
		return str, nil
	case "boolean":
		b, ok := v.(bool)
		if !ok {
			return nil, s.typeError(v, ptr)
		}
		return b, nil
	case "integer", "number":
		var f float64
		switch n := v.(type) {
		case json.Number:
			var err error
			if f, err = strconv.ParseFloat(string(n), 64); err != nil || math.IsInf(f, 0) {
				return nil, fieldError(ptr, "%s is not a finite number", where(ptr))
			}
		case int64:
			f = float64(n)
		case float64:
			f = n
		default:
			return nil, s.typeError(v, ptr)
		}
		if s.min != nil && f < *s.min || s.max != nil && f > *s.max {
			return nil, fieldError(ptr, "%s must be between %s and %s, not %s", where(ptr), bound(s.min, "-∞"), bound(s.max, "∞"), strconv.FormatFloat(f, 'g', -1, 64))
		}
		if s.typ == "number" {
			return f, nil
		}
		if f != math.Trunc(f) || math.Abs(f) > maxSafeInteger {
			return nil, fieldError(ptr, "%s must be a whole number between -(2^53-1) and 2^53-1", where(ptr))
		}
		return int64(f), nil
	}
	return nil, s.typeError(v, ptr)
}

func bound(f *float64, none string) string {
	if f == nil {
		return none
	}
	return strconv.FormatFloat(*f, 'g', -1, 64)
}

// checkFormat returns what is wrong with a non-empty string of a format, or "".
func checkFormat(format, s string) string {
	switch format {
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return "must be a date written YYYY-MM-DD"
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return "must be a date and time in RFC 3339 (2024-05-01T12:00:00Z)"
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" || strings.ContainsAny(s, " \t\n") {
			return "must be an absolute URI (https://…)"
		}
	case "email":
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return "must be an email address"
		}
	case formatDocumentLink:
		if !validLinkID(s) {
			return "must be the id of a document"
		}
	}
	return ""
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = cloneValue(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = cloneValue(e)
		}
		return a
	}
	return v
}
