package openapi

import "github.com/gameadmin/admin/internal/authz"

// UIDocument is the document the UI's types are generated from
// (ui/openapi.json, then openapi-typescript writes ui/src/api.gen.ts;
// `npm run gen:api` in ui/, checked in CI): an admin's view of a panel
// that has everything (users, moderation, reports, rooms, the audit
// log), with its resources as the generic paths /{resource}... of
// Input.Generic, since the UI reads any panel's resources from its
// catalog.
func UIDocument() map[string]any {
	all := map[authz.Op]bool{authz.OpList: true, authz.OpRead: true, authz.OpCreate: true, authz.OpUpdate: true, authz.OpDelete: true}
	return Build(Input{
		Operator: authz.Operator{Role: authz.RoleAdmin}, APIPath: "/admin-api", CookieName: "gameadmin_session",
		Audit: true, Users: true, ModerateUsers: true, ListUsers: true, Rooms: true, RoomPermissions: all,
		MaxReasonLen: 500, MaxBulkIDs: 1000, Generic: true,
	})
}

// genericPaths are the paths of any resource, as the UI calls them: the
// resource's key in {resource}, a row as the Row schema.
func genericPaths(paths obj, listParams []obj, idParam obj, ifMatch []obj, withErrors func(obj) obj, jsonOK func(string, obj) obj, body func(obj) obj) {
	resParam := obj{"name": "resource", "in": "path", "required": true, "schema": str(), "description": "the resource's key, as the catalog names it"}
	row, rows := ref("Row"), obj{"type": "array", "items": ref("Row")}
	both := []obj{resParam, idParam}
	listOK := jsonOK("the page of rows; X-Total-Count, X-Total-Count-Estimated and X-Next-Cursor headers (X-Next-Cursor on keyset pages, and on full offset pages whose sort allows a cursor)", rows)
	paths["/{resource}"] = obj{"parameters": []obj{resParam},
		"get": obj{"operationId": "list", "tags": []string{"Resources"}, "summary": "List a resource's rows; filters are column_op=value parameters (docs/api.md)",
			"parameters": listParams, "responses": withErrors(obj{"200": listOK})},
		"post": obj{"operationId": "create", "tags": []string{"Resources"}, "summary": "Create a row",
			"requestBody": body(row), "responses": withErrors(obj{"201": jsonOK("the new row; its ETag header is its version", row)})}}
	paths["/{resource}/{id}"] = obj{"parameters": both,
		"get": obj{"operationId": "read", "tags": []string{"Resources"}, "summary": "Read a row",
			"responses": withErrors(obj{"200": jsonOK("the row; its ETag header is its version", row)})},
		"patch": obj{"operationId": "update", "tags": []string{"Resources"}, "summary": "Change a row (application/merge-patch+json: a JSON column's object merged)",
			"parameters":  ifMatch,
			"requestBody": obj{"required": true, "content": obj{"application/json": obj{"schema": row}, "application/merge-patch+json": obj{"schema": row}}},
			"responses":   withErrors(obj{"200": jsonOK("the row as stored; its ETag header is its version", row)})},
		"delete": obj{"operationId": "delete", "tags": []string{"Resources"}, "summary": "Delete a row (a soft-delete resource's is kept, its ETag the version to restore)",
			"parameters": ifMatch, "responses": withErrors(obj{"200": jsonOK("the deleted row", row)})}}
	paths["/{resource}/{id}/_history"] = obj{"parameters": both, "get": obj{"operationId": "history", "tags": []string{"Resources"},
		"summary": "The row's audit entries, newest first", "parameters": listParams, "responses": withErrors(obj{"200": listOK})}}
	paths["/{resource}/{id}/_counts"] = obj{"parameters": both, "get": obj{"operationId": "counts", "tags": []string{"Resources"},
		"summary": "The number of rows of each relation tab",
		"responses": withErrors(obj{"200": jsonOK("counts by relation; _estimated names those estimated", obj{"type": "object",
			"additionalProperties": integer(), "properties": obj{"_estimated": strs()}})})}}
	paths["/{resource}/{id}/relations/{relation}"] = obj{"parameters": append(both, obj{"name": "relation", "in": "path", "required": true, "schema": str()}),
		"get": obj{"operationId": "relation", "tags": []string{"Resources"}, "summary": "A relation tab's rows", "parameters": listParams,
			"responses": withErrors(obj{"200": listOK})}}
	paths["/{resource}/{id}/_restore"] = obj{"parameters": both, "post": obj{"operationId": "restore", "tags": []string{"Resources"},
		"summary": "Bring back a soft-deleted row", "parameters": ifMatch,
		"requestBody": obj{"content": obj{"application/json": obj{"schema": obj{"type": "object"}}}},
		"responses":   withErrors(obj{"200": jsonOK("the row restored", row)})}}
	paths["/{resource}/{id}/_revert"] = obj{"parameters": both, "post": obj{"operationId": "revert", "tags": []string{"Resources"},
		"summary": "Put the row back as it was before an entry of its history", "parameters": ifMatch,
		"requestBody": body(object(obj{"auditId": integer(), "force": boolean()}, "auditId")),
		"responses":   withErrors(obj{"200": jsonOK("the row as it is now", row)})}}
	paths["/{resource}/_action/{action}"] = obj{"parameters": []obj{resParam, {"name": "action", "in": "path", "required": true, "schema": str()}},
		"post": obj{"operationId": "action", "tags": []string{"Resources"}, "summary": "Run an action: {id} for a per-row action, {ids} for a selection",
			"requestBody": body(object(obj{"id": obj{}, "ids": obj{"type": "array"}})),
			"responses":   withErrors(obj{"200": jsonOK("the handler's answer", object(obj{"ok": boolean(), "result": obj{}}, "ok"))})}}
}

// optionalBody gives o a request body that may be left out.
func optionalBody(o obj, s obj) obj {
	o["requestBody"] = obj{"content": obj{"application/json": obj{"schema": s}}}
	return o
}
