package admintest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// squad has what a form gets wrong: a required foreign key, a required
// text, a text with a limit, and an optional note.
type squad struct {
	bun.BaseModel `bun:"table:squads"`

	ID       int64   `bun:"id,pk,autoincrement"`
	PlayerID string  `bun:"player_id,notnull"`
	Name     string  `bun:"name,notnull"`
	Tag      string  `bun:"tag,type:varchar(4),notnull,default:'none'"`
	Note     *string `bun:"note"`
	Player   *User   `bun:"rel:belongs-to,join:player_id=id"`
}

// TestFormsStopMistakes: a create or update the database would refuse,
// or would store as an empty text, is answered 400 validation naming
// every field at once, in words ("Player is required", "at most 4
// characters"), and nothing is written.
func TestFormsStopMistakes(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		if db.Dialect().Name() == dialect.MySQL {
			// A MariaDB game's note is TEXT (Bun's DDL would make it VARCHAR(255)).
			must(db.ExecContext(context.Background(), "CREATE TABLE squads (id BIGINT AUTO_INCREMENT PRIMARY KEY, player_id VARCHAR(36) NOT NULL, "+
				"name VARCHAR(255) NOT NULL, tag VARCHAR(4) NOT NULL DEFAULT 'none', note TEXT) DEFAULT CHARSET=utf8mb4"))
		} else {
			createTables(t, db, (*squad)(nil))
		}
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"squads": (*squad)(nil)})})
		c, adminID := e.bootstrap()
		count := func() int64 {
			n, err := db.NewSelect().Table("squads").Count(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			return n
		}

		r := c.do("POST", "/admin-api/squads", map[string]any{"tag": "toolong", "note": "x"}).want(t, 400, "validation")
		for col, want := range map[string]string{"player_id": "Player is required", "name": "Name is required", "tag": "Tag: at most 4 characters"} {
			if got := r.fields()[col]; got != want {
				t.Errorf("fields[%s] = %q; want %q (body %s)", col, got, want, r.raw)
			}
		}
		if len(r.fields()) != 3 || !strings.HasPrefix(r.body["error"].(string), "3 fields need attention: ") {
			t.Errorf("answer = %s; want the three fields in one answer", r.raw)
		}
		// An empty required text is not stored as "".
		r = c.do("POST", "/admin-api/squads", map[string]any{"player_id": adminID, "name": "   "}).want(t, 400, "validation")
		if r.fields()["name"] != "Name is required" || len(r.fields()) != 1 {
			t.Errorf("blank name: %s", r.raw)
		}
		// Four characters of any script fit varchar(4).
		ok := c.do("POST", "/admin-api/squads", map[string]any{"player_id": adminID, "name": "Reds", "tag": "ÄÖÜß"}).want(t, 201)
		if count() != 1 {
			t.Fatalf("%d squads after one create", count())
		}
		id := fmt.Sprint(ok.body["id"])
		// An update may not blank a required field or overflow a limit.
		r = c.do("PATCH", "/admin-api/squads/"+id, map[string]any{"name": "", "tag": "abcde"}).want(t, 400, "validation")
		if r.fields()["name"] != "Name is required" || r.fields()["tag"] != "Tag: at most 4 characters" {
			t.Errorf("update: %s", r.raw)
		}
		c.do("PATCH", "/admin-api/squads/"+id, map[string]any{"player_id": nil}).want(t, 400, "validation")
		if got := c.do("GET", "/admin-api/squads/"+id, nil).want(t, 200).body; got["name"] != "Reds" || got["tag"] != "ÄÖÜß" {
			t.Fatalf("the row changed after refused updates: %v", got)
		}
		// A column the form may leave out (a default, a nullable one) is
		// not required.
		c.do("POST", "/admin-api/squads", map[string]any{"player_id": adminID, "name": "Blues"}).want(t, 201)

		// A text column without a limit of its own has the panel's
		// (Options.MaxTextLength, default 10,000 characters), in the
		// catalog for the form and in the answer.
		r = c.do("PATCH", "/admin-api/squads/"+id, map[string]any{"note": strings.Repeat("é", 10_001)}).want(t, 400, "validation")
		if r.fields()["note"] != "Note: at most 10000 characters" {
			t.Errorf("an overlong note: %s", r.raw)
		}
		c.do("PATCH", "/admin-api/squads/"+id, map[string]any{"note": strings.Repeat("é", 10_000)}).want(t, 200)
		limits := map[string]float64{}
		for _, res := range rows(t, c.do("GET", "/admin-api", nil).want(t, 200)) {
			if res["name"] == "squads" {
				for _, col := range res["columns"].([]any) {
					col := col.(map[string]any)
					limits[col["name"].(string)], _ = col["maxLength"].(float64)
				}
			}
		}
		if limits["note"] != 10_000 || limits["tag"] != 4 || limits["id"] != 0 {
			t.Errorf("catalog maxLength = %v; want note 10000, tag 4, none for id", limits)
		}
	})
	// The limit is the game's to set.
	db := testdb.SQLite(t)
	createTables(t, db, (*squad)(nil))
	e := newEnv(t, db, Options{MaxTextLength: 5, Tables: tablesWith(map[string]any{"squads": (*squad)(nil)})})
	c, adminID := e.bootstrap()
	r := c.do("POST", "/admin-api/squads", map[string]any{"player_id": adminID, "name": "Greens"}).want(t, 400, "validation")
	if r.fields()["name"] != "Name: at most 5 characters" {
		t.Errorf("MaxTextLength 5: %s", r.raw)
	}
	e = newEnv(t, db, Options{MaxTextLength: -1, Tables: tablesWith(map[string]any{"squads": (*squad)(nil)})})
	c = e.login("root@example.com", "correct horse")
	c.do("POST", "/admin-api/squads", map[string]any{"player_id": adminID, "name": strings.Repeat("x", 20_000)}).want(t, 201)
}

// fields is the Fields map of an error answer.
func (r *resp) fields() map[string]string {
	out := map[string]string{}
	if f, ok := r.body["fields"].(map[string]any); ok {
		for k, v := range f {
			out[k], _ = v.(string)
		}
	}
	return out
}
