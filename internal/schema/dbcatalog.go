package schema

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// dbColumn is one column as the database catalog describes it.
type dbColumn struct {
	Name      string
	Type      string // format_type / the declared type
	TypName   string // PostgreSQL's pg_type.typname (element's for arrays)
	TypType   string // 'e' enum, 'b' base, 'd' domain, ...
	Array     bool
	NotNull   bool
	HasDef    bool
	Generated bool // GENERATED ALWAYS identity or a generated column
	Identity  bool
	MaxLength int
	Scale     int // -1 when the type declares none

	// Kind is the kind the catalog decides (MySQL/MariaDB: mysqlKind);
	// "" where ReadCatalog decides it itself (PostgreSQL's pgKind,
	// SQLite's model).
	Kind      ValueKind
	Unsigned  bool // MySQL: an UNSIGNED number
	FoldsCase bool // MySQL: a _ci collation (Bob equals bob)
}

// pgColumnsSQL reads a table's columns from pg_catalog. The table is a
// bound value resolved by to_regclass, never SQL text.
const pgColumnsSQL = `
SELECT a.attname, format_type(a.atttypid, a.atttypmod),
  COALESCE(CASE WHEN t.typcategory = 'A' THEN et.typname ELSE t.typname END, ''),
  COALESCE(CASE WHEN t.typcategory = 'A' THEN et.typtype ELSE t.typtype END, ''),
  t.typcategory = 'A',
  a.attnotnull, a.atthasdef OR a.attidentity <> '', a.attidentity = 'a' OR a.attgenerated <> '', a.attidentity <> '',
  CASE WHEN t.typname IN ('varchar', 'bpchar') AND a.atttypmod > 4 THEN a.atttypmod - 4 ELSE 0 END,
  CASE WHEN t.typname = 'numeric' AND a.atttypmod >= 4 THEN (a.atttypmod - 4) & 65535 ELSE -1 END
FROM pg_attribute a
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_type et ON et.oid = t.typelem
WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum`

// ReadCatalog refines t's columns from the database's catalog: the SQL
// type decides the kind, the Go type informs it (a float field over a
// numeric column); and it reads t's Live (ReadLive: enum labels, checks,
// triggers). It reports false, changing no column, when the table does
// not exist (yet). Columns the model has and the table lacks keep what
// the model says. It runs before the panel serves: a column's fields are
// not safe to change under readers, and later reads change only the Live.
func ReadCatalog(ctx context.Context, db bun.IDB, t *Table) (bool, error) {
	var cols []dbColumn
	var err error
	switch db.Dialect().Name() {
	case dialect.PG:
		cols, err = pgColumns(ctx, db, t.Name)
	case dialect.SQLite:
		cols, err = sqliteColumns(ctx, db, t.Name)
	case dialect.MySQL:
		cols, err = mysqlColumns(ctx, db, t.Name)
	default:
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("schema: table %q: reading the catalog: %w", t.Name, err)
	}
	live, err := ReadLive(ctx, db, t)
	if err != nil {
		return false, err
	}
	t.SetLive(live)
	if len(cols) == 0 {
		return false, nil
	}
	if why, err := notWritable(ctx, db, t.Name); err != nil {
		return false, fmt.Errorf("schema: table %q: reading the catalog: %w", t.Name, err)
	} else if why != "" && t.NotWritable == "" {
		t.NotWritable = why
	}
	if t.KeyOrdered, err = keyOrdered(ctx, db, t, cols); err != nil {
		return false, fmt.Errorf("schema: table %q: reading its indexes: %w", t.Name, err)
	}
	pg := db.Dialect().Name() == dialect.PG
	for _, dc := range cols {
		c := t.ByName[dc.Name]
		if c == nil {
			continue
		}
		c.DBType = dc.Type
		c.NotNull = c.NotNull || dc.NotNull
		c.HasDefault = c.HasDefault || dc.HasDef
		c.Generated = dc.Generated
		c.MaxLength = dc.MaxLength
		if dc.Scale >= 0 {
			c.Scale, c.HasScale = dc.Scale, true
		}
		if dc.Identity {
			c.AutoIncrement = true
		}
		c.Unsigned, c.FoldsCase = dc.Unsigned, dc.FoldsCase
		if !pg && dc.Kind == "" || c.Unix != "" || holdsModelText(c, dc.Kind) {
			// SQLite stores what Bun writes for the Go type; the
			// declared type adds only a type: tag's meaning, already
			// read. So does a MySQL text, JSON or BLOB column under an
			// array or an address (holdsModelText). A unix time column
			// stays a time (SetUnix).
			continue
		}
		kind := dc.Kind
		if kind == "" {
			kind = pgKind(dc)
		}
		if kind == KindTimestampLocal && t.UTCDatetime && db.Dialect().Name() == dialect.MySQL {
			kind = KindTime
		}
		if kind == KindBool && dc.TypName == "tinyint" && c.DataType != Boolean {
			// MySQL's TINYINT(1) is its boolean, but a Go integer
			// field over one holds numbers.
			kind = KindNumber
		}
		if dc.Array {
			c.Kind, c.Elem = KindArray, kind
		} else if kind != "" {
			c.Kind, c.Elem = kind, ""
		}
		if kind == KindTime || kind == KindTimestampLocal || kind == KindDate {
			c.SQLType = dc.Type // Select reads timestamps by their real type
		}
	}
	return true, nil
}

