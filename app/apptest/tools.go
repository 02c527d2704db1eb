package apptest

import (
	"github.com/loreweave/loreweave/app/store"
)

// QuestTool is a small tool for tests: the document type quest (a goal, a state and steps)
// and the app kind kanban, a board of quests by state.
const QuestTool = `{
  "name": "quests",
  "title": "Quests",
  "version": "1.0.0",
  "documentTypes": [{
    "name": "quest",
    "title": "Quest",
    "schema": {
      "type": "object",
      "properties": {
        "goal":  {"type": "string", "title": "Goal", "maxLength": 500},
        "state": {"type": "string", "title": "State", "enum": ["open", "active", "done"]},
        "steps": {"type": "array", "title": "Steps", "items": {"type": "object", "properties": {
          "id": {"type": "string"},
          "text": {"type": "string", "title": "Step"}
        }}}
      }
    },
    "ops": [
      {"name": "setGoal", "kind": "set", "path": "goal"},
      {"name": "setState", "kind": "set", "path": "state"},
      {"name": "addStep", "kind": "append", "path": "steps", "idPrefix": "step"}
    ]
  }],
  "appKinds": [
    {"name": "kanban", "title": "Quest board", "view": {"type": "board", "documentType": "quest", "groupBy": "state", "fields": ["goal"]}}
  ]
}`

// InstallTool installs a tool manifest in a world through the store, as the command line
// does on a data dir, and returns what was installed.
func (s *Server) InstallTool(worldID, manifest string) store.ToolInfo {
	s.t.Helper()
	info, _, err := s.LW.Store.InstallTool(worldID, []byte(manifest), store.Actor{Credential: "cli"})
	if err != nil {
		s.t.Fatalf("apptest: install tool: %v", err)
	}
	return info
}
