package migrate

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/uptrace/bun"
)

// The built-in tables on MySQL and MariaDB (tested on MariaDB 10.11; what
// MySQL 8 does otherwise is said where it matters, untested here).
//
// MySQL 8 differs in one statement the plan writes: it has no CREATE
// INDEX IF NOT EXISTS (MariaDB 10.1.4+ has), so both Migrate and the
// script stop at the first index there; supporting it needs the index
// steps to ask information_schema.statistics first (Migrate) and the
// script to leave the check to the game's tool.

// mysqlMaxName is the longest identifier MySQL takes (a table, an index):
// longer ones are refused (PostgreSQL truncates them to 63 bytes).
const mysqlMaxName = 64

// mysqlKey is the type of a text column that is a key or is indexed
// (ids, emails, foreign keys, indexed names): MySQL cannot index a TEXT
// column without a prefix length. 255 characters of utf8mb4 are 1020
// bytes, so three of them fit InnoDB's 3072-byte key (the widest built-in
// key has two, and one has two and a time).
const mysqlKey = "VARCHAR(255)"

// mysqlNow is the default of a time column: the UTC wall time whatever
// the session's time_zone, as the panel writes its times (DATETIME holds
// what it is given). An expression default, in parentheses: MariaDB 10.2+
// and MySQL 8.0.13+.
const mysqlNow = "(UTC_TIMESTAMP(6))"

// mysqlTableOptions close every CREATE TABLE: InnoDB for the foreign keys
// and transactions. The table keeps the database's default character set
// and collation: the panel's text columns name theirs (mysqlBin), and a
// user column referring to a game's users table with text ids inherits
// the database's, which a foreign key needs to match (MySQL refuses a key
// between two collations: errno 150).
const mysqlTableOptions = " ENGINE=InnoDB"

// mysqlBin is the character set and collation of the panel's text
// columns: any text, and ids and tokens compared exactly.
const mysqlBin = " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"

// mysqlFold is that of a Fold column: Bob equals bob.
const mysqlFold = " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"

// mysqlCheckNames refuses a plan whose prefix makes a table or index name
// longer than MySQL takes, before any statement runs.
func (p *Plan) mysqlCheckNames() error {
	names := []string{p.SchemaTable()}
	for _, t := range p.tables {
		names = append(names, p.Name(t.Base))
		for _, idx := range t.Indexes {
			names = append(names, p.Name(t.Base)+"_"+strings.Join(idx, "_")+"_idx")
		}
	}
	for _, n := range names {
		if len(n) > mysqlMaxName {
			return fmt.Errorf("admin: TablePrefix %q makes the name %s longer than MySQL's %d characters", p.prefix, n, mysqlMaxName)
		}
	}
	return nil
}

// mysqlType is t on MySQL and MariaDB, for a column that is not a key
// (mysqlColType widens text keys).
func (p *Plan) mysqlType(t ColType) string {
	switch t {
	case UserID:
		return p.userType
	case JSON:
		// MariaDB's JSON is LONGTEXT with a json_valid check; MySQL 8's
		// is a binary JSON type. Either reads and writes JSON text.
		return "JSON"
	case Time:
		// DATETIME, not TIMESTAMP: TIMESTAMP converts to and from the
		// session's time_zone and ends in 2038; DATETIME holds the UTC
		// wall time the panel writes (a pool opened with loc=UTC reads it
		// back as the same instant). Microseconds, as PostgreSQL keeps.
		return "DATETIME(6)"
	case Bigint:
		return "BIGINT"
	case Serial:
		return "BIGINT AUTO_INCREMENT PRIMARY KEY"
	case Bool:
		return "BOOLEAN" // TINYINT(1)
	}
	return "TEXT" + mysqlBin
}

// mysqlColType is c's type in t on MySQL: a text column that is part of
// a key or an index is a VARCHAR (TEXT cannot be indexed whole), others
// stay TEXT (notes, report texts, hashes have no length to promise); a
// Fold column takes a case-insensitive collation.
func (p *Plan) mysqlColType(t *Table, c Col) string {
	if c.Type != Text {
		return p.mysqlType(c.Type)
	}
	typ := "TEXT"
	if mysqlKeyed(t, c) {
		typ = mysqlKey
	}
	if c.Fold {
		return typ + mysqlFold
	}
	return typ + mysqlBin
}

// mysqlKeyed reports whether c is in a key or an index of t.
func mysqlKeyed(t *Table, c Col) bool {
	if c.Unique || slices.Contains(t.PK, c.Name) || slices.ContainsFunc(t.FKs, func(fk FK) bool { return fk.Col == c.Name }) {
		return true
	}
	return slices.ContainsFunc(t.Indexes, func(idx []string) bool { return slices.Contains(idx, c.Name) })
}