// holdsModelText reports whether a column the database calls text, JSON
// or bytes (kind, MySQL's) holds the text Bun writes for c's Go type
// when the model says more: a slice's JSON array, an address's text
// (in a BLOB too, the column Bun creates for a net.IP there). The
// model's kind then stands, as it does for every column on SQLite; the
// database's would show an array as any JSON and take an address as
// base64.
func holdsModelText(c *Column, kind ValueKind) bool {
	return (kind == KindText || kind == KindJSON || kind == KindBytes) && (c.Kind == KindArray || c.Kind == KindInet)
}

// pgKind is the kind of a PostgreSQL column (its element's, for an
// array): an enum, else what its pg_type name says (sqlKind), else text.
func pgKind(dc dbColumn) ValueKind {
	if dc.TypType == "e" {
		return KindEnum
	}
	if k := sqlKind(dc.TypName); k != "" {
		return k
	}
	return KindText
}

func pgColumns(ctx context.Context, db bun.IDB, table string) ([]dbColumn, error) {
	rows, err := db.QueryContext(ctx, pgColumnsSQL, quoteRegclass(table))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []dbColumn
	for rows.Next() {
		var dc dbColumn
		if err := rows.Scan(&dc.Name, &dc.Type, &dc.TypName, &dc.TypType, &dc.Array,
			&dc.NotNull, &dc.HasDef, &dc.Generated, &dc.Identity, &dc.MaxLength, &dc.Scale); err != nil {
			return nil, err
		}
		out = append(out, dc)
	}
	return out, rows.Err()
}

// pgRelationSQL reads what kind of relation a name is, and whether
// PostgreSQL takes inserts into it. The name is a bound value.
const pgRelationSQL = `
SELECT c.relkind::text, COALESCE((SELECT t.is_insertable_into FROM information_schema.tables t
  WHERE t.table_schema = n.nspname AND t.table_name = c.relname), 'YES')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.oid = to_regclass(?)`

// notWritable says why the database takes no writes into the relation
// name: a view, a materialized view, a relation it cannot insert into;
// "" for a table it writes.
func notWritable(ctx context.Context, db bun.IDB, name string) (string, error) {
	switch db.Dialect().Name() {
	case dialect.PG:
		var kind, insertable string
		err := db.QueryRowContext(ctx, pgRelationSQL, quoteRegclass(name)).Scan(&kind, &insertable)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return "", nil
		case err != nil:
			return "", err
		case kind == "v":
			return "it is a view", nil
		case kind == "m":
			return "it is a materialized view", nil
		case kind == "f":
			return "it is a foreign table", nil
		case insertable == "NO":
			return "the database does not take inserts into it", nil
		}
	case dialect.SQLite:
		var typ string
		err := db.QueryRowContext(ctx, "SELECT type FROM sqlite_master WHERE name = ?", strings.Trim(name, `"`)).Scan(&typ)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return "", nil
		case err != nil:
			return "", err
		case typ == "view":
			return "it is a view", nil
		}
	case dialect.MySQL:
		return mysqlNotWritable(ctx, db, name)
	}
	return "", nil
}

// pgIndexesSQL lists the leading columns of each valid, whole-table
// btree index of a table, comma-separated; an expression is "".
const pgIndexesSQL = `
SELECT array_to_string(ARRAY(
  SELECT COALESCE(a.attname, '') FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
  LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
  ORDER BY k.n), ',')
FROM pg_index i
JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_am am ON am.oid = c.relam
WHERE i.indrelid = to_regclass(?) AND i.indisvalid AND i.indpred IS NULL AND am.amname = 'btree'`

// indexLeads reads rows, one index a row as its columns joined by
// commas, and reports whether one of them starts with names (compared by
// eq). It closes rows.
func indexLeads(rows *sql.Rows, names []string, eq func(a, b string) bool) (bool, error) {
	defer rows.Close()
	found := false
	for rows.Next() {
		var cols string
		if err := rows.Scan(&cols); err != nil {
			return false, err
		}
		lead := strings.Split(cols, ",")
		found = found || (len(lead) >= len(names) && slices.EqualFunc(lead[:len(names)], names, eq))
	}
	return found, rows.Err()
}

