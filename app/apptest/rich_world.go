package apptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"

	"github.com/loreweave/loreweave/app/store"
)

// RichWorld is a world with something of everything an archive holds, for export and import
// tests: every built-in document type and a tool's, an era with its own copies and a child
// era, links between documents, a map image uploaded twice (one content, two assets), a
// project, members of each role and a history long enough to have a snapshot.
type RichWorld struct {
	ID                        string
	Owner, Admin, Editor      User
	Card, Other, Timeline     string // Card links to Other and Timeline
	Map, Folder, Animator     string
	Quest                     string // a document of the tool type quest
	Era, ChildEra             string
	Asset, SameAsset, Project string
}

// RichWorld builds a RichWorld owned by a new user.
func (s *Server) RichWorld(name string) RichWorld {
	s.t.Helper()
	st := s.LW.Store
	r := RichWorld{Owner: s.NewUser(name + " Owner"), Admin: s.NewUser(name + " Admin"), Editor: s.NewUser(name + " Editor")}
	r.ID = s.World(r.Owner, name)
	s.AddMember(r.Owner, r.ID, r.Admin, "admin")
	s.AddMember(r.Owner, r.ID, r.Editor, "editor")
	s.InstallTool(r.ID, QuestTool)

	r.Folder = s.Document(r.Owner, r.ID, "Places & People", "folder")
	r.Other = s.Document(r.Owner, r.ID, "Vharn the Grey", "card")
	r.Card = s.Document(r.Owner, r.ID, "Eldoria: the City", "card")
	r.Timeline = s.Document(r.Owner, r.ID, "Chronicle", "timeline")
	r.Map = s.Document(r.Owner, r.ID, "Map of Eldoria", "map")
	r.Animator = s.Document(r.Owner, r.ID, "Dragon", "animator")
	r.Quest = s.Document(r.Owner, r.ID, "Raise the crown", "quest")

	pic := pngOf(16, 8)
	for i, id := range []*string{&r.Asset, &r.SameAsset} {
		a, err := st.CreateAsset(store.NewAsset{WorldID: r.ID, UploaderID: r.Owner.ID, Name: fmt.Sprintf("eldoria-%d.png", i),
			Kind: store.AssetImage, ContentType: "image/png", Ext: ".png", Width: 16, Height: 8, Data: pic})
		if err != nil {
			s.t.Fatalf("apptest: asset: %v", err)
		}
		*id = a.ID
	}
	var p struct{ ID string }
	s.Must(s.Post(r.Owner.Key, "/api/v1/worlds/"+r.ID+"/projects", map[string]any{"name": "Wiki", "kind": "wiki"}), 201).JSON(s.t, &p)
	r.Project = p.ID

	write := func(doc, era string, ops ...map[string]any) {
		s.t.Helper()
		d, err := st.Document(r.ID, doc, era)
		if err != nil {
			s.t.Fatalf("apptest: document %s: %v", doc, err)
		}
		raw := make([]json.RawMessage, len(ops))
		for i, op := range ops {
			raw[i], _ = json.Marshal(op)
		}
		if _, err := st.ApplyOps(store.WriteRequest{Document: d, EraID: era, Ops: raw, Actor: store.Actor{UserID: r.Owner.ID, Credential: "api_key"}}); err != nil {
			s.t.Fatalf("apptest: write %s: %v", doc, err)
		}
	}
	write(r.Folder, "", map[string]any{"op": "folder.setDescription", "description": "Where things are."})
	write(r.Other, "", map[string]any{"op": "card.addSection", "title": "Who", "body": "A wizard of [[doc:" + r.Card + "|the city]]."})
	write(r.Card, "", map[string]any{"op": "card.setProperty", "key": "Population", "value": "12,000"},
		map[string]any{"op": "card.addSection", "title": "History", "body": "Founded by [[doc:" + r.Other + "]]; see [[doc:" + r.Timeline + "|the chronicle]] and [[doc:nosuchdocument|a lost page]]."})
	write(r.Map, "", map[string]any{"op": "map.setImage", "url": store.AssetPath(r.ID, r.Asset), "width": 16, "height": 8},
		map[string]any{"op": "map.addPin", "x": 3, "y": 4, "label": "Eldoria", "documentId": r.Card})
	write(r.Animator, "", map[string]any{"op": "animator.setModel", "url": "https://example.com/dragon.glb", "name": "Dragon"})
	write(r.Quest, "", map[string]any{"op": "quest.setGoal", "goal": "Raise the crown"}, map[string]any{"op": "quest.setState", "state": "open"})
	// A long history: a snapshot every store.SnapshotEvery versions.
	for i := range store.SnapshotEvery + 5 {
		write(r.Timeline, "", map[string]any{"op": "timeline.addEvent", "label": fmt.Sprintf("Year %d", i), "dateMs": int64(i) * 86_400_000})
	}

	era, err := st.CreateEra(r.ID, "Age of Ash", "")
	if err != nil {
		s.t.Fatalf("apptest: era: %v", err)
	}
	r.Era = era.ID
	child, err := st.CreateEra(r.ID, "Late Ash", r.Era)
	if err != nil {
		s.t.Fatalf("apptest: child era: %v", err)
	}
	r.ChildEra = child.ID
	write(r.Card, r.Era, map[string]any{"op": "card.addSection", "title": "Ruin", "body": "Burnt; [[doc:" + r.Other + "]] fled."})
	write(r.Timeline, r.ChildEra, map[string]any{"op": "timeline.addEvent", "label": "The fire", "dateMs": 1})
	return r
}

// pngOf is a blank PNG image.
func pngOf(w, h int) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		panic(err)
	}
	return b.Bytes()
}
