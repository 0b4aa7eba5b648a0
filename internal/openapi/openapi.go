// Package openapi builds the OpenAPI 3.1 document of the admin API
// (GET /admin-api/_openapi.json) as one operator sees it: every resource
// of their catalog with its columns as JSON types and the operations they
// may run, its actions, the list language, sign-in, moderation and rooms
// when they have them. Studios generate clients from it and call the API
// from their tools with the session cookie.
//
// Build is a pure function of plain data: the engine builds the
// operator's catalog and says what else the panel has; this package
// imports nothing of the panel.
package openapi

import (
	"slices"
	"strings"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/catalog"
	"github.com/gameadmin/admin/internal/schema"
)

// Input is what the document is built from.
type Input struct {
	// Operator is whom the document is for: their role decides the
	// operator-only and admin-only paths, and the description names them.
	Operator authz.Operator
	// Catalog is the resources the operator may list or read, as GET
	// /admin-api answers them; each entry's Actions are the actions the
	// document lists.
	Catalog []catalog.Entry
	// APIPath is where the API is mounted: the document's server.
	APIPath string
	// CookieName is the session cookie's name: the security scheme.
	CookieName string
	// Audit says the panel keeps the audit log (the adminAudit resource):
	// rows then have a history (_history) and can be reverted (_revert).
	Audit bool
	// Users says the panel has a users resource: moderation and a
	// player's data requests.
	Users bool
	// ModerateUsers says the operator may update users: ban, unban,
	// revoke sessions, one at a time or in bulk.
	ModerateUsers bool
	// Rooms says the panel has a live rooms runtime; RoomPermissions are
	// the operations the operator may run on the rooms (OpList to see
	// them, OpUpdate to lock, kick and edit state, OpDelete to dispose).
	Rooms           bool
	RoomPermissions map[authz.Op]bool
	// MaxReasonLen bounds a ban's reason; MaxBulkIDs a bulk moderation's
	// selection.
	MaxReasonLen int
	MaxBulkIDs   int
	// ReportCategories are the keys of the game's report categories, nil
	// when reports are off; ListUsers says the operator may list users
	// (the reports queue), ModerateUsers that they may claim and resolve.
	ReportCategories []string
	ListUsers        bool
	// Generic makes the document of no panel in particular: the
	// resources as the paths /{resource}, /{resource}/{id} and so on, a
	// row as the Row schema, report categories as any string. The UI's
	// types are generated from it (Generic's doc comment in generic.go).
	Generic bool
}

type obj = map[string]any

