package admin

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// TestCreateReadUpdateDelete walks one gadget through its life and checks
// the answers and the audit payloads.
func TestCreateReadUpdateDelete(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{}, true)
		c, adminID := e.bootstrap()

		// Create: 201, the row back with the database's defaults and the
		// resource's Defaults (by Go and SQL name) under the body.
		r := c.do("POST", "/admin-api/gadgets", map[string]any{"name": "new", "meta": map[string]any{"a": []int{1, 2}}}).want(t, 201)
		row := r.body
		id := fmt.Sprint(row["id"])
		want := map[string]any{"name": "new", "qty": float64(7), "price": 9.5, "active": false, "note": "from defaults", "owner_id": adminID, "seen_at": nil}
		for k, v := range want {
			if row[k] != v {
				t.Errorf("created %s = %#v; want %#v", k, row[k], v)
			}
		}
		if m, _ := row["meta"].(map[string]any); m == nil || fmt.Sprint(m["a"]) != "[1 2]" {
			t.Errorf("created meta = %#v; want the JSON value", row["meta"])
		}
		if _, ok := row["secret"]; ok {
			t.Error("create answered the hidden column secret")
		}
		// The body wins over Defaults.
		r2 := c.do("POST", "/admin-api/gadgets", map[string]any{"name": "mine", "price": 1, "note": nil}).want(t, 201)
		if r2.body["price"] != float64(1) || r2.body["note"] != nil {
			t.Errorf("create with price and note = %v; want the body's values over Defaults", r2.body)
		}
		audits := e.auditRows("create")
		if len(audits) != 2 || audits[0].Resource != "gadgets" || audits[0].TargetID != id || audits[0].OperatorID != adminID {
			t.Fatalf("create audit = %+v; want one per create, target %s", audits, id)
		}
		if ar, _ := audits[0].Payload["row"].(map[string]any); ar == nil || ar["name"] != "new" || ar["qty"] != float64(7) || ar["secret"] != nil {
			t.Fatalf("create audit payload = %v; want {row} without hidden columns", audits[0].Payload)
		}

		// Read.
		got := c.do("GET", "/admin-api/gadgets/"+id, nil).want(t, 200).body
		if got["name"] != "new" || got["owner_id"] != adminID {
			t.Fatalf("GET /gadgets/%s = %v", id, got)
		}
		c.do("GET", "/admin-api/gadgets/99999", nil).want(t, 404, "not_found")
		c.do("GET", "/admin-api/gadgets/abc", nil).want(t, 400, "invalid_value")

		// Update: PATCH and PUT, only changed columns in the audit.
		for i, method := range []string{"PATCH", "PUT"} {
			qty := float64(100 + i)
			u := c.do(method, "/admin-api/gadgets/"+id, map[string]any{"qty": qty, "name": "new"}).want(t, 200)
			if u.body["qty"] != qty || u.body["name"] != "new" || u.body["price"] != 9.5 {
				t.Fatalf("%s answered %v; want the updated row", method, u.body)
			}
			ups := e.auditRows("update")
			if len(ups) != i+1 {
				t.Fatalf("update audits after %s = %d; want %d", method, len(ups), i+1)
			}
			changes, _ := ups[i].Payload["changes"].(map[string]any)
			q, _ := changes["qty"].(map[string]any)
			if len(changes) != 1 || q["after"] != qty || ups[i].TargetID != id {
				t.Fatalf("%s audit = %+v; want changes of qty only", method, ups[i])
			}
		}
		// An update that changes nothing answers the row and audits nothing.
		c.do("PATCH", "/admin-api/gadgets/"+id, map[string]any{"qty": 101}).want(t, 200)
		c.do("PATCH", "/admin-api/gadgets/"+id, map[string]any{}).want(t, 200)
		if n := len(e.auditRows("update")); n != 2 {
			t.Fatalf("update audits after no-op updates = %d; want 2", n)
		}
		c.do("PATCH", "/admin-api/gadgets/99999", map[string]any{"qty": 1}).want(t, 404, "not_found")

		// Delete answers the deleted row and audits {row}.
		d := c.do("DELETE", "/admin-api/gadgets/"+id, nil).want(t, 200)
		if d.body["name"] != "new" || d.body["qty"] != float64(101) {
			t.Fatalf("DELETE answered %v; want the deleted row", d.body)
		}
		dels := e.auditRows("delete")
		if len(dels) != 1 || dels[0].TargetID != id || dels[0].Payload["row"].(map[string]any)["name"] != "new" {
			t.Fatalf("delete audit = %+v", dels)
		}
		c.do("DELETE", "/admin-api/gadgets/"+id, nil).want(t, 404, "not_found")
		c.do("GET", "/admin-api/gadgets/"+id, nil).want(t, 404, "not_found")
	})
}

