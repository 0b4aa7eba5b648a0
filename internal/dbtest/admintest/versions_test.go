package admintest

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/sqldialect"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// opPlayer is a game's player row: its stats and inventory are JSON
// documents the game writes while operators edit, its loadout a json
// (not jsonb) column the model reads into a struct, its email and notes
// readable by admins only (mods see the email masked, the notes not at
// all). Rows are deleted softly.
type opPlayer struct {
	bun.BaseModel `bun:"table:players,alias:p"`
	ID            int64          `bun:"id,pk,autoincrement"`
	Nickname      string         `bun:"nickname,notnull"`
	Email         string         `bun:"email,notnull,default:''"`
	Notes         string         `bun:"notes,notnull,default:''"`
	Stats         map[string]any `bun:"stats"`
	Inventory     map[string]any `bun:"inventory"`
	Loadout       *opLoadout     `bun:"loadout,type:json"`
	DeletedAt     time.Time      `bun:",soft_delete,nullzero"`
}

type opLoadout struct {
	Level int      `json:"level"`
	Slots []string `json:"slots"`
}

// playerEnv is a panel with the players table and one player (id 1),
// and a mod whose scope is players.
func playerEnv(t *testing.T, db *bun.DB, opts Options) (*env, crew) {
	t.Helper()
	if db.Dialect().Name() == dialect.MySQL {
		// The documents as a MariaDB game keeps them: JSON columns (Bun's
		// DDL would make a map a VARCHAR(255)).
		must(db.ExecContext(context.Background(), "CREATE TABLE players (id BIGINT AUTO_INCREMENT PRIMARY KEY, nickname VARCHAR(255) NOT NULL, "+
			"email VARCHAR(255) NOT NULL DEFAULT '', notes TEXT NOT NULL DEFAULT '', stats JSON, inventory JSON, loadout JSON, deleted_at DATETIME(6) NULL) DEFAULT CHARSET=utf8mb4"))
	} else {
		createTables(t, db, (*opPlayer)(nil))
	}
	insert(t, db, &[]opPlayer{{Nickname: "Ann", Email: "ann@example.com", Notes: "chargeback in May",
		Stats:     map[string]any{"gold": 100005, "level": 3},
		Inventory: map[string]any{"gold": 100005, "slots": map[string]any{"1": "axe", "2": "bow", "3": "cap"}},
		Loadout:   &opLoadout{Level: 1, Slots: []string{"axe"}}}})
	opts.Tables = tablesWith(map[string]any{"players": (*opPlayer)(nil)})
	opts.Resources = map[string]*Resource{"players": DefineResource((*opPlayer)(nil), ResourceConfig{
		Columns: map[string]ColumnConfig{"email": {ReadRole: RoleAdmin, Mask: MaskEmail}, "notes": {ReadRole: RoleAdmin}},
	})}
	e := newEnv(t, db, opts)
	return e, e.crew("players")
}

// with sends one request with extra headers (a Content-Type among them
// replaces the JSON one).
func (c *client) with(h map[string]string, method, path string, body any) *resp {
	c.e.t.Helper()
	saved := c.hdr.Clone()
	defer func() { c.hdr = saved }()
	for k, v := range h {
		c.hdr.Set(k, v)
	}
	return c.do(method, path, body)
}

// ifMatch is the headers of a write that changes the version etag.
func ifMatch(etag string) map[string]string { return map[string]string{"If-Match": etag} }

// mergePatch is the headers of a merge patch, of the version etag when
// not "".
func mergePatch(etag string) map[string]string {
	h := map[string]string{"Content-Type": "application/merge-patch+json"}
	if etag != "" {
		h["If-Match"] = etag
	}
	return h
}

var strongETag = regexp.MustCompile(`^"[A-Za-z0-9_-]{16,}"$`)

// etagOf is an answer's ETag, which must be a strong quoted one that a
// page of another origin may read.
func etagOf(t *testing.T, r *resp) string {
	t.Helper()
	tag := r.Header.Get("ETag")
	if !strongETag.MatchString(tag) {
		t.Fatalf("%s %s: ETag = %q; want a strong quoted ETag", r.Request.Method, r.Request.URL.Path, tag)
	}
	if h := r.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(h, "ETag") {
		t.Fatalf("%s %s: Access-Control-Expose-Headers = %q; want ETag in it", r.Request.Method, r.Request.URL.Path, h)
	}
	return tag
}

// doc is a JSON column of a player as stored, decoded.
func (e *env) doc(table, col string, id int64) map[string]any {
	e.t.Helper()
	var raw string
	if err := e.db.NewSelect().TableExpr(table).ColumnExpr("?", sqldialect.AsText(bun.Ident(col))).Where("id = ?", id).Scan(context.Background(), &raw); err != nil {
		e.t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		e.t.Fatalf("%s.%s = %q: %v", table, col, raw, err)
	}
	return out
}

