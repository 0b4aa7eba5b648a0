package admin

import (
	"net/http"
	"strings"

	"github.com/gameadmin/admin/internal/schema"
)

// GET /admin-api/_openapi.json: an OpenAPI 3.1 document of the API as the
// signed-in operator sees it: every resource of their catalog with its
// columns as JSON types and the operations they may run, its actions,
// the list language, sign-in, moderation and rooms when they have them.
// Studios generate clients from it and call the API from their tools
// with the session cookie.
func (a api) handleOpenAPI(w http.ResponseWriter, r *http.Request, op Operator) error {
	if !op.Role.IsOperator() {
		return errOperatorOnly
	}
	writeJSON(w, http.StatusOK, a.openAPI(op))
	return nil
}

type obj = map[string]any

// openAPI builds the document for op.
func (a api) openAPI(op Operator) obj {
	paths := obj{}
	schemas := obj{
		"Error": obj{
			"type":     "object",
			"required": []string{"status", "code", "error"},
			"properties": obj{
				"status":        obj{"type": "integer"},
				"code":          obj{"type": "string"},
				"error":         obj{"type": "string"},
				"fields":        obj{"type": "object", "additionalProperties": obj{"type": "string"}},
				"retryAfterSec": obj{"type": "integer"},
			},
		},
	}
	errRef := func(desc string) obj {
		return obj{"description": desc, "content": obj{"application/json": obj{"schema": ref("Error")}}}
	}
	errors := obj{"400": errRef("the request is malformed or a value does not fit"), "401": errRef("not signed in"), "403": errRef("not allowed"), "404": errRef("not found"), "409": errRef("a conflict with the stored data"), "429": errRef("rate limited")}
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
		queryParam("_start", obj{"type": "integer", "minimum": 0}, "offset window: first row"),
		queryParam("_end", obj{"type": "integer", "minimum": 0}, "offset window: row after the last"),
		queryParam("_limit", obj{"type": "integer", "minimum": 1}, "keyset window: rows per page (with _cursor)"),
		queryParam("_cursor", obj{"type": "string"}, "keyset window: the X-Next-Cursor of the previous page"),
		queryParam("_sort", obj{"type": "string"}, "columns, comma-separated"),
		queryParam("_order", obj{"type": "string"}, "asc or desc per _sort column"),
		queryParam("_q", obj{"type": "string"}, "text searched in the search columns"),
		queryParam("_count", obj{"type": "string", "enum": []string{"exact", "estimate", "none"}}, "how the total (X-Total-Count) is counted"),
	}
	idParam := obj{"name": "id", "in": "path", "required": true, "schema": obj{"type": "string"}, "description": "the row's key; several key columns as the base64url JSON array of their values"}
	for _, e := range a.catalog(op) {
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
		if e.Permissions[OpList] {
			coll["get"] = obj{"operationId": "list_" + e.Name, "tags": []string{e.Label}, "summary": "List " + e.Label,
				"parameters": listParams,
				"responses":  withErrors(obj{"200": jsonOK("the page of rows; X-Total-Count and X-Next-Cursor headers", obj{"type": "array", "items": ref(name)})})}
		}
		if e.Permissions[OpCreate] {
			coll["post"] = obj{"operationId": "create_" + e.Name, "tags": []string{e.Label}, "summary": "Create a row of " + e.Label,
				"requestBody": body(ref(name + "New")),
				"responses":   withErrors(obj{"201": jsonOK("the new row", ref(name))})}
		}
		if len(coll) > 0 {
			paths[base] = coll
		}
		item := obj{"parameters": []obj{idParam}}
		if e.Permissions[OpRead] {
			item["get"] = obj{"operationId": "read_" + e.Name, "tags": []string{e.Label}, "summary": "Read a row of " + e.Label,
				"responses": withErrors(obj{"200": jsonOK("the row", ref(name))})}
		}
		if e.Permissions[OpUpdate] {
			item["patch"] = obj{"operationId": "update_" + e.Name, "tags": []string{e.Label}, "summary": "Change a row of " + e.Label,
				"requestBody": body(ref(name + "Patch")),
				"responses":   withErrors(obj{"200": jsonOK("the row as stored", ref(name))})}
		}
		if e.Permissions[OpDelete] {
			item["delete"] = obj{"operationId": "delete_" + e.Name, "tags": []string{e.Label}, "summary": "Delete a row of " + e.Label,
				"responses": withErrors(obj{"200": jsonOK("the deleted row", ref(name))})}
		}
		if len(item) > 1 {
			paths[base+"/{id}"] = item
		}
		if e.Permissions[OpRead] && op.Role.IsOperator() && e.Name != "adminAudit" && a.resources["adminAudit"] != nil {
			paths[base+"/{id}/_history"] = obj{"parameters": []obj{idParam}, "get": obj{"operationId": "history_" + e.Name, "tags": []string{e.Label},
				"summary": "The row's audit entries, newest first", "parameters": listParams,
				"responses": withErrors(obj{"200": jsonOK("audit entries", obj{"type": "array", "items": obj{"type": "object"}})})}}
		}
		for _, act := range e.Actions {
			paths[base+"/_action/"+act.Name] = obj{"post": obj{"operationId": "action_" + e.Name + "_" + act.Name, "tags": []string{e.Label},
				"summary": act.Label, "requestBody": body(obj{"type": "object"}),
				"responses": withErrors(obj{"200": jsonOK("the handler's answer", obj{"type": "object", "properties": obj{"ok": obj{"type": "boolean"}, "result": obj{}}})})}}
		}
	}
	if a.resources["users"] != nil && a.allowed(op, OpUpdate, "users") {
		for _, o := range []string{"ban", "unban", "revoke-sessions"} {
			in := obj{"type": "object", "additionalProperties": false}
			if o == "ban" {
				in["properties"] = obj{"reason": obj{"type": "string", "maxLength": maxReasonLen}, "until": obj{"type": "string", "format": "date-time"}}
			}
			paths["/users/{id}/"+o] = obj{"parameters": []obj{idParam}, "post": obj{"operationId": "user_" + strings.ReplaceAll(o, "-", "_"), "tags": []string{"Moderation"},
				"summary": strings.ReplaceAll(o, "-", " ") + " a user", "requestBody": obj{"content": obj{"application/json": obj{"schema": in}}},
				"responses": withErrors(obj{"200": jsonOK("done", obj{"type": "object", "properties": obj{"ok": obj{"type": "boolean"}, "sessionsClosed": obj{"type": "integer"}}})})}}
		}
	}
	if a.opts.Rooms != nil && a.allowed(op, OpList, "rooms") {
		paths["/rooms"] = obj{"get": obj{"operationId": "rooms", "tags": []string{"Live rooms"}, "summary": "The live rooms",
			"responses": withErrors(obj{"200": jsonOK("room summaries", obj{"type": "array", "items": obj{"type": "object"}})})}}
	}
	paths["/auth/me"] = obj{"get": obj{"operationId": "me", "tags": []string{"Sign-in"}, "summary": "Who is signed in",
		"responses": withErrors(obj{"200": jsonOK("the operator", obj{"type": "object", "required": []string{"userId", "role", "email"},
			"properties": obj{"userId": obj{"type": "string"}, "role": obj{"type": "string"}, "email": obj{"type": "string"}, "displayName": obj{"type": "string"}, "scopes": obj{"type": "array", "items": obj{"type": "string"}}}})})}}
	paths["/auth/login"] = obj{"post": obj{"operationId": "login", "tags": []string{"Sign-in"}, "summary": "Sign in: the answer sets the session cookie", "security": []obj{},
		"requestBody": body(obj{"type": "object", "required": []string{"email", "password"}, "properties": obj{"email": obj{"type": "string"}, "password": obj{"type": "string"}}}),
		"responses":   withErrors(obj{"200": jsonOK("signed in, or a second factor is asked for", obj{"type": "object"})})}}
	paths["/auth/logout"] = obj{"post": obj{"operationId": "logout", "tags": []string{"Sign-in"}, "summary": "Sign out",
		"responses": withErrors(obj{"200": jsonOK("signed out", obj{"type": "object"})})}}
	paths["/_dashboard"] = obj{"get": obj{"operationId": "dashboard", "tags": []string{"Dashboard"}, "summary": "The dashboard's widgets",
		"parameters": []obj{queryParam("range", obj{"type": "string", "enum": []string{"24h", "7d", "30d"}}, "the charts' range"), queryParam("today", obj{"type": "string", "format": "date-time"}, "the start of the operator's day")},
		"responses":  withErrors(obj{"200": jsonOK("widgets", obj{"type": "object", "required": []string{"widgets"}, "properties": obj{"widgets": obj{"type": "array", "items": obj{"type": "object"}}}})})}}
	paths["/_health"] = obj{"get": obj{"operationId": "health", "tags": []string{"Dashboard"}, "summary": "For load balancers", "security": []obj{},
		"responses": obj{"200": jsonOK("healthy", obj{"type": "object"}), "503": jsonOK("the database is down", obj{"type": "object"})}}}
	return obj{
		"openapi": "3.1.0",
		"info": obj{"title": "gameadmin", "version": "1",
			"description": "The admin API as " + string(op.Role) + " " + op.UserID + " may call it. Sign in with POST /auth/login; the session cookie authenticates every other call. State-changing calls from another origin are refused."},
		"servers":    []obj{{"url": a.opts.APIPath}},
		"security":   []obj{{"session": []string{}}},
		"paths":      paths,
		"components": obj{"schemas": schemas, "securitySchemes": obj{"session": obj{"type": "apiKey", "in": "cookie", "name": a.opts.Session.CookieName}}},
	}
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
func columnSchema(c catalogColumn) obj {
	var s obj
	switch {
	case c.Masked:
		s = obj{"type": "string", "description": "masked for your role"}
	case c.Kind == schema.KindArray || c.DataType == schema.JSON:
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
	if t, ok := s["type"].(string); ok && !c.NotNull {
		s["type"] = []string{t, "null"}
		if e, ok := s["enum"].([]string); ok {
			s["enum"] = append(append([]any{}, toAny(e)...), nil)
		}
	}
	if c.Label != "" {
		s["title"] = c.Label
	}
	if c.ReadOnly || c.Primary && c.HasDefault {
		s["readOnly"] = true
	}
	return s
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
