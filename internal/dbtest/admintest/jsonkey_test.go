package admintest

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// testSave holds one document three ways: jsonb (json on SQLite), json
// (cast to jsonb on PostgreSQL) and text the game writes as JSON.
type testSave struct {
	bun.BaseModel `bun:"table:saves,alias:sv"`

	ID   int64          `bun:"id,pk,autoincrement"`
	Doc  map[string]any `bun:"doc"`
	Raw  map[string]any `bun:"raw,type:json"`
	Text map[string]any `bun:"txt,type:text"`
}

// TestNestedJSONKey: _key takes a dot path to a nested key and finds the
// rows whose document has that value there, with its JSON type, on
// jsonb, json and text columns; a key holding a dot or quote is written
// quoted; a bare integer is an array's index (or an object's key). The
// path syntaxes of other tools are 400 invalid_value naming the
// parameter, never 200 with no rows nor a 500.
func TestNestedJSONKey(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*testSave)(nil))
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"saves": (*testSave)(nil)})})
		root, _ := e.bootstrap()

		docs := map[int64]map[string]any{
			25: {"stats": map[string]any{"level": "3"}},
			31: {"stats": map[string]any{}},
			32: {"stats": map[string]any{"rank": 3}},
			33: {"level": 3},
			34: {"stats": map[string]any{"level": 4}},
			37: {"stats.level": 3},
			38: {"stats": map[string]any{`lev"el`: 3}, "a'b": map[string]any{"c;--": 1}},
			39: {"levels": map[string]any{"1": map[string]any{"stars": 2}}},
			40: {"stats": []any{3}},
			41: {"stats": map[string]any{"level": nil}},
			42: {"stats": map[string]any{"level": true}},
		}
		for i := int64(1); i <= 24; i++ {
			docs[i] = map[string]any{"stats": map[string]any{"level": 3, "xp": i}, "items": []any{map[string]any{"id": i}}}
			if i <= 10 {
				docs[i]["mode"] = "pvp"
			}
		}
		for i := int64(26); i <= 30; i++ {
			docs[i] = docs[25]
		}
		var saves []testSave
		for id, d := range docs {
			saves = append(saves, testSave{ID: id, Doc: d, Raw: d, Text: d})
		}
		insert(t, db, &saves)

		span := func(from, to int) string {
			var s []string
			for i := from; i <= to; i++ {
				s = append(s, strconv.Itoa(i))
			}
			return strings.Join(s, ",")
		}
		for _, col := range []string{"doc", "raw", "txt"} {
			for f, want := range map[string]string{
				"stats.level:3":        span(1, 24),
				`stats.level:"3"`:      span(25, 30),
				"stats.level:null":     "41",
				"stats.level:true":     "42",
				"stats.level:4":        "34",
				"stats.xp:7":           "7",
				"level:3":              "33",
				"mode:pvp":             span(1, 10),
				`"stats.level":3`:      "37",
				`stats."lev\"el":3`:    "38",
				`"a'b"."c;--":1`:       "38",
				"levels.1.stars:2":     "39",
				`levels."1".stars:2`:   "39",
				"stats.0:3":            "40",
				`stats."0":3`:          "",
				"items.0.id:7":         "7",
				"items.1.id:7":         "",
				"stats.level.deeper:3": "",
				"stats.level:three":    "",
			} {
				v := url.Values{col + "_key": {f}, "_sort": {"id"}}
				got, r := root.list(t, "/admin-api/saves", v)
				if ids := strings.Join(column(got, "id"), ","); ids != want || r.Header.Get("X-Total-Count") != strconv.Itoa(len(got)) {
					t.Errorf("?%s_key=%s = %s (total %s); want %s", col, f, ids, r.Header.Get("X-Total-Count"), want)
				}
			}
			for _, f := range []string{
				"$.stats.level:3", "$[0]:3", "/stats/level:3", "stats->level:3", "stats->>'level':3",
				"stats..level:3", ".stats:3", "stats.:3", "items[0].id:7", "stats.level", `"stats:3`, `say"hi:1`,
				strings.Repeat("a.", 20) + "a:1",
			} {
				name := col + "_key"
				r := root.do("GET", "/admin-api/saves?"+url.Values{name: {f}}.Encode(), nil).want(t, 400, "invalid_value")
				if msg := fmt.Sprint(r.body["error"]); !strings.Contains(msg, name) || !strings.Contains(msg, "stats.level:3") {
					t.Errorf("?%s=%s error = %q; want it to name %s and the dot path", name, f, msg, name)
				}
			}
		}
		// Keys SQL or a JSON path would read as syntax are bound values:
		// they match nothing here, and fail nothing.
		for _, f := range []string{`"back\\slash".x:1`, `"?".0:1`, `"\u0001":1`, `"":1`, `" ".0.":".x:1`, `"$.a":1`, `"/a"."[0]":1`, `"'); DROP TABLE saves; --":1`} {
			for _, col := range []string{"doc", "raw", "txt"} {
				if got, _ := root.list(t, "/admin-api/saves", url.Values{col + "_key": {f}}); len(got) != 0 {
					t.Errorf("?%s_key=%s = %v; want no row", col, f, column(got, "id"))
				}
			}
		}
		root.do("GET", "/admin-api/saves/_export.csv?"+url.Values{"doc_key": {"items.0.id:7"}}.Encode(), nil).want(t, 200)
	})
}
