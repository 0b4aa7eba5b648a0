package openapi

import "github.com/gameadmin/admin/internal/schema"

// The schemas of the answers every panel gives, whatever its resources:
// the catalog (package catalog's types), the signed-in operator, the
// rooms, a row of any resource. The UI's types are generated from them
// (ui/openapi.json, ui/src/api.gen.ts), so each must say every field the
// server writes.

func str() obj                  { return obj{"type": "string"} }
func strs() obj                 { return obj{"type": "array", "items": str()} }
func boolean() obj              { return obj{"type": "boolean"} }
func integer() obj              { return obj{"type": "integer"} }
func enum(values ...string) obj { return obj{"type": "string", "enum": values} }
func dateTime() obj             { return obj{"type": "string", "format": "date-time"} }

// object is a closed object of props, with the required ones.
func object(props obj, required ...string) obj {
	o := obj{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// fixedSchemas are the components every document has.
func fixedSchemas() obj {
	var kinds []string
	for _, k := range []schema.ValueKind{schema.KindText, schema.KindNumber, schema.KindDecimal, schema.KindBool, schema.KindTime,
		schema.KindDate, schema.KindTimestampLocal, schema.KindUUID, schema.KindEnum, schema.KindArray, schema.KindJSON, schema.KindInet, schema.KindBytes} {
		kinds = append(kinds, string(k))
	}
	kind := obj{"type": "string", "enum": kinds}
	column := object(obj{
		"name": str(), "label": str(), "type": obj{"type": "string", "description": "the database's type"},
		"dataType": enum("string", "integer", "number", "boolean", "datetime", "json", "bytes"),
		"notNull":  boolean(), "primary": boolean(), "hasDefault": boolean(), "readOnly": boolean(),
		"sortable":   obj{"type": "boolean", "description": "_sort accepts it"},
		"filterable": obj{"type": "boolean", "description": "filters accept it"},
		"masked":     obj{"type": "boolean", "description": "its values are shown through a mask (ColumnConfig.Mask): read-only, not sortable nor filterable"},
		"linkTo":     object(obj{"resource": str(), "resourceFromColumn": str(), "labelColumn": str()}),
		"choices":    obj{"type": "array", "items": str(), "description": "the only values it takes"},
		"kind":       kind, "elem": kind,
		"unix":      obj{"type": "string", "enum": []string{"s", "ms"}, "description": "an integer column declared a unix time: its unit (the API reads and writes times)"},
		"required":  obj{"type": "boolean", "description": "a create must give a value"},
		"maxLength": integer(),
		"scale":     obj{"type": "integer", "description": "a decimal's digits after the point"},
		"technical": obj{"type": "boolean", "description": "the panel's machinery (the users' token version)"},
	}, "name", "label", "type", "dataType", "notNull", "primary", "hasDefault", "readOnly", "sortable", "filterable", "kind", "required")
	resource := object(obj{
		"name": str(), "label": str(), "icon": str(), "primaryKey": strs(),
		"columns":     obj{"type": "array", "items": ref("Column")},
		"listColumns": strs(), "formFields": strs(), "showFields": strs(),
		"defaultSort": object(obj{"field": str(), "order": enum("asc", "desc")}, "field", "order"),
		"actions": obj{"type": "array", "items": object(obj{"name": str(), "label": str(), "perRow": boolean(),
			"confirm": object(obj{"title": str(), "description": str()}, "title")}, "name", "label", "perRow")},
		"relations": obj{"type": "array", "items": object(obj{"name": str(), "label": str(), "target": str(),
			"kind": enum("one", "many"), "fk": str()}, "name", "label", "target", "kind", "fk")},
		"permissions": object(obj{"list": boolean(), "read": boolean(), "create": boolean(), "update": boolean(), "delete": boolean()},
			"list", "read", "create", "update", "delete"),
		"users":            obj{"type": "boolean", "description": "the panel's users resource (moderation, data requests, roles)"},
		"builtin":          obj{"type": "boolean", "description": "a built-in table in its built-in model: its labels are the panel's English words, which the UI translates"},
		"erasedPattern":    obj{"type": "string", "description": "on users: a regular expression matching the email and names an erase writes"},
		"banColumn":        obj{"type": "string", "description": "on users, with bans on: the column holding the ban"},
		"emailColumn":      obj{"type": "string", "description": "on users: the account's email"},
		"usernameColumn":   obj{"type": "string", "description": "on users: the account's login name"},
		"softDeleteColumn": obj{"type": "string", "description": "a delete sets it and keeps the row (_deleted, _restore)"},
		"scopeColumn":      obj{"type": "string", "description": "a row-scoped mod (Me's rows) sees only the rows whose scopeColumn holds one of their values"},
		"readOnly":         obj{"type": "string", "description": "why the panel never writes it (a view, no key)"},
		"auditActions":     obj{"type": "object", "additionalProperties": str(), "description": "on adminAudit: every action the panel records, in words"},
	}, "name", "label", "icon", "primaryKey", "columns", "actions", "relations", "permissions")
	role := enum("admin", "mod", "user")
	me := object(obj{
		"userId": str(), "role": role, "email": str(), "displayName": str(), "scopes": strs(),
		"username": obj{"type": "string", "description": "the login name (UserColumns.Username); empty without one"},
		"features": object(obj{"ban": boolean(), "revokeSessions": boolean(), "rooms": boolean(), "reports": boolean(),
			"email": obj{"type": "boolean", "description": "the users table has an email column: reset links and invites can be sent (to accounts with an email)"}},
			"ban", "revokeSessions", "rooms", "reports", "email"),
		"changesAccountsOf": obj{"type": "array", "items": role,
			"description": "the roles whose accounts (a users row's _role, user for a player) the operator may change, ban, unban or revoke: only an admin changes an operator's"},
		"banPresets": obj{"type": "array", "items": ref("BanPreset"), "description": "the ban lengths offered, shortest first"},
		"rows": obj{"type": []string{"array", "null"}, "items": str(),
			"description": "a row-scoped mod's values of each resource's scopeColumn: the rows of such a resource they see; null for every row"},
		"locale": obj{"type": "string", "description": `the language the operator chose for the UI (PUT /auth/locale); "": none, the UI follows the browser's`},
	}, "userId", "role", "email", "username", "displayName", "scopes", "features", "changesAccountsOf", "banPresets", "locale")
	summary := obj{
		"roomId": str(), "name": str(), "clients": integer(), "maxClients": integer(), "locked": boolean(), "createdAt": dateTime(),
		"node": obj{"type": "string", "description": "the game-server node holding it; absent for a single process"},
	}
	view := obj{"metadata": obj{}, "state": obj{},
		"clientList": obj{"type": "array", "items": object(obj{"sessionId": str(), "userId": str(), "joinedAt": dateTime()}, "sessionId", "userId", "joinedAt")}}
	for k, v := range summary {
		view[k] = v
	}
	sumRequired := []string{"roomId", "name", "clients", "maxClients", "locked", "createdAt"}
	return obj{
		"Column":   column,
		"Resource": resource,
		"Me":       me,
		"RowScope": object(obj{"userId": str(), "values": obj{"type": []string{"array", "null"}, "items": str(),
			"description": "the values of each resource's scopeColumn whose rows the mod sees; null: every row"}}, "userId", "values"),
		"BanPreset": object(obj{"key": str(),
			"label":   obj{"type": "string", "description": `its length in English ("7 days"), kept for compatibility: the panel's UI words the length from seconds in the operator's language`},
			"seconds": obj{"type": "integer", "description": "its length; 0 is for good"}},
			"key", "label", "seconds"),
		"Stat": object(obj{"label": str(), "value": integer(),
			"estimated": obj{"type": "boolean", "description": "read from the database's statistics rather than counted (a large table)"},
			"link":      obj{"type": "string", "description": `a path of the panel's UI, from its root: "/users?_banned=true"`}},
			"label", "value"),
		"Widget": object(obj{"id": str(), "title": str(),
			"render":   enum("kpi", "stats", "table", "json", "series"),
			"resource": obj{"type": "string", "description": "a table of this resource's rows: the UI shows its list's columns and links each row"},
			"data":     obj{"anyOf": []obj{{}, {"type": "null"}}, "description": "what the widget shows, as render says; null when it failed or ran out of time"},
			"error":    obj{"type": "string", "description": "timeout, busy or unavailable: the widget alone could not be computed"},
			"more":     obj{"$ref": "#/components/schemas/Stat", "description": "a table that shows some of its rows: how many there are in all, and the page that lists them"},
			"builtin": obj{"type": "boolean", "description": "one of the panel's own widgets, whose title and figures are in English for the UI to say in the operator's language; " +
				"absent on the game's widgets (Options.Widgets), shown as the game words them"}},
			"id", "title", "render", "data"),
		"AuthStatus": object(obj{
			"needsBootstrap": boolean(), "setupTokenRequired": boolean(), "authenticated": boolean(),
			"userId": obj{"type": []string{"string", "null"}}, "role": obj{"type": []string{"string", "null"}},
			"catalog": obj{"type": "array", "items": ref("Resource"), "description": "with=catalog, for an operator: GET / answered along"},
			"loginFields": obj{"type": "array", "items": enum("email", "username"),
				"description": "what operators sign in with: email (the users table has an email column), username (UserColumns.Username)"},
		}, "needsBootstrap", "authenticated", "userId", "role", "loginFields"),
		"Row": obj{"type": "object", "additionalProperties": obj{}, "description": "a row: its columns by name, as the catalog describes them",
			"properties": obj{
				"_labels":  obj{"type": "object", "additionalProperties": str(), "description": "the label of each linked row, by column"},
				"_invalid": obj{"type": "object", "additionalProperties": str(), "description": "the cells the server could not show as stored, each with why"},
				"_role":    obj{"type": "string", "description": "on a users row read by a mod: the account's panel role, when it is an operator"},
			}},
		"RoomSummary": object(summary, sumRequired...),
		"RoomView":    object(view, append(sumRequired, "metadata", "clientList", "state")...),
		"UserSession": object(obj{"roomId": str(), "roomName": str(), "sessionId": str(), "userId": str(), "joinedAt": dateTime(),
			"node": obj{"type": "string", "description": "the node holding the connection; absent for a single process"}},
			"roomId", "roomName", "sessionId", "joinedAt"),
		"ModerationResult": object(obj{"ok": boolean(), "sessionsClosed": integer(),
			"partial": obj{"type": "boolean", "description": "the ban or revoke is stored, but some live connections could not be closed"}}),
		"Done": object(obj{"ok": boolean()}),
		"SignedIn": object(obj{"userId": str(), "role": role,
			"totpRequired": obj{"type": "boolean", "description": "the password was right; POST /auth/login/totp with the challenge and a code ends the sign-in"},
			"challenge":    str()}),
		"TotpStatus": object(obj{"enabled": boolean(), "pending": boolean(), "required": boolean(), "recoveryCodesLeft": integer()},
			"enabled", "pending", "required", "recoveryCodesLeft"),
		"TotpEnrolment": object(obj{"otpauthUrl": str(), "secret": str(), "qr": obj{"type": "string", "description": "a data:image/png URL"}},
			"otpauthUrl", "secret", "qr"),
		"RecoveryCodes": object(obj{"ok": boolean(), "recoveryCodes": strs()}, "ok"),
		"SignIn": object(obj{"time": dateTime(), "action": str(), "ip": obj{"type": []string{"string", "null"}},
			"userAgent": obj{"type": []string{"string", "null"}}, "secondFactor": str()}, "time", "action"),
	}
}
