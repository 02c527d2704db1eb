package store_test

import (
	"fmt"
	"testing"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/store"
)

// AllDocuments pages through every document once, a world's documents together.
func TestAllDocumentsPagesWorldByWorld(t *testing.T) {
	s := apptest.Start(t)
	ann := s.NewUser("Ann")
	for _, name := range []string{"Eldoria", "Umbar", "Qo'noS"} {
		world := s.World(ann, name)
		for i := range 5 {
			s.Document(ann, world, fmt.Sprint(name, " ", i), "card")
		}
	}
	var want int
	if err := s.PB.DB().NewQuery("SELECT count(*) FROM documents").Row(&want); err != nil {
		t.Fatal(err)
	}
	var got []store.Document
	for after := (store.Document{}); ; {
		docs, err := s.LW.Store.AllDocuments(after, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) == 0 {
			break
		}
		got = append(got, docs...)
		after = docs[len(docs)-1]
	}
	seen, worlds := map[string]bool{}, map[string]bool{}
	for i, d := range got {
		if seen[d.ID] {
			t.Fatalf("document %s twice", d.ID)
		}
		seen[d.ID] = true
		if i == 0 || d.WorldID != got[i-1].WorldID {
			if worlds[d.WorldID] {
				t.Fatalf("world %s's documents are not together", d.WorldID)
			}
			worlds[d.WorldID] = true
		}
	}
	if len(got) != want || want < 15 || len(worlds) != 3 {
		t.Fatalf("got %d documents in %d worlds, want %d in 3", len(got), len(worlds), want)
	}
}
