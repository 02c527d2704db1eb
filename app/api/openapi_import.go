package api

// The OpenAPI description of POST /api/v1/worlds/import (world_import.go).

func importWorldOperation() obj {
	op := withParams(operation("importWorld", "Import a world archive (as GET /api/v1/worlds/{worldId}/export writes it; docs/ARCHIVE.md): the body is the zip, "+
		"up to the server's import limit (2 GiB unless the operator set LOREWEAVE_MAX_IMPORT_MIB). Every checksum and reference is checked before anything is written, "+
		"then the world is written in one transaction: a bad archive changes nothing. The caller owns the imported world, on the server's default plan; "+
		"the archive's other members get their role where an account has their email (the archive's owner becomes an admin), and are invited with it otherwise.",
		"201", ref("ImportResult"), "400", "409", "413", "415", "422"),
		queryParam("mode", "restore (the default) keeps every id: back up and restore, move to another server; the world must not exist here. "+
			"copy gives the world and everything in it new ids, every reference remapped: a copy beside the original, a template.",
			obj{"type": "string", "enum": []string{"restore", "copy"}}))
	op["requestBody"] = obj{"required": true, "content": obj{"application/zip": obj{"schema": obj{"type": "string", "contentMediaType": "application/zip"}}}}
	res := op["responses"].(obj)
	describe := func(code, text string) { res[code].(obj)["description"] = text }
	describe("409", "A restore of a world this server has (`world_exists`, with `kind` and `id`: the world, or an era, document, project, tool or asset of it); import with mode=copy instead.")
	describe("413", "The archive is over the server's import limit (`archive_too_large`, with `limit` in bytes).")
	describe("415", "The body is not `application/zip` (`unsupported_media_type`).")
	describe("422", "`invalid_archive`: the archive is truncated, a checksum or size does not match its manifest, a file is missing or not listed, "+
		"a JSON file does not decode (unknown fields are refused) or holds a bad value, or a reference leads nowhere (a parent, an era, an asset, a document type); "+
		"`problems` lists up to 100 of them as {path, message} and `total` counts them all. `invalid_field` for a bad mode.")
	describe("400", "The archive could not be read to its end (`malformed_body`).")
	return op
}

func importResultSchema() obj {
	emails := func(desc string) obj {
		return obj{"type": "array", "items": obj{"type": "string"}, "description": desc}
	}
	count := func(what string) obj { return integer("How many " + what + " the archive held.") }
	return object(obj{
		"world": ref("World"),
		"mode":  obj{"type": "string", "enum": []string{"restore", "copy"}},
		"counts": object(obj{"members": count("members"), "eras": count("eras"), "projects": count("projects"), "tools": count("tools"),
			"assets": count("assets"), "documents": count("documents"), "states": count("document states (one per era with its own copy)"),
			"ops": count("op-log entries"), "snapshots": count("snapshots")}),
		"members": object(obj{
			"added":   emails("The members added, by email: an account here has their email."),
			"invited": emails("The members invited, by email: no account here has their email yet; the invitation waits for a sign-up with it."),
			"skipped": emails("The members left out, by email (none today: reserved)."),
		}),
	})
}
