package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app"
	"github.com/loreweave/loreweave/app/auth"
	"github.com/loreweave/loreweave/app/config"
	"github.com/loreweave/loreweave/ops"
)

// The scale scenario's instances: 1,000 documents a world, in 10, 100 and 1,000 worlds,
// each generated once into its own data dir under scaleRoot and kept there between runs.
// The generator is deterministic per world (world w's documents come from a seed of w), so
// the smaller instances hold the same documents as the first worlds of the larger one.
// scaleVersion is part of the directory's name: change it with the generator, and the next
// run builds the instances again instead of measuring stale ones.
const (
	scaleVersion  = "v1"
	scalePerWorld = 1000
	// scaleTimelineEvery makes every 20th document a timeline of 20 events; the rest are cards.
	scaleTimelineEvery = 20
)

// scaleRoot is where the instances are cached.
func scaleRoot() string {
	return filepath.Join(os.TempDir(), "loreweave-bench-scale-"+scaleVersion)
}

// scaleInstance is one generated data dir and what the bench needs to act on it.
type scaleInstance struct {
	Dir    string   `json:"-"`
	Worlds []string `json:"worlds"`
	// Docs holds, for the worlds the bench measures in (Worlds[len/2]), a card and a timeline.
	Card     string `json:"card"`
	Timeline string `json:"timeline"`
	UserID   string `json:"userId"`
	Key      string `json:"key"`
	Docs     int    `json:"docs"`
}

// measuredWorld is the world the scenario lists, reads, writes and searches in: the middle
// one, so a list page is neither the first nor the last world's.
func (in *scaleInstance) measuredWorld() int { return len(in.Worlds) / 2 }

const scaleManifest = "scale-instance.json"

// ensureScaleInstance returns the cached instance of worlds worlds, generating it first if
// it is not there (or was left half-built).
func ensureScaleInstance(worlds int) (*scaleInstance, error) {
	dir := filepath.Join(scaleRoot(), fmt.Sprintf("%dk", worlds))
	in := &scaleInstance{Dir: dir}
	if data, err := os.ReadFile(filepath.Join(dir, scaleManifest)); err == nil {
		if err := json.Unmarshal(data, in); err != nil {
			return nil, err
		}
		return in, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	if err := generateScale(in, worlds); err != nil {
		return nil, fmt.Errorf("generate %d worlds: %w", worlds, err)
	}
	data, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, scaleManifest), data, 0o644); err != nil {
		return nil, err
	}
	logf("scale: generated %d documents in %s into %s", in.Docs, time.Since(start).Round(time.Second), dir)
	return in, nil
}

// generateScale fills in.Dir: an owner with an API key, a second user who is an editor of
// every tenth world, worlds of scalePerWorld documents each (cards with a section of prose,
// every scaleTimelineEvery-th a timeline), and in world 0 a chain of three eras. Documents go
// in with SQL through the app's database, a world per transaction, each with its state row
// and its op-log entry (version 1), as the write path leaves them after one content write;
// they have no outbox rows, so the search index is built by the server's start-up
// reconcile, as after a restart without an index.
func generateScale(in *scaleInstance, worlds int) error {
	pb := core.NewBaseApp(core.BaseAppConfig{DataDir: in.Dir})
	if err := pb.Bootstrap(); err != nil {
		return err
	}
	defer pb.ResetBootstrapState()
	if err := pb.RunAllMigrations(); err != nil {
		return err
	}
	lw := app.Setup(pb, config.Default())
	owner, err := auth.CreateUser(pb, "owner@bench.test", "correct horse battery", "Owner")
	if err != nil {
		return err
	}
	editor, err := auth.CreateUser(pb, "editor@bench.test", "correct horse battery", "Editor")
	if err != nil {
		return err
	}
	if in.Key, _, err = lw.Keys.Create(owner.Id, "bench"); err != nil {
		return err
	}
	in.UserID = owner.Id
	words := newCorpus(0, 0) // the search scenario's vocabulary and names
	for w := range worlds {
		wd, err := lw.Store.CreateWorld(owner.Id, fmt.Sprintf("World %d", w), "fantasy", "studio")
		if err != nil {
			return err
		}
		in.Worlds = append(in.Worlds, wd.ID)
		if w%10 == 0 {
			if _, err := lw.Store.AddMember(wd.ID, editor.Id, "editor"); err != nil {
				return err
			}
		}
		if w == 0 {
			parent := ""
			for _, name := range []string{"First Age", "Second Age", "Third Age"} {
				e, err := lw.Store.CreateEra(wd.ID, name, parent)
				if err != nil {
					return err
				}
				parent = e.ID
			}
		}
		ids, err := bulkInsert(pb, wd.ID, scaleDocs(words, w), false)
		if err != nil {
			return err
		}
		if w == worlds/2 {
			in.Card, in.Timeline = ids[1], ids[0]
		}
		in.Docs += len(ids)
		if (w+1)%100 == 0 {
			logf("scale: %d of %d worlds generated", w+1, worlds)
		}
	}
	return nil
}

// scaleDocs generates world w's documents from a seed of w alone.
func scaleDocs(c *corpus, w int) []seedDoc {
	rng := rand.New(rand.NewPCG(uint64(w), 18))
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(c.vocab)-1))
	name := func() string { return c.names[rng.IntN(len(c.names))] }
	prose := func(words int, featured []string) string {
		var b strings.Builder
		for k := range words {
			t := c.vocab[zipf.Uint64()]
			if rng.IntN(12) == 0 {
				t = featured[rng.IntN(len(featured))]
			}
			if k%9 == 0 {
				t = capitalize(t)
			}
			b.WriteString(t)
			if k%9 == 8 || k == words-1 {
				b.WriteString(". ")
			} else {
				b.WriteString(" ")
			}
		}
		return strings.TrimSpace(b.String())
	}
	out := make([]seedDoc, scalePerWorld)
	for i := range out {
		featured := []string{name(), name()}
		docName := featured[0]
		if rng.IntN(3) == 0 {
			docName += " of " + name()
		}
		if i%scaleTimelineEvery == 0 {
			t := &ops.Timeline{Events: []ops.Event{}}
			var applied []string
			for k := range 20 {
				e := ops.Event{ID: fmt.Sprintf("ev-%d-%d", i, k), Label: prose(4, featured), DateMs: int64(k-10) * 365 * 24 * 3600 * 1000 * 10,
					Description: prose(12, featured), Precision: "year"}
				t.Events = append(t.Events, e)
				applied = append(applied, string(mustJSON(map[string]any{"op": "timeline.addEvent", "id": e.ID, "label": e.Label,
					"dateMs": e.DateMs, "description": e.Description, "precision": e.Precision})))
			}
			out[i] = seedDoc{Name: docName + " chronicle", Type: "timeline", Data: string(t.JSON()), Text: t.Text(docName + " chronicle"), Ops: "[" + strings.Join(applied, ",") + "]"}
			continue
		}
		body := prose(90+rng.IntN(21), featured)
		sec := ops.Section{ID: fmt.Sprintf("sec-%08d", i), Title: "Notes", Body: body}
		card := &ops.Card{Aliases: []string{}, Properties: []ops.Property{}, Sections: []ops.Section{sec}}
		op := mustJSON(map[string]any{"op": "card.addSection", "id": sec.ID, "title": sec.Title, "body": sec.Body, "index": 0})
		out[i] = seedDoc{Name: docName, Type: "card", Data: string(card.JSON()), Text: card.Text(docName), Ops: "[" + string(op) + "]"}
	}
	return out
}
