package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
)

// TrashKeep is how long a world stays in the trash, restorable by its owner, before the
// purge removes it for good.
const TrashKeep = 30 * 24 * time.Hour

// trashPurgeEvery is how often the server looks for worlds whose time in the trash is up.
const trashPurgeEvery = time.Hour

// WorldChange is what UpdateWorld changes: each field nil leaves it as it is.
type WorldChange struct {
	Name  *string
	Genre *string
}

// UpdateWorld renames a world and/or changes its genre; the theme follows the genre as it
// does when a world is created (ThemeFor). The slug stays, so no address breaks.
func (s *Store) UpdateWorld(w World, c WorldChange) (World, error) {
	if c.Name != nil {
		name, err := CleanName("name", *c.Name)
		if err != nil {
			return World{}, err
		}
		w.Name = name
	}
	if c.Genre != nil {
		genre, err := CleanOptional("genre", *c.Genre)
		if err != nil {
			return World{}, err
		}
		w.Genre, w.Theme = genre, ThemeFor(genre)
	}
	w.Updated = now()
	var seq int64
	err := s.app.RunInTransaction(func(tx core.App) error {
		res, err := tx.DB().NewQuery("UPDATE worlds SET name = {:name}, genre = {:genre}, theme = {:theme}, updated = {:t} WHERE id = {:id} AND deleted = ''").
			Bind(dbx.Params{"name": w.Name, "genre": w.Genre, "theme": w.Theme, "t": w.Updated, "id": w.ID}).Execute()
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apierr.ErrNotFound
		}
		seq, err = WriteOutbox(tx.DB(), "world.updated", w.ID, "", "", "")
		return err
	})
	s.cache.forget([]OutboxRow{{Kind: "world.updated", World: w.ID}})
	if err != nil {
		if errors.Is(err, apierr.ErrNotFound) {
			return World{}, apierr.NotFound("world")
		}
		return World{}, fmt.Errorf("store: update world: %w", err)
	}
	s.publish(Change{Seq: seq, Kind: "world.updated", WorldID: w.ID})
	return w, nil
}

// TrashWorld moves a world to the trash: from now on it answers 404 to everyone, its open
// streams end, and after TrashKeep the purge removes it. Its owner may restore it until then.
func (s *Store) TrashWorld(worldID string) error {
	var seq int64
	err := s.app.RunInTransaction(func(tx core.App) error {
		res, err := tx.DB().NewQuery("UPDATE worlds SET deleted = {:t} WHERE id = {:id} AND deleted = ''").
			Bind(dbx.Params{"t": now(), "id": worldID}).Execute()
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apierr.ErrNotFound
		}
		seq, err = WriteOutbox(tx.DB(), "world.deleted", worldID, "", "", "")
		return err
	})
	s.cache.forget([]OutboxRow{{Kind: "world.deleted", World: worldID}})
	if err != nil {
		if errors.Is(err, apierr.ErrNotFound) {
			return apierr.NotFound("world")
		}
		return fmt.Errorf("store: trash world: %w", err)
	}
	s.publish(Change{Seq: seq, Kind: "world.deleted", WorldID: worldID})
	return nil
}

// TrashedWorld is a world in its owner's trash.
type TrashedWorld struct {
	World
	// PurgeAt is when the purge removes it: TrashKeep after it was deleted.
	PurgeAt time.Time
}

// DeletedAt is when the world went to the trash.
func (t TrashedWorld) DeletedAt() time.Time { return ParseTime(t.Deleted) }

// TrashedWorlds lists the worlds ownerID moved to the trash, most recently deleted first.
func (s *Store) TrashedWorlds(ownerID string) ([]TrashedWorld, error) {
	var ws []World
	err := s.app.DB().NewQuery("SELECT " + worldCols + " FROM worlds w WHERE w.owner = {:owner} AND w.deleted != '' ORDER BY w.deleted DESC, w.rowid").
		Bind(dbx.Params{"owner": ownerID}).All(&ws)
	if err != nil {
		return nil, fmt.Errorf("store: list trash: %w", err)
	}
	out := make([]TrashedWorld, len(ws))
	for i, w := range ws {
		out[i] = TrashedWorld{World: w, PurgeAt: ParseTime(w.Deleted).Add(TrashKeep)}
	}
	return out, nil
}

