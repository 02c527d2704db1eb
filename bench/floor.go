package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/pocketbase/pocketbase/core"
	_ "modernc.org/sqlite" // the driver PocketBase uses
)

// pbPragmas are the connection pragmas of PocketBase v0.39.11's DefaultDBConnect
// (core/db_connect.go): the same driver and settings as the server's own database.
const pbPragmas = "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=journal_size_limit(200000000)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_pragma=temp_store(MEMORY)&_pragma=cache_size(-32000)"

// openSQLite opens a database file the way PocketBase opens data.db.
func openSQLite(path string) (*sql.DB, error) {
	return sql.Open("sqlite", path+pbPragmas)
}

// runFloor: the storage floor, single-row insert transactions through modernc sqlite with
// PocketBase's pragmas, no HTTP, one goroutine, next to HTTP document create at 1 client.
func (b *bench) runFloor() error {
	dir, err := os.MkdirTemp("", "lwbench-floor-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db, err := openSQLite(filepath.Join(dir, "floor.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE documents (id TEXT PRIMARY KEY NOT NULL, world TEXT NOT NULL DEFAULT '',
		name TEXT NOT NULL DEFAULT '', documentType TEXT NOT NULL DEFAULT '', created TEXT NOT NULL DEFAULT '', updated TEXT NOT NULL DEFAULT '')`); err != nil {
		return err
	}
	ins := func(int, int) error {
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		t := time.Now().UTC().Format("2006-01-02 15:04:05.000Z")
		if _, err := tx.Exec(`INSERT INTO documents (id, world, name, documentType, created, updated) VALUES (?, 'w', 'Bench document', 'card', ?, ?)`,
			core.GenerateDefaultRandomId(), t, t); err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	}
	floor := single(1, b.dur, ins)

	create := b.create1
	if create == nil {
		// The create scenario did not run: measure HTTP create at one client here.
		t, err := b.newTarget()
		if err != nil {
			return err
		}
		defer t.close()
		w, err := t.world("Floor bench")
		if err != nil {
			return err
		}
		s := single(1, b.dur, func(int, int) error {
			return t.c.do("POST", "/api/v1/worlds/"+w+"/documents", bearer(t.key), createDocBody, 201, nil)
		})
		create = &s
	}
	r := latencyRow("create document vs storage floor", 1, *create, "SQLite insert tx (modernc, PB pragmas, no HTTP)", floor)
	r.Note = fmt.Sprintf("storage floor %.0f single-row tx/s; HTTP create reaches %.0f%% of it", floor.throughput(), 100*r.RateRatio)
	b.add(r)
	return nil
}
