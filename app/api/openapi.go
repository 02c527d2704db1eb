package api

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/store"
	"github.com/loreweave/loreweave/ops"
)

// obj is a JSON object under construction.
type obj = map[string]any

var (
	openAPIOnce sync.Once
	openAPIJSON []byte
)

func (a *API) openAPI(e *core.RequestEvent) error {
	openAPIOnce.Do(func() {
		var err error
		if openAPIJSON, err = json.MarshalIndent(OpenAPI(), "", "  "); err != nil {
			panic("api: encode OpenAPI document: " + err.Error())
		}
	})
	e.Response.Header().Set("Cache-Control", "public, max-age=300")
	return e.Blob(http.StatusOK, "application/json", openAPIJSON)
}

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

func str(desc string) obj { return obj{"type": "string", "description": desc} }

func integer(desc string) obj { return obj{"type": "integer", "description": desc} }

func arrayOf(items obj) obj { return obj{"type": "array", "items": items} }

// clientID and clientSeq name the editor that sent a content request: echoed in its answer,
// the op log and the document stream's ops event.
var (
	clientID  = obj{"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$", "description": "Optional: an id the sending editor chose (unique per open editor), kept in the op log and echoed in the document stream's ops event, so the editor recognises its own writes even when its user has the document open twice."}
	clientSeq = obj{"type": "integer", "minimum": 0, "maximum": 9007199254740991, "description": "Optional, with clientId: the editor's own sequence number for this write, echoed with clientId."}
)

// object is a closed object schema: every listed property is required unless named optional.
func object(props obj, optional ...string) obj {
	var req []string
	for k := range props {
		isOpt := false
		for _, o := range optional {
			isOpt = isOpt || o == k
		}
		if !isOpt {
			req = append(req, k)
		}
	}
	sort.Strings(req)
	o := obj{"type": "object", "properties": props, "additionalProperties": false}
	if len(req) > 0 {
		o["required"] = req
	}
	return o
}

func listOf(item string) obj {
	return object(obj{
		"items":      arrayOf(ref(item)),
		"page":       integer("The page returned, from 1."),
		"perPage":    integer("Items per page (default 50, at most 100)."),
		"totalItems": integer("Items in all pages."),
	})
}

// errorText describes each error status a route may answer.
var errorText = map[string]string{
	"400": "Malformed JSON (`malformed_json`), including bytes that are not UTF-8 and lone surrogate escapes; a change with nothing to change (`nothing_to_change`, with `fields`); for uploads, a multipart body that cannot be read (`malformed_multipart`).",
	"401": "Missing, malformed, unknown or revoked credential (`unauthenticated`), with `WWW-Authenticate: Bearer`.",
	"403": "The caller's role does not allow this (`forbidden`), or a key/OAuth caller on a Free world asked for content (`plan_required`).",
	"404": "The world (or anything in it) does not exist or the caller is not a member (`not_found`); the two are indistinguishable. An asset whose file is missing from the file storage answers `asset_file_missing`.",
	"409": "The request conflicts with the current state (`already_member`, `owner_required`, `folder_not_empty`, `era_has_children` with `children`, `era_published` with `projects`, `conflict`, `idempotency_in_progress`, `asset_in_use` with `documentIds`, `asset_file_missing` with `id` when an export cannot include an asset whose file is gone from the file storage; " +
		"for tools: `type_conflict` with `documentType` and `tool`, `app_kind_conflict` with `appKind` and `tool`, `tool_upgrade_breaks_documents` with `documents` (up to 100 of {documentId, name, era, documentType, field, message}) and `total`; " +
		"for content: `tool_not_installed` with `documentType`, the document's tool was uninstalled).",
	"413": "The body is over 1 MiB (`body_too_large`), carries over 500 operations (`too_many_ops`), or would take the document's stored content past 4 MiB (`document_too_large`, with `limit`; nothing is applied), or an upload is over its limit (`file_too_large`, with `limit`).",
	"415": "The body is not `application/json` (`unsupported_media_type`; uploads: not `multipart/form-data`), or an upload's content is not a supported type (`unsupported_file_type`, with `detectedType` and `supported`).",
	"410": "The version asked for is older than the document's history reaches (`version_unavailable`, with `oldestVersion`).",
	"429": "Too many requests from this credential or address (`rate_limited`); the `Retry-After` header says how many seconds to wait.",
	"422": "Validation failed: `invalid_field` (with `field`; in an operation also `opIndex` and `path`, the bad value's place in the body with every array index, like `ops[2].clips[1].id`), `nesting_too_deep`, `unsupported_document_type` (with `allowed`), `unknown_project_kind` (with `allowed`), `unsupported_operation` (with `supported` and `opIndex`), `unknown_clip` (with `clipIds`), `not_found_in_document` (with `id`), `stale_base_version`, `idempotency_key_reused`, `nothing_to_restore`, `invalid_manifest` (with `problems`: [{pointer, message}], each at a JSON Pointer into the manifest).",
	"503": "The search index is being rebuilt from the database after a failure (`search_rebuilding`, with `retryAfter`); the `Retry-After` header says how many seconds to wait. Everything else keeps working meanwhile, and writes made during the rebuild are found once it ends.",
}

func operation(id, summary string, success string, successSchema obj, errs ...string) obj {
	responses := obj{}
	if successSchema == nil {
		responses[success] = obj{"description": summary}
	} else {
		responses[success] = obj{"description": summary, "content": obj{"application/json": obj{"schema": successSchema}}}
	}
	for _, code := range append([]string{"401", "429"}, errs...) {
		responses[code] = obj{"description": errorText[code], "content": obj{"application/json": obj{"schema": ref("Error")}}}
	}
	return obj{"operationId": id, "summary": summary, "responses": responses}
}

// streamOperation documents a Server-Sent Events endpoint.
func streamOperation(id, summary string, errs ...string) obj {
	op := operation(id, summary, "200", nil, errs...)
	op["responses"].(obj)["200"] = obj{"description": "An event stream.", "content": obj{"text/event-stream": obj{"schema": obj{"type": "string"}}}}
	return op
}

