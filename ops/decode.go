package ops

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Decoding an op is most of the cost of applying it, so the common case takes a short cut:
// one light pass over the op's members finds its name and checks that every member is a
// parameter, then a plain json.Unmarshal reads the parameters. Whenever the short cut is
// unsure (an escaped or non-ASCII member name, a parameter type it does not handle, any
// decoding error) it gives up and the strict decoder runs instead, so every error reads
// exactly as before.

// quickOpName returns the "op" member of raw when it is a plain string (no escapes, ASCII),
// as opName would read it; ok is false when opName must decide.
func quickOpName(raw []byte) (name string, ok bool) {
	if !ValidJSON(raw) {
		return "", false
	}
	return validOpName(raw)
}

// validOpName is quickOpName for raw known to be valid JSON (an op as Apply returns it).
func validOpName(raw []byte) (name string, ok bool) {
	var last []byte
	complete := eachMember(raw, func(key, value []byte) bool {
		if !plainASCII(key) {
			return false
		}
		if string(key) == "op" {
			last = value
		}
		return true
	})
	// json.Unmarshal keeps the last of duplicate members.
	if !complete || len(last) < 3 || last[0] != '"' || !plainASCII(last[1:len(last)-1]) {
		return "", false
	}
	return string(last[1 : len(last)-1]), true
}

// quickParams decodes the op's members into dst (a pointer to a params struct) when it can
// prove that the strict decoder would accept them and fill dst the same way; it reports
// whether it did. raw has passed opName, so it is valid JSON.
func (c *opCtx) quickParams(dst any) bool {
	return quickDecode(c.raw, dst, c.replay)
}

// QuickDecode decodes raw, a JSON text known to be valid (json.Valid), into dst, a pointer to
// a zero struct of scalars, strings and arrays of them (and of json.RawMessage), when it can
// prove that a json.Decoder with DisallowUnknownFields, run after CheckKeys, would accept raw
// and fill dst the same way; it reports whether it did, and leaves dst zero when it did not
// (and untouched when it was not zero). Request bodies take it before encoding/json, which
// reads the text twice more.
func QuickDecode(raw []byte, dst any) bool {
	return quickDecode(raw, dst, false)
}

// quickDecode decodes member by member as encoding/json does; skipUnknown lets members dst
// does not know through (replays).
func quickDecode(raw []byte, dst any, skipUnknown bool) bool {
	t, ok := paramsOf(reflect.TypeOf(dst))
	if !ok {
		return false
	}
	v := reflect.ValueOf(dst).Elem()
	if !v.IsZero() {
		return false // what it holds could not be put back as the strict decoder expects it
	}
	var seenOn [8][]byte
	seen := seenOn[:0]
	done := eachMember(raw, func(key, value []byte) bool {
		if !plainASCII(key) || slices.ContainsFunc(seen, func(k []byte) bool { return bytes.Equal(k, key) }) {
			return false // a duplicate: the strict decoder refuses it
		}
		seen = append(seen, key)
		f := t.field(key)
		if f == nil {
			// The strict decoder refuses members dst does not know (replays skip them, once
			// CheckKeys has found no duplicate inside them) and names that differ from a
			// parameter's only in case (replays too).
			return skipUnknown && !t.folds(key) && value[0] != '{' && value[0] != '['
		}
		fv := v.FieldByIndex(f.index)
		switch f.kind {
		case strPtrField, strField:
			if len(value) >= 2 && value[0] == '"' && bytes.IndexByte(value, '\\') < 0 && utf8.Valid(value) {
				s := string(value[1 : len(value)-1]) // a string without escapes means itself
				if f.kind == strField {
					fv.SetString(s)
				} else {
					fv.Set(reflect.ValueOf(&s))
				}
				return true
			}
		case rawListField:
			if list, ok := rawElements(value); ok {
				fv.Set(reflect.ValueOf(&list))
				return true
			}
		}
		return json.Unmarshal(value, fv.Addr().Interface()) == nil
	})
	if !done {
		v.SetZero() // the strict decoder starts afresh
	}
	return done
}

// rawElements splits value, a valid JSON array, into its elements as they are written (as
// encoding/json gives them to json.RawMessage, sharing value's bytes); ok is false when
// value is not an array.
func rawElements(value []byte) (list []json.RawMessage, ok bool) {
	if len(value) < 2 || value[0] != '[' {
		return nil, false
	}
	list = []json.RawMessage{}
	i := skipSpace(value, 1)
	if i < len(value) && value[i] == ']' {
		return list, i == len(value)-1
	}
	for i < len(value) {
		end := valueEnd(value, i)
		if end < 0 {
			return nil, false
		}
		list = append(list, json.RawMessage(value[i:end:end]))
		i = skipSpace(value, end)
		if i >= len(value) {
			return nil, false
		}
		switch value[i] {
		case ']':
			return list, i == len(value)-1
		case ',':
			i = skipSpace(value, i+1)
		default:
			return nil, false
		}
	}
	return nil, false
}