// Build returns the document of in.Operator's API: a JSON value (maps,
// slices, strings, numbers) for encoding/json.
func Build(in Input) map[string]any {
	op := in.Operator
	paths := obj{}
	schemas := fixedSchemas()
	schemas["FieldProblem"] = obj{"type": "object", "required": []string{"code", "params"}, "properties": obj{
		"code":   obj{"type": "string", "description": "the kind of problem: required, too_long, not_a_number… (docs/api.md)"},
		"params": obj{"type": "object", "additionalProperties": obj{}, "description": "the values the problem names ({max: 32}); {} for none"}}}
	schemas["Error"] = obj{
		"type":     "object",
		"required": []string{"status", "code", "error"},
		"properties": obj{
			"status":        obj{"type": "integer"},
			"code":          obj{"type": "string"},
			"error":         obj{"type": "string"},
			"fields":        obj{"type": "object", "additionalProperties": obj{"type": "string"}},
			"retryAfterSec": obj{"type": "integer"},
			"requestId":     obj{"type": "string", "description": "on 5xx answers: the server's log line of the cause has it"},
			"params": obj{"type": "object", "additionalProperties": obj{},
				"description": "the specifics the message names (a limit, a field, who holds a claim), by name: values a client words the answer with from its code (docs/api.md lists them)"},
			"problems": obj{"type": "object", "additionalProperties": ref("FieldProblem"),
				"description": "beside fields, with the same keys: each field's problem as a code and its params"},
			"row": obj{"type": "object", "description": "on a 409 conflict of a write to a row that changed since it was read: the row as it is now (its ETag header is its version)"},
		},
	}
	errRef := func(desc string) obj {
		return obj{"description": desc, "content": obj{"application/json": obj{"schema": ref("Error")}}}
	}
	errorResponses := obj{"400": errRef("the request is malformed or a value does not fit"), "401": errRef("not signed in"), "403": errRef("not allowed"),
		"404": errRef("not found"), "409": errRef("a conflict with the stored data"), "413": errRef("the body is too large"), "429": errRef("rate limited"),
		"500": errRef("the server failed; the cause is in its log"), "501": errRef("the game's tables do not support it"),
		"503": errRef("a node or the database is unreachable, or a query ran past QueryTimeout"), "504": errRef("a live room or a node did not answer in time (RoomTimeout)")}
	// Every operation's refusals are the one Error body: the responses
	// are components each operation refers to.
	errors := obj{}
	for code := range errorResponses {
		errors[code] = obj{"$ref": "#/components/responses/Error" + code}
	}
	withErrors := func(ok obj) obj {
		out := obj{}
		for k, v := range errors {
			out[k] = v
		}
		for k, v := range ok {
			out[k] = v
		}
		return out
	}
	jsonOK := func(desc string, s obj) obj {
		return obj{"description": desc, "content": obj{"application/json": obj{"schema": s}}}
	}
	body := func(s obj) obj {
		return obj{"required": true, "content": obj{"application/json": obj{"schema": s}}}
	}
	listParams := []obj{
		queryParam("_start", obj{"type": "integer", "minimum": 0}, "offset window: first row; past 10000, where the sort allows a cursor, 400: page on with _limit and _cursor (a full page's X-Next-Cursor)"),
		queryParam("_end", obj{"type": "integer", "minimum": 0}, "offset window: row after the last"),
		queryParam("_limit", obj{"type": "integer", "minimum": 1}, "keyset window: rows per page (with _cursor)"),
		queryParam("_cursor", obj{"type": "string"}, "keyset window: the X-Next-Cursor of the previous page"),
		queryParam("_sort", obj{"type": "string"}, "columns, comma-separated"),
		queryParam("_order", obj{"type": "string"}, "asc or desc per _sort column"),
		queryParam("_q", obj{"type": "string"}, "text searched in the search columns"),
		queryParam("_count", obj{"type": "string", "enum": []string{"exact", "estimate", "none"}}, "how the total (X-Total-Count) is counted"),
		queryParam("_tz", obj{"type": "string"}, "an IANA time zone (Asia/Tokyo): a filter value on a time column without an offset (a bare date, that whole day; a wall time) is read in it, not in UTC; timestamp-local columns are not moved"),
		queryParam("_deleted", obj{"type": "string", "enum": []string{"only", "include"}}, "a soft-delete resource's deleted rows: only them, or with the others (left out by default)"),
		queryParam("_fields", obj{"type": "string"}, "columns, comma-separated: the rows are read with, and carry, only these and the primary key (every column without it)"),
	}
	idParam := obj{"name": "id", "in": "path", "required": true, "schema": obj{"type": "string"}, "description": "the row's key; several key columns as the base64url JSON array of their values"}
	ifMatch := []obj{{"name": "If-Match", "in": "header", "schema": obj{"type": "string"},
		"description": "the ETag of the row as read (or *): a row whose version differs is not written, 409 conflict with the row as it is now; without it the write is not checked"}}
	cat := in.Catalog
	listed := map[string]bool{}
	for _, e := range cat {
		listed[e.Name] = true
	}
	for _, e := range cat {
		name := schemaName(e.Name)
		props := obj{}
		var required []string
		for _, c := range e.Columns {
			props[c.Name] = columnSchema(c)
			if c.Required {
				required = append(required, c.Name)
			}
		}
		row := obj{"type": "object", "properties": props}
		schemas[name] = row
		write := obj{"type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			schemas[name+"New"] = obj{"type": "object", "properties": props, "required": required, "additionalProperties": false}
		} else {
			schemas[name+"New"] = write
		}
		schemas[name+"Patch"] = write
		coll := obj{}
		base := "/" + e.Name
		if e.Permissions[authz.OpList] {
			coll["get"] = obj{"operationId": "list_" + e.Name, "tags": []string{e.Label}, "summary": "List " + e.Label,
				"parameters": listParams,
				"responses":  withErrors(obj{"200": jsonOK("the page of rows; X-Total-Count and X-Next-Cursor headers", obj{"type": "array", "items": ref(name)})})}
		}
		if e.Permissions[authz.OpCreate] {
			coll["post"] = obj{"operationId": "create_" + e.Name, "tags": []string{e.Label}, "summary": "Create a row of " + e.Label,
				"requestBody": body(ref(name + "New")),
				"responses":   withErrors(obj{"201": jsonOK("the new row", ref(name))})}
		}
		if len(coll) > 0 {
			paths[base] = coll
		}
		if e.Permissions[authz.OpList] && op.Role.IsOperator() {
			paths[base+"/_export.csv"] = obj{"get": obj{"operationId": "export_" + e.Name, "tags": []string{e.Label}, "summary": "The list as CSV, every page",
				"parameters": append(slices.Clone(listParams), queryParam("_headers", obj{"type": "string", "enum": []string{"names", "labels"}, "default": "names"},
					"names: columns headed by their names, cells as stored (for scripts); labels: headed by their labels, the users' ban in words (for a person)")),
				"responses": withErrors(obj{"200": obj{"description": "the rows as CSV", "content": obj{"text/csv": obj{"schema": obj{"type": "string"}}}}})}}
		}
		item := obj{"parameters": []obj{idParam}}
		if e.Permissions[authz.OpRead] {
			item["get"] = obj{"operationId": "read_" + e.Name, "tags": []string{e.Label}, "summary": "Read a row of " + e.Label,
				"responses": withErrors(obj{"200": jsonOK("the row; its ETag header is its version", ref(name))})}
		}
		if e.Permissions[authz.OpUpdate] {
			item["patch"] = obj{"operationId": "update_" + e.Name, "tags": []string{e.Label}, "summary": "Change a row of " + e.Label,
				"description": "With Content-Type application/merge-patch+json the body is an RFC 7396 merge patch: a JSON column's object is merged into the stored document by the database (null removes a key), so other keys written since the read stay.",
				"parameters":  ifMatch,
				"requestBody": obj{"required": true, "content": obj{"application/json": obj{"schema": ref(name + "Patch")}, "application/merge-patch+json": obj{"schema": ref(name + "Patch")}}},
				"responses":   withErrors(obj{"200": jsonOK("the row as stored; its ETag header is its version", ref(name))})}
			item["put"] = obj{"operationId": "put_" + e.Name, "tags": []string{e.Label}, "summary": "Change a row of " + e.Label + " (as PATCH)",
				"parameters":  ifMatch,
				"requestBody": body(ref(name + "Patch")),
				"responses":   withErrors(obj{"200": jsonOK("the row as stored; its ETag header is its version", ref(name))})}
		}
		if e.Permissions[authz.OpDelete] {
			item["delete"] = obj{"operationId": "delete_" + e.Name, "tags": []string{e.Label}, "summary": "Delete a row of " + e.Label,
				"parameters": ifMatch,
				"responses":  withErrors(obj{"200": jsonOK("the deleted row", ref(name))})}
		}
		if len(item) > 1 {
			paths[base+"/{id}"] = item
		}
		if e.Permissions[authz.OpRead] && op.Role.IsOperator() && e.Name != "adminAudit" && in.Audit {
			paths[base+"/{id}/_history"] = obj{"parameters": []obj{idParam}, "get": obj{"operationId": "history_" + e.Name, "tags": []string{e.Label},
				"summary": "The row's audit entries, newest first", "parameters": listParams,
				"responses": withErrors(obj{"200": jsonOK("audit entries", obj{"type": "array", "items": obj{"type": "object"}})})}}
		}
		if e.Permissions[authz.OpRead] {
			paths[base+"/{id}/_counts"] = obj{"parameters": []obj{idParam}, "get": obj{"operationId": "counts_" + e.Name, "tags": []string{e.Label},
				"summary": "The number of rows of each relation tab", "responses": withErrors(obj{"200": jsonOK("counts by relation", obj{"type": "object"})})}}
			for _, rel := range e.Relations {
				if !listed[rel.Target] {
					continue // a tab into what op may not list: the server refuses it
				}
				paths[base+"/{id}/relations/"+rel.Name] = obj{"parameters": []obj{idParam}, "get": obj{"operationId": "relation_" + e.Name + "_" + rel.Name, "tags": []string{e.Label},
					"summary": rel.Label + " of a row", "parameters": listParams,
					"responses": withErrors(obj{"200": jsonOK("the related rows", obj{"type": "array", "items": ref(schemaName(rel.Target))})})}}
			}
		}
		if e.SoftDeleteColumn != "" && e.Permissions[authz.OpUpdate] {
			paths[base+"/{id}/_restore"] = obj{"parameters": []obj{idParam}, "post": obj{"operationId": "restore_" + e.Name, "tags": []string{e.Label},
				"summary":    "Bring back a soft-deleted row: its " + e.SoftDeleteColumn + " cleared",
				"parameters": ifMatch,
				"responses":  withErrors(obj{"200": jsonOK("the row restored", ref(name))})}}
		}
		if e.Permissions[authz.OpUpdate] && op.Role.IsOperator() && e.Name != "adminAudit" && in.Audit {
			paths[base+"/{id}/_revert"] = obj{"parameters": []obj{idParam}, "post": obj{"operationId": "revert_" + e.Name, "tags": []string{e.Label},
				"summary":     "Put the row back as it was before an entry of its history",
				"parameters":  ifMatch,
				"requestBody": body(obj{"type": "object", "required": []string{"auditId"}, "additionalProperties": false, "properties": obj{"auditId": obj{"type": "integer"}, "force": obj{"type": "boolean"}}}),
				"responses":   withErrors(obj{"200": jsonOK("the row as it is now", obj{"type": "object"})})}}
		}
		for _, act := range e.Actions {
			paths[base+"/_action/"+act.Name] = obj{"post": obj{"operationId": "action_" + e.Name + "_" + act.Name, "tags": []string{e.Label},
				"summary": act.Label, "requestBody": body(obj{"type": "object"}),
				"responses": withErrors(obj{"200": jsonOK("the handler's answer", obj{"type": "object", "properties": obj{"ok": obj{"type": "boolean"}, "result": obj{}}})})}}
		}
	}
	if in.Generic {
		genericPaths(paths, listParams, idParam, ifMatch, withErrors, jsonOK, body)
	}
	if in.Users && in.ModerateUsers {
		for _, o := range []string{"ban", "unban", "revoke-sessions"} {
			req := obj{"type": "object", "additionalProperties": false}
			if o == "ban" {
				req["properties"] = obj{"reason": obj{"type": "string", "maxLength": in.MaxReasonLen}, "until": obj{"type": []string{"string", "null"}, "format": "date-time", "description": "when the ban ends; null or absent, for good"}}
			}
			paths["/users/{id}/"+o] = obj{"parameters": []obj{idParam}, "post": obj{"operationId": "user_" + strings.ReplaceAll(o, "-", "_"), "tags": []string{"Moderation"},
				"summary": strings.ReplaceAll(o, "-", " ") + " a user", "requestBody": obj{"content": obj{"application/json": obj{"schema": req}}},
				"responses": withErrors(obj{"200": jsonOK("done", ref("ModerationResult"))})}}
		}
	}
	if in.Users && op.Role == authz.RoleAdmin {
		paths["/users/{id}/_export"] = obj{"parameters": []obj{idParam}, "get": obj{"operationId": "user_export", "tags": []string{"Data requests"},
			"summary": "A player's data as one JSON document", "responses": withErrors(obj{"200": jsonOK("the player's data", obj{"type": "object",
				"properties": obj{"exportedAt": obj{"type": "string"}, "user": obj{"type": "object"}, "resources": obj{"type": "object"}, "audit": obj{"type": "array"}}})})}}
		paths["/users/{id}/_erase"] = obj{"parameters": []obj{idParam, queryParam("dryRun", obj{"type": "boolean"}, "say what the erase would do, doing nothing")},
			"post": obj{"operationId": "user_erase", "tags": []string{"Data requests"}, "summary": "Erase a player's personal data",
				"requestBody": obj{"content": obj{"application/json": obj{"schema": obj{"type": "object", "properties": obj{"confirm": obj{"type": "string"}}}}}},
				"responses": withErrors(obj{"200": jsonOK("what the erase did", obj{"type": "object", "required": []string{"dryRun", "resources", "auditEntries"},
					"properties": obj{"dryRun": obj{"type": "boolean"}, "resources": obj{"type": "array"}, "auditEntries": obj{"type": "integer"}}})})}}
	}
	if in.Users && in.ModerateUsers {
		paths["/users/_bulk/{op}"] = obj{"parameters": []obj{{"name": "op", "in": "path", "required": true, "schema": obj{"type": "string", "enum": []string{"ban", "unban", "revoke-sessions"}}}},
			"post": obj{"operationId": "users_bulk", "tags": []string{"Moderation"}, "summary": "Ban, unban or revoke the sessions of several users",
				"requestBody": body(obj{"type": "object", "required": []string{"ids"}, "properties": obj{"ids": obj{"type": "array", "maxItems": in.MaxBulkIDs}, "reason": obj{"type": "string"}, "until": obj{"type": []string{"string", "null"}, "format": "date-time", "description": "when the ban ends; null or absent, for good"}}}),
				"responses": withErrors(obj{"200": jsonOK("what became of each", obj{"type": "object", "required": []string{"results", "counts"},
					"properties": obj{"results": obj{"type": "object", "additionalProperties": obj{"type": "string"}}, "counts": obj{"type": "object", "additionalProperties": obj{"type": "integer"}}, "sessionsClosed": obj{"type": "integer"},
						"partial": obj{"type": "boolean", "description": "some live connections could not be closed"}}})})}}
	}
	if in.Users && (len(in.ReportCategories) > 0 || in.Generic) && in.ListUsers {
		reportsPaths(paths, in, withErrors, jsonOK, body)
	}
	paths["/auth/status"] = obj{"get": obj{"operationId": "status", "tags": []string{"Sign-in"}, "summary": "Whether a session is on, and whether the panel needs its first admin", "security": []obj{},
		"parameters": []obj{queryParam("with", enum("catalog"), "catalog: the catalog comes along (catalog) when GET / would answer it")},
		"responses":  withErrors(obj{"200": jsonOK("the status", ref("AuthStatus"))})}}
	paths["/"] = obj{"get": obj{"operationId": "catalog", "tags": []string{"Catalog"}, "summary": "Every resource the operator may list, as the UI is told",
		"responses": withErrors(obj{"200": jsonOK("the catalog", obj{"type": "array", "items": ref("Resource")})})}}
	paths["/_openapi.json"] = obj{"get": obj{"operationId": "openapi", "tags": []string{"Catalog"}, "summary": "This document",
		"responses": withErrors(obj{"200": jsonOK("the OpenAPI document", obj{"type": "object"})})}}
	anyObj := obj{"type": []string{"object", "array"}}
	simple := func(id, tag, summary string, req obj, security bool) obj {
		o := obj{"operationId": id, "tags": []string{tag}, "summary": summary, "responses": withErrors(obj{"200": jsonOK("done", ref("Done"))})}
		if req != nil {
			o["requestBody"] = body(req)
		}
		if !security {
			o["security"] = []obj{}
		}
		return o
	}
	strProps := func(names ...string) obj {
		props := obj{}
		for _, n := range names {
			props[n] = obj{"type": "string"}
		}
		return obj{"type": "object", "properties": props}
	}
	if in.Rooms && in.RoomPermissions[authz.OpList] {
		roomParam := obj{"name": "roomId", "in": "path", "required": true, "schema": obj{"type": "string"}}
		paths["/rooms"] = obj{"get": obj{"operationId": "rooms", "tags": []string{"Live rooms"}, "summary": "The live rooms",
			"responses": withErrors(obj{"200": jsonOK("room summaries", obj{"type": "array", "items": ref("RoomSummary")})})}}
		paths["/rooms/by-user/{userId}"] = obj{"parameters": []obj{{"name": "userId", "in": "path", "required": true, "schema": obj{"type": "string"}}},
			"get": obj{"operationId": "rooms_of_user", "tags": []string{"Live rooms"}, "summary": "A user's live sessions",
				"responses": withErrors(obj{"200": jsonOK("sessions", obj{"type": "array", "items": ref("UserSession")})})}}
		room := obj{"parameters": []obj{roomParam}, "get": obj{"operationId": "room", "tags": []string{"Live rooms"}, "summary": "Inspect a room",
			"responses": withErrors(obj{"200": jsonOK("the room, its clients and state", ref("RoomView"))})}}
		if in.RoomPermissions[authz.OpUpdate] {
			room["patch"] = simple("room_lock", "Live rooms", "Lock or unlock a room", obj{"type": "object", "required": []string{"locked"}, "properties": obj{"locked": obj{"type": "boolean"}}}, true)
			paths["/rooms/{roomId}/clients/{sessionId}"] = obj{"parameters": []obj{roomParam, {"name": "sessionId", "in": "path", "required": true, "schema": obj{"type": "string"}}},
				"delete": optionalBody(simple("room_kick", "Live rooms", "Kick a client", nil, true), object(obj{"reason": obj{"type": "string", "description": "what the client is told"}}))}
			paths["/rooms/{roomId}/state"] = obj{"parameters": []obj{roomParam},
				"patch":  simple("room_state_edit", "Live rooms", "Set a value of the room's state", obj{"type": "object", "required": []string{"path"}, "properties": obj{"path": obj{}, "value": obj{}}}, true),
				"delete": simple("room_state_delete", "Live rooms", "Delete a path of the room's state", obj{"type": "object", "required": []string{"path"}, "properties": obj{"path": obj{}}}, true)}
		}
		if in.RoomPermissions[authz.OpDelete] {
			room["delete"] = simple("room_dispose", "Live rooms", "Dispose of a room", nil, true)
		}
		paths["/rooms/{roomId}"] = room
	}
	bootstrap := simple("bootstrap", "Sign-in", "Create the first admin", obj{"type": "object", "required": []string{"password"}, "description": "an email, a username (UserColumns.Username), or both",
		"properties": obj{"email": obj{"type": "string"}, "username": obj{"type": "string"}, "password": obj{"type": "string"}, "displayName": obj{"type": "string"}, "token": obj{"type": "string"}}}, false)
	bootstrap["responses"].(obj)["201"] = jsonOK("the first admin, signed in", anyObj)
	paths["/auth/bootstrap"] = obj{"post": bootstrap}
	for p, o := range map[string]obj{
		"/auth/logout-everywhere":   simple("logout_everywhere", "Sign-in", "End every session of the signed-in operator", nil, true),
		"/auth/request-reset":       simple("request_reset", "Sign-in", "Send a password reset link", strProps("email"), false),
		"/auth/reset":               simple("reset", "Sign-in", "Set a password with a reset link's token", strProps("token", "password"), false),
		"/auth/login/totp":          simple("login_totp", "Sign-in", "The second factor of a sign-in", strProps("challenge", "code", "recoveryCode"), false),
		"/auth/totp/enroll":         simple("totp_enroll", "Two-factor", "Start enrolling an authenticator", nil, true),
		"/auth/totp/confirm":        simple("totp_confirm", "Two-factor", "Confirm the authenticator with a code", strProps("code"), true),
		"/auth/totp/disable":        simple("totp_disable", "Two-factor", "Turn two-factor sign-in off", strProps("password", "code"), true),
		"/auth/totp/recovery-codes": simple("totp_recovery_codes", "Two-factor", "New recovery codes", strProps("password", "code"), true),
		"/auth/password":            simple("password", "Account", "Change the signed-in operator's password", strProps("current", "new"), true),
	} {
		paths[p] = obj{"post": o}
	}
	for p, schema := range map[string]string{"/auth/login/totp": "SignedIn", "/auth/totp/enroll": "TotpEnrolment",
		"/auth/totp/confirm": "RecoveryCodes", "/auth/totp/disable": "RecoveryCodes", "/auth/totp/recovery-codes": "RecoveryCodes"} {
		paths[p].(obj)["post"].(obj)["responses"].(obj)["200"] = jsonOK("done", ref(schema))
	}
	paths["/auth/totp"] = obj{"get": obj{"operationId": "totp_status", "tags": []string{"Two-factor"}, "summary": "Whether two-factor sign-in is on",
		"responses": withErrors(obj{"200": jsonOK("the status", ref("TotpStatus"))})}}
	paths["/auth/sessions"] = obj{"get": obj{"operationId": "sessions", "tags": []string{"Account"}, "summary": "The signed-in operator's sign-ins",
		"responses": withErrors(obj{"200": jsonOK("the sign-ins, newest first", obj{"type": "array", "items": ref("SignIn")})})}}
	if op.Role == authz.RoleAdmin && in.Users {
		paths["/users/{id}/invite"] = obj{"parameters": []obj{idParam}, "post": simple("user_invite", "Moderation", "Send a set-password link", nil, true)}
		paths["/users/{id}/totp/reset"] = obj{"parameters": []obj{idParam}, "post": simple("user_totp_reset", "Two-factor", "Turn a user's two-factor sign-in off", nil, true)}
		paths["/users/{id}/row-scope"] = obj{"parameters": []obj{idParam},
			"get": obj{"operationId": "user_row_scope", "tags": []string{"Moderation"}, "summary": "A mod's row scope",
				"responses": withErrors(obj{"200": jsonOK("the row scope", ref("RowScope"))})},
			"put": obj{"operationId": "user_set_row_scope", "tags": []string{"Moderation"}, "summary": "Set a mod's row scope (null: every row)",
				"requestBody": body(obj{"type": "object", "required": []string{"values"}, "additionalProperties": false, "properties": obj{
					"values": obj{"type": []string{"array", "null"}, "items": str(), "maxItems": 100}}}),
				"responses": withErrors(obj{"200": jsonOK("the row scope as stored", ref("RowScope"))})}}
	}
	locale := obj{"type": "object", "required": []string{"locale"}, "additionalProperties": false, "properties": obj{
		"locale": obj{"type": "string", "description": `a language of the panel's UI ("en", "de"); "" clears the choice: the UI follows the browser's`}}}
	paths["/auth/locale"] = obj{"put": obj{"operationId": "set_locale", "tags": []string{"Account"}, "summary": "Set the language the signed-in operator reads the UI in",
		"description": "Kept with the account (GET /auth/me's locale); not audited: the operator's own display preference. Another value than the UI's languages and \"\" is 400 invalid_value, its params' accepted naming them.",
		"requestBody": body(locale), "responses": withErrors(obj{"200": jsonOK("the language as stored", locale)})}}
	paths["/auth/me"] = obj{"get": obj{"operationId": "me", "tags": []string{"Sign-in"}, "summary": "Who is signed in",
		"responses": withErrors(obj{"200": jsonOK("the operator, what the panel has and the rules the UI follows", ref("Me"))})}}
	paths["/auth/login"] = obj{"post": obj{"operationId": "login", "tags": []string{"Sign-in"}, "summary": "Sign in: the answer sets the session cookie", "security": []obj{},
		"requestBody": body(obj{"type": "object", "required": []string{"password"}, "description": "the password and exactly one of login (an email or a username), email and username",
			"properties": obj{"login": obj{"type": "string", "description": "an email or a username"}, "email": obj{"type": "string"}, "username": obj{"type": "string"}, "password": obj{"type": "string"}}}),
		"responses": withErrors(obj{"200": jsonOK("signed in, or a second factor is asked for", ref("SignedIn"))})}}
	paths["/auth/logout"] = obj{"post": obj{"operationId": "logout", "tags": []string{"Sign-in"}, "summary": "Sign out",
		"responses": withErrors(obj{"200": jsonOK("signed out", obj{"type": "object"})})}}
	paths["/_dashboard"] = obj{"get": obj{"operationId": "dashboard", "tags": []string{"Dashboard"}, "summary": "The dashboard's widgets",
		"parameters": []obj{queryParam("range", obj{"type": "string", "enum": []string{"24h", "7d", "30d"}}, "the charts' range"), queryParam("today", obj{"type": "string", "format": "date-time"}, "the start of the operator's day")},
		"responses":  withErrors(obj{"200": jsonOK("widgets", obj{"type": "object", "required": []string{"widgets"}, "properties": obj{"widgets": obj{"type": "array", "items": ref("Widget")}}})})}}
	hit := obj{"type": "object", "required": []string{"resource", "label", "id", "title"}, "properties": obj{
		"resource": obj{"type": "string", "description": "the resource's key"}, "label": obj{"type": "string", "description": "the resource's label"},
		"id": obj{"type": "string", "description": "the row's key, as its path takes it"}, "title": obj{"type": "string", "description": "the row's label"}}}
	skip := obj{"type": "object", "required": []string{"resource", "label", "reason"}, "properties": obj{
		"resource": obj{"type": "string"}, "label": obj{"type": "string"},
		"reason": obj{"type": "string", "enum": []string{"timeout", "error", "limit"}, "description": "timeout: its statement ran out of its share of QueryTimeout; error: it failed (the server's log says why); limit: the answer was full before its turn"}}}
	paths["/_search"] = obj{"get": obj{"operationId": "search", "tags": []string{"Search"}, "summary": "Rows of every resource the operator may read whose label, or a later word of it, starts with q",
		"description": "The label columns the operator may read are searched by prefix, ignoring case, and where those give fewer than limit rows, by the prefix of a later word (after a space), ranked after; limit rows a resource, 50 in all. A resource that runs out of time or fails is skipped and named in skipped.",
		"parameters": []obj{
			{"name": "q", "in": "query", "required": true, "schema": obj{"type": "string", "minLength": 1}, "description": "the text a label (or a later word of it, ranked after) starts with"},
			queryParam("limit", obj{"type": "integer", "minimum": 1, "maximum": 20, "default": 5}, "rows a resource may give"),
		},
		"responses": withErrors(obj{"200": jsonOK("the rows found", obj{"type": "object", "required": []string{"results", "skipped"}, "properties": obj{
			"results": obj{"type": "array", "items": hit}, "skipped": obj{"type": "array", "items": skip}}})})}}
	paths["/_health"] = obj{"get": obj{"operationId": "health", "tags": []string{"Dashboard"}, "summary": "For load balancers", "security": []obj{},
		"responses": obj{"200": jsonOK("healthy", obj{"type": "object"}), "503": jsonOK("the database is down", obj{"type": "object"})}}}
	return obj{
		"openapi": "3.1.0",
		"info": obj{"title": "gameadmin", "version": "1",
			"description": "The admin API as " + string(op.Role) + " " + op.UserID + " may call it. Sign in with POST /auth/login; the session cookie authenticates every other call. State-changing calls from another origin are refused."},
		"servers":    []obj{{"url": in.APIPath}},
		"security":   []obj{{"session": []string{}}},
		"paths":      paths,
		"components": obj{"schemas": schemas, "responses": errorComponents(errorResponses), "securitySchemes": obj{"session": obj{"type": "apiKey", "in": "cookie", "name": in.CookieName}}},
	}
}

