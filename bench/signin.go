package main

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// seedUsers fills game_users up to n players (emails in mixed case, as a
// live game's are; a password no one can sign in with), so the sign-in
// lookup is planned against a table of that size.
func seedUsers(ctx context.Context, db *bun.DB, n int64) error {
	var have int64
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM game_users WHERE id LIKE 'bench-u%'").Scan(&have); err != nil {
		return err
	}
	if have >= n {
		return nil
	}
	// Sign-ups spread over two years, as a live game's are: the dashboard
	// counts those of its range.
	const cols = "INSERT INTO game_users (id, email, password_hash, created_at) "
	name := db.Dialect().Name()
	vals := "SELECT 'bench-u' || x, 'Player' || x || '@Example.com', '!', now() - (x % 730) * interval '1 day' FROM "
	switch name {
	case dialect.SQLite:
		vals = "SELECT 'bench-u' || x, 'Player' || x || '@Example.com', '!', strftime('%Y-%m-%d %H:%M:%f+00:00', 'now', '-' || (x % 730) || ' days') FROM "
	case dialect.MySQL:
		vals = "SELECT CONCAT('bench-u', x), CONCAT('Player', x, '@Example.com'), '!', UTC_TIMESTAMP(6) - INTERVAL (x % 730) DAY FROM "
	}
	// In batches: one statement stays well under the driver's read timeout.
	const batch = 100_000
	for from := have + 1; from <= n; from += batch {
		to := min(from+batch-1, n)
		var err error
		switch name {
		case dialect.PG:
			_, err = db.ExecContext(ctx, cols+vals+"generate_series(?::bigint, ?::bigint) AS g(x)", from, to)
		case dialect.MySQL: // MariaDB's sequence table (a recursive WITH stops at 1,000 rows by default)
			_, err = db.ExecContext(ctx, cols+vals+fmt.Sprintf("(SELECT seq AS x FROM seq_%d_to_%d) AS c", from, to))
		default:
			_, err = db.ExecContext(ctx, "WITH RECURSIVE c(x) AS (SELECT ? UNION ALL SELECT x + 1 FROM c WHERE x < ?) "+cols+vals+"c", from, to)
		}
		if err != nil {
			return err
		}
	}
	// The indexes docs/performance.md tells a game to give its users: on
	// created_at, for the dashboard's sign-ups and recent users.
	if _, err := db.ExecContext(ctx, "CREATE INDEX IF NOT EXISTS game_users_created_at_idx ON game_users (created_at)"); err != nil {
		return err
	}
	// And the partial index of the banned, for "Banned now". MariaDB has
	// no partial index: a one-character prefix of ban serves
	// "ban IS NOT NULL" as a range of the index.
	banned := "CREATE INDEX IF NOT EXISTS game_users_banned_idx ON game_users ((1)) WHERE ban IS NOT NULL"
	switch name {
	case dialect.SQLite:
		banned = "CREATE INDEX IF NOT EXISTS game_users_banned_idx ON game_users (id) WHERE ban IS NOT NULL"
	case dialect.MySQL:
		banned = "CREATE INDEX IF NOT EXISTS game_users_banned_idx ON game_users (ban(1))"
	}
	if _, err := db.ExecContext(ctx, banned); err != nil {
		return err
	}
	analyze := "ANALYZE game_users"
	if name == dialect.MySQL {
		analyze = "ANALYZE TABLE game_users"
	}
	_, err := db.ExecContext(ctx, analyze)
	return err
}

// signInQuery records the statement the panel's sign-in runs to find an
// account by email (the one matching lower(...), or MariaDB's =), so the bench can ask the
// database how it plans it: the statement itself, not a copy of it.
type signInQuery struct {
	mu    sync.Mutex
	query string
}

func (s *signInQuery) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (s *signInQuery) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	// MariaDB's email column folds case itself (utf8mb4_unicode_ci): the
	// lookup is a plain = on it.
	byEmail := strings.Contains(e.Query, "lower(") || strings.Contains(e.Query, "`u`.`email` = ")
	if byEmail && strings.Contains(e.Query, "game_users") && strings.HasPrefix(e.Query, "SELECT") {
		s.mu.Lock()
		s.query = e.Query
		s.mu.Unlock()
	}
}

// plan is the database's plan of the recorded sign-in lookup, and whether
// it reads an index rather than the whole table.
func (s *signInQuery) plan(ctx context.Context, db *bun.DB) (plan string, indexed bool, err error) {
	s.mu.Lock()
	q := s.query
	s.mu.Unlock()
	if q == "" {
		return "", false, fmt.Errorf("no sign-in lookup was seen")
	}
	if db.Dialect().Name() == dialect.MySQL {
		return mysqlPlan(ctx, db, q)
	}
	prefix := "EXPLAIN "
	if db.Dialect().Name() == dialect.SQLite {
		prefix = "EXPLAIN QUERY PLAN "
	}
	rows, err := db.QueryContext(ctx, prefix+q)
	if err != nil {
		return "", false, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var lines []string
	for rows.Next() {
		dest := make([]any, len(cols))
		for i := range dest {
			dest[i] = new(any)
		}
		if err := rows.Scan(dest...); err != nil {
			return "", false, err
		}
		lines = append(lines, fmt.Sprint(*(dest[len(dest)-1].(*any)))) // the plan text is the last column
	}
	plan = strings.Join(lines, " / ")
	seq := strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "SCAN u") && !strings.Contains(plan, "USING INDEX")
	return plan, !seq && strings.Contains(strings.ToLower(plan), "index"), rows.Err()
}

// mysqlPlan is MariaDB's EXPLAIN of q, a line per table as
// "table: type TYPE, key KEY, rows N, EXTRA", and whether every table is
// read through an index (type ALL is the whole table).
func mysqlPlan(ctx context.Context, db *bun.DB, q string) (plan string, indexed bool, err error) {
	rows, err := db.QueryContext(ctx, "EXPLAIN "+q)
	if err != nil {
		return "", false, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var lines []string
	indexed = true
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		dest := make([]any, len(cols))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := rows.Scan(dest...); err != nil {
			return "", false, err
		}
		col := map[string]string{}
		for i, c := range cols {
			col[c] = cmp.Or(vals[i].String, "NULL")
		}
		lines = append(lines, fmt.Sprintf("%s: type %s, key %s, rows %s, %s", col["table"], col["type"], col["key"], col["rows"], col["Extra"]))
		indexed = indexed && col["type"] != "ALL" && col["key"] != "NULL"
	}
	return strings.Join(lines, " / "), indexed && len(lines) > 0, rows.Err()
}