// RestoreWorld takes a world of ownerID's out of the trash, as it was. A world that is not
// in ownerID's trash (another's, one in use, one purged) is not found.
func (s *Store) RestoreWorld(ownerID, worldID string) (World, error) {
	var seq int64
	err := s.app.RunInTransaction(func(tx core.App) error {
		res, err := tx.DB().NewQuery("UPDATE worlds SET deleted = '' WHERE id = {:id} AND owner = {:owner} AND deleted != '' AND deleted >= {:cutoff}").
			Bind(dbx.Params{"id": worldID, "owner": ownerID, "cutoff": time.Now().Add(-TrashKeep).UTC().Format(dbTime)}).Execute()
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apierr.ErrNotFound
		}
		seq, err = WriteOutbox(tx.DB(), "world.restored", worldID, "", "", "")
		return err
	})
	s.cache.forget([]OutboxRow{{Kind: "world.restored", World: worldID}})
	if err != nil {
		if errors.Is(err, apierr.ErrNotFound) {
			return World{}, apierr.NotFound("world")
		}
		return World{}, fmt.Errorf("store: restore world: %w", err)
	}
	s.publish(Change{Seq: seq, Kind: "world.restored", WorldID: worldID})
	return s.World(worldID)
}

// PurgeWorlds removes for good every world that went to the trash more than TrashKeep
// before now, and returns how many it removed. The server runs it every hour; tests pass a
// time in the future.
func (s *Store) PurgeWorlds(now time.Time) (int, error) {
	var ids []string
	err := s.app.DB().NewQuery("SELECT id FROM worlds WHERE deleted != '' AND deleted < {:cutoff} ORDER BY deleted").
		Bind(dbx.Params{"cutoff": now.Add(-TrashKeep).UTC().Format(dbTime)}).Column(&ids)
	if err != nil {
		return 0, fmt.Errorf("store: find worlds to purge: %w", err)
	}
	for i, id := range ids {
		if err := s.purgeWorld(id); err != nil {
			return i, err
		}
	}
	return len(ids), nil
}