// mysqlIDType is the type of the user columns on MySQL when the users
// table is the game's: its id's integer type with its sign (a foreign key
// needs both to match: Laravel's ids are BIGINT UNSIGNED), else a
// VARCHAR (a UUID held as CHAR(36) is a string key too).
func mysqlIDType(st string, k reflect.Kind) string {
	unsigned := strings.Contains(st, "unsigned")
	if k >= reflect.Uint && k <= reflect.Uint64 {
		unsigned = true
	}
	base := ""
	word, _, _ := strings.Cut(st, " ")
	word, _, _ = strings.Cut(word, "(") // int(11)
	switch word {
	case "tinyint", "smallint", "mediumint", "int", "bigint":
		base = strings.ToUpper(word)
	case "integer", "serial4", "int4":
		base = "INT"
	case "bigserial", "serial8", "int8", "serial":
		base = "BIGINT" // MySQL's SERIAL is BIGINT UNSIGNED
		unsigned = unsigned || word == "serial"
	case "uuid":
		return "UUID" // MariaDB 10.7's own type: a key to it must be one too
	default:
		if k < reflect.Int || k > reflect.Uint64 {
			return mysqlKey
		}
		base = "BIGINT"
	}
	if unsigned {
		base += " UNSIGNED"
	}
	return base
}

// backtick turns the double-quoted identifiers of s (the declared SQL
// quotes as PostgreSQL does) into backticked ones; single-quoted strings
// are left as they are.
func backtick(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '\'':
			j := i + 1
			for j < len(s) && (s[j] != '\'' || j+1 < len(s) && s[j+1] == '\'') {
				if s[j] == '\'' {
					j++
				}
				j++
			}
			end := min(j+1, len(s))
			b.WriteString(s[i:end])
			i = end - 1
		case '"':
			j := i + 1
			var name strings.Builder
			for j < len(s) {
				if s[j] == '"' {
					if j+1 < len(s) && s[j+1] == '"' {
						name.WriteByte('"')
						j += 2
						continue
					}
					break
				}
				name.WriteByte(s[j])
				j++
			}
			b.WriteString("`" + strings.ReplaceAll(name.String(), "`", "``") + "`")
			i = j
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// mysqlLockWait is how long Migrate waits for another node's migration
// on MySQL before giving up.
const mysqlLockWait = 300

// migrateMySQL is Migrate on MySQL and MariaDB. DDL commits implicitly
// there, so a transaction cannot make the steps atomic: the steps run one
// by one on one connection that holds a named lock (GET_LOCK, the
// server-wide counterpart of PostgreSQL's advisory lock, named after the
// database) for the whole run, so nodes starting together apply each step
// once. A step is recorded right after its statements succeed; one that
// fails midway leaves what it created (every statement is idempotent:
// CREATE ... IF NOT EXISTS), and the next run applies it again.
func (p *Plan) migrateMySQL(ctx context.Context, db *bun.DB) (err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(CONCAT('gameadmin.', SHA1(DATABASE())), ?)", mysqlLockWait).Scan(&got); err != nil {
		conn.Close()
		return fmt.Errorf("admin: migration lock: %w", err)
	}
	if got.Int64 != 1 {
		conn.Close()
		return fmt.Errorf("admin: migration lock: another node held it for %d seconds", mysqlLockWait)
	}
	defer func() {
		if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), "DO RELEASE_LOCK(CONCAT('gameadmin.', SHA1(DATABASE())))"); rerr != nil {
			// The lock lives as long as the session: never hand the
			// connection back to the pool still holding it.
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
			err = errors.Join(err, fmt.Errorf("admin: releasing the migration lock: %w", rerr))
		}
		conn.Close()
	}()
	q, err := p.mysqlUsersCollation(ctx, conn)
	if err != nil {
		return err
	}
	return q.migrateOn(ctx, conn)
}

// mysqlUsersCollation returns p, or a copy whose user columns take the
// character set and collation of the game's users id column when that is
// text (a foreign key needs them equal; the table's default, which they
// get otherwise, is the database's, usually the same).
func (p *Plan) mysqlUsersCollation(ctx context.Context, db bun.IDB) (*Plan, error) {
	if p.userType != mysqlKey {
		return p, nil // the built-in users table, or integer ids
	}
	var cs, coll sql.NullString
	err := db.QueryRowContext(ctx, "SELECT character_set_name, collation_name FROM information_schema.columns "+
		"WHERE table_schema = DATABASE() AND table_name = ? AND column_name = ?", p.users, p.usersID).Scan(&cs, &coll)
	if errors.Is(err, sql.ErrNoRows) || err == nil && (!cs.Valid || !coll.Valid) {
		return p, nil // no such table yet, or not text: the database refuses the key and says why
	}
	if err != nil {
		return nil, err
	}
	if !mysqlName(cs.String) || !mysqlName(coll.String) {
		return nil, fmt.Errorf("admin: users table %s: unexpected collation %q", p.users, coll.String)
	}
	q := *p
	q.userType = mysqlKey + " CHARACTER SET " + cs.String + " COLLATE " + coll.String
	return &q, nil
}

// mysqlName reports whether s is a character set or collation name
// (letters, digits, underscores), safe to write into DDL.
func mysqlName(s string) bool {
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}