// gameSets writes one key of a JSON column as the game does: read the
// document, change it in Go, write it whole, in SQL of its own.
func (e *env) gameSets(table, col string, id int64, key string, v any) {
	e.t.Helper()
	d := e.doc(table, col, id)
	d[key] = v
	if _, err := e.db.NewUpdate().TableExpr(table).Set("? = ?", bun.Ident(col), string(must(json.Marshal(d)))).Where("id = ?", id).Exec(context.Background()); err != nil {
		e.t.Fatal(err)
	}
}

// playerNick is player id's nickname as stored.
func (e *env) playerNick(id int64) string {
	e.t.Helper()
	var n string
	if err := e.db.NewSelect().Table("players").Column("nickname").Where("id = ?", id).Scan(context.Background(), &n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// TestIfMatch: every row answer carries the row's version as an ETag,
// the same for an admin and for a mod who reads a column masked; a write
// with If-Match of a row that changed since is 409 conflict with the row
// as it is now (masked for a mod) and its ETag, and writes nothing, for
// PATCH, PUT, DELETE, restore and revert alike; a malformed If-Match is
// 400; without If-Match a write is not checked.
func TestIfMatch(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, cr := playerEnv(t, db, Options{})
		admin, mod := cr.admin, cr.modScoped

		ra := admin.do("GET", "/admin-api/players/1", nil).want(t, 200)
		rm := mod.do("GET", "/admin-api/players/1", nil).want(t, 200)
		v1 := etagOf(t, ra)
		if got := etagOf(t, rm); got != v1 {
			t.Fatalf("the mod's ETag = %s; want the admin's %s (one version whoever reads)", got, v1)
		}
		if ra.body["email"] != "ann@example.com" || rm.body["email"] != "a***@example.com" || ra.body["notes"] == nil || rm.body["notes"] != nil {
			t.Fatalf("rows read = %s, %s; want the email plain and the notes for the admin, the email masked and no notes for the mod", ra.raw, rm.raw)
		}
		// The list carries no versions.
		if _, r := admin.list(t, "/admin-api/players", nil); r.Header.Get("ETag") != "" {
			t.Fatalf("a list answered ETag %q", r.Header.Get("ETag"))
		}

		// Both read version 1; the admin's save wins, the mod's is stale.
		up := admin.with(ifMatch(v1), "PATCH", "/admin-api/players/1", map[string]any{"nickname": "Ann the Bold"}).want(t, 200)
		v2 := etagOf(t, up)
		if v2 == v1 {
			t.Fatal("the ETag did not change with the row")
		}
		if got := etagOf(t, admin.do("GET", "/admin-api/players/1", nil).want(t, 200)); got != v2 {
			t.Fatalf("a read after the update has ETag %s; want the update's %s", got, v2)
		}
		updates := len(e.auditRows("update"))
		stale := mod.with(ifMatch(v1), "PATCH", "/admin-api/players/1", map[string]any{"nickname": "Ann the Meek"}).want(t, 409, "conflict")
		row, _ := stale.body["row"].(map[string]any)
		if _, notes := row["notes"]; row["nickname"] != "Ann the Bold" || row["email"] != "a***@example.com" || notes {
			t.Fatalf("the conflict's row = %v; want the row as it is now, the email masked and no notes for the mod", stale.body["row"])
		}
		if got := stale.Header.Get("ETag"); got != v2 {
			t.Fatalf("the conflict's ETag = %q; want the row's %s", got, v2)
		}
		if n := e.playerNick(1); n != "Ann the Bold" || len(e.auditRows("update")) != updates {
			t.Fatalf("after the refused write: nickname %q, %d new audit entries; want nothing written", n, len(e.auditRows("update"))-updates)
		}
		// An admin's conflict shows the email as an admin reads it.
		if row := admin.with(ifMatch(v1), "PUT", "/admin-api/players/1", map[string]any{"nickname": "x"}).want(t, 409, "conflict").body["row"].(map[string]any); row["email"] != "ann@example.com" {
			t.Fatalf("the admin's conflict row = %v; want the plain email", row)
		}
		// A change the mod cannot see (the notes) is a change all the
		// same; the mod's own write leaves the notes as they are.
		if _, err := db.NewUpdate().Table("players").Set("notes = ?", "refunded").Where("id = 1").Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		mod.with(ifMatch(v2), "PATCH", "/admin-api/players/1", map[string]any{"nickname": "y"}).want(t, 409, "conflict")
		if got := etagOf(t, mod.do("GET", "/admin-api/players/1", nil).want(t, 200)); got == v2 || got != etagOf(t, admin.do("GET", "/admin-api/players/1", nil).want(t, 200)) {
			t.Fatalf("after the notes changed: the mod's ETag %s; want a new one, the admin's", got)
		}
		v3 := etagOf(t, mod.do("GET", "/admin-api/players/1", nil).want(t, 200))

		// Malformed: 400, nothing written.
		for _, h := range []string{"abc", `W/` + v3, `"no"end"`, `*, ` + v3, ",", `"` + strings.Repeat("a", 5000) + `"`} {
			admin.with(ifMatch(h), "PATCH", "/admin-api/players/1", map[string]any{"nickname": "z"}).want(t, 400, "invalid_header")
		}
		// A list of tags matches any of them; * matches any version.
		admin.with(ifMatch(v1+", "+v3), "PATCH", "/admin-api/players/1", map[string]any{"nickname": "Listed"}).want(t, 200)
		v4 := etagOf(t, admin.with(ifMatch("*"), "PATCH", "/admin-api/players/1", map[string]any{"nickname": "Starred"}).want(t, 200))
		// Without If-Match, as before: not checked.
		admin.do("PATCH", "/admin-api/players/1", map[string]any{"nickname": "Unchecked"}).want(t, 200)
		if n := e.playerNick(1); n != "Unchecked" {
			t.Fatalf("nickname = %q after an unchecked write", n)
		}

		// DELETE, restore and revert check it too.
		admin.with(ifMatch(v4), "DELETE", "/admin-api/players/1", nil).want(t, 409, "conflict")
		v5 := etagOf(t, admin.do("GET", "/admin-api/players/1", nil).want(t, 200))
		deleted := admin.with(ifMatch(v5), "DELETE", "/admin-api/players/1", nil).want(t, 200)
		v6 := etagOf(t, deleted) // soft: the row is still there, to be restored
		if _, err := db.NewUpdate().Table("players").Set("nickname = 'Renamed by the game'").Where("id = 1").Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		admin.with(ifMatch(v6), "POST", "/admin-api/players/1/_restore", nil).want(t, 409, "conflict")
		v7 := etagOf(t, admin.do("GET", "/admin-api/players/1", nil).want(t, 200))
		v8 := etagOf(t, admin.with(ifMatch(v7), "POST", "/admin-api/players/1/_restore", nil).want(t, 200))
		hist, _ := admin.list(t, "/admin-api/players/1/_history", nil)
		var updateID any
		for _, h := range hist {
			if h["action"] == "update" {
				updateID = h["id"] // the newest update: "Unchecked"
				break
			}
		}
		admin.with(ifMatch(v7), "POST", "/admin-api/players/1/_revert", map[string]any{"auditId": updateID, "force": true}).want(t, 409, "conflict")
		if n := e.playerNick(1); n != "Renamed by the game" {
			t.Fatalf("a refused revert wrote: nickname %q", n)
		}
		// The entry's own conflict (nickname changed since) carries the
		// row too; force, with the current version, puts it back.
		r := admin.with(ifMatch(v8), "POST", "/admin-api/players/1/_revert", map[string]any{"auditId": updateID}).want(t, 409, "conflict")
		if row, _ := r.body["row"].(map[string]any); row["nickname"] != "Renamed by the game" || r.Header.Get("ETag") != v8 || r.body["fields"] == nil {
			t.Fatalf("the revert's conflict = %s, ETag %q; want its fields and the row, ETag %s", r.raw, r.Header.Get("ETag"), v8)
		}
		back := admin.with(ifMatch(v8), "POST", "/admin-api/players/1/_revert", map[string]any{"auditId": updateID, "force": true}).want(t, 200)
		if back.body["nickname"] != "Starred" || etagOf(t, back) == v8 {
			t.Fatalf("the forced revert = %v; want the nickname before the entry and a new ETag", back.body)
		}
		// The delete's entry holds the row as stored, the notes too; the
		// mod's history shows it without them.
		if r := admin.do("GET", "/admin-api/players/1/_history", nil).want(t, 200); !strings.Contains(string(r.raw), "refunded") {
			t.Fatalf("the admin's history has no notes: %s", r.raw)
		}
		if r := mod.do("GET", "/admin-api/players/1/_history", nil).want(t, 200); strings.Contains(string(r.raw), "refunded") || strings.Contains(string(r.raw), "ann@") {
			t.Fatalf("the mod's history shows what the mod may not read: %s", r.raw)
		}
		// A create answers its row's version.
		made := admin.do("POST", "/admin-api/players", map[string]any{"nickname": "Bo"}).want(t, 201)
		if got := etagOf(t, admin.do("GET", fmt.Sprintf("/admin-api/players/%v", made.body["id"]), nil).want(t, 200)); got != etagOf(t, made) {
			t.Fatalf("the created row reads with ETag %s; want the create's %s", got, etagOf(t, made))
		}
	})
}