// purgeWorld deletes a trashed world and everything of it in one transaction: its documents
// (with their states, op logs, snapshots and links), eras, projects, tools, members, assets
// and event counter, and its rows in the outbox. Each document gets a document.purged row,
// which takes its entries out of the search index. The assets' files go from the file
// storage once the rows are gone.
func (s *Store) purgeWorld(worldID string) error {
	var docs []string
	var assets []string
	var seq int64
	err := s.app.RunInTransaction(func(tx core.App) error {
		db := tx.DB()
		var n int
		if err := db.NewQuery("SELECT COUNT(*) FROM worlds WHERE id = {:w} AND deleted != ''").Bind(dbx.Params{"w": worldID}).Row(&n); err != nil {
			return err
		}
		if n == 0 {
			return nil // restored (or purged) meanwhile
		}
		p := dbx.Params{"w": worldID}
		if err := db.NewQuery("SELECT id FROM documents WHERE world = {:w}").Bind(p).Column(&docs); err != nil {
			return err
		}
		if err := db.NewQuery("SELECT id FROM assets WHERE world = {:w}").Bind(p).Column(&assets); err != nil {
			return err
		}
		var first int64
		if err := db.NewQuery("SELECT COALESCE(MAX(seq), 0) FROM outbox").Row(&first); err != nil {
			return err
		}
		if err := DeleteWorldWebhooks(db, worldID); err != nil {
			return err
		}
		// The op log, snapshots and outgoing links go with their document rows (triggers).
		for _, q := range []string{
			"DELETE FROM document_states WHERE document IN (SELECT id FROM documents WHERE world = {:w})",
			"DELETE FROM documents WHERE world = {:w}",
			"DELETE FROM document_links WHERE world = {:w}",
			"DELETE FROM eras WHERE world = {:w}",
			"DELETE FROM projects WHERE world = {:w}",
			"DELETE FROM tools WHERE world = {:w}",
			"DELETE FROM world_members WHERE world = {:w}",
			"DELETE FROM invitations WHERE world = {:w}",
			"DELETE FROM assets WHERE world = {:w}",
			"DELETE FROM world_event_seqs WHERE world = {:w}",
			"DELETE FROM outbox WHERE world = {:w} AND seq <= {:first} AND seq < (SELECT MAX(seq) FROM outbox)",
			"DELETE FROM worlds WHERE id = {:w}",
		} {
			if _, err := db.NewQuery(q).Bind(dbx.Params{"w": worldID, "first": first}).Execute(); err != nil {
				return fmt.Errorf("%.50s: %w", q, err)
			}
		}
		for _, d := range docs {
			var err error
			if seq, err = WriteOutbox(db, "document.purged", worldID, d, "", ""); err != nil {
				return err
			}
		}
		var err error
		seq, err = WriteOutbox(db, "world.purged", worldID, "", "", "")
		return err
	})
	s.forgetPurged(worldID, docs)
	if err != nil {
		return fmt.Errorf("store: purge world %s: %w", worldID, err)
	}
	s.deleteAssetFiles(assets)
	if seq > 0 {
		s.publish(Change{Seq: seq, Kind: "world.purged", WorldID: worldID})
	}
	return nil
}

// forgetPurged drops what the caches hold of a world's removed documents.
func (s *Store) forgetPurged(worldID string, docs []string) {
	rows := make([]OutboxRow, 0, len(docs)+1)
	gone := make(map[string]bool, len(docs))
	for _, d := range docs {
		rows = append(rows, OutboxRow{Kind: "document.purged", World: worldID, Document: d})
		gone[d] = true
	}
	rows = append(rows, OutboxRow{Kind: "world.purged", World: worldID})
	s.cache.forget(rows)
	s.states.dropDocuments(gone)
}

// deleteAssetFiles removes the stored files of asset records already deleted; a failure is
// logged, not returned: the records are gone, and a stray file harms nobody but the disk.
func (s *Store) deleteAssetFiles(ids []string) {
	if len(ids) == 0 {
		return
	}
	col, err := s.app.FindCachedCollectionByNameOrId("assets")
	if err != nil {
		s.app.Logger().Warn("store: purge asset files", "error", err.Error())
		return
	}
	fsys, err := s.app.NewFilesystem()
	if err != nil {
		s.app.Logger().Warn("store: purge asset files", "error", err.Error())
		return
	}
	defer fsys.Close()
	for _, id := range ids {
		for _, err := range fsys.DeletePrefix(col.Id + "/" + id + "/") {
			s.app.Logger().Warn("store: purge asset file", "asset", id, "error", err.Error())
		}
	}
}

// purgeTrash purges expired worlds now and every trashPurgeEvery until ctx ends.
func (s *Store) purgeTrash(ctx context.Context) {
	t := time.NewTicker(trashPurgeEvery)
	defer t.Stop()
	for {
		if n, err := s.PurgeWorlds(time.Now()); err != nil {
			s.app.Logger().Warn("store: purge trash", "error", err.Error())
		} else if n > 0 {
			s.app.Logger().Info("store: purged worlds from the trash", "worlds", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// dropDocuments forgets every state of the documents in ids, in one pass.
func (c *stateCache) dropDocuments(ids map[string]bool) {
	if len(ids) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, v := range c.m {
		if i := strings.LastIndexByte(k, '/'); i >= 0 && ids[k[:i]] {
			c.bytes -= len(v.data)
			delete(c.m, k)
		}
	}
}