// TestWriteErrors: every bad write is a 4xx error body and writes nothing.
func TestWriteErrors(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{MaxBodyBytes: 4 << 10}, true)
		c, _ := e.bootstrap()
		big := `{"name":"` + strings.Repeat("x", 5<<10) + `"}`
		tests := []struct {
			name, method, path string
			body               any
			status             int
			code               string
		}{
			{"unique", "POST", "/gadgets", `{"name":"Alpha"}`, 409, "conflict"},
			{"not null", "POST", "/gadgets", `{"name":null}`, 400, "missing_value"},
			{"not null omitted", "POST", "/gadgets", `{"qty":3}`, 400, "missing_value"},
			{"unknown column", "POST", "/gadgets", `{"name":"n","nope":1}`, 400, "unknown_column"},
			{"go field name", "POST", "/gadgets", `{"Name":"n"}`, 400, "unknown_column"},
			{"hidden column", "POST", "/gadgets", `{"name":"n","secret":"s"}`, 400, "unknown_column"},
			{"read-only column", "POST", "/gadgets", `{"name":"n","owner_id":"me"}`, 400, "read_only"},
			{"string for int", "POST", "/gadgets", `{"name":"n","qty":"many"}`, 400, "invalid_value"},
			{"fraction for int", "POST", "/gadgets", `{"name":"n","qty":1.5}`, 400, "invalid_value"},
			{"huge int", "POST", "/gadgets", `{"name":"n","qty":1e400}`, 400, "invalid_value"},
			{"bad bool", "POST", "/gadgets", `{"name":"n","active":"maybe"}`, 400, "invalid_value"},
			{"bad time", "POST", "/gadgets", `{"name":"n","seen_at":"yesterday"}`, 400, "invalid_value"},
			{"number for string", "POST", "/gadgets", `{"name":5}`, 400, "invalid_value"},
			{"malformed", "POST", "/gadgets", `{"name":`, 400, "invalid_json"},
			{"array", "POST", "/gadgets", `[{"name":"n"}]`, 400, "invalid_body"},
			{"null", "POST", "/gadgets", `null`, 400, "invalid_body"},
			{"empty", "POST", "/gadgets", ``, 400, "invalid_body"},
			{"trailing", "POST", "/gadgets", `{"name":"n"} {}`, 400, "invalid_body"},
			{"invalid utf-8", "POST", "/gadgets", "{\"name\":\"\xff\"}", 400, "invalid_body"},
			{"oversized", "POST", "/gadgets", big, 413, "body_too_large"},
			{"update unique", "PATCH", "/gadgets/2", `{"name":"Alpha"}`, 409, "conflict"},
			{"update not null", "PATCH", "/gadgets/2", `{"qty":null}`, 400, "missing_value"},
			{"update pk", "PATCH", "/gadgets/2", `{"id":77}`, 400, "read_only"},
			{"update read-only", "PUT", "/gadgets/2", `{"owner_id":"me"}`, 400, "read_only"},
			{"update hidden", "PATCH", "/gadgets/2", `{"secret":"s"}`, 400, "unknown_column"},
			{"update bad value", "PATCH", "/gadgets/2", `{"price":"cheap"}`, 400, "invalid_value"},
			{"update malformed", "PATCH", "/gadgets/2", `{`, 400, "invalid_json"},
			{"update empty body", "PATCH", "/gadgets/2", ``, 400, "invalid_body"},
			{"update oversized", "PATCH", "/gadgets/2", big, 413, "body_too_large"},
			{"update bad id", "PATCH", "/gadgets/two", `{"qty":1}`, 400, "invalid_value"},
			{"delete bad id", "DELETE", "/gadgets/1.5", nil, 400, "invalid_value"},
		}
		snapshot := func() string {
			var rows []testGadget
			if err := db.NewSelect().Model(&rows).Order("id").Scan(context.Background()); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(rows)
			return string(b)
		}
		before := snapshot()
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := c.do(tt.method, "/admin-api"+tt.path, tt.body)
				if r.StatusCode != tt.status {
					t.Fatalf("%s %s %s = %d %s; want %d", tt.method, tt.path, tt.body, r.StatusCode, r.raw, tt.status)
				}
				r.want(t, tt.status, tt.code)
				if after := snapshot(); after != before {
					t.Fatalf("%s %s refused but the table changed:\n%s", tt.method, tt.path, after)
				}
			})
		}
		for _, a := range []string{"create", "update", "delete"} {
			if n := len(e.auditRows(a)); n != 0 {
				t.Fatalf("%d %s audit rows after refused writes; want 0", n, a)
			}
		}
		if strings.Contains(e.logs.String(), "internal error") {
			t.Fatalf("a bad write caused an internal error:\n%s", e.logs)
		}
	})
}

