package admintest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/token"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// fetchSpec is the OpenAPI document the panel gives an admin (GET
// {api}/_openapi.json), with the actions whose Roles leave admins out
// added from a mod's: the document every answer of the API is checked
// against. The panel is fresh and the test's rows must stay as they are,
// so the admin and the mod are made for the occasion, in SQL: a users
// row (an id of its own, never the next one of the table's sequence),
// its roles row and, when RequireTOTP asks for one, an enabled second
// factor. They are signed in with session tokens forged with the
// panel's secret, ask from an address of their own (no rate limit of the
// test's is spent), and are removed before the test begins.
func (e *env) fetchSpec() *openapi3.T {
	t := e.t
	t.Helper()
	ctx := context.Background()
	users, roles := e.admin.TableName("users"), e.admin.TableName("roles")
	secondFactors := cmp.Or(e.opts.TablePrefix, DefaultTablePrefix) + "operator_totp"
	cols := withDefaults(e.opts.UserColumns)
	live := liveTable(t, e.db, users)
	var made []any
	defer func() {
		for _, id := range made {
			for _, q := range []struct {
				table, col string
			}{{secondFactors, "user_id"}, {roles, "user_id"}, {users, cols.ID}} {
				if _, err := e.db.ExecContext(ctx, "DELETE FROM ? WHERE ? = ?", bun.Ident(q.table), bun.Ident(q.col), id); err != nil {
					t.Fatalf("the OpenAPI document: removing its operator: %v", err)
				}
			}
		}
	}()
	get := func(role Role, scopes []string) map[string]any {
		t.Helper()
		var id any = uuid.Must(uuid.NewV7()).String()
		if strings.Contains(live[cols.ID].typ, "int") {
			id = -1000 - len(made) // below any id the table's sequence gives
		}
		vals := map[string]any{cols.ID: id, cols.Email: "openapi-" + string(role) + "@spec.invalid", cols.PasswordHash: "!"}
		if _, ok := live[cols.Email]; !ok { // a staff table without emails
			delete(vals, cols.Email)
		}
		for name, c := range live {
			if _, set := vals[name]; !set && c.notNull && !c.hasDefault {
				vals[name] = zeroOf(c.typ)
				if vals[name] == "" { // may be unique (a handle): one per operator
					vals[name] = "openapi-" + string(role)
				}
			}
		}
		if _, err := insertRow(ctx, e.db, users, cols.ID, vals); err != nil {
			t.Fatalf("the OpenAPI document: its %s: %v", role, err)
		}
		made = append(made, id)
		js, _ := json.Marshal(scopes)
		if _, err := e.db.ExecContext(ctx, "INSERT INTO ? (user_id, role, scopes) VALUES (?, ?, ?)", bun.Ident(roles), id, string(role), string(js)); err != nil {
			t.Fatalf("the OpenAPI document: its %s's role: %v", role, err)
		}
		if p := e.opts.RequireTOTP; p != "" && p != TOTPNone {
			if _, err := e.db.ExecContext(ctx, "INSERT INTO ? (user_id, secret, enabled) VALUES (?, 'x', ?)", bun.Ident(secondFactors), id, true); err != nil {
				t.Fatalf("the OpenAPI document: its %s's second factor: %v", role, err)
			}
		}
		tok, err := (&token.Signer{Secret: e.opts.Secret, Audience: e.admin.APIPath()}).Sign(token.Claims{UserID: fmt.Sprint(id), Kind: token.KindSession}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest("GET", e.admin.APIPath()+"/_openapi.json", nil)
		req.RemoteAddr = "192.0.2.250:4242"
		req.AddCookie(&http.Cookie{Name: cmp.Or(e.opts.Session.CookieName, sessionCookieName), Value: tok})
		rec := httptest.NewRecorder()
		e.admin.ServeHTTP(rec, req)
		var doc map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); rec.Code != http.StatusOK || err != nil {
			t.Fatalf("the OpenAPI document, as %s: %d %s", role, rec.Code, rec.Body)
		}
		return doc
	}
	doc := get(RoleAdmin, []string{})
	paths, _ := doc["paths"].(map[string]any)
	var keys []string
	for p := range paths {
		if k := strings.Split(strings.Trim(p, "/"), "/")[0]; k != "" && !strings.HasPrefix(k, "_") && k != "auth" {
			keys = append(keys, k)
		}
	}
	mod := get(RoleMod, keys)
	schemas, _ := doc["components"].(map[string]any)["schemas"].(map[string]any)
	modSchemas, _ := mod["components"].(map[string]any)["schemas"].(map[string]any)
	for p, v := range mod["paths"].(map[string]any) {
		if _, ok := paths[p]; !ok {
			paths[p] = v
		}
	}
	for name, v := range modSchemas {
		if _, ok := schemas[name]; !ok {
			schemas[name] = v
		}
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatalf("the OpenAPI document: %v", err)
	}
	return spec
}

