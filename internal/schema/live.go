package schema

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Live is what a game's migration may change under a running panel
// without its model changing: the labels of its enum types, its check
// constraints and its triggers. ReadLive reads it; a Table holds one at a
// time, replaced whole (SetLive), so that readers never lock and never
// see half of one. A Live is never changed once a Table holds it.
//
// What the panel decides from the columns themselves (a column's kind,
// type, nullability, default) is read once, by ReadCatalog at start.
type Live struct {
	// Labels are each enum column's labels (an array's element's), in
	// the database's order, by column name (PostgreSQL and MySQL's
	// enum('a','b'); SQLite has no enum type).
	Labels map[string][]string
	// Checks are the table's check constraints: on PostgreSQL those of
	// the table and those of its columns' domains.
	Checks []Check
	// RewritesRows says a trigger may change a row after an INSERT or
	// UPDATE has returned it (PostgreSQL: an AFTER trigger on insert or
	// update; SQLite and MySQL: any trigger on insert or update), so the panel
	// reads a written row again before it answers with it.
	RewritesRows bool
}

// Check is one check constraint.
type Check struct {
	// Name is the constraint's name; "" for a SQLite check without
	// one (CONSTRAINT name CHECK …), which SQLite names by its Expr.
	Name string
	// Expr is the constraint: PostgreSQL's pg_get_constraintdef, the
	// expression as written on SQLite.
	Expr string
	// Columns are the columns it reads, in table order.
	Columns []string
}

// Check finds the check constraint the database named ref in a refusal:
// by name (PostgreSQL's exactly, else without regard to case, as SQLite
// matches names) or, for an unnamed SQLite check, by its expression.
// Checks that share the name (SQLite names every later check of a
// definition after its CONSTRAINT; a domain's may have a table's name)
// are one: the refusal does not say which, so it reads the columns of
// them all.
func (l *Live) Check(ref string) (Check, bool) {
	if l == nil || ref == "" {
		return Check{}, false
	}
	for _, match := range []func(Check) bool{
		func(c Check) bool { return c.Name == ref },
		func(c Check) bool {
			return c.Name != "" && strings.EqualFold(c.Name, ref) || c.Name == "" && c.Expr == ref
		},
	} {
		var out Check
		found := false
		for _, c := range l.Checks {
			if !match(c) {
				continue
			}
			if !found {
				out, found = Check{Name: c.Name, Expr: c.Expr, Columns: slices.Clone(c.Columns)}, true
				continue
			}
			for _, col := range c.Columns {
				if !slices.Contains(out.Columns, col) {
					out.Columns = append(out.Columns, col)
				}
			}
		}
		if found {
			return out, true
		}
	}
	return Check{}, false
}

// liveHolder is a table's current Live, shared by the Table, its copies
// (a resource's view) and its columns.
type liveHolder struct{ p atomic.Pointer[Live] }

// emptyLive is the Live of a table not read yet.
var emptyLive = &Live{}

// Live is what the database said of t when it was last read (ReadCatalog,
// then ReadLive): never nil, and never changed; a newer read replaces it.
func (t *Table) Live() *Live {
	if t.live == nil {
		return emptyLive
	}
	if l := t.live.p.Load(); l != nil {
		return l
	}
	return emptyLive
}

// SetLive makes l what t's readers see from now on. l must not be
// changed afterwards; t must be a Table Inspect made (or a copy of one),
// whose columns share its holder.
func (t *Table) SetLive(l *Live) {
	if t.live == nil {
		panic("schema: SetLive on a table Inspect did not make")
	}
	t.live.p.Store(l)
}

// Labels are the labels an enum column (or an array of an enum) takes,
// in the database's order, as its table's catalog was last read; nil for
// another column.
func (c *Column) Labels() []string {
	if c.live == nil {
		return nil
	}
	l := c.live.p.Load()
	if l == nil {
		return nil
	}
	return l.Labels[c.Name]
}

// ElemColumn is the column an element of the array column c is: its
// kind, its type without the brackets, and its labels.
func (c *Column) ElemColumn() *Column {
	return &Column{Name: c.Name, Kind: c.Elem, DBType: strings.TrimSuffix(c.DBType, "[]"), DataType: String, live: c.live}
}