// TestCompositeIDs addresses cloudSaves by the base64url JSON array of
// (user_id, slot).
func TestCompositeIDs(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		c, _ := e.bootstrap()
		insert(t, db, &[]User{{ID: "u1", Email: "u1@example.com"}, {ID: "u2", Email: "u2@example.com"}})
		insert(t, db, &[]CloudSave{
			{UserID: "u1", Slot: "a", Data: map[string]any{"lvl": 1}},
			{UserID: "u1", Slot: "b/c", Data: map[string]any{"lvl": 2}},
		})
		enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
		id := enc(`["u1","b/c"]`)
		got := c.do("GET", "/admin-api/cloudSaves/"+id, nil).want(t, 200).body
		if got["slot"] != "b/c" || got["data"].(map[string]any)["lvl"] != float64(2) {
			t.Fatalf("GET cloudSaves/%s = %v", id, got)
		}
		c.do("GET", "/admin-api/cloudSaves/"+base64.URLEncoding.EncodeToString([]byte(`["u1","a"]`)), nil).want(t, 200)
		u := c.do("PATCH", "/admin-api/cloudSaves/"+id, map[string]any{"version": 3}).want(t, 200)
		if u.body["version"] != float64(3) {
			t.Fatalf("PATCH answered %v", u.body)
		}
		if ups := e.auditRows("update"); len(ups) != 1 || ups[0].TargetID != id {
			t.Fatalf("update audit = %+v; want target_id %s", ups, id)
		}
		c.do("PATCH", "/admin-api/cloudSaves/"+id, map[string]any{"slot": "z"}).want(t, 400, "read_only")

		bad := []string{
			"!!!",
			enc(`["u1"]`),
			enc(`["u1","a","x"]`),
			enc(`[1,"a"]`),
			enc(`["u1",{"x":1}]`),
			enc(`["u1",null]`),
			enc(`{"user_id":"u1"}`),
			enc(`["u1","a"`),
			enc(`"u1"`),
			"u1",
		}
		for _, b := range bad {
			for _, m := range []string{"GET", "PATCH", "DELETE"} {
				r := c.do(m, "/admin-api/cloudSaves/"+b, map[string]any{"version": 9})
				r.want(t, 400, "invalid_value")
			}
			c.do("GET", "/admin-api/cloudSaves/"+b+"/_counts", nil).want(t, 400, "invalid_value")
		}
		c.do("GET", "/admin-api/cloudSaves/"+enc(`["u1","zz"]`), nil).want(t, 404, "not_found")

		// A save of no user is refused: the table's foreign key.
		orphan := c.do("POST", "/admin-api/cloudSaves", map[string]any{"user_id": "not-a-user", "slot": "s"}).want(t, 400, "invalid_reference")
		if db.Dialect().Name() == dialect.PG && orphan.body["error"] != `column "user_id": the referenced row does not exist` {
			t.Errorf("orphan save: %s; want the message to name user_id", orphan.raw)
		}
		// Create answers the row; its id addresses it.
		r := c.do("POST", "/admin-api/cloudSaves", map[string]any{"user_id": "u2", "slot": "s", "data": map[string]any{"lvl": 1}}).want(t, 201)
		if r.body["version"] != float64(0) {
			t.Fatalf("created save = %v; want the database default version 0", r.body)
		}
		cr := e.auditRows("create")
		if len(cr) != 1 || cr[0].TargetID != enc(`["u2","s"]`) {
			t.Fatalf("create audit target = %+v; want %s", cr, enc(`["u2","s"]`))
		}
		c.do("POST", "/admin-api/cloudSaves", map[string]any{"user_id": "u2", "slot": "s"}).want(t, 409, "conflict")
		// data is a map in the model: an array would be stored and then
		// fail every read of the row.
		c.do("POST", "/admin-api/cloudSaves", map[string]any{"user_id": "u3", "slot": "s", "data": []any{1}}).want(t, 400, "invalid_value")
		c.do("PATCH", "/admin-api/cloudSaves/"+id, map[string]any{"data": "text"}).want(t, 400, "invalid_value")
		d := c.do("DELETE", "/admin-api/cloudSaves/"+cr[0].TargetID, nil).want(t, 200)
		if d.body["user_id"] != "u2" {
			t.Fatalf("DELETE answered %v", d.body)
		}
		if n := count(t, db, (*CloudSave)(nil)); n != 2 {
			t.Fatalf("saves = %d; want 2", n)
		}
	})
}