// TestMergePatch: a PATCH of application/merge-patch+json merges a JSON
// column's object into the stored document in the database, so the
// game's write to another key between the operator's read and save
// survives, without If-Match; with If-Match, the game's write makes the
// save a 409 and nothing is lost either. null removes a key, arrays and
// other values replace, a stored value that is not an object is taken
// for {}; a json (not jsonb) column merges alike; a result that does not
// fit the model, a patch nested too deep, a merge patch PUT and a
// document stored as text that is not JSON are 400s that write nothing.
func TestMergePatch(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, cr := playerEnv(t, db, Options{})
		admin := cr.admin
		v1 := etagOf(t, admin.do("GET", "/admin-api/players/1", nil).want(t, 200))

		// The game pays out while the operator edits one slot.
		e.gameSets("players", "inventory", 1, "gold", 777777)
		got := admin.with(mergePatch(""), "PATCH", "/admin-api/players/1", map[string]any{"inventory": map[string]any{"slots": map[string]any{"3": "sword"}}}).want(t, 200)
		inv := e.doc("players", "inventory", 1)
		slots, _ := inv["slots"].(map[string]any)
		if inv["gold"] != float64(777777) || slots["3"] != "sword" || slots["1"] != "axe" {
			t.Fatalf("inventory after the merge = %v; want the game's gold and the operator's slot", inv)
		}
		if a, _ := got.body["inventory"].(map[string]any); a["gold"] != float64(777777) {
			t.Fatalf("the answer's inventory = %v; want the stored document", got.body["inventory"])
		}
		// Its entry is the one path.
		ch := lastAuditPayload(t, e, "update")["changes"].(map[string]any)
		if p := string(must(json.Marshal(ch["inventory"]))); p != `{"paths":[{"after":"sword","before":"cap","path":["slots","3"]}]}` || len(ch) != 1 {
			t.Fatalf("the entry's changes = %v; want the slot's path alone", ch)
		}
		// With If-Match of the read before the game's write: 409, and
		// the game's gold is there still.
		e.gameSets("players", "stats", 1, "gold", 888888)
		admin.with(mergePatch(v1), "PATCH", "/admin-api/players/1", map[string]any{"inventory": map[string]any{"gold": 1}}).want(t, 409, "conflict")
		if inv := e.doc("players", "inventory", 1); inv["gold"] != float64(777777) {
			t.Fatalf("a refused merge wrote: %v", inv)
		}
		v2 := etagOf(t, admin.do("GET", "/admin-api/players/1", nil).want(t, 200))
		// Removals, arrays, nested objects, plain columns beside.
		admin.with(mergePatch(v2), "PATCH", "/admin-api/players/1", map[string]any{
			"nickname":  "Ann",
			"stats":     map[string]any{"level": nil, "buffs": []any{"haste"}, "deep": map[string]any{"a": map[string]any{"b": 1}}},
			"inventory": map[string]any{"slots": map[string]any{"1": nil}},
		}).want(t, 200)
		stats := e.doc("players", "stats", 1)
		if _, has := stats["level"]; has || stats["gold"] != float64(888888) || fmt.Sprint(stats["buffs"]) != "[haste]" || fmt.Sprint(stats["deep"]) != "map[a:map[b:1]]" {
			t.Fatalf("stats = %v; want level gone, gold kept, buffs and deep set", stats)
		}
		if slots := e.doc("players", "inventory", 1)["slots"].(map[string]any); len(slots) != 2 || slots["1"] != nil {
			t.Fatalf("slots = %v; want slot 1 removed", slots)
		}
		// A document that is not an object is taken for {}.
		if _, err := db.NewUpdate().Table("players").Set("stats = ?", "[1,2]").Where("id = 1").Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		admin.with(mergePatch(""), "PATCH", "/admin-api/players/1", map[string]any{"stats": map[string]any{"gold": 5, "x": nil}}).want(t, 200)
		if s := e.doc("players", "stats", 1); fmt.Sprint(s) != "map[gold:5]" {
			t.Fatalf("stats merged over an array = %v; want {gold: 5}", s)
		}
		// A non-object value replaces the document, as a plain PATCH:
		// null is NULL, an array one the model cannot read is refused.
		if got := admin.with(mergePatch(""), "PATCH", "/admin-api/players/1", map[string]any{"stats": nil}).want(t, 200).body; got["stats"] != nil {
			t.Fatalf("stats after a null merge = %v; want NULL", got["stats"])
		}
		admin.with(mergePatch(""), "PATCH", "/admin-api/players/1", map[string]any{"stats": []any{1}}).want(t, 400, "invalid_value")
		// The json column (not jsonb on PostgreSQL), read into a struct.
		admin.with(mergePatch(""), "PATCH", "/admin-api/players/1", map[string]any{"loadout": map[string]any{"level": 2}}).want(t, 200)
		if l := e.doc("players", "loadout", 1); l["level"] != float64(2) || fmt.Sprint(l["slots"]) != "[axe]" {
			t.Fatalf("loadout = %v; want level 2, slots kept", l)
		}

		// Refused, nothing written.
		updates := len(e.auditRows("update"))
		r := admin.with(mergePatch(""), "PATCH", "/admin-api/players/1", map[string]any{"loadout": map[string]any{"level": "high"}}).want(t, 400, "invalid_value")
		if r.fields()["loadout"] == "" {
			t.Fatalf("a merge that does not fit the model: %s; want loadout named", r.raw)
		}
		deep := map[string]any{"x": 1}
		for range 40 {
			deep = map[string]any{"d": deep}
		}
		admin.with(mergePatch(""), "PATCH", "/admin-api/players/1", map[string]any{"inventory": deep}).want(t, 400, "invalid_value")
		admin.with(mergePatch(""), "PUT", "/admin-api/players/1", map[string]any{"inventory": map[string]any{"a": 1}}).want(t, 400, "invalid_body")
		admin.with(mergePatch(""), "PATCH", "/admin-api/players/1", "{not json").want(t, 400, "invalid_json")
		admin.with(mergePatch(""), "PATCH", "/admin-api/players/1", map[string]any{"nope": map[string]any{"a": 1}}).want(t, 400, "unknown_column")
		if db.Dialect().Name() == dialect.SQLite {
			// SQLite holds any text in a JSON column: no patch applies.
			if _, err := db.NewUpdate().Table("players").Set("inventory = 'not json'").Where("id = 1").Exec(context.Background()); err != nil {
				t.Fatal(err)
			}
			r := admin.with(mergePatch(""), "PATCH", "/admin-api/players/1", map[string]any{"inventory": map[string]any{"a": 1}}).want(t, 400, "invalid_value")
			if !strings.Contains(fmt.Sprint(r.body["error"]), "not JSON") {
				t.Fatalf("a patch of text = %s; want it to say the stored value is not JSON", r.raw)
			}
		}
		if n := len(e.auditRows("update")); n != updates {
			t.Fatalf("refused merges wrote %d audit entries", n-updates)
		}
		if l := e.doc("players", "loadout", 1); l["level"] != float64(2) {
			t.Fatalf("loadout after refused merges = %v", l)
		}
	})
}