// withEventData names the schema of the data of a stream's change events. OpenAPI 3.1 cannot
// describe the events inside a text/event-stream, so the reference sits in an extension.
func withEventData(op obj, schema string) obj {
	op["responses"].(obj)["200"].(obj)["content"].(obj)["text/event-stream"].(obj)["x-event-data"] = ref(schema)
	return op
}

func withBody(op obj, schema obj) obj {
	op["requestBody"] = obj{"required": true, "content": obj{"application/json": obj{"schema": schema}}}
	return op
}

// withUpgrade adds installTool's other success: 200, an upgrade of the installed tool.
func withUpgrade(op obj) obj {
	op["responses"].(obj)["200"] = obj{"description": "The installed tool of the same name was upgraded.", "content": obj{"application/json": obj{"schema": ref("Tool")}}}
	return op
}

// withInvitationUpdate adds inviteMember's other success: 200, an address invited already.
func withInvitationUpdate(op obj) obj {
	op["responses"].(obj)["200"] = obj{"description": "The address was invited already: its invitation, with the new role and a renewed expiry.", "content": obj{"application/json": obj{"schema": ref("Invitation")}}}
	return op
}

// withUpload documents a multipart/form-data request carrying one file in field "file".
func withUpload(op obj) obj {
	op["requestBody"] = obj{"required": true, "content": obj{"multipart/form-data": obj{"schema": obj{
		"type": "object", "required": []string{"file"},
		"properties": obj{"file": obj{"type": "string", "contentMediaType": "application/octet-stream", "description": "The file."}},
	}}}}
	return op
}

// fileOperation makes op's 200 answer a file of any supported type.
// archiveOperation answers a world archive (a zip).
func archiveOperation(op obj) obj {
	op["responses"].(obj)["200"] = obj{"description": "The archive.", "content": obj{"application/zip": obj{"schema": obj{"type": "string", "contentMediaType": "application/zip"}}}}
	return op
}

func fileOperation(op obj) obj {
	op["responses"].(obj)["200"] = obj{"description": "The file's bytes.", "content": obj{"*/*": obj{"schema": obj{"type": "string", "contentMediaType": "application/octet-stream"}}}}
	return op
}

// assetList is a page of assets with the world's total upload size.
func assetList() obj {
	l := listOf("Asset")
	l["properties"].(obj)["totalSize"] = integer("The bytes of all the world's assets (every page).")
	l["required"] = append(l["required"].([]string), "totalSize")
	return l
}

func withParams(op obj, params ...obj) obj {
	op["parameters"] = params
	return op
}

func pathParam(name, desc string) obj {
	return obj{"name": name, "in": "path", "required": true, "description": desc, "schema": obj{"type": "string"}}
}

func queryParam(name, desc string, schema obj) obj {
	return obj{"name": name, "in": "query", "required": false, "description": desc, "schema": schema}
}

// requiredQueryParam is a query parameter the route answers 422 without.
func requiredQueryParam(name, desc string, schema obj) obj {
	p := queryParam(name, desc, schema)
	p["required"] = true
	return p
}

var (
	assetParam     = pathParam("assetId", "The asset's id.")
	worldParam     = pathParam("worldId", "The world's id.")
	docParam       = pathParam("documentId", "The document's id.")
	projectParam   = pathParam("projectId", "The project's id.")
	toolParam      = pathParam("toolId", "The tool's id (as the install answered) or its name.")
	eraQuery       = queryParam("era", "An era id: read or write the document as it is in that era. Omitted: the main line (an empty value is refused, so that an unset variable in a script cannot aim at the main line).", obj{"type": "string", "minLength": 1})
	pageQuery      = queryParam("page", "Page number, from 1.", obj{"type": "integer", "minimum": 1})
	lastEventQuery = queryParam("lastEventId", "Resume after this event id (the same as the Last-Event-ID header, which browsers' EventSource sends).", obj{"type": "integer", "minimum": 0})
	perPageQ       = queryParam("perPage", "Items per page, 1 to 100 (default 50).", obj{"type": "integer", "minimum": 1, "maximum": 100})
)