// paramsType describes a params struct for quickParams. ok is false when the struct has a
// field quickParams does not handle: nested objects (their members would need checking
// too) and interfaces or maps (the strict decoder reads numbers in them as json.Number).
type paramsType struct {
	fields []paramField
	ok     bool
}

type paramField struct {
	name  string
	index []int
	kind  fieldKind
}

// fieldKind names the fields quickDecode fills without encoding/json.
type fieldKind uint8

const (
	otherField   fieldKind = iota
	strField               // string
	strPtrField            // *string
	rawListField           // *[]json.RawMessage
)

// field finds the field a member name selects: the exact name only (names are
// case-sensitive; the strict decoder refuses one that differs only in case).
func (t *paramsType) field(key []byte) *paramField {
	for i := range t.fields {
		if t.fields[i].name == string(key) {
			return &t.fields[i]
		}
	}
	return nil
}

// folds reports whether key names a field only when case is ignored.
func (t *paramsType) folds(key []byte) bool {
	for i := range t.fields {
		if len(t.fields[i].name) == len(key) && asciiFold(t.fields[i].name, key) {
			return true
		}
	}
	return false
}

var paramsTypes sync.Map // reflect.Type (pointer to the struct) -> *paramsType

func paramsOf(t reflect.Type) (*paramsType, bool) {
	if v, hit := paramsTypes.Load(t); hit {
		p := v.(*paramsType)
		return p, p.ok
	}
	p := &paramsType{}
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		p.fields, p.ok = structFields(t.Elem(), nil)
	}
	paramsTypes.Store(t, p)
	return p, p.ok
}

func structFields(t reflect.Type, index []int) ([]paramField, bool) {
	var fields []paramField
	for i := range t.NumField() {
		f := t.Field(i)
		at := append(slices.Clone(index), i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
			inner, ok := structFields(f.Type, at) // promoted members (opField)
			if !ok {
				return nil, false
			}
			fields = append(fields, inner...)
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		quoted := slices.Contains(strings.Split(opts, ","), "string") // a number written as a string
		if !f.IsExported() || name == "" || name == "-" || quoted || !plainASCII([]byte(name)) || !flatType(f.Type) {
			return nil, false
		}
		kind := otherField
		switch f.Type {
		case reflect.TypeFor[string]():
			kind = strField
		case reflect.TypeFor[*string]():
			kind = strPtrField
		case reflect.TypeFor[*[]json.RawMessage]():
			kind = rawListField
		}
		fields = append(fields, paramField{name: name, index: at, kind: kind})
	}
	for i, f := range fields { // names that differ only in case would need encoding/json's precedence
		for _, g := range fields[:i] {
			if len(f.name) == len(g.name) && asciiFold(f.name, []byte(g.name)) {
				return nil, false
			}
		}
	}
	return fields, true
}

// flatType reports whether values of t hold no JSON objects: scalars, and pointers, slices
// and arrays of them.
func flatType(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return flatType(t.Elem())
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// plainASCII reports whether b is printable ASCII without a backslash: JSON text that means
// itself, so names compare byte for byte (case aside) as encoding/json compares them.
func plainASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

// asciiFold compares a and b, of the same length, ignoring ASCII case.
func asciiFold(a string, b []byte) bool {
	for i := range len(a) {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// eachMember calls fn with the name (as written, between its quotes) and the value of each
// member of the JSON object raw, in order, and reports whether it reached the end: false
// when fn returned false or raw is not an object it can read.
func eachMember(raw []byte, fn func(key, value []byte) bool) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return true
	}
	for i < len(raw) {
		if raw[i] != '"' {
			return false
		}
		end := stringEnd(raw, i)
		if end < 0 {
			return false
		}
		key := raw[i+1 : end-1]
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		start := skipSpace(raw, i+1)
		end = valueEnd(raw, start)
		if end < 0 || !fn(key, raw[start:end]) {
			return false
		}
		i = skipSpace(raw, end)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case '}':
			return true
		case ',':
			i = skipSpace(raw, i+1)
		default:
			return false
		}
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string starting at b[i] (a quote), or -1.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// valueEnd returns the index just past the value starting at b[i], or -1.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end := stringEnd(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}
