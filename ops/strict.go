package ops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// encoding/json forgives what a strict reader must not: it matches member names to fields
// ignoring case, keeps the last of duplicate members, and turns invalid UTF-8 and lone
// surrogate escapes ("\ud800") into U+FFFD. Two readers of one body could then disagree on
// what it says, so every surface (REST, web, ops) checks bodies with CheckJSONText and
// CheckKeys before decoding them.

// CheckJSONText reports why data, a JSON text, is not well-formed Unicode: bytes that are not
// UTF-8, or a \u escape of a surrogate that is not half of a pair. It returns "" when it is.
func CheckJSONText(data []byte) string {
	if !utf8.Valid(data) {
		return "the body is not valid UTF-8"
	}
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(data):
			if data[i+1] != 'u' {
				i++
				continue
			}
			r, ok := hex4(data, i+2)
			switch {
			case !ok:
				i++
			case r >= 0xD800 && r <= 0xDBFF:
				low, ok := rune(0), false
				if i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
					low, ok = hex4(data, i+8)
				}
				if !ok || low < 0xDC00 || low > 0xDFFF {
					return fmt.Sprintf(`the body holds a lone surrogate (\u%04x): escape characters beyond U+FFFF as a pair`, r)
				}
				i += 11
			case r >= 0xDC00 && r <= 0xDFFF:
				return fmt.Sprintf(`the body holds a lone surrogate (\u%04x): escape characters beyond U+FFFF as a pair`, r)
			default:
				i += 5
			}
		}
	}
	return ""
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// CheckKeys walks data, valid JSON, as it would decode into a value of type t (nil: any),
// and returns the first member that is a duplicate within its object, or that names a struct
// field only when case is ignored, with why; problem is "" when every name is fine. field is
// the member's path in data, as PathAt writes it ("clips[0].id"; "" for a member named ""
// twice at the top).
// Members that reach interfaces, maps or json.RawMessage are checked for duplicates only.
func CheckKeys(data []byte, t reflect.Type) (field, problem string) {
	k := keyChecker{data: data}
	return k.value(t)
}

// unknownMember is CheckKeys that also finds a member that names no field of its struct
// (what a json.Decoder with DisallowUnknownFields refuses), to say where it is.
func unknownMember(data []byte, t reflect.Type) (field, problem string) {
	k := keyChecker{data: data, unknown: true}
	return k.value(t)
}

// memberPath is the path of sub, a path inside the value of member key, from the object
// that holds the member.
func memberPath(key, sub string) string {
	if strings.HasPrefix(sub, "[") {
		return key + sub
	}
	return key + "." + sub
}

// elementPath is the path of sub, a path inside element i of an array, from the array.
func elementPath(i int, sub string) string {
	if sub == "" || strings.HasPrefix(sub, "[") {
		return "[" + strconv.Itoa(i) + "]" + sub
	}
	return "[" + strconv.Itoa(i) + "]." + sub
}

var rawMessage = reflect.TypeFor[json.RawMessage]()

// keyChecker walks a JSON text byte by byte (this runs on every request body and every op:
// encoding/json's tokens cost an allocation each). On a text that is not valid JSON it stops
// somewhere and reports nothing: the decoder that follows refuses the text.
type keyChecker struct {
	data []byte
	i    int
	// unknown reports members of a struct that name none of its fields.
	unknown bool
}

func (k *keyChecker) space() { k.i = skipSpace(k.data, k.i) }

// next skips white space and returns the next byte, 0 at the end.
func (k *keyChecker) next() byte {
	k.space()
	if k.i < len(k.data) {
		return k.data[k.i]
	}
	return 0
}

// str reads the string at k.i (its opening quote) and returns its decoded value (a slice of
// data when it has no escapes); ok is false at a malformed one.
func (k *keyChecker) str() (s []byte, ok bool) {
	start, escaped := k.i, false
	for k.i++; k.i < len(k.data); k.i++ {
		switch k.data[k.i] {
		case '\\':
			escaped = true
			k.i++
		case '"':
			k.i++
			raw := k.data[start:k.i]
			if !escaped {
				return raw[1 : len(raw)-1], true
			}
			var v string
			err := json.Unmarshal(raw, &v)
			return []byte(v), err == nil
		}
	}
	return nil, false
}

