package ops

import (
	"strings"
	"testing"
)

func TestFolderOps(t *testing.T) {
	runCases(t, "folder", []opCase{
		{name: "setDescription", ops: []string{`{"op":"folder.setDescription","description":"Places of the coast."}`},
			want:    `{"description":"Places of the coast."}`,
			applied: []string{`{"op":"folder.setDescription","description":"Places of the coast."}`}},
		{name: "setDescription empty", data: `{"description":"x"}`, ops: []string{`{"op":"folder.setDescription","description":""}`}, want: `{"description":""}`},
		{name: "setDescription without description", ops: []string{`{"op":"folder.setDescription"}`}, code: CodeInvalidField, field: "description"},
		{name: "setDescription too long", ops: []string{`{"op":"folder.setDescription","description":"` + strings.Repeat("x", maxDescription+1) + `"}`}, code: CodeInvalidField, field: "description"},
		{name: "setDescription not a string", ops: []string{`{"op":"folder.setDescription","description":{}}`}, code: CodeInvalidField, field: "description"},
		{name: "setDescription unknown parameter", ops: []string{`{"op":"folder.setDescription","description":"x","name":"y"}`}, code: CodeInvalidField, field: "name"},
	})
}
