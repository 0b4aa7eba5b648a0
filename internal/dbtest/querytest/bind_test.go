package querytest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/query"
)

// bindColumn is a column of every kind, with the values the panel writes
// to it (as its validation types them, and as a kept stored value is).
type bindColumn struct {
	name, pg, sqlite string
	vals             []any
}

// mysqlType is the MariaDB type of a bindColumn: the one a game's table
// would have for what the column holds.
func (c bindColumn) mysqlType() string {
	return map[string]string{"txt": "LONGTEXT", "big": "BIGINT", "dbl": "DOUBLE", "dec": "DECIMAL(40,10)", "flag": "BOOLEAN",
		"doc": "JSON", "doc2": "JSON", "at": "DATETIME(6)", "raw": "LONGBLOB"}[c.name]
}

func bindColumns(d dialect.Name) []bindColumn {
	pg := d == dialect.PG
	at := time.Date(2026, 11, 27, 21, 40, 14, 123456789, time.FixedZone("", 9*3600))
	cols := []bindColumn{
		{"txt", "text", "TEXT", []any{"plain", "it's", `back\slash \x00`, "?1 $1 ? '' --", "ünï 🎮", "", nil, int64(12)}},
		{"big", "bigint", "INTEGER", []any{int64(0), int64(math.MinInt64), int64(math.MaxInt64), "42", nil, true}},
		{"dbl", "double precision", "REAL", []any{0.1, -1e300, 1e-7, math.NaN(), math.Inf(1), math.Inf(-1), float64(3), int64(-5)}},
		{"dec", "numeric(40,10)", "NUMERIC", []any{"12345678901234567890.1234567891", "-0.5", int64(7), 2.5, "NaN"}},
		{"flag", "boolean", "BOOLEAN", []any{true, false, nil}},
		{"doc", "jsonb", "JSON", []any{
			json.RawMessage(`{"a":"it's \u0000 x","b":[1,2.50],"c":"\\'"}`), map[string]any{"k": "v'", "n": 1.5},
			json.RawMessage(`"str"`), json.RawMessage(`null`), []any{"x", nil}}},
		{"doc2", "json", "TEXT", []any{json.RawMessage(`{"z":1,  "a" : 2}`), map[string]any{}}},
		{"at", "timestamptz", "DATETIME", []any{at, time.Unix(0, 0), "2026-01-02T03:04:05Z"}},
		{"raw", "bytea", "BLOB", []any{[]byte{0, 1, 2, 0xff, '\''}, []byte{}}},
	}
	if d == dialect.MySQL {
		return cols
	}
	if pg {
		cols = append(cols,
			bindColumn{"ints", "bigint[]", "", []any{query.Array{int64(1), nil, int64(3)}, query.Array{}}},
			bindColumn{"words", "text[]", "", []any{query.Array{"a,b", `q"uote`, "it's", `back\`}, query.Array{"NULL"}}},
			bindColumn{"addr", "inet", "", []any{"10.0.0.1/32", "::1"}},
			bindColumn{"uid", "uuid", "", []any{"0191d5e1-8c4b-7d2a-9f3e-1a2b3c4d5e6f"}},
			bindColumn{"day", "date", "", []any{"2026-11-27", "infinity"}},
			bindColumn{"wall", "timestamp", "", []any{"2026-11-27 10:00:00.123456", "-infinity"}},
		)
	} else {
		cols = append(cols, bindColumn{"loose", "", "", []any{"abc", int64(1), 1.5, []byte("b"), "1e3"}})
	}
	return cols
}

// TestBoundWritesStoreWhatInlineWritesStore: every kind of value a panel
// write binds (query.Bind: JSON with Bun's escapes, arrays, decimals,
// NaN and infinities, times, bytes, quotes, text in a SQLite integer
// column) is stored exactly as the same write with its values inline,
// by a prepared INSERT and a prepared UPDATE, on both databases; a value
// the inline write refuses is refused bound too.
func TestBoundWritesStoreWhatInlineWritesStore(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		pg := db.Dialect().Name() == dialect.PG
		my := db.Dialect().Name() == dialect.MySQL
		cols := bindColumns(db.Dialect().Name())
		var defs []string
		for _, c := range cols {
			typ := c.sqlite
			if pg {
				typ = c.pg
			} else if my {
				typ = c.mysqlType()
			}
			defs = append(defs, fmt.Sprintf("%s %s", ident(db, c.name), typ))
		}
		for _, tbl := range []string{"bind_inline", "bind_bound"} {
			if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE TABLE %s (id bigint PRIMARY KEY, %s)", tbl, strings.Join(defs, ", "))); err != nil {
				t.Fatal(err)
			}
		}
		stored := func(tbl, col string, id int64) string {
			expr := fmt.Sprintf("coalesce(%q::text, '<NULL>')", col)
			if my {
				// Its bytes as stored, as text for a number.
				expr = fmt.Sprintf("COALESCE(HEX(CAST(`%s` AS BINARY)), '<NULL>')", col)
			} else if !pg {
				expr = fmt.Sprintf("typeof(%q) || ':' || quote(%q)", col, col)
			}
			var s string
			if err := db.NewRaw(fmt.Sprintf("SELECT %s FROM %s WHERE id = ?", expr, tbl), id).Scan(ctx, &s); err != nil {
				t.Fatalf("%s.%s row %d: %v", tbl, col, id, err)
			}
			return s
		}
		id := int64(0)
		for _, c := range cols {
			for _, v := range c.vals {
				id++
				vals := map[string]any{"id": id, c.name: v}
				_, inlineErr := db.NewInsert().Model(&vals).TableExpr("bind_inline").Exec(ctx)
				params, args, ok := query.Bind(db, vals, 1)
				if !ok {
					t.Fatalf("%s = %#v: no parameter form", c.name, v)
				}
				text := db.NewInsert().Model(&params).TableExpr("bind_bound").String()
				stmt, boundErr := db.DB.PrepareContext(ctx, text)
				if boundErr == nil {
					_, boundErr = stmt.ExecContext(ctx, args...)
					stmt.Close()
				}
				if (inlineErr == nil) != (boundErr == nil) {
					t.Fatalf("%s = %#v: inline %v, bound (%s) %v", c.name, v, inlineErr, text, boundErr)
				}
				if inlineErr != nil {
					continue
				}
				want := stored("bind_inline", c.name, id)
				if my && v == -1e300 {
					// Bun writes a float64 inline in 'f' form, 301 digits,
					// which MariaDB reads as a DECIMAL and clamps to 65
					// nines' order (-1e65): the bound double is the value.
					want = fmt.Sprintf("%X", "-1e300")
				}
				if got := stored("bind_bound", c.name, id); got != want {
					t.Errorf("%s = %#v: bound INSERT stored %s; inline %s", c.name, v, got, want)
				}
				// The same value again by a bound UPDATE, after a NULL.
				if _, err := db.ExecContext(ctx, fmt.Sprintf("UPDATE bind_bound SET %s = NULL WHERE id = %d", ident(db, c.name), id)); err != nil {
					t.Fatal(err)
				}
				set, setArgs, _ := query.Bind(db, map[string]any{c.name: v}, 1)
				upd := db.NewUpdate().Model(&set).TableExpr("bind_bound").Where("id = ?", bun.Safe(placeholder(db.Dialect().Name(), len(setArgs)+1))).String()
				stmt, err := db.DB.PrepareContext(ctx, upd)
				if err != nil {
					t.Fatalf("%s = %#v: prepare %s: %v", c.name, v, upd, err)
				}
				_, err = stmt.ExecContext(ctx, append(setArgs, id)...)
				stmt.Close()
				if err != nil {
					t.Fatalf("%s = %#v: %s: %v", c.name, v, upd, err)
				}
				if got := stored("bind_bound", c.name, id); got != want {
					t.Errorf("%s = %#v: bound UPDATE stored %s; inline %s", c.name, v, got, want)
				}
			}
		}
	})
}

func placeholder(d dialect.Name, n int) string {
	switch d {
	case dialect.PG:
		return fmt.Sprintf("$%d", n)
	case dialect.MySQL:
		return "?" // MySQL's are not numbered
	}
	return fmt.Sprintf("?%d", n)
}

// ident is name quoted as db's dialect quotes an identifier.
func ident(db *bun.DB, name string) string {
	return db.NewRaw("?", bun.Ident(name)).String()
}

// TestBindTextIsStable: the same columns make the same text, whatever
// order Go's map gives them in, so a write's statement is prepared once.
func TestBindTextIsStable(t *testing.T) {
	db := testdb.SQLite(t)
	vals := map[string]any{"a": int64(1), "b": "x", "c": 1.5, "d": true, "e": nil, "f": []byte("y"), "g": "z"}
	first := ""
	for range 50 {
		params, args, ok := query.Bind(db, vals, 1)
		if !ok || len(args) != len(vals) {
			t.Fatalf("Bind: ok %v, %d args", ok, len(args))
		}
		text := db.NewInsert().Model(&params).TableExpr("t").String()
		if first == "" {
			first = text
		} else if text != first {
			t.Fatalf("the same columns made two texts:\n%s\n%s", first, text)
		}
	}
}

// TestBoundExprStoresWhatInlineStores: a value the database computes
// from the row (query.Expr: a JSON document's edit) is bound argument by
// argument, each ? a placeholder, and stores what the same expression
// with its arguments inline (quoted by Bun) stores; an Expr whose ? do
// not match its arguments has no parameter form.
func TestBoundExprStoresWhatInlineStores(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		pg := db.Dialect().Name() == dialect.PG
		my := db.Dialect().Name() == dialect.MySQL
		typ, expr := "TEXT", query.Expr{SQL: `json_set(json_patch(COALESCE("doc", '{}'), ?), ?, json(?))`}
		if pg {
			typ, expr = "jsonb", query.Expr{SQL: `jsonb_set(COALESCE("doc", '{}'::jsonb) || ?::jsonb, ARRAY[?::text]::text[], ?::jsonb, true)`}
		} else if my {
			typ, expr = "JSON", query.Expr{SQL: "JSON_SET(JSON_MERGE_PATCH(COALESCE(`doc`, '{}'), ?), ?, JSON_EXTRACT(?, '$'))"}
		}
		key := `it's "q" ?1 $1 --`
		path := key
		if !pg {
			path = `$."it's \"q\" ?1 $1 --"`
		}
		expr.Args = []any{`{"a": "it's", "n": 9007199254740993}`, path, `{"x": "\\'"}`}
		for _, tbl := range []string{"expr_inline", "expr_bound"} {
			for _, q := range []string{fmt.Sprintf(`CREATE TABLE %s (id bigint PRIMARY KEY, %s %s)`, tbl, ident(db, "doc"), typ), fmt.Sprintf(`INSERT INTO %s VALUES (1, '{"kept": true}')`, tbl)} {
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := db.NewUpdate().Model(&map[string]any{"doc": expr}).TableExpr("expr_inline").Where("id = 1").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		set, args, ok := query.Bind(db, map[string]any{"doc": expr, "id": int64(1)}, 1)
		if !ok || len(args) != 4 {
			t.Fatalf("Bind of an Expr: ok %v, %d args; want its 3 and the id's", ok, len(args))
		}
		upd := db.NewUpdate().Model(&set).TableExpr("expr_bound").Where("id = 1").String()
		if strings.Contains(upd, "it's") {
			t.Fatalf("the bound text holds a value: %s", upd)
		}
		stmt, err := db.DB.PrepareContext(ctx, upd)
		if err != nil {
			t.Fatalf("prepare %s: %v", upd, err)
		}
		defer stmt.Close()
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			t.Fatalf("%s: %v", upd, err)
		}
		var inline, bound string
		asText := `SELECT CAST("doc" AS TEXT) FROM `
		if my {
			asText = "SELECT CAST(`doc` AS CHAR) FROM "
		}
		if err := db.NewRaw(asText+"expr_inline").Scan(ctx, &inline); err != nil {
			t.Fatal(err)
		}
		if err := db.NewRaw(asText+"expr_bound").Scan(ctx, &bound); err != nil {
			t.Fatal(err)
		}
		if bound != inline || !strings.Contains(inline, "kept") || !strings.Contains(inline, "9007199254740993") || !strings.Contains(inline, `?1 $1`) {
			t.Fatalf("bound stored %s; inline %s", bound, inline)
		}
		if _, _, ok := query.Bind(db, map[string]any{"doc": query.Expr{SQL: "?", Args: []any{"a", "b"}}}, 1); ok {
			t.Error("an Expr with fewer ? than arguments was bound")
		}
	})
}
