package ops

import (
	"fmt"
	"strings"
	"testing"
)

const twoEvents = `{"events":[
	{"id":"evt-a","label":"Founding","dateMs":0,"description":"","precision":"year"},
	{"id":"evt-b","label":"War","dateMs":1000,"description":"Long.","precision":"day"}]}`

// manyEvents returns a timeline with n events.
func manyEvents(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"id":"evt-%05d","label":"E","dateMs":%d}`, i, i)
	}
	return `{"events":[` + strings.Join(parts, ",") + `]}`
}

func TestTimelineOps(t *testing.T) {
	long := strings.Repeat("x", maxLabel+1)
	runCases(t, "timeline", []opCase{
		{name: "addEvent with defaults", ops: []string{`{"op":"timeline.addEvent","label":"Founding","dateMs":5}`},
			want:    `{"events":[{"id":"evt-1","label":"Founding","dateMs":5,"description":"","precision":"day"}]}`,
			applied: []string{`{"op":"timeline.addEvent","id":"evt-1","label":"Founding","dateMs":5,"description":"","precision":"day"}`},
			created: []Created{{"evt-1", "Founding"}}},
		{name: "addEvent keeps the order (same date: in the order added)", data: twoEvents, ops: []string{
			`{"op":"timeline.addEvent","label":"Deep past","dateMs":-9007199254740991,"precision":"millennium","description":"Before."}`,
			`{"op":"timeline.addEvent","label":"Far","dateMs":9007199254740991}`,
			`{"op":"timeline.addEvent","label":"Tie","dateMs":1000}`},
			want: `{"events":[
				{"id":"evt-1","label":"Deep past","dateMs":-9007199254740991,"description":"Before.","precision":"millennium"},
				{"id":"evt-a","label":"Founding","dateMs":0,"description":"","precision":"year"},
				{"id":"evt-b","label":"War","dateMs":1000,"description":"Long.","precision":"day"},
				{"id":"evt-3","label":"Tie","dateMs":1000,"description":"","precision":"day"},
				{"id":"evt-2","label":"Far","dateMs":9007199254740991,"description":"","precision":"day"}]}`},
		{name: "addEvent dateMs in exponent form", ops: []string{`{"op":"timeline.addEvent","label":"E","dateMs":1e3}`},
			want: `{"events":[{"id":"evt-1","label":"E","dateMs":1000,"description":"","precision":"day"}]}`},
		{name: "addEvent without label", ops: []string{`{"op":"timeline.addEvent","dateMs":5}`}, code: CodeInvalidField, field: "label"},
		{name: "addEvent empty label", ops: []string{`{"op":"timeline.addEvent","label":"","dateMs":5}`}, code: CodeInvalidField, field: "label"},
		{name: "addEvent label too long", ops: []string{`{"op":"timeline.addEvent","label":"` + long + `","dateMs":5}`}, code: CodeInvalidField, field: "label"},
		{name: "addEvent label not a string", ops: []string{`{"op":"timeline.addEvent","label":5,"dateMs":5}`}, code: CodeInvalidField, field: "label"},
		{name: "addEvent without dateMs", ops: []string{`{"op":"timeline.addEvent","label":"E"}`}, code: CodeInvalidField, field: "dateMs"},
		{name: "addEvent fractional dateMs", ops: []string{`{"op":"timeline.addEvent","label":"E","dateMs":1.5}`}, code: CodeInvalidField, field: "dateMs"},
		{name: "addEvent dateMs past 2^53 not a whole day", ops: []string{`{"op":"timeline.addEvent","label":"E","dateMs":9007199254740993}`}, code: CodeInvalidField, field: "dateMs"},
		// 3,000,000 BCE: past 2^53 ms, a whole day, held exactly.
		{name: "addEvent deep time", ops: []string{`{"op":"timeline.addEvent","label":"E","dateMs":-94670856000000000,"precision":"millennium"}`},
			want: `{"events":[{"id":"evt-1","label":"E","dateMs":-94670856000000000,"description":"","precision":"millennium"}]}`},
		{name: "addEvent dateMs at the bound", ops: []string{`{"op":"timeline.addEvent","label":"E","dateMs":8640000000000000000}`},
			want: `{"events":[{"id":"evt-1","label":"E","dateMs":8640000000000000000,"description":"","precision":"day"}]}`},
		{name: "addEvent dateMs past the bound", ops: []string{`{"op":"timeline.addEvent","label":"E","dateMs":-8640000000086400000}`}, code: CodeInvalidField, field: "dateMs"},
		{name: "addEvent dateMs past int64", ops: []string{`{"op":"timeline.addEvent","label":"E","dateMs":99999999999999999999}`}, code: CodeInvalidField, field: "dateMs"},
		{name: "addEvent dateMs too small", ops: []string{`{"op":"timeline.addEvent","label":"E","dateMs":-1e300}`}, code: CodeInvalidField, field: "dateMs"},
		{name: "addEvent dateMs a string", ops: []string{`{"op":"timeline.addEvent","label":"E","dateMs":"5"}`}, code: CodeInvalidField, field: "dateMs"},
		{name: "addEvent bad precision", ops: []string{`{"op":"timeline.addEvent","label":"E","dateMs":5,"precision":"week"}`}, code: CodeInvalidField, field: "precision"},
		{name: "addEvent description too long", ops: []string{`{"op":"timeline.addEvent","label":"E","dateMs":5,"description":"` + strings.Repeat("é", maxDescription+1) + `"}`}, code: CodeInvalidField, field: "description"},
		{name: "addEvent unknown parameter", ops: []string{`{"op":"timeline.addEvent","label":"E","dateMs":5,"colour":"red"}`}, code: CodeInvalidField, field: "colour"},
		{name: "addEvent id is not a parameter", ops: []string{`{"op":"timeline.addEvent","id":"evt-x","label":"E","dateMs":5}`}, code: CodeInvalidField, field: "id"},
		{name: "addEvent to a full timeline", data: manyEvents(maxEvents), ops: []string{`{"op":"timeline.addEvent","label":"E","dateMs":5}`}, code: CodeInvalidField, field: "events"},

		{name: "updateEvent label", data: twoEvents, ops: []string{`{"op":"timeline.updateEvent","id":"evt-b","label":"Great War"}`},
			want: `{"events":[
				{"id":"evt-a","label":"Founding","dateMs":0,"description":"","precision":"year"},
				{"id":"evt-b","label":"Great War","dateMs":1000,"description":"Long.","precision":"day"}]}`,
			applied: []string{`{"op":"timeline.updateEvent","id":"evt-b","label":"Great War"}`}},
		{name: "updateEvent date reorders", data: twoEvents, ops: []string{`{"op":"timeline.updateEvent","id":"evt-b","dateMs":-5,"description":"","precision":"hour"}`},
			want: `{"events":[
				{"id":"evt-b","label":"War","dateMs":-5,"description":"","precision":"hour"},
				{"id":"evt-a","label":"Founding","dateMs":0,"description":"","precision":"year"}]}`,
			applied: []string{`{"op":"timeline.updateEvent","id":"evt-b","dateMs":-5,"description":"","precision":"hour"}`}},
		{name: "updateEvent without id", data: twoEvents, ops: []string{`{"op":"timeline.updateEvent","label":"X"}`}, code: CodeInvalidField, field: "id"},
		{name: "updateEvent unknown id", data: twoEvents, ops: []string{`{"op":"timeline.updateEvent","id":"evt-z","label":"X"}`}, code: CodeNotFoundInDocument, field: "id"},
		{name: "updateEvent sets nothing", data: twoEvents, ops: []string{`{"op":"timeline.updateEvent","id":"evt-a"}`}, code: CodeInvalidField, field: "op"},
		{name: "updateEvent empty label", data: twoEvents, ops: []string{`{"op":"timeline.updateEvent","id":"evt-a","label":""}`}, code: CodeInvalidField, field: "label"},
		{name: "updateEvent dateMs out of range", data: twoEvents, ops: []string{`{"op":"timeline.updateEvent","id":"evt-a","dateMs":1e16}`}, code: CodeInvalidField, field: "dateMs"},
		{name: "updateEvent bad precision", data: twoEvents, ops: []string{`{"op":"timeline.updateEvent","id":"evt-a","precision":"eon"}`}, code: CodeInvalidField, field: "precision"},
		{name: "updateEvent description not a string", data: twoEvents, ops: []string{`{"op":"timeline.updateEvent","id":"evt-a","description":[]}`}, code: CodeInvalidField, field: "description"},
		{name: "updateEvent unknown parameter", data: twoEvents, ops: []string{`{"op":"timeline.updateEvent","id":"evt-a","when":1}`}, code: CodeInvalidField, field: "when"},

		{name: "removeEvent", data: twoEvents, ops: []string{`{"op":"timeline.removeEvent","id":"evt-a"}`},
			want:    `{"events":[{"id":"evt-b","label":"War","dateMs":1000,"description":"Long.","precision":"day"}]}`,
			applied: []string{`{"op":"timeline.removeEvent","id":"evt-a"}`}},
		{name: "removeEvent twice", data: twoEvents, ops: []string{`{"op":"timeline.removeEvent","id":"evt-a"}`, `{"op":"timeline.removeEvent","id":"evt-a"}`}, code: CodeNotFoundInDocument, field: "id", opIndex: 1},
		{name: "removeEvent without id", data: twoEvents, ops: []string{`{"op":"timeline.removeEvent"}`}, code: CodeInvalidField, field: "id"},
		{name: "removeEvent empty id", data: twoEvents, ops: []string{`{"op":"timeline.removeEvent","id":""}`}, code: CodeInvalidField, field: "id"},
		{name: "removeEvent id not a string", data: twoEvents, ops: []string{`{"op":"timeline.removeEvent","id":7}`}, code: CodeInvalidField, field: "id"},
	})
}
