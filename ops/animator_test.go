package ops

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

const walking = `{"model":{"url":"/hero.glb","name":"Hero"},"clips":[{"id":"idle"},{"id":"walk"}],"activeClipId":"walk"}`

func TestAnimatorOps(t *testing.T) {
	tooMany := make([]string, maxClips+1)
	for i := range tooMany {
		tooMany[i] = fmt.Sprintf(`{"id":"c%d"}`, i)
	}
	runCases(t, "animator", []opCase{
		{name: "setModel", ops: []string{`{"op":"animator.setModel","url":"https://example.com/a.glb","name":"A"}`},
			want:    `{"model":{"url":"https://example.com/a.glb","name":"A"},"clips":[],"activeClipId":""}`,
			applied: []string{`{"op":"animator.setModel","url":"https://example.com/a.glb","name":"A"}`}},
		{name: "setModel path, no name", data: walking, ops: []string{`{"op":"animator.setModel","url":"/files/b.glb"}`},
			want: `{"model":{"url":"/files/b.glb","name":""},"clips":[{"id":"idle"},{"id":"walk"}],"activeClipId":"walk"}`},
		{name: "setModel without url", ops: []string{`{"op":"animator.setModel","name":"A"}`}, code: CodeInvalidField, field: "url"},
		{name: "setModel ftp url", ops: []string{`{"op":"animator.setModel","url":"ftp://example.com/a.glb"}`}, code: CodeInvalidField, field: "url"},
		{name: "setModel relative url", ops: []string{`{"op":"animator.setModel","url":"a.glb"}`}, code: CodeInvalidField, field: "url"},
		{name: "setModel url without host", ops: []string{`{"op":"animator.setModel","url":"https:///a.glb"}`}, code: CodeInvalidField, field: "url"},
		{name: "setModel url too long", ops: []string{`{"op":"animator.setModel","url":"/` + strings.Repeat("a", maxURL) + `"}`}, code: CodeInvalidField, field: "url"},
		{name: "setModel name too long", ops: []string{`{"op":"animator.setModel","url":"/a","name":"` + strings.Repeat("a", maxName+1) + `"}`}, code: CodeInvalidField, field: "name"},
		{name: "setModel unknown parameter", ops: []string{`{"op":"animator.setModel","url":"/a","scale":2}`}, code: CodeInvalidField, field: "scale"},

		{name: "setClips keeps the active clip", data: walking, ops: []string{`{"op":"animator.setClips","clips":[{"id":"walk"},{"id":"run"}]}`},
			want:    `{"model":{"url":"/hero.glb","name":"Hero"},"clips":[{"id":"walk"},{"id":"run"}],"activeClipId":"walk"}`,
			applied: []string{`{"op":"animator.setClips","clips":[{"id":"walk"},{"id":"run"}]}`}},
		{name: "setClips dropping the active clip clears it", data: walking, ops: []string{`{"op":"animator.setClips","clips":[{"id":"idle"}]}`},
			want: `{"model":{"url":"/hero.glb","name":"Hero"},"clips":[{"id":"idle"}],"activeClipId":""}`},
		{name: "setClips empty", data: walking, ops: []string{`{"op":"animator.setClips","clips":[]}`},
			want: `{"model":{"url":"/hero.glb","name":"Hero"},"clips":[],"activeClipId":""}`},
		{name: "setClips without clips", ops: []string{`{"op":"animator.setClips"}`}, code: CodeInvalidField, field: "clips"},
		{name: "setClips null", ops: []string{`{"op":"animator.setClips","clips":null}`}, code: CodeInvalidField, field: "clips"},
		{name: "setClips duplicate", ops: []string{`{"op":"animator.setClips","clips":[{"id":"a"},{"id":"a"}]}`}, code: CodeInvalidField, field: "clips[1].id"},
		{name: "setClips empty id", ops: []string{`{"op":"animator.setClips","clips":[{"id":""}]}`}, code: CodeInvalidField, field: "clips[0].id"},
		{name: "setClips too many", ops: []string{`{"op":"animator.setClips","clips":[` + strings.Join(tooMany, ",") + `]}`}, code: CodeInvalidField, field: "clips"},
		{name: "setClips not an array", ops: []string{`{"op":"animator.setClips","clips":"walk"}`}, code: CodeInvalidField, field: "clips"},
		// A fault inside a clip names the clip: its index, then the member.
		{name: "setClips unknown clip member", ops: []string{`{"op":"animator.setClips","clips":[{"id":"a"},{"id":"b","extra":1}]}`}, code: CodeInvalidField, field: "clips[1].extra"},
		{name: "setClips clip member twice", ops: []string{`{"op":"animator.setClips","clips":[{"id":"a"},{"id":"b","id":"c"}]}`}, code: CodeInvalidField, field: "clips[1].id"},
		{name: "setClips clip member in capitals", ops: []string{`{"op":"animator.setClips","clips":[{"id":"a"},{"ID":"b"}]}`}, code: CodeInvalidField, field: "clips[1].ID"},
		{name: "setClips clip id not a string", ops: []string{`{"op":"animator.setClips","clips":[{"id":"a"},{"id":5}]}`}, code: CodeInvalidField, field: "clips[1].id"},
		{name: "setModel member twice", ops: []string{`{"op":"animator.setModel","url":"/a.glb","url":"/b.glb"}`}, code: CodeInvalidField, field: "url"},

		{name: "setActiveClip", data: walking, ops: []string{`{"op":"animator.setActiveClip","clipId":"idle"}`},
			want:    `{"model":{"url":"/hero.glb","name":"Hero"},"clips":[{"id":"idle"},{"id":"walk"}],"activeClipId":"idle"}`,
			applied: []string{`{"op":"animator.setActiveClip","clipId":"idle"}`}},
		{name: "setActiveClip unknown", data: walking, ops: []string{`{"op":"animator.setActiveClip","clipId":"fly"}`}, code: CodeUnknownClip, field: "clipId"},
		{name: "setActiveClip with no clips", ops: []string{`{"op":"animator.setActiveClip","clipId":"fly"}`}, code: CodeUnknownClip, field: "clipId"},
		{name: "setActiveClip without clipId", data: walking, ops: []string{`{"op":"animator.setActiveClip"}`}, code: CodeInvalidField, field: "clipId"},
	})
}

func TestUnknownClipDetails(t *testing.T) {
	doc, _ := Decode("animator", []byte(walking))
	_, err := Apply(doc, Request{Ops: raws([]string{`{"op":"animator.setActiveClip","clipId":"fly"}`})})
	e := err.(*Error)
	if !reflect.DeepEqual(e.Details["clipIds"], []string{"idle", "walk"}) || !strings.Contains(e.Message, "idle, walk") {
		t.Fatalf("%#v", e)
	}
}