// keyOrdered reports whether the database reads t's rows in its primary
// key's order through an index: on PostgreSQL a btree index whose leading
// columns are the key's; on SQLite a plan of that order that needs no
// sort of its own (the rowid, a WITHOUT ROWID table's key, an index).
// A key column the table lacks (cols) orders nothing.
func keyOrdered(ctx context.Context, db bun.IDB, t *Table, cols []dbColumn) (bool, error) {
	if len(t.PK) == 0 {
		return false, nil
	}
	names := make([]string, len(t.PK))
	for i, c := range t.PK {
		if !slices.ContainsFunc(cols, func(dc dbColumn) bool { return dc.Name == c.Name }) {
			return false, nil
		}
		names[i] = c.Name
	}
	switch db.Dialect().Name() {
	case dialect.PG:
		rows, err := db.QueryContext(ctx, pgIndexesSQL, quoteRegclass(t.Name))
		if err != nil {
			return false, err
		}
		return indexLeads(rows, names, func(a, b string) bool { return a == b })
	case dialect.SQLite:
		q := db.NewSelect().TableExpr("?", bun.Ident(t.Name)).ColumnExpr("1").Limit(1)
		for _, n := range names {
			q = q.OrderExpr("?", bun.Ident(n))
		}
		rows, err := db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q.String())
		if err != nil {
			return false, err
		}
		defer rows.Close()
		sorts := false
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				return false, err
			}
			sorts = sorts || strings.Contains(detail, "TEMP B-TREE")
		}
		return !sorts, rows.Err()
	case dialect.MySQL:
		return mysqlKeyOrdered(ctx, db, t.Name, names)
	}
	return false, nil
}

// quoteRegclass quotes a table name (optionally schema-qualified, as Bun
// writes it) for to_regclass, so its case and characters are kept.
func quoteRegclass(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		p = strings.Trim(p, `"`)
		parts[i] = `"` + strings.ReplaceAll(p, `"`, `""`) + `"`
	}
	return strings.Join(parts, ".")
}

func sqliteColumns(ctx context.Context, db bun.IDB, table string) ([]dbColumn, error) {
	// The table-valued form of the pragma takes the name as a bound
	// value.
	rows, err := db.QueryContext(ctx, "SELECT name, type, \"notnull\", dflt_value, hidden FROM pragma_table_xinfo(?)", strings.Trim(table, `"`))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []dbColumn
	for rows.Next() {
		var dc dbColumn
		var def sql.NullString
		var hidden int
		if err := rows.Scan(&dc.Name, &dc.Type, &dc.NotNull, &def, &hidden); err != nil {
			return nil, err
		}
		dc.HasDef = def.Valid
		dc.MaxLength = declaredLength(dc.Type)
		dc.Scale = DeclaredScale(dc.Type)
		dc.Generated = hidden == 2 || hidden == 3
		dc.HasDef = dc.HasDef || dc.Generated
		out = append(out, dc)
	}
	return out, rows.Err()
}

// sqliteCharType reads the limit a SQLite column declares: VARCHAR(32),
// CHARACTER VARYING(32), NCHAR(2). SQLite does not enforce it, but the
// game that declared it meant it (and its PostgreSQL twin enforces it), so
// the panel's forms do.
var sqliteCharType = regexp.MustCompile(`(?i)^\s*(?:national\s+)?(?:n?var|n)?char(?:acter)?(?:\s+varying)?\s*\(\s*(\d{1,9})\s*\)\s*$`)

func declaredLength(typ string) int {
	m := sqliteCharType.FindStringSubmatch(typ)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// numericType reads the scale a declared type gives: NUMERIC(12,2),
// DECIMAL(12, 2); NUMERIC(12) keeps no digits after the point.
var numericType = regexp.MustCompile(`(?i)^\s*(?:numeric|decimal)\s*\(\s*\d{1,4}\s*(?:,\s*(\d{1,4})\s*)?\)\s*$`)

// DeclaredScale is the scale a numeric(p,s) or decimal(p,s) type declares
// (0 for numeric(p)), -1 for any other type or a bare numeric.
func DeclaredScale(typ string) int {
	m := numericType.FindStringSubmatch(typ)
	if m == nil {
		return -1
	}
	if m[1] == "" {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// ColumnTypes reads the columns of the table name (optionally schema
// qualified) from the database's catalog, for a table the panel reads
// without a model (UserColumns.BanTable): each column's type name in
// lower case (PostgreSQL's pg_type name, "int8" or "timestamptz";
// SQLite's declared type, "integer" or "datetime"; MySQL's DATA_TYPE,
// "bigint" or "timestamp"). An empty map when
// the table does not exist.
func ColumnTypes(ctx context.Context, db bun.IDB, name string) (map[string]string, error) {
	var cols []dbColumn
	var err error
	switch db.Dialect().Name() {
	case dialect.PG:
		cols, err = pgColumns(ctx, db, name)
	case dialect.SQLite:
		cols, err = sqliteColumns(ctx, db, name)
	case dialect.MySQL:
		cols, err = mysqlColumns(ctx, db, name)
	}
	if err != nil {
		return nil, fmt.Errorf("schema: table %q: reading the catalog: %w", name, err)
	}
	out := make(map[string]string, len(cols))
	for _, dc := range cols {
		typ := dc.TypName
		if db.Dialect().Name() == dialect.SQLite {
			typ, _, _ = strings.Cut(dc.Type, "(")
		}
		out[dc.Name] = strings.ToLower(strings.TrimSpace(typ))
	}
	return out, nil
}