// TestUnchangedNotWritten: an update writes only the columns whose value
// differs from the locked row's: a PUT of the row as read with one field
// changed sets that field alone (a trigger on the others does not fire),
// and updated_at is bumped only by an update that writes something. On
// MySQL, whose triggers have no UPDATE OF a column and cannot tell a
// column written with its own value from one left out, the statements
// themselves are read: the UPDATEs of players whose SET names stats.
func TestUnchangedNotWritten(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		var sets statsSets
		if db.Dialect().Name() == dialect.MySQL {
			db = db.WithQueryHook(&sets)
		}
		e, cr := playerEnv(t, db, Options{})
		admin := cr.admin
		ctx := context.Background()
		// The trigger counts the UPDATEs whose SET names stats.
		if db.Dialect().Name() != dialect.MySQL {
			must(db.ExecContext(ctx, "CREATE TABLE stats_writes (n INTEGER NOT NULL)"))
			must(db.ExecContext(ctx, "INSERT INTO stats_writes VALUES (0)"))
		}
		switch db.Dialect().Name() {
		case dialect.PG:
			must(db.ExecContext(ctx, "CREATE FUNCTION count_stats() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE stats_writes SET n = n + 1; RETURN NEW; END $$"))
			must(db.ExecContext(ctx, "CREATE TRIGGER stats_written AFTER UPDATE OF stats ON players FOR EACH ROW EXECUTE FUNCTION count_stats()"))
		case dialect.SQLite:
			must(db.ExecContext(ctx, "CREATE TRIGGER stats_written AFTER UPDATE OF stats ON players BEGIN UPDATE stats_writes SET n = n + 1; END"))
		}
		writes := func() int {
			if db.Dialect().Name() == dialect.MySQL {
				return int(sets.n.Load())
			}
			var n int
			if err := db.NewSelect().Table("stats_writes").Column("n").Scan(ctx, &n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		read := admin.do("GET", "/admin-api/players/1", nil).want(t, 200).body
		read["nickname"] = "Ann II"
		admin.do("PUT", "/admin-api/players/1", read).want(t, 200)
		if n := writes(); n != 0 {
			t.Fatalf("a PUT of the row as read, nickname changed, wrote stats %d times; want never", n)
		}
		if ch := lastAuditPayload(t, e, "update")["changes"].(map[string]any); len(ch) != 1 || ch["nickname"] == nil {
			t.Fatalf("changes = %v; want the nickname alone", ch)
		}
		// Sent again as it is now: nothing at all.
		n := len(e.auditRows("update"))
		admin.do("PUT", "/admin-api/players/1", read).want(t, 200)
		admin.do("PATCH", "/admin-api/players/1", map[string]any{"stats": read["stats"]}).want(t, 200)
		if writes() != 0 || len(e.auditRows("update")) != n {
			t.Fatal("an update of what the row holds wrote")
		}
		// Stats changed: written once.
		admin.do("PATCH", "/admin-api/players/1", map[string]any{"stats": map[string]any{"gold": 1}}).want(t, 200)
		if n := writes(); n != 1 {
			t.Fatalf("stats written %d times; want once", n)
		}
	})
}