// reportsPaths adds the players' reports: the queue, a player's reports,
// and, for those who may update users, claim and resolve.
func reportsPaths(paths map[string]any, in Input, withErrors func(obj) obj, jsonOK func(string, obj) obj, body func(obj) obj) {
	cat := obj{"type": "string", "enum": in.ReportCategories}
	if in.Generic {
		cat = str() // the game's keys
	}
	userRef := obj{"type": "object", "required": []string{"id"}, "properties": obj{"id": obj{"type": "string"}, "label": obj{"type": "string"}}}
	report := obj{"type": "object", "properties": obj{
		"id": obj{"type": "integer"}, "category": cat, "categoryLabel": obj{"type": "string"}, "text": obj{"type": "string"},
		"count": obj{"type": "integer", "description": "filings folded into it"}, "status": obj{"type": "string", "enum": []string{"open", "resolved"}},
		"createdAt": obj{"type": "string", "format": "date-time"}, "lastAt": obj{"type": "string", "format": "date-time"},
		"player": userRef, "reporter": userRef, "outcome": obj{"type": "string"},
		"resolvedAt": obj{"type": "string", "format": "date-time"}, "resolvedBy": userRef,
		"resolution": obj{"type": "object", "description": "a resolved report's details: a ban's end (until, or permanent); the note (a warning's text) and the ban's reason for an admin and the operator who resolved it",
			"properties": obj{"until": obj{"type": "string", "format": "date-time"}, "permanent": obj{"type": "boolean"}, "note": obj{"type": "string"}, "reason": obj{"type": "string"}}},
		"evidence": obj{"type": "object", "description": `as the category declares it: {"kind":"text","text"}, {"kind":"row","resource","id","readable","label"} (readable: the operator may open the row), or {"kind":"json","json"} for a category that declares none`},
		"room":     obj{"type": "object", "properties": obj{"id": obj{"type": "string"}, "live": obj{"type": "boolean"}, "sessionId": obj{"type": "string"}, "sessionLive": obj{"type": "boolean"}}},
	}}
	claim := obj{"type": []string{"object", "null"}, "properties": obj{"by": userRef, "at": obj{"type": "string", "format": "date-time"},
		"stale": obj{"type": "boolean", "description": "the claim expired: another moderator's claim takes it"}}}
	group := obj{"type": "object", "properties": obj{
		"player": userRef, "count": obj{"type": "integer"}, "last24h": obj{"type": "integer"}, "filings": obj{"type": "integer"},
		"firstAt": obj{"type": "string", "format": "date-time"}, "lastAt": obj{"type": "string", "format": "date-time"},
		"categories": obj{"type": "array", "items": obj{"type": "object", "properties": obj{"key": cat, "label": obj{"type": "string"}, "count": obj{"type": "integer"}}}},
		"reporters":  obj{"type": "array", "items": userRef}, "claim": claim, "latest": obj{"type": "array", "items": report},
	}}
	paths["/_reports"] = obj{"get": obj{"operationId": "reports", "tags": []string{"Reports"},
		"summary": "Open (or resolved) reports grouped by reported player, the most reported in the last 24 hours first; with player, that player's reports received and filed",
		"parameters": []obj{
			queryParam("player", obj{"type": "string"}, "a user id: their reports received and filed instead of the queue"),
			queryParam("category", cat, "only reports of this category"),
			queryParam("status", obj{"type": "string", "enum": []string{"open", "resolved"}}, "default open"),
			queryParam("room", obj{"type": "string", "maxLength": 128}, "only reports filed in this room"),
			queryParam("limit", obj{"type": "integer", "minimum": 1, "maximum": 100}, "players per page, default 50"),
			queryParam("offset", obj{"type": "integer", "minimum": 0, "maximum": 10000}, "players to skip"),
		},
		"responses": withErrors(obj{"200": jsonOK("the queue, or a player's reports", obj{"type": "object", "properties": obj{
			"categories": obj{"type": "array", "items": obj{"type": "object"}}, "players": obj{"type": "array", "items": group},
			"hasMore": obj{"type": "boolean"}, "limit": obj{"type": "integer"}, "offset": obj{"type": "integer"},
			"player": userRef, "received": obj{"type": "array", "items": report}, "filed": obj{"type": "array", "items": report},
		}})})}}
	if !in.ModerateUsers {
		return
	}
	playerParam := obj{"name": "playerId", "in": "path", "required": true, "schema": obj{"type": "string"}}
	paths["/_reports/{playerId}/claim"] = obj{"parameters": []obj{playerParam}, "post": obj{"operationId": "reports_claim", "tags": []string{"Reports"},
		"summary":     "Take the player's open reports; 409 claimed names who holds them (an admin may take over)",
		"requestBody": obj{"content": obj{"application/json": obj{"schema": obj{"type": "object", "additionalProperties": false, "properties": obj{"takeover": obj{"type": "boolean"}}}}}},
		"responses": withErrors(obj{"200": jsonOK("the claim, and whose it took (a takeover, or an expired claim)", obj{"type": "object", "properties": obj{
			"claim": claim, "takenFrom": userRef, "expired": obj{"type": "boolean"}}})})}}
	paths["/_reports/{playerId}/release"] = obj{"parameters": []obj{playerParam}, "post": obj{"operationId": "reports_release", "tags": []string{"Reports"},
		"summary":     "End the claim on the player's reports: the holder's own, or an admin's of anyone's; 409 claimed when another mod holds it, not_claimed when no one does",
		"requestBody": obj{"content": obj{"application/json": obj{"schema": obj{"type": "object", "additionalProperties": false}}}},
		"responses": withErrors(obj{"200": jsonOK("the claim ended", obj{"type": "object", "required": []string{"ok", "releasedFrom"}, "properties": obj{
			"ok": obj{"type": "boolean"}, "releasedFrom": userRef}})})}}
	paths["/_reports/{playerId}/resolve"] = obj{"parameters": []obj{playerParam}, "post": obj{"operationId": "reports_resolve", "tags": []string{"Reports"},
		"summary": "Close every open report about the player with an outcome: dismiss, warn (a note), kick (sessions end) or ban",
		"requestBody": body(obj{"type": "object", "required": []string{"outcome"}, "additionalProperties": false, "properties": obj{
			"outcome": obj{"type": "string", "enum": []string{"dismiss", "warn", "kick", "ban"}},
			"note":    obj{"type": "string", "maxLength": 2000, "description": "required for warn: the note written on the player"},
			"ban": obj{"type": "object", "additionalProperties": false, "properties": obj{
				"until": obj{"type": []string{"string", "null"}, "format": "date-time"}, "preset": obj{"type": "string", "enum": []string{"1h", "1d", "7d", "30d", "permanent"}},
				"reason": obj{"type": "string", "maxLength": in.MaxReasonLen}}},
		}}),
		"responses": withErrors(obj{"200": jsonOK("the reports closed", obj{"type": "object", "required": []string{"ok", "outcome", "reports"}, "properties": obj{
			"ok": obj{"type": "boolean"}, "outcome": obj{"type": "string"}, "reports": obj{"type": "array", "items": obj{"type": "integer"}},
			"sessionsClosed": obj{"type": "integer"}, "partial": obj{"type": "boolean"}, "noteId": obj{"type": "integer"},
		}})})}}
}