// zeroOf is a value of a column of SQL type typ.
func zeroOf(typ string) any {
	switch {
	case strings.Contains(typ, "int"), strings.Contains(typ, "numeric"), strings.Contains(typ, "real"), strings.Contains(typ, "double"):
		return 0
	case strings.Contains(typ, "bool"):
		return false
	case strings.Contains(typ, "time"), strings.Contains(typ, "date"):
		return time.Now().UTC()
	case strings.Contains(typ, "json"):
		return "{}"
	}
	return ""
}

// openAPIDoc loads and validates c's OpenAPI document with kin-openapi,
// as OpenAPI 3.1 (JSON Schema 2020-12).
func openAPIDoc(t *testing.T, c *client) *openapi3.T {
	t.Helper()
	r := c.do("GET", "/admin-api/_openapi.json", nil).want(t, 200)
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(r.raw)
	if err != nil {
		t.Fatalf("load the OpenAPI document: %v\n%s", err, r.raw)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi = %q; want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the OpenAPI document is invalid: %v", err)
	}
	return doc
}

// matchPath is the document's path template that path (without the API
// prefix) matches, segment by segment.
func matchPath(doc *openapi3.T, path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	best := ""
	for tmpl := range doc.Paths.Map() {
		ts := strings.Split(strings.Trim(tmpl, "/"), "/")
		if len(ts) != len(segs) {
			continue
		}
		ok, literal := true, 0
		for i, s := range ts {
			switch {
			case strings.HasPrefix(s, "{"):
			case s == segs[i]:
				literal++
			default:
				ok = false
			}
		}
		if ok && (best == "" || literal > strings.Count(best, "/")-strings.Count(best, "{")) {
			best = tmpl
		}
	}
	return best
}

// checkResponse validates r's body against what doc says method path
// answers with r's status. An operation the document does not list (a
// route that does not exist, or one the role may not call) and a status
// it does not give must be an error body.
func checkResponse(t *testing.T, doc *openapi3.T, method, path string, r *resp) {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return // CSV, the UI
	}
	var body any
	if err := json.Unmarshal(r.raw, &body); err != nil {
		t.Errorf("%s %s: the JSON answer does not parse: %v", method, path, err)
		return
	}
	fits := func(s *openapi3.Schema, what string) {
		t.Helper()
		if err := doc.ValidateSchemaJSON(s, body, openapi3.EnableJSONSchema2020()); err != nil {
			t.Errorf("%s %s (%d): the answer does not fit %s: %v\n%s", method, path, r.StatusCode, what, err, r.raw)
		}
	}
	asError := func(why string) {
		t.Helper()
		if r.StatusCode < 400 {
			t.Errorf("%s %s (%d): %s", method, path, r.StatusCode, why)
			return
		}
		fits(doc.Components.Schemas["Error"].Value, "the error body")
	}
	u, _ := url.Parse(path)
	tmpl := matchPath(doc, strings.TrimPrefix(u.Path, "/admin-api"))
	if tmpl == "" {
		asError("no path of the document matches")
		return
	}
	op := doc.Paths.Find(tmpl).GetOperation(method)
	if op == nil {
		asError("the document has no " + method + " on " + tmpl)
		return
	}
	res := op.Responses.Status(r.StatusCode)
	if res == nil || res.Value == nil {
		asError(fmt.Sprintf("the document gives no %d answer", r.StatusCode))
		return
	}
	if mt := res.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
		fits(mt.Schema.Value, "the document")
	}
}

