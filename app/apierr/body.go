package apierr

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"github.com/loreweave/loreweave/ops"
)

// Limits of a JSON request body.
const (
	MaxBody    = 1 << 20 // bytes
	MaxNesting = 32      // JSON nesting levels
)

// DecodeJSON reads a JSON request body into dst, for every surface that takes one (REST,
// the web editor's writes): it must be application/json (415), at most
// MaxBody bytes (413), well-formed (400), nested at most MaxNesting levels (422) and a JSON
// object whose members dst knows, with the right types (422 invalid_field). Like ops, it
// refuses what encoding/json would quietly forgive: bytes that are not UTF-8 and lone
// surrogate escapes (400 malformed_json), duplicate members and member names that differ
// from a field's only in case (422 invalid_field).
func DecodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	data, err := ReadJSON(w, r)
	if err != nil {
		return err
	}
	if field, problem := ops.CheckKeys(data, reflect.TypeOf(dst)); problem != "" {
		return Field(field, "%s", problem)
	}
	if ops.QuickDecode(data, dst) {
		return nil // what the decoder below would have done, without reading the body again
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			want := kind(typeErr.Type.Kind().String())
			if want == "a number" && strings.HasPrefix(typeErr.Value, "number ") && strings.ContainsAny(typeErr.Value, ".eE") {
				// A number for an integer member, but with a fraction or an exponent.
				want = "an integer written without a fraction or an exponent (like 3)"
			}
			return Field(typeErr.Field, "%q must be %s", typeErr.Field, want)
		}
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			f = ops.Echo(strings.Trim(f, `"`))
			return Field(f, "unknown field %q", f)
		}
		return New(http.StatusBadRequest, "malformed_json", "the request body is not valid JSON")
	}
	return nil
}

// ReadJSON reads a JSON object request body as it is, with DecodeJSON's limits and checks
// of the text (type, size, nesting, encoding, well-formed, an object), for a body that is a
// document of its own (a tool manifest) rather than a request's parameters.
func ReadJSON(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return nil, New(http.StatusUnsupportedMediaType, "unsupported_media_type", "send the body as JSON with the header Content-Type: application/json")
	}
	data, err := readBody(w, r)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, New(http.StatusRequestEntityTooLarge, "body_too_large", "the request body is larger than %d bytes (1 MiB); split the work into smaller requests", MaxBody).With("limit", MaxBody)
		}
		return nil, New(http.StatusBadRequest, "malformed_json", "the request body could not be read")
	}
	// Depth first: Go's JSON parser gives up past 10,000 levels and would call such a body
	// malformed.
	if depth(data) > MaxNesting {
		return nil, New(http.StatusUnprocessableEntity, "nesting_too_deep", "the JSON body is nested more than %d levels deep", MaxNesting).With("limit", MaxNesting)
	}
	if problem := ops.CheckJSONText(data); problem != "" {
		return nil, New(http.StatusBadRequest, "malformed_json", "%s", problem)
	}
	if !ops.ValidJSON(data) {
		return nil, New(http.StatusBadRequest, "malformed_json", "the request body is not valid JSON")
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return nil, New(http.StatusUnprocessableEntity, "invalid_field", "the request body must be a JSON object").With("field", "")
	}
	return data, nil
}

// readBody reads r's body, at most MaxBody bytes: a small one (most are) into a slice of the
// length its header announces, instead of one grown as it is read; a larger one as it comes,
// so that a header alone does not reserve the memory.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body := http.MaxBytesReader(w, r.Body, MaxBody)
	if n := r.ContentLength; n > 0 && n <= exactBody {
		data := make([]byte, n)
		if _, err := io.ReadFull(body, data); err != nil {
			return nil, err
		}
		return data, nil
	}
	return io.ReadAll(body)
}

// exactBody is the largest body read into a slice of its announced length.
const exactBody = 64 << 10

func kind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	case "bool":
		return "a boolean"
	}
	return "a number"
}

// depth returns the deepest nesting of arrays and objects (brackets outside strings).
func depth(data []byte) int {
	max, cur := 0, 0
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString:
			if escaped {
				escaped = false
			} else if c == '\\' {
				escaped = true
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			cur++
			if cur > max {
				max = cur
			}
		case c == '}' || c == ']':
			cur--
		}
	}
	return max
}
