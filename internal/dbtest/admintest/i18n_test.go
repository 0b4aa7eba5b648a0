package admintest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// TestOperatorLocale: the language an operator reads the UI in is kept
// with the account (PUT /auth/locale, GET /auth/me's locale), "" for no
// choice; another value, a non-string and an unknown field are refused
// with nothing written, as are a request without a session and one from
// another origin; the choice is not audited, and goes with the account
// (an erase, a delete).
func TestOperatorLocale(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		e := newEnv(t, db, Options{})
		cr := e.crew("users")
		me := func(c *client) any { return c.do("GET", "/admin-api/auth/me", nil).want(t, 200).body["locale"] }
		prefs := func(userID string) int {
			n, err := db.NewSelect().TableExpr("?", bun.Ident("game_operator_prefs")).Where("user_id = ?", userID).Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return int(n)
		}
		audited := func() int { return count(t, db, (*AuditEntry)(nil)) }

		if got := me(cr.admin); got != "" {
			t.Fatalf("locale before any choice = %v; want \"\"", got)
		}
		cross := e.login("root@example.com", "correct horse") // refused below: another origin
		entries := audited()
		r := cr.admin.do("PUT", "/admin-api/auth/locale", map[string]any{"locale": "de"}).want(t, 200)
		if r.body["locale"] != "de" || len(r.body) != 1 {
			t.Fatalf("PUT de = %s; want {\"locale\":\"de\"}", r.raw)
		}
		if got := me(cr.admin); got != "de" {
			t.Fatalf("locale after PUT de = %v", got)
		}
		if got := me(cr.modScoped); got != "" {
			t.Fatalf("another operator's locale = %v; want their own, \"\"", got)
		}
		cr.admin.do("PUT", "/admin-api/auth/locale", map[string]any{"locale": "en"}).want(t, 200)
		if got := me(cr.admin); got != "en" {
			t.Fatalf("locale after PUT en = %v", got)
		}

		// Refusals write nothing.
		r = cr.admin.do("PUT", "/admin-api/auth/locale", map[string]any{"locale": "fr"}).want(t, 400, "invalid_value")
		if p, _ := r.body["params"].(map[string]any); p["field"] != "locale" || fmt.Sprint(p["accepted"]) != "[en de]" ||
			!strings.Contains(r.body["error"].(string), `"en", "de"`) {
			t.Errorf("PUT fr = %s; want the accepted values named, in the message and in params", r.raw)
		}
		cr.admin.do("PUT", "/admin-api/auth/locale", `{"locale": 1}`).want(t, 400, "invalid_value")
		r = cr.admin.do("PUT", "/admin-api/auth/locale", `{"locale": "de", "theme": "dark"}`).want(t, 400, "unknown_field")
		if p, _ := r.body["params"].(map[string]any); p["field"] != "theme" {
			t.Errorf("unknown field = %s; want params.field theme", r.raw)
		}
		r = cr.admin.do("PUT", "/admin-api/auth/locale", `{}`).want(t, 400, "missing_field")
		if p, _ := r.body["params"].(map[string]any); p["field"] != "locale" {
			t.Errorf("no locale = %s; want params.field locale", r.raw)
		}
		cr.anon.do("PUT", "/admin-api/auth/locale", map[string]any{"locale": "de"}).want(t, 401, "unauthenticated")
		cross.hdr.Set("Origin", "https://evil.example")
		cross.do("PUT", "/admin-api/auth/locale", map[string]any{"locale": "de"}).want(t, 403, "cross_origin")
		if got := me(cr.admin); got != "en" {
			t.Fatalf("locale after refused writes = %v; want en as set", got)
		}

		// "" clears the choice: no row.
		cr.admin.do("PUT", "/admin-api/auth/locale", map[string]any{"locale": ""}).want(t, 200)
		if got := me(cr.admin); got != "" || prefs(cr.adminID) != 0 {
			t.Fatalf("locale after PUT \"\" = %v (%d rows); want \"\" and no row", got, prefs(cr.adminID))
		}
		if n := audited(); n != entries {
			t.Errorf("%d audit entries after setting the locale; want %d: a display preference is not audited", n, entries)
		}

		// The choice goes with the account: erased, or deleted.
		cr.modScoped.do("PUT", "/admin-api/auth/locale", map[string]any{"locale": "de"}).want(t, 200)
		cr.modBare.do("PUT", "/admin-api/auth/locale", map[string]any{"locale": "de"}).want(t, 200)
		if prefs(cr.modScopedID) != 1 || prefs(cr.modBareID) != 1 {
			t.Fatal("the mods' choices were not kept")
		}
		cr.admin.do("POST", "/admin-api/users/"+cr.modScopedID+"/_erase", map[string]any{"confirm": "mod@example.com"}).want(t, 200)
		if n := prefs(cr.modScopedID); n != 0 {
			t.Errorf("an erased operator's prefs rows = %d; want 0", n)
		}
		cr.admin.do("DELETE", "/admin-api/users/"+cr.modBareID, nil).want(t, 200)
		if n := prefs(cr.modBareID); n != 0 {
			t.Errorf("a deleted operator's prefs rows = %d; want 0", n)
		}
	})
}