// TestOpenAPI: the document is valid OpenAPI 3.1, lists what the
// operator may do and nothing else, and the answers of the endpoints it
// lists fit it: rows, errors, moderation, the dashboard.
func TestOpenAPI(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{}, true)
		cr := e.crew("gadgets")
		doc := openAPIDoc(t, cr.admin)
		for _, p := range []string{"/gadgets", "/gadgets/{id}", "/gadgets/{id}/_history", "/users/{id}/ban", "/auth/me", "/_dashboard", "/adminAudit"} {
			if doc.Paths.Find(p) == nil {
				t.Errorf("the admin's document has no %s", p)
			}
		}
		if s := doc.Components.Schemas["Gadgets"]; s == nil || s.Value.Properties["secret"] != nil || s.Value.Properties["qty"] == nil {
			t.Fatalf("Gadgets schema = %+v; want qty and not the hidden secret", s)
		}
		// The schemas say something: a boolean where qty is an integer (or
		// the literal a stored value is shown as) does not fit.
		if err := doc.ValidateSchemaJSON(doc.Components.Schemas["Gadgets"].Value, map[string]any{"qty": true}, openapi3.EnableJSONSchema2020()); err == nil {
			t.Fatal("a gadget with a boolean qty fits the document")
		}
		// A mod's document has its scope only: no audit log, no roles.
		mod := openAPIDoc(t, cr.modScoped)
		if mod.Paths.Find("/adminAudit") != nil || mod.Paths.Find("/roles") != nil || mod.Paths.Find("/gadgets") == nil {
			t.Fatalf("the mod's document lists %v", mod.Paths.InMatchingOrder())
		}
		cr.user.do("GET", "/admin-api/_openapi.json", nil).want(t, 403)
		cr.anon.do("GET", "/admin-api/_openapi.json", nil).want(t, 401)

		// The answers fit.
		c := cr.admin
		check := func(method, path string, body any, status int) map[string]any {
			r := c.do(method, "/admin-api"+path, body).want(t, status)
			checkResponse(t, doc, method, "/admin-api"+path, r)
			return r.body
		}
		check("GET", "/gadgets", nil, 200)
		check("GET", "/gadgets?_limit=2", nil, 200)
		check("GET", "/gadgets/1", nil, 200)
		created := check("POST", "/gadgets", map[string]any{"name": "Spec", "note": nil}, 201)
		id := fmt.Sprint(created["id"])
		check("PATCH", "/gadgets/"+id, map[string]any{"qty": 3}, 200)
		check("GET", "/gadgets/"+id+"/_history", nil, 200)
		check("DELETE", "/gadgets/"+id, nil, 200)
		check("GET", "/gadgets/999", nil, 404)
		check("POST", "/gadgets", map[string]any{"nope": 1}, 400)
		check("GET", "/gadgets?qty_gt=abc", nil, 400)
		check("POST", "/users/"+cr.userID+"/ban", map[string]any{"reason": "spec"}, 200)
		check("GET", "/auth/me", nil, 200)
		check("GET", "/_dashboard", nil, 200)
		check("GET", "/users", nil, 200)
		check("GET", "/adminAudit", nil, 200)
		check("GET", "/gadgets/1/_counts", nil, 200)
		check("GET", "/users/"+cr.userID+"/relations/userNotes", nil, 200)
		check("POST", "/users/_bulk/revoke-sessions", map[string]any{"ids": []string{cr.userID}}, 200)
		check("GET", "/users/"+cr.userID+"/_export", nil, 200)
		check("POST", "/users/"+cr.userID+"/_erase?dryRun=true", nil, 200)
		check("GET", "/auth/status", nil, 200)
		check("PATCH", "/gadgets/2", map[string]any{"qty": 22}, 200)
		updates := e.auditRows("update")
		check("POST", "/gadgets/2/_revert", map[string]any{"auditId": updates[len(updates)-1].ID}, 200)
		check("POST", "/gadgets/2/_revert", map[string]any{"auditId": updates[len(updates)-1].ID}, 409)
		// With live rooms, their endpoints are in it, and answer as it says.
		rooms := &countedRooms{}
		rooms.set(RoomSummary{RoomID: "arena", Name: "arena", Clients: 2, MaxClients: 8})
		re := newEnv(t, db, Options{Rooms: rooms, TablePrefix: "spec_"})
		rc, _ := re.bootstrap()
		rdoc := openAPIDoc(t, rc)
		for _, p := range []string{"/rooms", "/rooms/{roomId}", "/rooms/{roomId}/clients/{sessionId}", "/rooms/{roomId}/state", "/auth/totp/enroll", "/users/{id}/invite", "/users/_export.csv"} {
			if rdoc.Paths.Find(p) == nil {
				t.Errorf("the document with rooms has no %s", p)
			}
		}
		r := rc.do("GET", "/admin-api/rooms", nil).want(t, 200)
		checkResponse(t, rdoc, "GET", "/admin-api/rooms", r)
		// A scoped mod's document validates too, and holds no tab into what
		// the mod may not list.
		modDoc := openAPIDoc(t, cr.modScoped)
		for p := range modDoc.Paths.Map() {
			if strings.Contains(p, "/relations/") && !strings.HasPrefix(p, "/gadgets") {
				t.Errorf("the mod's document has %s", p)
			}
		}
	})
}
