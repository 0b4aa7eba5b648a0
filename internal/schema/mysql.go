package schema

import (
	"context"
	"database/sql"
	"errors"
	"regexp"
	"strings"

	"github.com/uptrace/bun"
)

// The MySQL/MariaDB catalog: information_schema of the connection's
// current database (DATABASE(), or the schema a model's table name
// qualifies). It is written for MariaDB 10.11, the server the tests run
// on; where MySQL 8 answers otherwise a comment says so (untested).
// Every table and schema name is a bound value, never SQL text.

// mysqlColumnsSQL reads a table's columns. COLUMN_DEFAULT is SQL NULL
// for no default, and on MariaDB 10.2.7+ also the text 'NULL' for a
// nullable column without one (a string default is quoted there, so the
// text NULL is never a string's). MySQL 8 leaves string defaults
// unquoted: a column whose default is the four letters NULL would read
// as having none there.
const mysqlColumnsSQL = `
SELECT c.COLUMN_NAME, c.DATA_TYPE, c.COLUMN_TYPE, c.IS_NULLABLE = 'NO',
  c.COLUMN_DEFAULT IS NOT NULL AND c.COLUMN_DEFAULT <> 'NULL',
  c.EXTRA, COALESCE(c.COLLATION_NAME, ''),
  CASE WHEN c.DATA_TYPE IN ('char', 'varchar') THEN COALESCE(c.CHARACTER_MAXIMUM_LENGTH, 0) ELSE 0 END,
  CASE WHEN c.DATA_TYPE = 'decimal' THEN COALESCE(c.NUMERIC_SCALE, -1) ELSE -1 END
FROM information_schema.COLUMNS c
WHERE c.TABLE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND c.TABLE_NAME = ?
ORDER BY c.ORDINAL_POSITION`

// mysqlChecksSQL reads a table's check constraints on MariaDB, whose
// CHECK_CONSTRAINTS names the table (a check's name is the table's own:
// a column's check is named after the column, in every table that has
// one).
const mysqlChecksSQL = `
SELECT CONSTRAINT_NAME, CHECK_CLAUSE
FROM information_schema.CHECK_CONSTRAINTS
WHERE CONSTRAINT_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND TABLE_NAME = ?
ORDER BY CONSTRAINT_NAME`

// mysql8ChecksSQL is the same on MySQL 8.0.16+, whose CHECK_CONSTRAINTS
// has no TABLE_NAME (a check's name is unique in its schema there):
// through TABLE_CONSTRAINTS. Untested: the tests run MariaDB.
const mysql8ChecksSQL = `
SELECT cc.CONSTRAINT_NAME, cc.CHECK_CLAUSE
FROM information_schema.TABLE_CONSTRAINTS tc
JOIN information_schema.CHECK_CONSTRAINTS cc
  ON cc.CONSTRAINT_SCHEMA = tc.CONSTRAINT_SCHEMA AND cc.CONSTRAINT_NAME = tc.CONSTRAINT_NAME
WHERE tc.CONSTRAINT_TYPE = 'CHECK' AND tc.TABLE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND tc.TABLE_NAME = ?
ORDER BY cc.CONSTRAINT_NAME`

// mysqlTriggersSQL says whether a trigger fires on the table's inserts
// or updates.
const mysqlTriggersSQL = `
SELECT COUNT(*) FROM information_schema.TRIGGERS
WHERE EVENT_OBJECT_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND EVENT_OBJECT_TABLE = ?
  AND EVENT_MANIPULATION IN ('INSERT', 'UPDATE')`

// mysqlTableSQL reads what kind of relation a name is and the row count
// InnoDB's statistics hold for it (NULL for a view).
const mysqlTableSQL = `
SELECT TABLE_TYPE, COALESCE(TABLE_ROWS, -1)
FROM information_schema.TABLES
WHERE TABLE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND TABLE_NAME = ?`

// mysqlIndexesSQL lists each BTREE index's columns in order, comma
// separated; a column indexed by a prefix (SUB_PART) or an expression
// (MySQL 8's functional key part, no COLUMN_NAME) is "", since it keeps
// no whole column's order.
const mysqlIndexesSQL = `
SELECT GROUP_CONCAT(CASE WHEN SUB_PART IS NULL THEN COALESCE(COLUMN_NAME, '') ELSE '' END
  ORDER BY SEQ_IN_INDEX SEPARATOR ',')
FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND TABLE_NAME = ? AND INDEX_TYPE = 'BTREE'
GROUP BY INDEX_NAME`

// mysqlName splits a table name as Bun writes it (optionally qualified
// by a database, optionally quoted with backquotes or double quotes)
// into the database, "" for the current one, and the table.
func mysqlName(name string) (schemaName, table string) {
	var parts []string
	var b strings.Builder
	var quote byte
	for i := 0; i < len(name); i++ {
		ch := name[i]
		switch {
		case quote != 0 && ch == quote && i+1 < len(name) && name[i+1] == quote:
			b.WriteByte(ch)
			i++
		case quote != 0 && ch == quote:
			quote = 0
		case quote != 0:
			b.WriteByte(ch)
		case ch == '`' || ch == '"':
			quote = ch
		case ch == '.':
			parts = append(parts, b.String())
			b.Reset()
		default:
			b.WriteByte(ch)
		}
	}
	parts = append(parts, b.String())
	if len(parts) == 1 {
		return "", parts[0]
	}
	return parts[len(parts)-2], parts[len(parts)-1]
}

