package ops

// ValidJSON reports whether data is one valid JSON value, as json.Valid does (same answer
// on every input, fuzzed against it), in one pass without json.Valid's call per byte: every
// request body and every op is checked, and json.Valid was 3% of a content write's CPU.
func ValidJSON(data []byte) bool {
	v := validator{data: data}
	v.space()
	if !v.value() {
		return false
	}
	v.space()
	return v.i == len(data)
}

// maxValidDepth is encoding/json's limit of nested arrays and objects.
const maxValidDepth = 10000

type validator struct {
	data []byte
	i    int
}

func (v *validator) space() { v.i = skipSpace(v.data, v.i) }

// value reads one value at v.i (white space before it skipped), nested containers included.
func (v *validator) value() bool {
	var stack [32]byte
	open := stack[:0] // the containers entered and not yet closed: '{' or '['
	for {
		// A value: a container opens (and may close at once), or a scalar is read.
		if v.i >= len(v.data) {
			return false
		}
		switch c := v.data[v.i]; c {
		case '{', '[':
			if len(open) == maxValidDepth {
				return false
			}
			open = append(open, c)
			v.i++
			v.space()
			if v.i < len(v.data) && v.data[v.i] == c+2 { // '}' or ']'
				open = open[:len(open)-1]
				v.i++
				break
			}
			if c == '{' && !v.member() {
				return false
			}
			continue // the first element or member value
		case '"':
			if !v.str() {
				return false
			}
		case 't':
			if !v.literal("true") {
				return false
			}
		case 'f':
			if !v.literal("false") {
				return false
			}
		case 'n':
			if !v.literal("null") {
				return false
			}
		default:
			if !v.number() {
				return false
			}
		}
		// After a value: close containers, or go on to the next element or member.
		for {
			if len(open) == 0 {
				return true
			}
			v.space()
			if v.i >= len(v.data) {
				return false
			}
			c, top := v.data[v.i], open[len(open)-1]
			if c == ',' {
				v.i++
				v.space()
				if top == '{' && !v.member() {
					return false
				}
				break
			}
			if c != top+2 {
				return false
			}
			open = open[:len(open)-1]
			v.i++
		}
	}
}

// member reads an object member's name and colon, leaving v.i at its value.
func (v *validator) member() bool {
	if v.i >= len(v.data) || v.data[v.i] != '"' || !v.str() {
		return false
	}
	v.space()
	if v.i >= len(v.data) || v.data[v.i] != ':' {
		return false
	}
	v.i++
	v.space()
	return true
}

// str reads a string at v.i (its opening quote).
func (v *validator) str() bool {
	for v.i++; v.i < len(v.data); v.i++ {
		switch c := v.data[v.i]; {
		case c == '"':
			v.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			v.i++
			if v.i >= len(v.data) {
				return false
			}
			switch v.data[v.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if _, ok := hex4(v.data, v.i+1); !ok {
					return false
				}
				v.i += 4
			default:
				return false
			}
		}
	}
	return false
}

func (v *validator) literal(word string) bool {
	if len(v.data)-v.i < len(word) || string(v.data[v.i:v.i+len(word)]) != word {
		return false
	}
	v.i += len(word)
	return true
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (v *validator) number() bool {
	d := v.data
	if v.i < len(d) && d[v.i] == '-' {
		v.i++
	}
	switch {
	case v.i < len(d) && d[v.i] == '0':
		v.i++
	case v.i < len(d) && '1' <= d[v.i] && d[v.i] <= '9':
		v.digits()
	default:
		return false
	}
	if v.i < len(d) && d[v.i] == '.' {
		v.i++
		if !v.digits() {
			return false
		}
	}
	if v.i < len(d) && (d[v.i] == 'e' || d[v.i] == 'E') {
		v.i++
		if v.i < len(d) && (d[v.i] == '+' || d[v.i] == '-') {
			v.i++
		}
		if !v.digits() {
			return false
		}
	}
	return true
}

// digits reads one or more digits.
func (v *validator) digits() bool {
	start := v.i
	for v.i < len(v.data) && '0' <= v.data[v.i] && v.data[v.i] <= '9' {
		v.i++
	}
	return v.i > start
}