// statsSets counts the UPDATE statements of players whose SET list names
// stats: TestUnchangedNotWritten's trigger on MySQL.
type statsSets struct{ n atomic.Int64 }

// setStats finds an UPDATE of players and its SET list, which names
// stats as Bun quotes it on MySQL when stats is written.
var setStats = regexp.MustCompile("(?is)^\\s*UPDATE\\s+`players`.*?\\bSET\\b(.*?)\\bWHERE\\b")

func (h *statsSets) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	if m := setStats.FindStringSubmatch(ev.Query); m != nil && strings.Contains(m[1], "`stats` =") {
		h.n.Add(1)
	}
	return ctx
}

func (*statsSets) AfterQuery(context.Context, *bun.QueryEvent) {}

// TestUpdatedAtOnlyWithAWrite: a PATCH that changes nothing leaves
// updated_at as it is (the row did not change); one that changes a
// value bumps it.
func TestUpdatedAtOnlyWithAWrite(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		root, _ := e.bootstrap()
		must(db.ExecContext(context.Background(), "INSERT INTO game_configs (?, value, updated_at) VALUES ('motd', '\"hi\"', ?)", bun.Ident("key"), time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))) // key: a reserved word on MySQL
		at := root.do("GET", "/admin-api/configs/motd", nil).want(t, 200).body["updated_at"]
		root.do("PATCH", "/admin-api/configs/motd", map[string]any{"value": "hi"}).want(t, 200)
		if got := root.do("GET", "/admin-api/configs/motd", nil).want(t, 200).body["updated_at"]; got != at {
			t.Fatalf("updated_at = %v after an update that changed nothing; want %v", got, at)
		}
		root.do("PATCH", "/admin-api/configs/motd", map[string]any{"value": "hello"}).want(t, 200)
		if got := root.do("GET", "/admin-api/configs/motd", nil).want(t, 200).body["updated_at"]; got == at {
			t.Fatal("updated_at not bumped by an update that changed the value")
		}
	})
}

