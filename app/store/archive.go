package store

import (
	"encoding/json"
)

// A world archive is one zip file holding everything of one world: what `loreweave export`,
// GET /api/v1/worlds/{worldId}/export and the web app's export button write, and what
// `loreweave import` and POST /api/v1/worlds/import read. docs/ARCHIVE.md describes it for
// people; the types below are the format. Every JSON file is written with
// json.MarshalIndent(v, "", "  ") plus a newline; every JSON-lines file has one compact JSON
// value per line, each ending with a newline. Times are UTC, "2006-01-02T15:04:05.000Z".
// Lists are in a fixed order (below), so that exporting the same world twice, or exporting it
// again after importing it, writes byte-identical JSON files (manifest.json aside: it says
// when it was written).
//
// The archive's paths (in this order in the zip):
//
//	world.json                    ArchiveWorld
//	members.json                  []ArchiveMember, by email
//	eras.json                     []ArchiveEra, by created then id, each after its parent (the two can share a created time)
//	projects.json                 []ArchiveProject, by created then id
//	tools.json                    []ArchiveTool, by name
//	assets.json                   []ArchiveAsset, by created then id
//	assets/<sha256>               an asset's bytes, once per distinct content
//	documents/<folder>/document.json    ArchiveDocument
//	documents/<folder>/content.json     []ArchiveState, main line ("") first, then by era id
//	documents/<folder>/ops.jsonl        ArchiveOp lines, by era ("" first) then version; absent when none
//	documents/<folder>/snapshots.jsonl  ArchiveSnapshot lines, same order; absent when none
//	documents/<folder>/index.md         the document for people (derived; never read back)
//	documents/<folder>/index.<eraId>.md the document as an era with its own copy has it
//	manifest.json                 ArchiveManifest (written last: it holds every other file's checksum)
//
// Documents come in the order of their ids. <folder> is ArchiveFolder(name, id): the
// document's name made safe for file systems, then its id, so that Obsidian and file browsers
// show names and two documents with one name never share a folder. index.md is Markdown: the
// document's name as a heading, then its text; links between documents ([[id:…]] in the
// text) become relative Markdown links to the other document's index.md.
//
// What is not in an archive: derived data that the importer rebuilds (each state's text,
// document links, search entries, world event numbers, the outbox), what belongs to the
// server rather than the world (its plan, accounts and their passwords, API keys, sessions,
// OAuth grants), and uploaders of assets.

// Archive format identifiers, in manifest.json.
const (
	ArchiveFormat  = "loreweave-world"
	ArchiveVersion = 1
)

// ArchiveManifest is manifest.json.
type ArchiveManifest struct {
	Format     string `json:"format"`  // ArchiveFormat
	Version    int    `json:"version"` // ArchiveVersion
	ExportedAt string `json:"exportedAt"`
	// Loreweave is the version of the server that wrote the archive, for people.
	Loreweave string        `json:"loreweave"`
	World     ArchiveRef    `json:"world"`
	Counts    ArchiveCounts `json:"counts"`
	Files     []ArchiveFile `json:"files"` // every other file of the archive, in archive order
}

// ArchiveRef names the archived world.
type ArchiveRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ArchiveCounts says how many of each thing the archive holds.
type ArchiveCounts struct {
	Members   int `json:"members"`
	Eras      int `json:"eras"`
	Projects  int `json:"projects"`
	Tools     int `json:"tools"`
	Assets    int `json:"assets"`
	Documents int `json:"documents"`
	States    int `json:"states"`
	Ops       int `json:"ops"`
	Snapshots int `json:"snapshots"`
}

// ArchiveFile is one file's checksum.
type ArchiveFile struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"` // lower-case hex
}

// ArchiveWorld is world.json.
type ArchiveWorld struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Slug    string `json:"slug"`
	Genre   string `json:"genre"`
	Theme   string `json:"theme"`
	Created string `json:"created"`
	Updated string `json:"updated"`
}

// ArchiveMember is one member in members.json. Members are people on a server: the importer
// matches them to accounts by email.
type ArchiveMember struct {
	Email  string `json:"email"`
	Name   string `json:"name"`
	Role   string `json:"role"`
	Joined string `json:"joined"`
}

// ArchiveEra is one era in eras.json.
type ArchiveEra struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	ParentID string `json:"parentId"` // "" for an era forked from the main line
	Created  string `json:"created"`
}

// ArchiveProject is one project in projects.json.
type ArchiveProject struct {
	ID      string          `json:"id"`
	Kind    string          `json:"kind"`
	Name    string          `json:"name"`
	Slug    string          `json:"slug"`
	Config  json.RawMessage `json:"config"`
	Created string          `json:"created"`
	Updated string          `json:"updated"`
}

// ArchiveTool is one tool in tools.json, installed or not (an uninstalled tool's row stays so
// its documents can name it).
type ArchiveTool struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Version     string          `json:"version"`
	Manifest    json.RawMessage `json:"manifest"`
	Uninstalled string          `json:"uninstalled"` // "" while installed
	Created     string          `json:"created"`
	Updated     string          `json:"updated"`
}

// ArchiveAsset is one uploaded file in assets.json; its bytes are assets/<SHA256>.
type ArchiveAsset struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	SHA256      string `json:"sha256"`
	Created     string `json:"created"`
}

// ArchiveDocument is a document's document.json: its metadata, the same in every era.
type ArchiveDocument struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	DocumentType string `json:"documentType"`
	ParentID     string `json:"parentId"` // "" at the top level
	EraID        string `json:"eraId"`    // the era it was created in; "" for the main line
	Created      string `json:"created"`
	Updated      string `json:"updated"`
}

// ArchiveState is one entry of content.json: the document's content in one era that has
// its own copy (the main line is era "").
type ArchiveState struct {
	Era           string          `json:"era"`
	Version       int64           `json:"version"`
	ForkedVersion int64           `json:"forkedVersion"`
	Deleted       bool            `json:"deleted"`
	Updated       string          `json:"updated"`
	Data          json.RawMessage `json:"data"`
}

// ArchiveOp is one line of ops.jsonl: one accepted batch of the document's op log.
type ArchiveOp struct {
	Era        string          `json:"era"`
	Version    int64           `json:"version"`
	Ops        json.RawMessage `json:"ops"`
	Actor      string          `json:"actor"`      // a user id on the exporting server
	Credential string          `json:"credential"` // how the actor signed in
	Client     string          `json:"client"`
	ClientSeq  int64           `json:"clientSeq"`
	Created    string          `json:"created"`
}

// ArchiveSnapshot is one line of snapshots.jsonl: the document's content at a version.
type ArchiveSnapshot struct {
	Era     string          `json:"era"`
	Version int64           `json:"version"`
	Data    json.RawMessage `json:"data"`
	Created string          `json:"created"`
}

// ImportMode says what an import does with the archive's ids.
type ImportMode string

const (
	// ImportRestore keeps every id: backing up and restoring, moving to another server. The
	// world must not exist on this server.
	ImportRestore ImportMode = "restore"
	// ImportCopy gives the world and everything in it new ids, with every reference
	// remapped: a copy beside the original, a world used as a template.
	ImportCopy ImportMode = "copy"
)

// ImportResult is what an import did.
type ImportResult struct {
	World  World
	Mode   ImportMode
	Counts ArchiveCounts
	// Members says what became of the archive's members: added (an account has the email),
	// invited (none has yet) or skipped, by email. The importing user owns the world; the
	// archive's owner, if someone else, becomes an admin.
	MembersAdded, MembersInvited, MembersSkipped []string
}

// ExportProgress is told how far an export is: done of total documents.
type ExportProgress func(done, total int)
