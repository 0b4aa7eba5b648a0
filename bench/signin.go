package main

import (
	"context"
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
	vals := "SELECT 'bench-u' || x, 'Player' || x || '@Example.com', '!', now() - (x % 730) * interval '1 day' FROM "
	if db.Dialect().Name() != dialect.PG {
		vals = "SELECT 'bench-u' || x, 'Player' || x || '@Example.com', '!', strftime('%Y-%m-%d %H:%M:%f+00:00', 'now', '-' || (x % 730) || ' days') FROM "
	}
	// In batches: one statement stays well under the driver's read timeout.
	const batch = 100_000
	for from := have + 1; from <= n; from += batch {
		to := min(from+batch-1, n)
		var err error
		if db.Dialect().Name() == dialect.PG {
			_, err = db.ExecContext(ctx, cols+vals+"generate_series(?::bigint, ?::bigint) AS g(x)", from, to)
		} else {
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
	// And the partial index of the banned, for "Banned now".
	banned := "CREATE INDEX IF NOT EXISTS game_users_banned_idx ON game_users ((1)) WHERE ban IS NOT NULL"
	if db.Dialect().Name() != dialect.PG {
		banned = "CREATE INDEX IF NOT EXISTS game_users_banned_idx ON game_users (id) WHERE ban IS NOT NULL"
	}
	if _, err := db.ExecContext(ctx, banned); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, "ANALYZE game_users")
	return err
}

// signInQuery records the statement the panel's sign-in runs to find an
// account by email (the one matching lower(...)), so the bench can ask the
// database how it plans it: the statement itself, not a copy of it.
type signInQuery struct {
	mu    sync.Mutex
	query string
}

func (s *signInQuery) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (s *signInQuery) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if strings.Contains(e.Query, "lower(") && strings.Contains(e.Query, "game_users") && strings.HasPrefix(e.Query, "SELECT") {
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
