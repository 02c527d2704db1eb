package live

import (
	"slices"

	"github.com/loreweave/loreweave/app/store"
)

// MetadataEvent is the data of `event: metadata` on a document stream: the document, or a
// folder it is filed under, was renamed or moved. It carries the document's metadata and its
// folder trail as they now are.
type MetadataEvent struct {
	// Kind is document.renamed or document.moved, and ChangedID the document that was: this
	// one or one of its folders.
	Kind      string       `json:"kind"`
	ChangedID string       `json:"changedId"`
	Document  DocumentMeta `json:"document"`
	// Folders are the folders the document is filed under, outermost first, as far up as the
	// stream's era shows them.
	Folders []FolderMeta `json:"folders"`
}

// FolderMeta is one folder of a document's trail.
type FolderMeta struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// maxFolders bounds the folder trail sent above a document (the web page's breadcrumbs go as
// far).
const maxFolders = 32

// relayMetadata sends `metadata` to the open streams, in every era, of a document renamed or
// moved and, when it is a folder, of every document filed under it at any depth. Metadata is
// the same in every era, so every era watched is told.
func (h *Hub) relayMetadata(r store.OutboxRow) {
	watched := map[string][]string{} // document id -> eras with open streams
	for _, c := range h.connsWhere(func(c *conn) bool { return c.worldID == r.World && c.content }) {
		docID, era, _, ok := parseDocStream(c.streamID)
		if ok && !slices.Contains(watched[docID], era) {
			watched[docID] = append(watched[docID], era)
		}
	}
	if len(watched) == 0 {
		return // nobody watches a document of this world
	}
	changed, err := h.store.DocumentByID(r.Document)
	if err != nil {
		return // deleted since: its streams have been told
	}
	for docID, eras := range watched {
		d := changed
		if docID != changed.ID {
			if changed.DocumentType != "folder" {
				continue // only folders have documents under them
			}
			if d, err = h.store.DocumentByID(docID); err != nil || !h.filedUnder(d, changed.ID) {
				continue
			}
		}
		for _, era := range eras {
			c, err := h.store.Content(d, era)
			if err != nil {
				continue // gone from this era: its stream is ending
			}
			ev := MetadataEvent{Kind: r.Kind, ChangedID: changed.ID, Folders: h.folders(d, era),
				Document: DocumentMeta{ID: d.ID, Name: d.Name, DocumentType: d.DocumentType, ParentID: d.ParentID, EraID: d.EraID}}
			h.publishDoc(d.ID, era, "metadata", c.Version, ev)
		}
	}
}

// filedUnder reports whether d is filed, at any depth, under the folder folderID.
func (h *Hub) filedUnder(d store.Document, folderID string) bool {
	seen := map[string]bool{d.ID: true}
	for id := d.ParentID; id != "" && !seen[id]; {
		if id == folderID {
			return true
		}
		seen[id] = true
		f, err := h.store.DocumentByID(id)
		if err != nil {
			return false
		}
		id = f.ParentID
	}
	return false
}

// folders returns the folders above d that era shows, outermost first.
func (h *Hub) folders(d store.Document, era string) []FolderMeta {
	out := []FolderMeta{}
	seen := map[string]bool{d.ID: true}
	for id := d.ParentID; id != "" && !seen[id] && len(out) < maxFolders; {
		seen[id] = true
		f, err := h.store.Document(d.WorldID, id, era)
		if err != nil {
			break
		}
		out = append(out, FolderMeta{ID: f.ID, Name: f.Name})
		id = f.ParentID
	}
	slices.Reverse(out)
	return out
}