// TestHiddenAndReadOnlyBuiltins: users' password_hash never leaves the
// server and cannot be named; token_version and ban are read-only; a note's
// author comes from the session.
func TestHiddenAndReadOnlyBuiltins(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		c, adminID := e.bootstrap()
		uid := e.user("p@example.com", "player password")

		check := func(r *resp) {
			t.Helper()
			if strings.Contains(string(r.raw), "password_hash") || strings.Contains(string(r.raw), "argon2") {
				t.Fatalf("%s %s leaks the password hash: %s", r.Request.Method, r.Request.URL, r.raw)
			}
		}
		check(c.do("GET", "/admin-api/users", nil).want(t, 200))
		check(c.do("GET", "/admin-api/users/"+uid, nil).want(t, 200))
		check(c.do("GET", "/admin-api/users?_q=argon2", nil).want(t, 200))
		if n := len(rows(t, c.do("GET", "/admin-api/users?_q=argon2", nil))); n != 0 {
			t.Fatalf("_q=argon2 found %d users; want 0 (password_hash is not searched)", n)
		}
		for _, q := range []string{"password_hash=x", "password_hash_like=argon", "password_hash_null=false", "_sort=password_hash"} {
			c.do("GET", "/admin-api/users?"+q, nil).want(t, 400, "unknown_column")
		}
		c.do("POST", "/admin-api/users", map[string]any{"email": "x@example.com", "password_hash": "h"}).want(t, 400, "unknown_column")
		c.do("PATCH", "/admin-api/users/"+uid, map[string]any{"password_hash": "h"}).want(t, 400, "unknown_column")
		c.do("PATCH", "/admin-api/users/"+uid, map[string]any{"token_version": 9}).want(t, 400, "read_only")
		c.do("PATCH", "/admin-api/users/"+uid, map[string]any{"ban": map[string]any{"reason": "x"}}).want(t, 400, "read_only")
		c.do("POST", "/admin-api/users", map[string]any{"email": "y@example.com", "ban": nil}).want(t, 400, "read_only")

		// A user created through the panel gets its id from the model hook.
		r := c.do("POST", "/admin-api/users", map[string]any{"email": "new@example.com", "display_name": "New"}).want(t, 201)
		check(r)
		if id, _ := r.body["id"].(string); len(id) != 36 || r.body["token_version"] != float64(0) || r.body["created_at"] == nil {
			t.Fatalf("created user = %v; want a UUID id and the defaults", r.body)
		}
		u := c.do("PATCH", "/admin-api/users/"+uid, map[string]any{"display_name": "Renamed"}).want(t, 200)
		check(u)
		d := c.do("DELETE", "/admin-api/users/"+r.body["id"].(string), nil).want(t, 200)
		check(d)
		var payloads []string
		for _, a := range []string{"create", "update", "delete"} {
			for _, row := range e.auditRows(a) {
				b, _ := json.Marshal(row.Payload)
				payloads = append(payloads, string(b))
			}
		}
		if all := strings.Join(payloads, "\n"); strings.Contains(all, "password_hash") || strings.Contains(all, "argon2") {
			t.Fatalf("audit payloads leak the password hash:\n%s", all)
		}

		// userNotes: author_id is the session's, never the body's.
		n := c.do("POST", "/admin-api/userNotes", map[string]any{"user_id": uid, "body": "watch this one"}).want(t, 201)
		if n.body["author_id"] != adminID {
			t.Fatalf("note author_id = %v; want the signed-in admin %s", n.body["author_id"], adminID)
		}
		c.do("POST", "/admin-api/userNotes", map[string]any{"user_id": uid, "body": "x", "author_id": uid}).want(t, 400, "read_only")
		c.do("PATCH", fmt.Sprintf("/admin-api/userNotes/%v", n.body["id"]), map[string]any{"author_id": uid}).want(t, 400, "read_only")
		if got := count(t, db, (*UserNote)(nil)); got != 1 {
			t.Fatalf("notes = %d; want 1", got)
		}
	})
}