// testVersioned is a row with a version the game bumps, and a timestamp
// version for the other kind.
type testVersioned struct {
	bun.BaseModel `bun:"table:vplayers,alias:vp"`
	ID            int64          `bun:"id,pk,autoincrement"`
	Nickname      string         `bun:"nickname,notnull"`
	Stats         map[string]any `bun:"stats"`
	Version       int64          `bun:"version,notnull"`
}

type testTimeVersioned struct {
	bun.BaseModel `bun:"table:stamped,alias:st"`
	ID            int64     `bun:"id,pk,autoincrement"`
	Nickname      string    `bun:"nickname,notnull"`
	Rev           time.Time `bun:"rev,notnull"`
}

// TestVersionColumn: with ResourceConfig.VersionColumn the ETag follows
// that column: the game's bump makes an If-Match stale (409), a write
// of the game that does not bump it does not (and a merge patch then
// keeps the game's key all the same); the panel's update bumps it (by
// one; a timestamp to Options.Clock's now, past the stored one), a
// create starts it, operators cannot set it (read-only in the catalog;
// a stale value in a PUT is a 409), and New refuses a column that cannot
// be a version.
func TestVersionColumn(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if db.Dialect().Name() == dialect.MySQL {
			// A MariaDB game's: a JSON document, a time version to the microsecond.
			must(db.ExecContext(ctx, "CREATE TABLE vplayers (id BIGINT AUTO_INCREMENT PRIMARY KEY, nickname VARCHAR(255) NOT NULL, stats JSON, version BIGINT NOT NULL) DEFAULT CHARSET=utf8mb4"))
			must(db.ExecContext(ctx, "CREATE TABLE stamped (id BIGINT AUTO_INCREMENT PRIMARY KEY, nickname VARCHAR(255) NOT NULL, rev DATETIME(6) NOT NULL) DEFAULT CHARSET=utf8mb4"))
		} else {
			createTables(t, db, (*testVersioned)(nil), (*testTimeVersioned)(nil))
		}
		insert(t, db, &[]testVersioned{{Nickname: "Ann", Stats: map[string]any{"gold": 100005}, Version: 7}})
		frozen := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
		insert(t, db, &[]testTimeVersioned{{Nickname: "Bo", Rev: frozen}})
		e := newEnv(t, db, Options{
			Clock:  func() time.Time { return frozen },
			Tables: tablesWith(map[string]any{"vplayers": (*testVersioned)(nil), "stamped": (*testTimeVersioned)(nil)}),
			Resources: map[string]*Resource{
				"vplayers": DefineResource((*testVersioned)(nil), ResourceConfig{VersionColumn: "version"}),
				"stamped":  DefineResource((*testTimeVersioned)(nil), ResourceConfig{VersionColumn: "rev"}),
			},
		})
		admin, _ := e.bootstrap()
		for _, col := range catalogEntry(t, admin, "vplayers")["columns"].([]any) {
			if c := col.(map[string]any); c["name"] == "version" && c["readOnly"] != true {
				t.Fatalf("the version column in the catalog = %v; want readOnly", c)
			}
		}
		read := admin.do("GET", "/admin-api/vplayers/1", nil).want(t, 200)
		v7 := etagOf(t, read)
		// The game writes without bumping: the version is the game's
		// word, the ETag does not move, and a merge keeps its gold.
		e.gameSets("vplayers", "stats", 1, "gold", 777777)
		if got := etagOf(t, admin.do("GET", "/admin-api/vplayers/1", nil).want(t, 200)); got != v7 {
			t.Fatalf("ETag moved to %s with a write that did not bump the version", got)
		}
		up := admin.with(mergePatch(v7), "PATCH", "/admin-api/vplayers/1", map[string]any{"stats": map[string]any{"gems": 3}}).want(t, 200)
		if up.body["version"] != float64(8) {
			t.Fatalf("version after the panel's update = %v; want 8", up.body["version"])
		}
		if s := e.doc("vplayers", "stats", 1); s["gold"] != float64(777777) || s["gems"] != float64(3) {
			t.Fatalf("stats = %v; want the game's gold and the operator's gems", s)
		}
		v8 := etagOf(t, up)
		// The game bumps: the operator's version is stale.
		must(db.ExecContext(ctx, "UPDATE vplayers SET version = version + 1, nickname = 'Ann (game)' WHERE id = 1"))
		admin.with(ifMatch(v8), "PATCH", "/admin-api/vplayers/1", map[string]any{"nickname": "Ann (op)"}).want(t, 409, "conflict")
		// A PUT of the row as read carries its version: stale, 409.
		body := up.body
		body["nickname"] = "Ann (put)"
		r := admin.do("PUT", "/admin-api/vplayers/1", body).want(t, 409, "conflict")
		if row := r.body["row"].(map[string]any); row["version"] != float64(9) || row["nickname"] != "Ann (game)" {
			t.Fatalf("the stale PUT's row = %v; want version 9 by the game", row)
		}
		// Sent as it is now: read-only, so not written but by the bump.
		body["version"] = 9
		if got := admin.do("PUT", "/admin-api/vplayers/1", body).want(t, 200).body; got["version"] != float64(10) || got["nickname"] != "Ann (put)" {
			t.Fatalf("PUT with the current version = %v; want it written, version 10", got)
		}
		admin.do("PATCH", "/admin-api/vplayers/1", map[string]any{"version": 99}).want(t, 409, "conflict")
		// A create starts at 1; the revert of an update bumps it too.
		if got := admin.do("POST", "/admin-api/vplayers", map[string]any{"nickname": "Cy"}).want(t, 201).body; got["version"] != float64(1) {
			t.Fatalf("a created row's version = %v; want 1", got["version"])
		}
		admin.do("POST", "/admin-api/vplayers", map[string]any{"nickname": "Cy", "version": 5}).want(t, 400, "read_only")
		hist, _ := admin.list(t, "/admin-api/vplayers/1/_history", nil)
		if got := admin.do("POST", "/admin-api/vplayers/1/_revert", map[string]any{"auditId": hist[0]["id"]}).want(t, 200).body; got["nickname"] != "Ann (game)" || got["version"] != float64(11) {
			t.Fatalf("revert = %v; want the nickname back and version 11", got)
		}

		// A timestamp version: the clock's now, past the stored one
		// though the clock stands still.
		first := admin.do("PATCH", "/admin-api/stamped/1", map[string]any{"nickname": "Bo 2"}).want(t, 200).body["rev"]
		second := admin.do("PATCH", "/admin-api/stamped/1", map[string]any{"nickname": "Bo 3"}).want(t, 200).body["rev"]
		layout := time.RFC3339Nano
		if db.Dialect().Name() == dialect.MySQL {
			layout = "2006-01-02T15:04:05.999999999" // a DATETIME is a wall clock: answered without an offset
		}
		t1, err1 := time.Parse(layout, fmt.Sprint(first))
		t2, err2 := time.Parse(layout, fmt.Sprint(second))
		if err1 != nil || err2 != nil || !t1.After(frozen) || !t2.After(t1) || t2.Sub(frozen) > time.Millisecond {
			t.Fatalf("revs = %v, %v; want each past the last, by the clock's now", first, second)
		}

		// New refuses what cannot be a version.
		for col, want := range map[string]string{"nope": "no column", "nickname": "a version is an integer or a time", "id": "primary key"} {
			_, err := New(db, Options{Secret: testSecret, PasswordHasher: testHasher, Tables: tablesWith(map[string]any{"vplayers": (*testVersioned)(nil)}),
				Resources: map[string]*Resource{"vplayers": DefineResource((*testVersioned)(nil), ResourceConfig{VersionColumn: col})}})
			if err == nil || !strings.Contains(err.Error(), "VersionColumn") || !strings.Contains(err.Error(), want) {
				t.Errorf("New with VersionColumn %q = %v; want an error saying %q", col, err, want)
			}
		}
	})
}

