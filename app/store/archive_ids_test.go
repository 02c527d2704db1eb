package store_test

import (
	"bytes"
	"testing"

	"github.com/loreweave/loreweave/app/store"
)

func TestRemapIDs(t *testing.T) {
	ids := map[string]string{
		"aaaaaaaaaaaaaaa": "bbbbbbbbbbbbbbb",
		"world0000000001": "world0000000002",
		"asset0000000001": "asset0000000009",
	}
	for _, c := range []struct{ name, in, want string }{
		{"empty", ``, ``},
		{"no ids", `{"a":1}`, `{"a":1}`},
		{"a link token", `[[id:aaaaaaaaaaaaaaa|Name]]`, `[[id:bbbbbbbbbbbbbbb|Name]]`},
		{"a parent field", `{"parentId":"aaaaaaaaaaaaaaa"}`, `{"parentId":"bbbbbbbbbbbbbbb"}`},
		{"an asset url", `"/api/v1/worlds/world0000000001/assets/asset0000000001/file"`, `"/api/v1/worlds/world0000000002/assets/asset0000000009/file"`},
		{"inside a longer run", `"xaaaaaaaaaaaaaaa"`, `"xaaaaaaaaaaaaaaa"`},
		{"followed by a letter", `aaaaaaaaaaaaaaab`, `aaaaaaaaaaaaaaab`},
		{"upper case is a boundary", `Xaaaaaaaaaaaaaaa`, `Xbbbbbbbbbbbbbbb`},
		{"dash and underscore are boundaries", `-aaaaaaaaaaaaaaa_`, `-bbbbbbbbbbbbbbb_`},
		{"twice, adjacent", `aaaaaaaaaaaaaaa aaaaaaaaaaaaaaa`, `bbbbbbbbbbbbbbb bbbbbbbbbbbbbbb`},
		{"an unknown id", `ccccccccccccccc`, `ccccccccccccccc`},
		{"at the end", `x:aaaaaaaaaaaaaaa`, `x:bbbbbbbbbbbbbbb`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := string(store.RemapIDs([]byte(c.in), ids)); got != c.want {
				t.Errorf("RemapIDs(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
	in := []byte(`aaaaaaaaaaaaaaa`)
	store.RemapIDs(in, ids)
	if string(in) != `aaaaaaaaaaaaaaa` {
		t.Errorf("RemapIDs changed its input: %q", in)
	}
}

// FuzzRemapIDs: the result is as long as the input, mapping back restores it, and nothing
// outside a mapped id changes.
func FuzzRemapIDs(f *testing.F) {
	for _, s := range []string{`[[id:aaaaaaaaaaaaaaa]]`, `aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa`, `{"x":"bbbbbbbbbbbbbbb"}`, ``, `a`} {
		f.Add([]byte(s))
	}
	ids := map[string]string{"aaaaaaaaaaaaaaa": "zzzzzzzzzzzzzz9", "bbbbbbbbbbbbbbb": "123456789012345"}
	back := map[string]string{}
	for k, v := range ids {
		back[v] = k
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Contains(data, []byte("zzzzzzzzzzzzzz9")) || bytes.Contains(data, []byte("123456789012345")) {
			t.Skip() // a new id already present would map back too
		}
		orig := bytes.Clone(data)
		got := store.RemapIDs(data, ids)
		if !bytes.Equal(data, orig) {
			t.Fatalf("input changed")
		}
		if len(got) != len(data) {
			t.Fatalf("length %d, want %d", len(got), len(data))
		}
		if again := store.RemapIDs(got, back); !bytes.Equal(again, data) {
			t.Fatalf("mapping back gave %q, want %q", again, data)
		}
	})
}