// value checks the value at k.i as it would decode into t (nil: any) and moves past it.
func (k *keyChecker) value(t reflect.Type) (field, problem string) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessage || t != nil && t.Kind() == reflect.Interface {
		t = nil
	}
	switch k.next() {
	case '{':
		k.i++
		var seenOn [16][]byte
		seen := seenOn[:0] // few members: a slice beats a map, until there are many
		var many map[string]bool
		for k.next() == '"' {
			key, ok := k.str()
			if !ok || k.next() != ':' {
				return "", ""
			}
			k.i++
			if many == nil && len(seen) == 16 {
				many = map[string]bool{}
				for _, s := range seen {
					many[string(s)] = true
				}
			}
			if many[string(key)] || many == nil && slices.ContainsFunc(seen, func(s []byte) bool { return bytes.Equal(s, key) }) {
				return Echo(string(key)), fmt.Sprintf("the member %q appears twice in one object", Echo(string(key)))
			}
			if many != nil {
				many[string(key)] = true
			} else {
				seen = append(seen, key)
			}
			var member reflect.Type
			if t != nil {
				switch t.Kind() {
				case reflect.Map:
					member = t.Elem()
				case reflect.Struct:
					var folded bool
					member, folded = structMember(t, string(key))
					if folded {
						return Echo(string(key)), fmt.Sprintf("unknown member %q (member names are case-sensitive)", Echo(string(key)))
					}
					if member == nil && k.unknown {
						return Echo(string(key)), fmt.Sprintf("unknown member %q", Echo(string(key)))
					}
				}
			}
			if f, p := k.value(member); p != "" {
				return memberPath(Echo(string(key)), f), p
			}
			if k.next() != ',' {
				break
			}
			k.i++
		}
		k.i++ // the closing brace
	case '[':
		k.i++
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		if k.next() == ']' {
			k.i++
			return "", ""
		}
		for n := 0; k.i < len(k.data); n++ {
			if f, p := k.value(elem); p != "" {
				return elementPath(n, f), p
			}
			if k.next() != ',' {
				break
			}
			k.i++
		}
		k.i++ // the closing bracket
	case '"':
		if _, ok := k.str(); !ok {
			k.i = len(k.data)
		}
	case 0:
	default: // a number or a literal
		for k.i < len(k.data) {
			switch k.data[k.i] {
			case ',', ']', '}', ' ', '\t', '\n', '\r':
				return "", ""
			}
			k.i++
		}
	}
	return "", ""
}

// structMember returns the type of t's field whose JSON name is key; folded is set when a
// field matches key only when case is ignored (encoding/json would fill it).
func structMember(t reflect.Type, key string) (member reflect.Type, folded bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			if m, fold := structMember(f.Type, key); m != nil || fold {
				return m, fold
			}
			continue
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == key {
			return f.Type, false
		}
		if strings.EqualFold(name, key) {
			folded = true
		}
	}
	return nil, folded
}

// PathAt returns the path of the value that ends at offset in data, valid JSON, as
// encoding/json reports the offset of a value of the wrong type: members by name, elements by
// index ("clips[0].id"); "" for the whole value or an offset that ends no value.
func PathAt(data []byte, offset int64) string {
	return valuePath(data, func(_ json.Token, end int64, _ func(bool) string) bool { return end >= offset })
}

// stringAt returns the string at path in data, valid JSON (path as PathAt writes it).
func stringAt(data []byte, path string) (s string, ok bool) {
	valuePath(data, func(tok json.Token, _ int64, at func(bool) string) bool {
		str, isString := tok.(string)
		if isString && at(true) == path {
			s, ok = str, true
		}
		return ok
	})
	return s, ok
}

// TypeErrorPath returns the path in data, valid JSON, of the value e is about, as PathAt
// writes it. An error a json.Unmarshaler returned has no offset: its value is then the first
// one of e's kind at e's field (encoding/json stops at such an error).
func TypeErrorPath(data []byte, e *json.UnmarshalTypeError) string {
	if e.Offset > 0 {
		return PathAt(data, e.Offset)
	}
	kind, _, _ := strings.Cut(e.Value, " ") // "number 1.5"
	return valuePath(data, func(tok json.Token, _ int64, at func(bool) string) bool {
		return tokenKind(tok) == kind && at(false) == e.Field
	})
}

// tokenKind names a value's JSON kind as json.UnmarshalTypeError.Value does.
func tokenKind(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		if tok == json.Delim('[') {
			return "array"
		}
		return "object"
	case string:
		return "string"
	case bool:
		return "bool"
	case json.Number:
		return "number"
	}
	return "null"
}

// valuePath walks data, valid JSON, and returns the path of the first value match accepts
// ("" when it accepts none, or the whole value). match gets the value's token (its opening
// delimiter for an object or array), the offset just past that token, and its path: with
// indexes, or its member names only ("clips.id", as json.UnmarshalTypeError.Field names it).
func valuePath(data []byte, match func(tok json.Token, end int64, at func(indexes bool) string) bool) string {
	type level struct {
		object bool
		key    string
		index  int
	}
	var stack []level
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	path := func(withIndexes bool) string {
		var b strings.Builder
		for _, l := range stack {
			if l.object {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(l.key)
			} else if withIndexes {
				fmt.Fprintf(&b, "[%d]", l.index)
			}
		}
		return b.String()
	}
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if k, ok := tok.(string); ok && expectKey {
			stack[len(stack)-1].key = k
			expectKey = false
			continue
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if match(tok, dec.InputOffset(), path) {
				return path(true)
			}
			stack = append(stack, level{object: tok == json.Delim('{')})
			expectKey = tok == json.Delim('{')
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		default:
			if match(tok, dec.InputOffset(), path) {
				return path(true)
			}
		}
		// A value ended: the next one is the next member or element.
		if len(stack) == 0 {
			return ""
		}
		if top := &stack[len(stack)-1]; top.object {
			expectKey = true
		} else {
			top.index++
		}
	}
}