// errorComponents are the error responses by component name (Error404).
func errorComponents(byCode obj) obj {
	out := obj{}
	for code, r := range byCode {
		out["Error"+code] = r
	}
	return out
}

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

func queryParam(name string, s obj, desc string) obj {
	return obj{"name": name, "in": "query", "schema": s, "description": desc}
}

// schemaName is a resource key as a schema name: "leaderboardEntries"
// gives "LeaderboardEntries".
func schemaName(key string) string {
	if key == "" {
		return key
	}
	return strings.ToUpper(key[:1]) + key[1:]
}

// columnSchema is the JSON Schema of a column's values as the API reads
// and writes them (the catalog's dataType and kind), with null when the
// column takes it.
func columnSchema(c catalog.Column) obj {
	var s obj
	switch {
	case c.Masked:
		s = obj{"type": "string", "description": "masked for your role"}
	case c.Kind == schema.KindArray:
		// A database array: its elements' kind, each may be null; the
		// stored text for a value that is no one-dimensional array
		// (the engine's storedvalues.go).
		s = obj{"type": []string{"array", "string"}, "items": obj{"type": elemTypes(c.Elem)}}
		if c.Elem == schema.KindJSON {
			s["items"] = obj{}
		}
	case c.DataType == schema.JSON:
		// Any JSON value (a column's own null included).
		s = obj{"type": []string{"object", "array", "string", "number", "boolean", "null"}}
	case c.DataType == schema.Integer:
		s = obj{"type": "integer"}
	case c.DataType == schema.Number:
		s = obj{"type": "number"}
	case c.DataType == schema.Boolean:
		s = obj{"type": "boolean"}
	case c.DataType == schema.Datetime:
		s = obj{"type": "string", "description": "RFC 3339, or infinity / -infinity"}
	case c.DataType == schema.Bytes:
		s = obj{"type": "string", "contentEncoding": "base64"}
	default:
		s = obj{"type": "string"}
		if c.MaxLength > 0 {
			s["maxLength"] = c.MaxLength
		}
		if len(c.Choices) > 0 {
			s["enum"] = c.Choices
		}
	}
	if t, ok := s["type"].(string); ok && t != "string" {
		// A value its type cannot hold ('NaN', 'infinity', a number too
		// big) is shown as its stored literal (the engine's storedvalues.go).
		s["type"] = []string{t, "string"}
	}
	if t, ok := s["type"].([]string); ok && !c.NotNull {
		if !slices.Contains(t, "null") { // JSON Schema wants type's items unique
			s["type"] = append(t, "null")
		}
	} else if t, ok := s["type"].(string); ok && !c.NotNull {
		s["type"] = []string{t, "null"}
		if e, ok := s["enum"].([]string); ok {
			s["enum"] = append(append([]any{}, toAny(e)...), nil)
		}
	}
	if c.Label != "" {
		s["title"] = c.Label
	}
	if c.ReadOnly { // as the catalog: a key with a default may still be given
		s["readOnly"] = true
	}
	return s
}

// elemTypes are the JSON types of an array element of kind k: a number
// may also be "NaN" or "Infinity" (float8[]), a decimal a number (SQLite
// keeps them as JSON numbers), and any element null.
func elemTypes(k schema.ValueKind) []string {
	switch k {
	case schema.KindNumber:
		return []string{"number", "string", "null"}
	case schema.KindDecimal:
		return []string{"string", "number", "null"}
	case schema.KindBool:
		return []string{"boolean", "null"}
	}
	return []string{"string", "null"} // text, times, uuids, enums, inet: their text
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