func mysqlColumns(ctx context.Context, db bun.IDB, name string) ([]dbColumn, error) {
	sch, table := mysqlName(name)
	rows, err := db.QueryContext(ctx, mysqlColumnsSQL, sch, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []dbColumn
	for rows.Next() {
		var dc dbColumn
		var extra, collation string
		if err := rows.Scan(&dc.Name, &dc.TypName, &dc.Type, &dc.NotNull, &dc.HasDef,
			&extra, &collation, &dc.MaxLength, &dc.Scale); err != nil {
			return nil, err
		}
		dc.TypName = strings.ToLower(dc.TypName)
		extra = strings.ToLower(extra)
		dc.Identity = strings.Contains(extra, "auto_increment")
		// EXTRA is "VIRTUAL GENERATED" or "STORED GENERATED" on both
		// MariaDB and MySQL 8 (MariaDB before 10.2 said "PERSISTENT").
		dc.Generated = strings.Contains(extra, "generated") || strings.Contains(extra, "persistent")
		dc.HasDef = dc.HasDef || dc.Identity || dc.Generated
		dc.Unsigned = strings.Contains(strings.ToLower(dc.Type), "unsigned")
		// A _ci (case-insensitive) or _ai_ci collation compares Bob
		// equal to bob; _cs, _bin and the binary types do not.
		dc.FoldsCase = strings.HasSuffix(strings.ToLower(collation), "_ci")
		dc.Kind = mysqlKind(dc.TypName, dc.Type)
		out = append(out, dc)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil
	}
	// MariaDB's JSON is a LONGTEXT with the check json_valid(col).
	checks, err := mysqlChecks(ctx, db, sch, table)
	if err != nil {
		return nil, err
	}
	for i, dc := range out {
		if dc.TypName == "longtext" && jsonGuarded(checks, dc.Name) {
			out[i].Kind = KindJSON
		}
	}
	return out, nil
}

// jsonGuarded reports whether a check of checks is json_valid(col) for
// the column name: the one MariaDB adds to a JSON column, or the same
// written by hand.
func jsonGuarded(checks []Check, name string) bool {
	want := "json_valid(" + mysqlQuote(name) + ")"
	for _, c := range checks {
		if strings.EqualFold(strings.Join(strings.Fields(c.Expr), ""), want) {
			return true
		}
	}
	return false
}

// mysqlQuote quotes an identifier the way MariaDB writes it in a check
// clause.
func mysqlQuote(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// mysqlKind is a MySQL/MariaDB column's kind from its DATA_TYPE and
// COLUMN_TYPE: TINYINT(1) is the boolean (BOOLEAN is its alias, and what
// Bun creates for a Go bool); DATETIME is a wall clock, TIMESTAMP an
// instant (stored in UTC, shown in the session's time_zone, as PostgreSQL's
// timestamp and timestamptz). A LONGTEXT that is MariaDB's JSON is
// decided by its check, after.
func mysqlKind(dataType, columnType string) ValueKind {
	ct := strings.ToLower(strings.TrimSpace(columnType))
	switch dataType {
	case "tinyint":
		if strings.HasPrefix(ct, "tinyint(1)") && !strings.Contains(ct, "unsigned") {
			return KindBool
		}
		return KindNumber
	case "smallint", "mediumint", "int", "integer", "bigint", "float", "double", "real", "year":
		return KindNumber
	case "decimal", "numeric":
		return KindDecimal
	case "bool", "boolean":
		return KindBool
	case "datetime":
		return KindTimestampLocal
	case "timestamp":
		return KindTime
	case "date":
		return KindDate
	case "enum":
		return KindEnum
	case "json": // MySQL 8
		return KindJSON
	case "uuid": // MariaDB 10.7+
		return KindUUID
	case "inet4", "inet6": // MariaDB 10.10+ and 10.5+
		return KindInet
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob", "bit":
		return KindBytes
	}
	// char, varchar, the texts, set (its members comma-separated, as the
	// database reads and takes them), time, and the spatial types.
	return KindText
}

// mysqlLabels reads the labels of enum('a','b”c') in their order; nil
// for another type.
func mysqlLabels(columnType string) []string {
	ct := strings.TrimSpace(columnType)
	if len(ct) < 6 || !strings.EqualFold(ct[:5], "enum(") && !strings.EqualFold(ct[:4], "set(") {
		return nil
	}
	body := ct[strings.IndexByte(ct, '(')+1:]
	var out []string
	for {
		body = strings.TrimLeft(body, " ,")
		if body == "" || body[0] != '\'' {
			return out
		}
		var b strings.Builder
		i := 1
		for ; i < len(body); i++ {
			if body[i] == '\\' && i+1 < len(body) {
				i++
				b.WriteByte(body[i])
				continue
			}
			if body[i] == '\'' {
				if i+1 < len(body) && body[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				break
			}
			b.WriteByte(body[i])
		}
		out = append(out, b.String())
		if i >= len(body) {
			return out
		}
		body = body[i+1:]
	}
}

// mysqlChecks reads the table's check constraints with the columns each
// reads (the backquoted names of its clause that are the table's
// columns, filled by mysqlLive). MariaDB names a column's check (and a
// JSON column's json_valid) after the column.
func mysqlChecks(ctx context.Context, db bun.IDB, sch, table string) ([]Check, error) {
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return nil, err
	}
	q := mysqlChecksSQL
	if !strings.Contains(strings.ToLower(version), "mariadb") {
		q = mysql8ChecksSQL
	}
	rows, err := db.QueryContext(ctx, q, sch, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Check
	for rows.Next() {
		var c Check
		if err := rows.Scan(&c.Name, &c.Expr); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// backquoted finds the backquoted identifiers of a clause.
var backquoted = regexp.MustCompile("`((?:[^`]|``)+)`")

// mysqlLive reads the enum labels, checks and triggers of a table.
func mysqlLive(ctx context.Context, db bun.IDB, name string) (*Live, error) {
	sch, table := mysqlName(name)
	rows, err := db.QueryContext(ctx, mysqlColumnsSQL, sch, table)
	if err != nil {
		return nil, err
	}
	var order []string
	labels := map[string][]string{}
	for rows.Next() {
		var col, dataType, colType, extra, collation string
		var notNull, hasDef bool
		var maxLen, scale int
		if err := rows.Scan(&col, &dataType, &colType, &notNull, &hasDef, &extra, &collation, &maxLen, &scale); err != nil {
			rows.Close()
			return nil, err
		}
		order = append(order, col)
		if strings.EqualFold(dataType, "enum") {
			labels[col] = mysqlLabels(colType)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	l := &Live{}
	if len(order) == 0 {
		return l, nil
	}
	if len(labels) > 0 {
		l.Labels = labels
	}
	checks, err := mysqlChecks(ctx, db, sch, table)
	if err != nil {
		return nil, err
	}
	for _, c := range checks {
		read := map[string]bool{}
		for _, m := range backquoted.FindAllStringSubmatch(c.Expr, -1) {
			read[strings.ReplaceAll(m[1], "``", "`")] = true
		}
		for _, col := range order {
			// Column names compare without regard to case on MySQL.
			for r := range read {
				if strings.EqualFold(r, col) {
					c.Columns = append(c.Columns, col)
					break
				}
			}
		}
		l.Checks = append(l.Checks, c)
	}
	// Any trigger on insert or update may change the row: a BEFORE
	// trigger sets NEW's columns; an AFTER one cannot touch its own
	// table (1442) but the panel does not tell them apart, as on SQLite.
	var n int
	if err := db.QueryRowContext(ctx, mysqlTriggersSQL, sch, table).Scan(&n); err != nil {
		return nil, err
	}
	l.RewritesRows = n > 0
	return l, nil
}

// mysqlNotWritable says why the database takes no writes into the
// relation: a view (MariaDB does take writes into a simple view, but the
// panel treats every view as read-only, as on PostgreSQL and SQLite), a
// system view or a sequence.
func mysqlNotWritable(ctx context.Context, db bun.IDB, name string) (string, error) {
	sch, table := mysqlName(name)
	var typ string
	var rowsEst int64
	err := db.QueryRowContext(ctx, mysqlTableSQL, sch, table).Scan(&typ, &rowsEst)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", nil
	case err != nil:
		return "", err
	}
	switch strings.ToUpper(typ) {
	case "VIEW":
		return "it is a view", nil
	case "SYSTEM VIEW":
		return "it is a system view", nil
	case "SEQUENCE":
		return "it is a sequence", nil
	}
	return "", nil
}

// MySQLRowEstimate is InnoDB's idea of how many rows the table name
// holds, from information_schema.TABLES.TABLE_ROWS, without a scan: the
// statistics of its last ANALYZE TABLE or automatic recount (after a
// tenth of the rows changed), as PostgreSQL's reltuples is. It is -1 for
// a view or a table the database does not have. For MyISAM the count is
// exact.
func MySQLRowEstimate(ctx context.Context, db bun.IDB, name string) (int64, error) {
	sch, table := mysqlName(name)
	var typ string
	var n int64
	err := db.QueryRowContext(ctx, mysqlTableSQL, sch, table).Scan(&typ, &n)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return -1, nil
	case err != nil:
		return 0, err
	}
	return n, nil
}

// mysqlKeyOrdered reports whether a BTREE index's leading columns are
// names, whole: InnoDB's primary key is one (the table is stored in its
// order), as is any other index on them.
func mysqlKeyOrdered(ctx context.Context, db bun.IDB, name string, names []string) (bool, error) {
	sch, table := mysqlName(name)
	rows, err := db.QueryContext(ctx, mysqlIndexesSQL, sch, table)
	if err != nil {
		return false, err
	}
	// Column names compare without regard to case on MySQL.
	return indexLeads(rows, names, strings.EqualFold)
}
