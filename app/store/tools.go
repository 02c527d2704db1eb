package store

import (
	"encoding/json"
	"errors"

	"github.com/loreweave/loreweave/ops"
)

// ToolInfo is one tool installed in a world.
type ToolInfo struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Title         string   `json:"title"`
	Version       string   `json:"version"`
	Description   string   `json:"description"`
	DocumentTypes []string `json:"documentTypes"`
	AppKinds      []string `json:"appKinds"`
	Installed     string   `json:"installed"`
	Updated       string   `json:"updated"`
}

var errToolsNotBuilt = errors.New("store: tools not built yet")

// InstallTool installs a manifest (tool.json) in a world, or upgrades the installed tool of
// the same name; upgraded reports which. A manifest with problems is a 422 listing them; an
// upgrade that some documents would not survive is a 409 listing them.
func (s *Store) InstallTool(worldID string, manifest []byte, actor Actor) (info ToolInfo, upgraded bool, err error) {
	return ToolInfo{}, false, errToolsNotBuilt
}

// Tools lists the tools installed in a world, by name.
func (s *Store) Tools(worldID string) ([]ToolInfo, error) { return nil, errToolsNotBuilt }

// Tool returns one installed tool, by id or name, with its manifest.
func (s *Store) Tool(worldID, idOrName string) (ToolInfo, json.RawMessage, error) {
	return ToolInfo{}, nil, errToolsNotBuilt
}

// UninstallTool removes a tool from a world; its documents stay (read as "stored").
func (s *Store) UninstallTool(worldID, idOrName string, actor Actor) error { return errToolsNotBuilt }

// ToolType returns the installed tool type docType of a world.
func (s *Store) ToolType(worldID, docType string) (*ops.ToolType, bool) { return nil, false }

// AppKind returns the installed app kind of a world named kind, with the tool that adds it.
func (s *Store) AppKind(worldID, kind string) (ops.AppKind, *ops.ToolType, bool) {
	return ops.AppKind{}, nil, false
}

// Decode reads a document's stored data as its type: a built-in type, or the installed tool
// type of its world.
func (s *Store) Decode(d Document, data []byte) (ops.Document, error) { return ops.Decode(d.DocumentType, data) }