// TestBigDocumentHistory: a one-key change of a 400 KB document is
// recorded as its path, a small entry; its revert puts that key back in
// the database while a key the game changed since stays; a second
// revert is a conflict naming the path. A change too large to record
// even as paths says so, and its revert answers that it was too large.
func TestBigDocumentHistory(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, cr := playerEnv(t, db, Options{})
		admin := cr.admin
		ctx := context.Background()
		big := map[string]any{}
		for i := range 4000 {
			big[fmt.Sprintf("item%04d", i)] = strings.Repeat("x", 90) + fmt.Sprint(i)
		}
		if _, err := db.NewUpdate().Table("players").Set("inventory = ?", string(must(json.Marshal(big)))).Where("id = 1").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		// The UI's read and a plain PUT of the document with one key
		// changed (the whole document sent, as before merge patches).
		read := admin.do("GET", "/admin-api/players/1", nil).want(t, 200)
		if len(read.raw) < 400_000 {
			t.Fatalf("the row is %d bytes; want a 400 KB document", len(read.raw))
		}
		inv := read.body["inventory"].(map[string]any)
		inv["item0007"] = "sword"
		admin.with(ifMatch(etagOf(t, read)), "PATCH", "/admin-api/players/1", map[string]any{"inventory": inv}).want(t, 200)
		entries := e.auditRows("update")
		entry := entries[len(entries)-1]
		if raw := must(json.Marshal(entry.Payload)); len(raw) > 2000 {
			t.Fatalf("the entry is %d bytes; want the one path", len(raw))
		}
		if p := string(must(json.Marshal(entry.Payload["changes"]))); p != `{"inventory":{"paths":[{"after":"sword","before":"`+strings.Repeat("x", 90)+`7","path":["item0007"]}]}}` {
			t.Fatalf("the entry's changes = %s", p)
		}
		// The game changes another key; the revert puts item0007 back.
		e.gameSets("players", "inventory", 1, "item0008", "game's")
		admin.do("POST", "/admin-api/players/1/_revert", map[string]any{"auditId": entry.ID}).want(t, 200)
		doc := e.doc("players", "inventory", 1)
		if doc["item0007"] != strings.Repeat("x", 90)+"7" || doc["item0008"] != "game's" || len(doc) != 4000 {
			t.Fatalf("after the revert: item0007 %.20v…, item0008 %v, %d keys; want item0007 back and the game's key kept", doc["item0007"], doc["item0008"], len(doc))
		}
		reverts := e.auditRows("revert")
		if raw := must(json.Marshal(reverts[len(reverts)-1].Payload)); len(raw) > 2000 {
			t.Fatalf("the revert's entry is %d bytes; want its path", len(raw))
		}
		r := admin.do("POST", "/admin-api/players/1/_revert", map[string]any{"auditId": entry.ID}).want(t, 409, "conflict")
		if f := r.fields()["inventory"]; !strings.Contains(f, "item0007") {
			t.Fatalf("the second revert's conflict = %s; want inventory's item0007 named", r.raw)
		}

		// 400 keys changed by 90 bytes each: past the 16 KB cap even as
		// paths.
		doc = e.doc("players", "inventory", 1)
		for i := range 400 {
			doc[fmt.Sprintf("item%04d", i)] = strings.Repeat("y", 90)
		}
		admin.do("PATCH", "/admin-api/players/1", map[string]any{"inventory": doc, "nickname": "Ann the Rich"}).want(t, 200)
		entries = e.auditRows("update")
		entry = entries[len(entries)-1]
		ch := entry.Payload["changes"].(map[string]any)
		cut, _ := ch["inventory"].(map[string]any)
		if cut["truncated"] != true || cut["bytes"] == nil || ch["nickname"] == nil {
			t.Fatalf("the entry's changes = %.300v; want inventory marked truncated with its size, nickname kept", ch)
		}
		r = admin.do("POST", "/admin-api/players/1/_revert", map[string]any{"auditId": entry.ID}).want(t, 400, "not_revertible")
		if msg := fmt.Sprint(r.body["error"]); !strings.Contains(msg, "too large to record what changed") || !strings.Contains(msg, "inventory") {
			t.Fatalf("the revert of a cut entry says %q; want that it was too large", msg)
		}
	})
}