// pgLiveSQL reads in one statement what Live holds of a table, as JSON:
// the enum labels of its columns, its check constraints (the table's and
// its columns' domains') with the columns they read, and whether an
// AFTER trigger fires on its inserts or updates (pg_trigger.tgtype: 2
// BEFORE, 64 INSTEAD OF, 4 INSERT, 16 UPDATE). The table is a bound value
// resolved by to_regclass, never SQL text; a table that does not exist
// has none of them.
const pgLiveSQL = `
SELECT json_build_object(
  'labels', COALESCE((SELECT json_object_agg(x.attname, x.labels) FROM (
    SELECT a.attname, json_agg(e.enumlabel ORDER BY e.enumsortorder) AS labels
    FROM pg_attribute a
    JOIN pg_type t ON t.oid = a.atttypid
    JOIN pg_enum e ON e.enumtypid = CASE WHEN t.typcategory = 'A' THEN t.typelem ELSE t.oid END
    WHERE a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
    GROUP BY a.attname) x), '{}'),
  'checks', COALESCE((SELECT json_agg(json_build_object('name', k.conname, 'expr', pg_get_constraintdef(k.oid), 'columns', k.cols) ORDER BY k.conname) FROM (
    SELECT c.oid, c.conname, (SELECT json_agg(a.attname ORDER BY a.attnum) FROM pg_attribute a
      WHERE a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)) AS cols
    FROM pg_constraint c WHERE c.conrelid = r.oid AND c.contype = 'c'
    UNION ALL
    SELECT c.oid, c.conname, json_agg(a.attname ORDER BY a.attnum)
    FROM pg_attribute a JOIN pg_constraint c ON c.contypid = a.atttypid AND c.contype = 'c'
    WHERE a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
    GROUP BY c.oid, c.conname) k), '[]'),
  'triggers', EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = r.oid AND NOT g.tgisinternal
    AND g.tgtype & 66 = 0 AND g.tgtype & 20 <> 0)
)::text
FROM (SELECT to_regclass(?)::oid AS oid) r`

// ReadLive reads t's Live from the database's catalog, to hand to
// SetLive. A table the database does not have has an empty one; a
// dialect without a catalog the panel reads too.
func ReadLive(ctx context.Context, db bun.IDB, t *Table) (*Live, error) {
	var l *Live
	var err error
	switch db.Dialect().Name() {
	case dialect.PG:
		l, err = pgLive(ctx, db, t.Name)
	case dialect.SQLite:
		l, err = sqliteLive(ctx, db, t.Name)
	case dialect.MySQL:
		l, err = mysqlLive(ctx, db, t.Name)
	default:
		return &Live{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("schema: table %q: reading its enum labels, checks and triggers: %w", t.Name, err)
	}
	return l, nil
}

func pgLive(ctx context.Context, db bun.IDB, table string) (*Live, error) {
	var text string
	if err := db.QueryRowContext(ctx, pgLiveSQL, quoteRegclass(table)).Scan(&text); err != nil {
		return nil, err
	}
	var raw struct {
		Labels map[string][]string `json:"labels"`
		Checks []struct {
			Name    string   `json:"name"`
			Expr    string   `json:"expr"`
			Columns []string `json:"columns"`
		} `json:"checks"`
		Triggers bool `json:"triggers"`
	}
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return nil, err
	}
	l := &Live{Labels: raw.Labels, RewritesRows: raw.Triggers}
	for _, c := range raw.Checks {
		l.Checks = append(l.Checks, Check{Name: c.Name, Expr: c.Expr, Columns: c.Columns})
	}
	return l, nil
}

// sqliteLive reads the table's checks and triggers from the statements
// that made them. The name is a bound value.
func sqliteLive(ctx context.Context, db bun.IDB, table string) (*Live, error) {
	name := strings.Trim(table, `"`)
	rows, err := db.QueryContext(ctx, "SELECT type, sql FROM sqlite_master WHERE (type = 'table' AND name = ?) OR (type = 'trigger' AND lower(tbl_name) = lower(?))", name, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	l := &Live{}
	for rows.Next() {
		var typ string
		var stmt sql.NullString
		if err := rows.Scan(&typ, &stmt); err != nil {
			return nil, err
		}
		switch typ {
		case "table":
			l.Checks = sqliteChecks(stmt.String)
		case "trigger":
			l.RewritesRows = l.RewritesRows || sqliteTriggerRewrites(stmt.String)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return l, nil
}