// OpenAPI returns the OpenAPI 3.1 document of /api/v1.
func OpenAPI() obj {
	paths := obj{
		"/api/v1/me": obj{"get": operation("getMe", "The calling account and the credential used.", "200", ref("Me"))},
		"/api/v1/worlds": obj{
			"get": withParams(operation("listWorlds", "The worlds the caller is a member of, oldest first.", "200", listOf("World"), "422"), pageQuery, perPageQ),
			"post": withBody(operation("createWorld", "Create a world; the caller becomes its owner.", "201", ref("World"), "400", "413", "415", "422"),
				object(obj{"name": str("1 to 200 characters."), "genre": str("Optional, at most 200 characters; sets the theme.")}, "genre")),
		},
		"/api/v1/worlds/import": obj{"post": importWorldOperation()},
		"/api/v1/worlds/{worldId}": obj{
			"parameters": []obj{worldParam},
			"get":        operation("getWorld", "One world.", "200", ref("World"), "404"),
			"patch": withBody(operation("updateWorld", "Rename the world and/or change its genre (owner or admin). The theme follows the genre as when a world is created; the slug stays, so no address changes. "+
				"A body with neither member answers 400 nothing_to_change. Watchers of the world stream get world.updated.", "200", ref("World"), "400", "403", "404", "413", "415", "422"),
				object(obj{"name": str("1 to 200 characters."), "genre": str("At most 200 characters; empty for none. Sets the theme.")}, "name", "genre")),
			"delete": operation("deleteWorld", "Move the world to its owner's trash (the owner only; an admin gets 403). From then on the world answers 404 to everyone on every route, page, stream, search and MCP tool, as if it did not exist; "+
				"its open streams end with a last world.deleted event. The owner finds it in GET /api/v1/trash and may restore it for 30 days (POST /api/v1/worlds/{worldId}/restore); "+
				"then it is purged for good, with its documents, history, eras, projects, tools, members, uploaded files and search entries.", "200", ref("TrashedWorld"), "403", "404"),
		},
		"/api/v1/worlds/{worldId}/restore": obj{
			"parameters": []obj{worldParam},
			"post":       operation("restoreWorld", "Take a world out of the caller's trash, as it was (its owner only, within 30 days of the delete). To anyone else, and after the purge, the world does not exist: 404.", "200", ref("World"), "404"),
		},
		"/api/v1/trash": obj{
			"get": withParams(operation("listTrash", "The caller's worlds in the trash, most recently deleted first, each with when it was deleted and when it will be purged (30 days later).", "200", listOf("TrashedWorld"), "422"), pageQuery, perPageQ),
		},
		"/api/v1/worlds/{worldId}/export": obj{
			"parameters": []obj{worldParam},
			"get": archiveOperation(operation("exportWorld", "The world's archive: one zip with manifest.json (format version, counts, the sha256 of every file), world.json, members.json, eras.json, projects.json, tools.json, assets.json and the assets' bytes, "+
				"and per document a folder with document.json, content.json (per era with its own copy), its op log and snapshots as JSON lines and a derived index.md (docs/ARCHIVE.md). "+
				"Streamed as it is written from one consistent read of the world, as an attachment named <world-slug>-<date>.zip; should the export fail midway the connection is cut, so a torn archive is never taken for a whole one. "+
				"Owners and admins, on every plan.", "200", nil, "403", "404", "409")),
		},
		"/api/v1/worlds/{worldId}/members": obj{
			"parameters": []obj{worldParam},
			"get":        withParams(operation("listMembers", "The world's members, oldest first.", "200", listOf("Member"), "404", "422"), pageQuery, perPageQ),
			"post": withInvitationUpdate(withBody(operation("inviteMember", "Invite an email address to the world (owner or admin; only the owner invites admins). "+
				"The answer is the same whether or not the address has an account: the invitation waits until someone with that email accepts it. "+
				"An address already invited gets its invitation's role changed and its expiry renewed (200). A member with that email already: 409 already_member. "+
				"When the operator configured SMTP, the address is told by mail.", "201", ref("Invitation"), "400", "403", "404", "409", "413", "415", "422"),
				object(obj{"email": str("The email address to invite."), "role": obj{"type": "string", "enum": []string{"admin", "editor", "viewer"}}}))),
		},
		"/api/v1/worlds/{worldId}/members/{userId}": obj{
			"parameters": []obj{worldParam, pathParam("userId", "The member's user id.")},
			"patch": withBody(operation("changeMember", "Change a member's role (owner or admin; only the owner makes or unmakes admins; the owner's own role cannot be changed: 409 owner_required). "+
				"The owner passes ownership on with role \"owner\" for an admin (409 admin_required for anyone else): they become the owner, the owner becomes an admin, and the world's ownerId changes, at once. "+
				"Each changed member is a member.role event on the world stream. A body without role answers 400 nothing_to_change.", "200", ref("Member"), "400", "403", "404", "409", "413", "415", "422"),
				object(obj{"role": obj{"type": "string", "enum": []string{"owner", "admin", "editor", "viewer"}}})),
			"delete": operation("removeMember", "Remove a member (owner or admin; anyone may remove themselves; the owner cannot be removed).", "204", nil, "403", "404", "409"),
		},
		"/api/v1/worlds/{worldId}/invitations": obj{
			"parameters": []obj{worldParam},
			"get":        withParams(operation("listInvitations", "The world's pending invitations, oldest first (owner or admin); expired ones stay listed until renewed or revoked.", "200", listOf("Invitation"), "403", "404", "422"), pageQuery, perPageQ),
		},
		"/api/v1/worlds/{worldId}/invitations/{invitationId}": obj{
			"parameters": []obj{worldParam, pathParam("invitationId", "The invitation's id.")},
			"delete":     operation("revokeInvitation", "Revoke an invitation (owner or admin).", "204", nil, "403", "404"),
		},
		"/api/v1/invitations": obj{
			"get": withParams(operation("listMyInvitations", "The unexpired invitations addressed to the caller's email, oldest first. "+
				"When the instance sends mail, the email must be verified first (403 email_unverified).", "200", listOf("Invitation"), "403", "422"), pageQuery, perPageQ),
		},
		"/api/v1/invitations/{invitationId}/accept": obj{
			"parameters": []obj{pathParam("invitationId", "The invitation's id.")},
			"post": operation("acceptInvitation", "Accept an invitation addressed to the caller's email: the caller becomes a member with its role (one who is a member already keeps their role). "+
				"Answers the world as the caller now sees it. Anyone else's invitation, and an expired one, is 404.", "200", ref("World"), "403", "404"),
		},
		"/api/v1/invitations/{invitationId}/decline": obj{
			"parameters": []obj{pathParam("invitationId", "The invitation's id.")},
			"post":       operation("declineInvitation", "Decline an invitation addressed to the caller's email; it is deleted. Anyone else's is 404.", "204", nil, "403", "404"),
		},
		"/api/v1/worlds/{worldId}/documents": obj{
			"parameters": []obj{worldParam},
			"get": withParams(operation("listDocuments", "Documents of the world visible in the era (metadata only), oldest first.", "200", listOf("Document"), "404", "422"),
				queryParam("documentType", "Only documents of this type; a type the world does not have (built in or from an installed tool) is a 422 `unsupported_document_type` with `allowed`.", obj{"type": "string"}), eraQuery, pageQuery, perPageQ),
			"post": withParams(withBody(operation("createDocument", "Create a document's metadata (editors). Its content starts empty and changes through content operations.", "201", ref("Document"), "400", "403", "404", "413", "415", "422"),
				object(obj{
					"name":         str("1 to 200 characters."),
					"documentType": str("One of the world's document types: card, timeline, map, folder, animator, or a type of an installed tool."),
					"parentId":     str("Optional: a folder of the same world."),
				}, "parentId")), eraQuery),
		},
		"/api/v1/worlds/{worldId}/documents/{documentId}": obj{
			"parameters": []obj{worldParam, docParam},
			"get": withParams(operation("getDocument", "One document: metadata, version and its current content; with ?version=N, its content as it was at version N, rebuilt from its history "+
				"(content.source is history, and currentVersion, versionActor and versionCreated say what the document is at now and who made version N, when). "+
				"History goes back to the oldest version the op log still rebuilds (about the newest 1,000 versions): an older one answers 410 version_unavailable with oldestVersion; a version the document has not reached, 404. "+
				"A viewer gets a card without its secret sections. Needs Pro or Studio for key and OAuth callers.", "200", ref("DocumentWithContent"), "403", "404", "410", "422"),
				queryParam("version", "Optional: read the content as it was at this version (0 is the empty content).", obj{"type": "integer", "minimum": 0}), eraQuery),
			"patch": withParams(withBody(operation("updateDocument", "Rename a document and/or move it into a folder (parentId; \"\" = top level). Metadata is global across eras. A parent must be a folder of the world; a folder cannot move into itself or its subfolders. A body with neither member answers 400 nothing_to_change.", "200", ref("Document"), "400", "403", "404", "413", "415", "422"),
				object(obj{"name": str("1 to 200 characters."), "parentId": str("A folder's id, or \"\" for the top level.")}, "name", "parentId")), eraQuery),
			"delete": withParams(operation("deleteDocument", "Delete a document. On the main line it is deleted everywhere (a folder only when empty); with ?era= it is hidden in that era and the eras forked from it.", "204", nil, "403", "404", "409", "422"), eraQuery),
		},
		"/api/v1/worlds/{worldId}/documents/{documentId}/ops": obj{
			"parameters": []obj{worldParam, docParam},
			"get": withParams(operation("getOpLog", "The document's op log in the era: each accepted request after ?since=, oldest first, with its ops as applied. "+
				"A page holds at most ?limit= entries and at most 4 MiB of ops (one entry at least); hasMore says more follow. "+
				"The op log keeps the newest 1,000 versions and 16 MiB of a document's history in each era: a page asked for from an older version starts at the oldest version kept, with truncated set. "+
				"A viewer of the world gets 403 `forbidden` for the op log of a card: its entries can hold the text of secret sections, which only owners, admins and editors see (viewers read the card, or follow its event stream, in its public form). "+
				"Needs Pro or Studio for key and OAuth callers.", "200", ref("OpLog"), "403", "404", "422"),
				queryParam("since", "Return versions after this one (default 0).", obj{"type": "integer", "minimum": 0}),
				queryParam("limit", "At most this many entries (default 100, at most 1000); a page also stops before its ops pass 4 MiB.", obj{"type": "integer", "minimum": 1, "maximum": 1000}), eraQuery),
		},
		"/api/v1/worlds/{worldId}/documents/{documentId}/links": obj{
			"parameters": []obj{worldParam, docParam},
			"get": withParams(operation("getDocumentLinks", "The document's links in the era: outgoing, the documents its text links to with [[…]] (in the order they first appear; status ok, broken when the target was deleted or is not in the era, unresolved when written by a name no single document has), "+
				"and incoming, the documents that link to it (by id, or by its name), ordered by name; each with the sentence around the link, links in it shown by name. ?page= and ?perPage= page both lists. "+
				"Links that only secret sections hold are shown to owners, admins and editors only (secret: true). Needs Pro or Studio for key and OAuth callers.", "200", ref("DocumentLinks"), "403", "404", "422"),
				eraQuery, pageQuery, perPageQ),
		},
		"/api/v1/worlds/{worldId}/documents/{documentId}/content": obj{
			"parameters": []obj{worldParam, docParam},
			"post": withParams(withBody(operation("applyContentOps", "Apply typed content operations, in order, all or none (editors; Pro or Studio for key and OAuth callers). Each accepted request is one new version.", "200", ref("ContentOpsResult"), "400", "403", "404", "409", "413", "415", "422"),
				ref("ContentOpsRequest")), eraQuery),
		},
		"/api/v1/worlds/{worldId}/documents/{documentId}/restore": obj{
			"parameters": []obj{worldParam, docParam},
			"post": withParams(withBody(operation("restoreDocument", "Restore an earlier version (editors; Pro or Studio for key and OAuth callers): one new version whose content equals version's, "+
				"written like any content write (watchers get an ops event with the single op document.restore, carrying the restored data; search and the op log see it). "+
				"It answers like a content write. Restoring the current version is 422 nothing_to_restore; a version older than the history reaches, 410 version_unavailable.", "200", ref("ContentOpsResult"), "400", "403", "404", "409", "410", "413", "415", "422"),
				object(obj{"version": obj{"type": "integer", "minimum": 0, "description": "The version whose content to restore."}})), eraQuery),
		},
		"/api/v1/worlds/{worldId}/eras": obj{
			"parameters": []obj{worldParam},
			"get":        withParams(operation("listEras", "The world's eras, oldest first.", "200", listOf("Era"), "404", "422"), pageQuery, perPageQ),
			"post": withBody(operation("createEra", "Fork an era from the main line or another era. It inherits every document by reference: creating it copies nothing. Eras nest at most 32 deep (one forked from the main line is 1 deep); a deeper fork answers 422 era_too_deep with limit.", "201", ref("Era"), "400", "403", "404", "413", "415", "422"),
				object(obj{"name": str("1 to 200 characters."), "parentId": str("Optional: the era to fork from; omitted, the main line.")}, "parentId")),
		},
		"/api/v1/worlds/{worldId}/eras/{eraId}": obj{
			"parameters": []obj{worldParam, pathParam("eraId", "The era's id.")},
			"patch": withBody(operation("renameEra", "Rename an era (owner or admin). Its id, parent and content stay. A body without name answers 400 nothing_to_change. Watchers of the world stream get era.renamed.", "200", ref("Era"), "400", "403", "404", "413", "415", "422"),
				object(obj{"name": str("1 to 200 characters.")})),
			"delete": operation("deleteEra", "Delete an era (owner or admin) with what was made in it: the documents created in it (with their history, snapshots, links and search entries), and its own copies of older documents, which are then as they are on the era's parent. "+
				"An era with child eras is not deleted: 409 era_has_children, with children [{id, name}]; delete those first. Nor is one a wiki publishes: 409 era_published, with projects [{id, name}]; publish another era there first. Watchers of the world stream get era.deleted; streams of documents in the era end with a last era.deleted event.", "204", nil, "403", "404", "409"),
		},
		"/api/v1/worlds/{worldId}/projects": obj{
			"parameters": []obj{worldParam},
			"get":        withParams(operation("listProjects", "The world's projects, oldest first.", "200", listOf("Project"), "404", "422"), pageQuery, perPageQ),
			"post": withBody(operation("createProject", "Create a project (an app instance) of a known kind: wiki, or a kind of an installed tool.", "201", ref("Project"), "400", "403", "404", "413", "415", "422"),
				object(obj{"kind": str("The app kind, e.g. wiki."), "name": str("1 to 200 characters."),
					"config": ref("ProjectConfig")}, "config")),
		},
		"/api/v1/worlds/{worldId}/projects/{projectId}": obj{
			"parameters": []obj{worldParam, projectParam},
			"get":        operation("getProject", "One project.", "200", ref("Project"), "404"),
			"patch": withBody(operation("updateProject", "Rename a project and/or change its settings (editors). config's members are merged into the project's config (null removes one); a wiki's url stays when it is renamed. A body with neither member answers 400 nothing_to_change.", "200", ref("Project"), "400", "403", "404", "413", "415", "422"),
				object(obj{"name": str("1 to 200 characters."), "config": ref("ProjectConfig")}, "name", "config")),
			"delete": operation("deleteProject", "Delete a project (editors). A wiki's address then answers 404.", "204", nil, "403", "404"),
		},
		"/api/v1/worlds/{worldId}/assets": obj{
			"parameters": []obj{worldParam},
			"get":        withParams(operation("listAssets", "The world's uploaded files, oldest first, with totalSize, the bytes of all of them.", "200", assetList(), "404", "422"), pageQuery, perPageQ),
			"post": withUpload(operation("uploadAsset", "Upload a file (multipart/form-data, the file in field `file`): a PNG, JPEG, WebP or GIF image, or a glTF 2.0 model (.glb, or .gltf JSON with asset.version). "+
				"The type is read from the content, never the name; an image's width and height from its header. SVG is refused (it can carry script). "+
				"Limits: 25 MiB an image, 100 MiB a model by default (the operator sets them), answered with 413 `file_too_large` and `limit`; another type gets 415 `unsupported_file_type` with `detectedType`. "+
				"Pass the answer's `url` to map.setImage or animator.setModel. A refused upload stores nothing.", "201", ref("Asset"), "400", "403", "404", "413", "415", "422")),
		},
		"/api/v1/worlds/{worldId}/assets/{assetId}": obj{
			"parameters": []obj{worldParam, assetParam},
			"get":        operation("getAsset", "One uploaded file's metadata.", "200", ref("Asset"), "404"),
			"delete":     operation("deleteAsset", "Delete an uploaded file. Refused with 409 `asset_in_use` (with `documentIds`) while the content of a document of the world, on the main line or in any era, mentions its URL.", "204", nil, "403", "404", "409"),
		},
		"/api/v1/worlds/{worldId}/assets/{assetId}/file": obj{
			"parameters": []obj{worldParam, assetParam},
			"get": fileOperation(operation("getAssetFile", "The file itself, for members only (the web session cookie works, so <img> and <model-viewer> load it). "+
				"Served with the type found at upload, `X-Content-Type-Options: nosniff`, a sandboxing Content-Security-Policy, `Content-Disposition: inline` with a name made by the server, and `Cache-Control: private, max-age=31536000, immutable` (an asset's bytes never change). Range requests work.", "200", nil, "404")),
		},
		"/api/v1/worlds/{worldId}/tools": obj{
			"parameters": []obj{worldParam},
			"get": operation("listTools", "The tools installed in the world, by name (owners and admins; every plan).", "200",
				object(obj{"items": arrayOf(ref("Tool")), "totalItems": integer("Tools installed.")}), "403", "404"),
			"post": withUpgrade(withBody(operation("installTool", "Install a tool: the body is its manifest (tool.json, docs/TOOLS.md; its JSON Schema is served at /schemas/tool.schema.json). "+
				"201 when the tool was not installed; 200 when it upgrades the installed tool of the same name. A manifest with problems is 422 invalid_manifest listing them; "+
				"a type or app kind another installed tool adds is 409 type_conflict or app_kind_conflict; an upgrade (or an install over documents left by an earlier one) that would leave documents unreadable, or that drops a type documents have, "+
				"is 409 tool_upgrade_breaks_documents listing them, and changes nothing. Owners and admins, on every plan: building and installing tools is free.", "201", ref("Tool"), "400", "403", "404", "409", "413", "415", "422"),
				obj{"type": "object", "description": "A tool manifest (see /schemas/tool.schema.json)."})),
		},
		"/api/v1/worlds/{worldId}/tools/{toolId}": obj{
			"parameters": []obj{worldParam, toolParam},
			"get":        operation("getTool", "One installed tool, with its manifest (owners and admins).", "200", ref("ToolWithManifest"), "403", "404"),
			"delete":     operation("uninstallTool", "Uninstall a tool (owners and admins). Its documents stay: reads answer content.source = stored with their last data and text, search still finds them, content operations answer 409 tool_not_installed; installing the tool again makes them live.", "204", nil, "403", "404"),
		},
		"/api/v1/worlds/{worldId}/types": obj{
			"parameters": []obj{worldParam},
			"get": operation("listTypes", "Every document type the world accepts, built-in ones first, then those of its installed tools by name, each with its operations and their parameters as JSON Schema "+
				"(the schema of the whole op object, its op member included). Any member, on every plan.", "200", ref("TypeList"), "404"),
		},
		"/api/v1/worlds/{worldId}/events": obj{
			"parameters": []obj{worldParam},
			"get": withParams(withEventData(streamOperation("worldEvents",
				"Server-Sent Events of the world's structure: "+strings.Join(worldEventKinds, ", ")+". "+
					"Each one's data is a WorldEvent (`#/components/schemas/WorldEvent`) with the record's metadata; its id numbers this world's own events (1, 2, 3, ...), which other worlds' changes never move. "+
					"On connect: `ready` (data: {seq}, the world's latest event); resuming with Last-Event-ID (or ?lastEventId=) replays what was missed, or sends `reset` (data: {seq}) when too much was. "+streamCaps,
				"404"), "WorldEvent"), lastEventQuery),
		},
		"/api/v1/worlds/{worldId}/documents/{documentId}/events": obj{
			"parameters": []obj{worldParam, docParam},
			"get": withParams(streamOperation("documentEvents",
				"Server-Sent Events of one document in one era. On connect: `snapshot` (data: version, documentType, data, text, source) and `presence` (data: viewers [{id, name, colour}]); "+
					"then one `ops` event per accepted write (id = version; data: version, documentType, ops as applied, actor {id, name}, and clientId and clientSeq when the request carried them), `presence` when watchers come and go, and heartbeat comments every 15 s. "+
					"When the document or a folder above it is renamed or moved: `metadata` (id = version; data: kind, document.renamed or document.moved; changedId, the document that was; document {id, name, documentType, parentId, eraId}; folders [{id, name}], the folders it is filed under, outermost first), not replayed on resume. "+
					"When the document is deleted in this era or one it descends from (or on the main line), a last `deleted` event (no id; data: id, eraId, the era of the delete, \"\" for the main line), then the server closes the stream; reconnecting gets 404. "+
					"Resuming with Last-Event-ID (or ?lastEventId=) replays exactly the versions after it from the op log; more than 1,000 behind, or ahead, gets a fresh snapshot. "+
					"A viewer of the world never sees a card's secret sections: its snapshots are the card without them, a write that touches nothing secret comes as its `ops` event, any other (an edit of a secret section, marking one secret or public, adding, moving or removing sections while the card has secrets) comes as a `snapshot` of the card's public form at that version, and a resume always gets such a snapshot; `cursor` events in a secret section go to editors only. Needs Pro or Studio for key and OAuth callers. "+streamCaps,
				"403", "404", "422"), eraQuery, lastEventQuery),
		},
		"/api/v1/worlds/{worldId}/search": obj{
			"parameters": []obj{worldParam},
			"get": withParams(operation("search", "Full-text search over the names and content of the world's documents. The text of secret card sections is matched, and shown in snippets, only for the world's owners, admins and editors. Needs Pro or Studio for key and OAuth callers. Should the index fail (a damaged file, say), it is rebuilt from the database in the background and search answers 503 `search_rebuilding` until it is back.", "200", listOf("SearchHit"), "403", "404", "422", "503"),
				requiredQueryParam("q", "The text to search for: not blank, at most 500 characters.", obj{"type": "string", "minLength": 1, "maxLength": 500}),
				queryParam("documentType", "Only documents of this type.", obj{"type": "string"}), eraQuery, pageQuery, perPageQ),
		},
	}

	schemas := obj{
		"Error": object(obj{"error": obj{
			"type": "object", "required": []string{"code", "message"},
			"description":          "A stable snake_case code, a sentence a person can act on, and details such as field, opIndex, supported, allowed, clipIds, limit.",
			"properties":           obj{"code": str("Stable error code."), "message": str("What went wrong and what to do.")},
			"additionalProperties": true,
		}}),
		"Me": object(obj{
			"id": str("User id."), "email": str("Email."), "name": str("Display name."),
			"credential": object(obj{"kind": obj{"type": "string", "enum": []string{"api_key", "session", "oauth"}}, "id": str("The key's or token's id.")}, "id"),
		}),
		"World": object(obj{
			"id": str("World id."), "slug": str("URL slug, unique: the name in lower case ASCII, then \"-\" and five random characters (always, so it reveals nothing about other worlds)."), "name": str("Name."), "genre": str("Genre, may be empty."),
			"theme": str("Theme derived from the genre."), "plan": obj{"type": "string", "enum": []string{"free", "pro", "studio"}},
			"role":    obj{"type": "string", "enum": []string{"owner", "admin", "editor", "viewer"}, "description": "The caller's role."},
			"ownerId": str("The owner's user id."), "created": dateTime(), "updated": dateTime(),
		}),
		"TrashedWorld": object(obj{
			"id": str("World id."), "slug": str("URL slug."), "name": str("Name."), "genre": str("Genre, may be empty."),
			"theme": str("Theme derived from the genre."), "plan": obj{"type": "string", "enum": []string{"free", "pro", "studio"}},
			"role":    obj{"type": "string", "enum": []string{"owner"}, "description": "The caller's role: only the owner sees the trash."},
			"ownerId": str("The owner's user id."), "created": dateTime(), "updated": dateTime(),
			"deleted": described(dateTime(), "When the world went to the trash."),
			"purgeAt": described(dateTime(), "When it will be purged for good, unless restored before: 30 days after deleted."),
		}),
		"Member": object(obj{
			"userId": str("User id."), "email": str("Email."), "name": str("Display name."),
			"role": obj{"type": "string", "enum": []string{"owner", "admin", "editor", "viewer"}}, "created": dateTime(),
		}),
		"Invitation": object(obj{
			"id": str("Invitation id."), "worldId": str("The world."), "worldName": str("The world's name."),
			"email": str("The invited address, lower case."), "role": obj{"type": "string", "enum": []string{"admin", "editor", "viewer"}},
			"invitedBy": str("The user id of who invited (last)."), "inviterName": str("Their display name."),
			"created": dateTime(), "expires": dateTime(),
		}),
		"Document": object(documentProps()),
		"DocumentWithContent": object(mergeProps(documentProps(), obj{
			"version":        integer("The content version in this era: 0 before any write, then +1 per accepted content request."),
			"content":        ref("Content"),
			"currentVersion": integer("Only with ?version=: the document's version now."),
			"versionActor":   object(obj{"id": str("The user who made the version read (empty when the op log no longer says).")}),
			"versionCreated": obj{"type": "string", "description": "Only with ?version=: when the version read was made (empty when the op log no longer says)."},
		}), "currentVersion", "versionActor", "versionCreated"),
		"Content": object(obj{
			"data":   obj{"type": "object", "description": "The document type's own data (see the operation catalogue)."},
			"source": obj{"type": "string", "enum": []string{"live", "stored", "empty", "history"}, "description": "live: the current document state; stored: a stored projection (the type's tool is gone); empty: never written; history: an earlier version rebuilt from the document's history (?version=)."},
			"text":   str("Plain-text projection. For an animator: the document name, then the clip ids, space separated."),
		}),
		"Era": object(obj{"id": str("Era id."), "worldId": str("World id."), "name": str("Name."), "parentId": str("Parent era id; empty for a fork of the main line."), "created": dateTime()}),
		"Project": object(obj{
			"id": str("Project id."), "worldId": str("World id."), "kind": str("App kind."), "name": str("Name."),
			"config": ref("ProjectConfig"), "created": dateTime(),
			"url": str("A wiki's address on this server (/wiki/{slug}/): its home page. Set for wikis only; it stays when the wiki is renamed."),
		}, "url"),
		"ProjectConfig": obj{"type": "object", "description": "The project's settings. A wiki takes visibility (members: the world's signed-in members, the default; public: anyone, without an account) and eraId (an era of the world whose state the wiki shows; \"\" = the main line); other members are refused with 422 invalid_field naming config.<member>. Other kinds keep any JSON object.",
			"properties": obj{
				"visibility": obj{"type": "string", "enum": store.Visibilities},
				"eraId":      str("An era's id, or \"\" for the main line."),
			}},
		"ImportResult": importResultSchema(),
		"Asset": object(obj{
			"id": str("Asset id."), "url": str("The file's stable URL on this server (a path): what documents reference."),
			"name": str("The name the file was uploaded with (for display only; may be empty)."),
			"kind": obj{"type": "string", "enum": []string{"image", "model"}}, "contentType": obj{"type": "string", "enum": store.SupportedTypes},
			"size": integer("Bytes."), "width": integer("Pixels, read from the image (images only)."), "height": integer("Pixels, read from the image (images only)."),
			"uploaderId": str("The user who uploaded it."), "created": dateTime(),
		}, "width", "height"),
		"SearchHit": object(obj{
			"id": str("Document id."), "name": str("Document name."), "documentType": str("Document type."),
			"score":   obj{"type": "number", "description": "Relevance; higher is better."},
			"snippet": str("A short HTML fragment of the text: escaped, with <mark> around hits."),
		}),
		"WorldEvent": object(obj{
			"kind": obj{"type": "string", "enum": worldEventKinds, "description": "What changed; the same as the event's name."},
			"seq":  integer("The event's number among this world's events; the same as the event's id."),
			"eraId": str("For document events, the era the change was made in; empty for the main line (a document deleted in an era is still there on the main line). " +
				"Empty for other events."),
			"document": described(object(obj{
				"id": str("Document id."), "name": str("Name."), "documentType": str("Document type."),
				"parentId": str("The folder it sits in; empty at the top."), "eraId": str("The era it was created in; empty for the main line."),
			}), "Set for document.* events: the document's metadata as it is now, or for a document deleted on the main line, as it was."),
			"world": described(object(obj{"id": str("World id."), "name": str("Name."), "genre": str("Genre."), "theme": str("Theme.")}), "Set for world.updated: the world as it now is."),
			"era":   described(object(obj{"id": str("Era id."), "name": str("Name."), "parentId": str("Parent era id; empty for a fork of the main line.")}), "Set for era.created, era.renamed and era.deleted (as it was)."),
			"project": described(object(obj{"id": str("Project id."), "kind": str("App kind."), "name": str("Name.")}, "kind", "name"),
				"Set for project.created and project.updated; for project.deleted, the id only."),
			"userId": str("Set for member.added, member.removed and member.role: the member's user id."),
			"tool":   str("Set for tool.installed (an install or an upgrade) and tool.uninstalled: the tool's name. The world's document types and app kinds changed."),
			"role":   obj{"type": "string", "enum": []string{"owner", "admin", "editor", "viewer"}, "description": "For member.added, member.removed and member.role: the user's role, while they are a member (absent once they are not)."},
		}, "document", "world", "era", "project", "userId", "role", "tool"),
		"Tool":             object(toolProps()),
		"ToolWithManifest": object(mergeProps(toolProps(), obj{"manifest": obj{"type": "object", "description": "The manifest as installed (canonical JSON)."}})),
		"TypeList": object(obj{"types": arrayOf(object(obj{
			"name":        str("The type's name: the documentType of its documents, and the prefix of its ops."),
			"title":       str("Shown to people."),
			"builtin":     obj{"type": "boolean", "description": "A built-in type (card, timeline, map, folder, animator)."},
			"tool":        str("The installed tool that adds the type; empty for a built-in."),
			"toolVersion": str("That tool's version; empty for a built-in."),
			"schema":      obj{"type": "object", "description": "A tool type's data schema (JSON Schema, the subset of docs/TOOLS.md)."},
			"ops": arrayOf(object(obj{
				"op":      str("The op's op value, for example card.setTitle or faction.setMotto."),
				"kind":    obj{"type": "string", "enum": []string{"set", "append", "update", "remove", "move", "text"}, "description": "A tool op's kind."},
				"path":    str("The property a tool op acts on."),
				"summary": str("What it does."),
				"params":  obj{"type": "object", "description": "The JSON Schema of the op object."},
			}, "kind", "path")),
		}, "schema"))}),
		"ContentOpsRequest": object(obj{
			"ops": obj{
				"type": "array", "minItems": 1, "maxItems": MaxOps, "description": "Operations, applied in order, all or none.",
				"items": obj{"oneOf": opRefs()},
			},
			"clientId":  clientID,
			"clientSeq": clientSeq,
		}, "clientId", "clientSeq"),
		"DocumentLinks": object(obj{
			"outgoing": listOf("Link"),
			"incoming": listOf("Link"),
		}),
		"Link": object(obj{
			"documentId":   str("The other document's id; for a broken link the id written; empty for an unresolved one."),
			"name":         str("The other document's current name; for an unresolved link the name written; empty for a broken one."),
			"documentType": str("The other document's type; empty unless status is ok."),
			"status":       obj{"type": "string", "enum": []string{"ok", "broken", "unresolved"}, "description": "ok, broken (deleted, or not in this era) or unresolved (no single document has the name written); incoming links are ok."},
			"context":      str("The sentence around the (first) link, links in it shown by name."),
			"secret":       obj{"type": "boolean", "description": "Only secret sections hold the link (shown to owners, admins and editors only)."},
		}),
		"OpLog": object(obj{
			"documentType": str("The document's type."),
			"version":      integer("The document's current version in the era."),
			"since":        integer("The ?since= asked for: the page starts after it unless truncated."),
			"oldestVersion": integer("The oldest version the op log still holds: it holds every version from this one up to version. " +
				"1 unless older versions were deleted (the log keeps the newest 1,000 versions and 16 MiB of a document's history in each era)."),
			"truncated": obj{"type": "boolean", "description": "The versions after since and before oldestVersion are no longer held: the page starts at oldestVersion. " +
				"Read the document for its current content."},
			"items": arrayOf(object(obj{
				"version":   integer("The version this request produced."),
				"ops":       arrayOf(obj{"type": "object", "description": "An operation as applied."}),
				"actor":     object(obj{"id": str("The user who made the change.")}),
				"created":   dateTime(),
				"clientId":  clientID,
				"clientSeq": clientSeq,
			}, "clientId", "clientSeq")),
			"hasMore": obj{"type": "boolean", "description": "More entries follow (the page reached ?limit= or 4 MiB of ops): ask again with since = the last version."},
		}),
		"ContentOpsResult": object(obj{
			"documentType": str("The document's type."),
			"applied":      integer("Number of operations applied."),
			"created":      arrayOf(object(obj{"id": str("Id the service assigned (evt-, sec-, pin-…)."), "label": str("Its label or title.")})),
			"version":      integer("The document's new version."),
			"ops":          arrayOf(obj{"type": "object", "description": "Each operation as applied: assigned ids filled in, text splices transformed."}),
			"clientId":     clientID,
			"clientSeq":    clientSeq,
		}, "clientId", "clientSeq"),
	}
	for _, spec := range ops.Catalog() {
		schemas[opSchemaName(spec.Name)] = spec.Schema()
	}
	for k, v := range webhookPaths() {
		paths[k] = v
	}
	for k, v := range webhookSchemas() {
		schemas[k] = v
	}
	// Every POST takes an Idempotency-Key.
	for _, item := range paths {
		if post, ok := item.(obj)["post"].(obj); ok {
			params, _ := post["parameters"].([]obj)
			post["parameters"] = append(params, obj{"name": "Idempotency-Key", "in": "header", "required": false,
				"description": "Makes the POST safe to retry: the first response is stored for 24 hours and returned again (with Idempotent-Replayed: true) for the same key and request; the same key with a different request answers 422 idempotency_key_reused, and while the first is still running, 409 idempotency_in_progress; if the server stopped while the first was running, a retry runs the request.",
				"schema":      obj{"type": "string", "maxLength": 255}})
			responses := post["responses"].(obj)
			for _, code := range []string{"409", "422"} {
				if responses[code] == nil {
					responses[code] = obj{"description": errorText[code], "content": obj{"application/json": obj{"schema": ref("Error")}}}
				}
			}
		}
	}

	return obj{
		"openapi": "3.1.0",
		"info": obj{
			"title":   "Loreweave API",
			"version": "1",
			"summary": "Worlds, documents, eras, projects, typed content operations and search.",
			"description": "All requests carry `Authorization: Bearer lw_live_…` (an API key from Settings → API keys). " +
				"Reading or writing document content (single-document read, content operations, search) with a key or OAuth token needs the world on the Pro or Studio plan. " +
				"Errors are `{\"error\": {\"code\", \"message\", …details}}`. Bodies are JSON (≤ 1 MiB, ≤ 500 operations, nesting ≤ 32) in UTF-8 without lone surrogate escapes (400 `malformed_json`); member names are case-sensitive and may not repeat within an object (422 `invalid_field`). " +
				"Names, labels, titles and property keys may not hold control characters (NUL, ESC, line breaks, ...) or bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069): 422 `invalid_field`.",
		},
		"servers":    []obj{{"url": "/"}},
		"security":   []obj{{"apiKey": []string{}}},
		"paths":      paths,
		"components": obj{"schemas": schemas, "securitySchemes": obj{"apiKey": obj{"type": "http", "scheme": "bearer", "description": "An API key, lw_live_…"}}},
	}
}