// TestMergePatchPrepared: a merge patch whose shape repeats (the same
// keys, other values) runs prepared once its text has been seen, its
// keys and values bound, and merges as the inline statement does.
func TestMergePatchPrepared(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		hook := &writeQueries{n: map[string]int{}}
		e := gadgetEnv(t, db.WithQueryHook(hook), Options{}, true)
		c, _ := e.bootstrap()
		for i, p := 0, newPrepWait(); ; i++ {
			e.gameSets("gadgets", "meta", 1, "game", i) // the game's key, between the operator's saves
			hook.take()
			lvl := fmt.Sprintf("lvl %d", i)
			c.with(mergePatch(""), "PATCH", "/admin-api/gadgets/1", map[string]any{"meta": map[string]any{"lvl": lvl, "deep": map[string]any{"k'ey": lvl, "gone": nil}}}).want(t, 200)
			meta := e.doc("gadgets", "meta", 1)
			if meta["lvl"] != lvl || meta["game"] != float64(i) || fmt.Sprint(meta["deep"]) != "map[k'ey:"+lvl+"]" {
				t.Fatalf("merge %d: meta = %v; want the operator's lvl and deep, the game's key", i, meta)
			}
			if plain := hook.take(); i >= 2 && plain[`UPDATE "gadgets"`] == 0 {
				return
			}
			if p.over(i) {
				t.Fatalf("after %d merges of one shape the UPDATE still ran plainly", i+1)
			}
		}
	})
}
