package ops

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// paramStructs maps each op to the struct its parameters decode into.
var paramStructs = map[string]any{
	"animator.setModel":      setModelParams{},
	"animator.setClips":      setClipsParams{},
	"animator.setActiveClip": setActiveClipParams{},
	"card.rename":            renameParams{},
	"card.setAliases":        setAliasesParams{},
	"card.setProperty":       setPropertyParams{},
	"card.removeProperty":    removePropertyParams{},
	"card.addSection":        addSectionParams{},
	"card.updateSection":     updateSectionParams{},
	"card.editSectionText":   editSectionTextParams{},
	"card.moveSection":       moveSectionParams{},
	"card.removeSection":     removeParams{},
	"card.setSectionSecret":  setSectionSecretParams{},
	"folder.setDescription":  setDescriptionParams{},
	"map.setImage":           setImageParams{},
	"map.addPin":             addPinParams{},
	"map.movePin":            movePinParams{},
	"map.updatePin":          updatePinParams{},
	"map.removePin":          removeParams{},
	"timeline.addEvent":      addEventParams{},
	"timeline.updateEvent":   updateEventParams{},
	"timeline.removeEvent":   removeParams{},
}

func TestCatalogListsTheRegisteredOps(t *testing.T) {
	var registered, listed []string
	for _, typ := range Types() {
		registered = append(registered, Supported(typ)...)
	}
	for _, op := range Catalog() {
		listed = append(listed, op.Name)
		if !slices.Contains(Supported(op.DocumentType), op.Name) || !strings.HasPrefix(op.Name, op.DocumentType+".") {
			t.Errorf("%s is listed for %s, which does not support it", op.Name, op.DocumentType)
		}
		if op.Summary == "" || !strings.HasSuffix(op.Summary, ".") {
			t.Errorf("%s: summary %q is not a sentence", op.Name, op.Summary)
		}
		params, ok := paramStructs[op.Name]
		if !ok {
			t.Errorf("%s: no params struct in the test table", op.Name)
			continue
		}
		checkParams(t, op.Name, op.Params, reflect.TypeOf(params))
	}
	slices.Sort(registered)
	slices.Sort(listed)
	if !slices.Equal(registered, listed) {
		t.Fatalf("registered ops %v\nlisted ops %v", registered, listed)
	}
	if len(paramStructs) != len(registered) {
		t.Errorf("the test table has %d ops, %d are registered", len(paramStructs), len(registered))
	}
}

// checkParams compares the documented parameters with the JSON members of a struct.
func checkParams(t *testing.T, where string, specs []ParamSpec, st reflect.Type) {
	t.Helper()
	fields := map[string]reflect.Type{}
	for f := range st.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous || name == "" || name == "-" {
			continue
		}
		fields[name] = f.Type
	}
	for _, p := range specs {
		where := where + "." + p.Name
		ft, ok := fields[p.Name]
		if !ok {
			t.Errorf("%s is documented but not accepted", where)
			continue
		}
		delete(fields, p.Name)
		if p.Description == "" {
			t.Errorf("%s has no description", where)
		}
		checkType(t, where, p, ft)
	}
	for name := range fields {
		t.Errorf("%s.%s is accepted but not documented", where, name)
	}
}

func checkType(t *testing.T, where string, p ParamSpec, ft reflect.Type) {
	t.Helper()
	for ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	var ok bool
	switch {
	case ft == reflect.TypeFor[jsonNumber]():
		ok = p.Type == "integer" || p.Type == "number"
	case ft.Kind() == reflect.String:
		ok = p.Type == "string"
	case ft.Kind() == reflect.Bool:
		ok = p.Type == "boolean"
	case ft.Kind() == reflect.Slice:
		ok = p.Type == "array" && p.Items != nil
		if ok {
			checkType(t, where+"[]", *p.Items, ft.Elem())
		}
	case ft.Kind() == reflect.Struct:
		ok = p.Type == "object"
		if ok {
			checkParams(t, where, p.Fields, ft)
		}
	}
	if !ok {
		t.Errorf("%s is documented as %s but decodes into %s", where, p.Type, ft)
	}
}