// TestCreateWithoutKey: one rule for new ids. A single text key left out
// of the body, without a default, is a UUIDv7 made by the panel; a key
// sent as null, or a composite key left out, is refused (SQLite lets a
// non-integer primary key be NULL, so the panel checks it itself).
func TestCreateWithoutKey(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		c, _ := e.bootstrap()
		tests := []struct {
			path string
			body map[string]any
		}{
			{"/admin-api/configs", map[string]any{"key": nil, "value": 1}},
			{"/admin-api/cloudSaves", map[string]any{"user_id": "u1"}},
		}
		for _, tt := range tests {
			c.do("POST", tt.path, tt.body).want(t, 400, "missing_value")
		}
		for _, m := range []any{(*Config)(nil), (*Leaderboard)(nil), (*CloudSave)(nil)} {
			if n := count(t, db, m); n != 0 {
				t.Fatalf("%T rows = %d after refused creates; want 0", m, n)
			}
		}
		r := c.do("POST", "/admin-api/configs", map[string]any{"value": 1}).want(t, 201)
		if id, err := uuid.Parse(fmt.Sprint(r.body["key"])); err != nil || id.Version() != 7 {
			t.Fatalf("config created without a key = %s; want a UUIDv7 key", r.raw)
		}
		r = c.do("POST", "/admin-api/leaderboards", map[string]any{"name": "weekly"}).want(t, 201)
		if id, err := uuid.Parse(fmt.Sprint(r.body["id"])); err != nil || id.Version() != 7 {
			t.Fatalf("leaderboard created without an id = %s; want a UUIDv7 id", r.raw)
		}
		r = c.do("POST", "/admin-api/configs", map[string]any{"key": "motd", "value": map[string]any{"text": "hi"}}).want(t, 201)
		if r.body["key"] != "motd" || r.body["value"].(map[string]any)["text"] != "hi" {
			t.Fatalf("created config = %s", r.raw)
		}
	})
}

// TestUserEmailNormalized: an email written through the panel is trimmed
// and otherwise kept as typed (a citext or mixed-case column of the game's
// is not rewritten), and sign-in matches it in any case.
func TestUserEmailNormalized(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		root, _ := e.bootstrap()
		id := e.user("p@example.com", "player password")
		r := root.do("PATCH", "/admin-api/users/"+id, map[string]any{"email": "  New.Address@Example.COM "}).want(t, 200)
		if r.body["email"] != "New.Address@Example.COM" {
			t.Fatalf("email = %v; want it trimmed, case kept", r.body["email"])
		}
		e.login("NEW.address@example.com", "player password")
	})
}

// TestUpdateBumpsUpdatedAt: a panel edit moves updated_at forward unless
// the body sets it; roles edits too.
func TestUpdateBumpsUpdatedAt(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		c, _ := e.bootstrap()
		old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		c.do("POST", "/admin-api/configs", map[string]any{"key": "motd", "value": "hi", "updated_at": old}).want(t, 201)
		r := c.do("PATCH", "/admin-api/configs/motd", map[string]any{"value": "hello"}).want(t, 200)
		got, err := time.Parse(time.RFC3339Nano, fmt.Sprint(r.body["updated_at"]))
		if err != nil || !got.After(old.Add(24*time.Hour)) {
			t.Fatalf("updated_at after an edit = %v (%v); want now, not %v", r.body["updated_at"], err, old)
		}
		r = c.do("PATCH", "/admin-api/configs/motd", map[string]any{"value": "again", "updated_at": old}).want(t, 200)
		if got, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(r.body["updated_at"])); !got.Equal(old) {
			t.Fatalf("updated_at set by the body = %v; want %v", r.body["updated_at"], old)
		}
	})
}