// TestErrorProblems: an answer about fields carries, beside each field's
// English message (unchanged), its problem as a code and params, which
// the UI words in the operator's language: required, too long, a value
// that is not a number or not one of the choices, a taken unique value;
// the English error and fields stay as they were.
func TestErrorProblems(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*squad)(nil))
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"squads": (*squad)(nil)})})
		c, _ := e.bootstrap()
		r := c.do("POST", "/admin-api/squads", map[string]any{"tag": "toolong", "note": "x"}).want(t, 400, "validation")
		want := map[string]string{"player_id": "required {}", "name": "required {}", "tag": "too_long {max:4}"}
		if got := r.problems(); !maps.Equal(got, want) {
			t.Errorf("problems = %v; want %v (body %s)", got, want, r.raw)
		}
		if r.fields()["tag"] != "Tag: at most 4 characters" || r.fields()["name"] != "Name is required" {
			t.Errorf("fields = %v; want the English messages as before", r.fields())
		}
		if p, _ := r.body["params"].(map[string]any); p["count"] != float64(3) {
			t.Errorf("params = %v; want count 3", r.body["params"])
		}
	})
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{}, true)
		c, _ := e.bootstrap()
		for _, tt := range []struct{ method, path, body, code, field, msg, problem string }{
			{"PATCH", "/gadgets/2", `{"price":"cheap"}`, "invalid_value", "price", "Price: must be a number", "not_a_number {}"},
			{"PATCH", "/gadgets/2", `{"qty":"many"}`, "invalid_value", "qty", "Qty: must be a whole number", "not_an_integer {}"},
			{"POST", "/gadgets", `{"name":"Alpha"}`, "conflict", "name", "Name: already taken: another row has this value", "not_unique {}"},
			{"PATCH", "/gadgets/2", `{"id":77}`, "read_only", "id", "ID is read-only: send it as the row holds it, or leave it out", "read_only {}"},
			{"PATCH", "/gadgets/2", `{"nope":1}`, "unknown_column", "nope", `resource "gadgets" has no column "nope"`, "unknown_column {}"},
		} {
			r := c.do(tt.method, "/admin-api"+tt.path, tt.body)
			if r.body["code"] != tt.code || r.body["error"] != tt.msg || r.fields()[tt.field] != tt.msg || r.problems()[tt.field] != tt.problem || len(r.problems()) != len(r.fields()) {
				t.Errorf("%s %s %s = %s; want code %s, error and fields.%s %q, problem %s", tt.method, tt.path, tt.body, r.raw, tt.code, tt.field, tt.msg, tt.problem)
			}
		}
	})
	// A value outside a column's choices.
	db := testdb.SQLite(t)
	createTables(t, db, (*squad)(nil))
	e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"squads": (*squad)(nil)}),
		Resources: map[string]*Resource{"squads": DefineResource((*squad)(nil), ResourceConfig{Columns: map[string]ColumnConfig{"tag": {Choices: []string{"red", "blue"}}}})}})
	c, adminID := e.bootstrap()
	r := c.do("POST", "/admin-api/squads", map[string]any{"player_id": adminID, "name": "Reds", "tag": "pink"}).want(t, 400, "invalid_value")
	if r.problems()["tag"] != "not_a_choice {value:pink}" || r.fields()["tag"] != `Tag: "pink" is not one of the choices` {
		t.Errorf("a value outside the choices = %s; want problem not_a_choice with the value", r.raw)
	}
}

// problems is the problems of an error answer, each as "code {k:v …}"
// with the params sorted.
func (r *resp) problems() map[string]string {
	out := map[string]string{}
	ps, _ := r.body["problems"].(map[string]any)
	for col, p := range ps {
		p, _ := p.(map[string]any)
		params, ok := p["params"].(map[string]any)
		if !ok {
			out[col] = fmt.Sprint(p["code"]) + " (no params)"
			continue
		}
		var kv []string
		for k, v := range params {
			kv = append(kv, fmt.Sprintf("%s:%v", k, v))
		}
		slices.Sort(kv)
		out[col] = fmt.Sprintf("%v {%s}", p["code"], strings.Join(kv, " "))
	}
	return out
}