func dateTime() obj { return obj{"type": "string", "format": "date-time"} }

// described returns schema o with a description.
func described(o obj, desc string) obj {
	o["description"] = desc
	return o
}

// worldEventKinds are the events of the world stream (see live.WorldEvent).
var worldEventKinds = []string{
	"document.created", "document.renamed", "document.moved", "document.deleted",
	"era.created", "era.renamed", "era.deleted", "project.created", "project.updated", "project.deleted",
	"member.added", "member.removed", "member.role", "tool.installed", "tool.uninstalled", "world.updated", "world.deleted",
}

func toolProps() obj {
	return obj{
		"id": str("The tool's id in this world."), "name": str("The tool's name (unique in the world)."), "title": str("Shown to people."),
		"version": str("Semantic version, MAJOR.MINOR.PATCH."), "description": str("Shown to people; may be empty."),
		"documentTypes": arrayOf(str("A document type it adds.")), "appKinds": arrayOf(str("An app kind (project kind) it adds.")),
		"installed": dateTime(), "updated": described(dateTime(), "When it was installed or last upgraded."),
	}
}

func documentProps() obj {
	return obj{
		"id": str("Document id."), "worldId": str("World id."), "name": str("Name (global across eras)."),
		"documentType": str("card, timeline, map, folder, animator, or an installed tool's type."),
		"parentId":     str("The folder it sits in; empty at the top."),
		"eraId":        str("The era it was created in; empty for the main line."),
		"created":      dateTime(), "updated": dateTime(),
	}
}

func mergeProps(a, b obj) obj {
	out := obj{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func opSchemaName(op string) string {
	typ, verb, _ := strings.Cut(op, ".")
	return "Op_" + typ + "_" + verb
}

func opRefs() []obj {
	var refs []obj
	for _, spec := range ops.Catalog() {
		refs = append(refs, ref(opSchemaName(spec.Name)))
	}
	return refs
}

// streamCaps is what every event stream's description says of the caps on open streams.
const streamCaps = "A user may hold at most 50 streams open at once (event streams and MCP requests), across all their keys, OAuth tokens and sessions, " +
	"and a client address at most 200 of every kind (LOREWEAVE_MAX_STREAMS_IP); " +
	"one more gets 429 `rate_limited` (saying how many are open and the limit, with `Retry-After`) until one ends."
