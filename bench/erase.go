package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// erasePlayers is how many players the audit rows -game seeds are about,
// and how many the erase windows can erase: each erase redacts its
// player's share of the rows and searches all of them.
const erasePlayers = 1000

// seedAudit adds audit entries about the players bench-u1 ..
// bench-u<erasePlayers> (an update of each, its email in the payload)
// until the audit log holds n of them.
func seedAudit(ctx context.Context, db *bun.DB, n int64) error {
	var have int64
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM game_admin_audit WHERE action = 'user.update' AND target_id LIKE 'bench-u%'").Scan(&have); err != nil {
		return err
	}
	if have >= n {
		return nil
	}
	p := strconv.Itoa(erasePlayers)
	cols := "INSERT INTO game_admin_audit (created_at, action, resource, target_id, payload) "
	var stmt string
	switch db.Dialect().Name() {
	case dialect.PG:
		stmt = cols + "SELECT now(), 'user.update', 'users', 'bench-u' || (x % " + p + " + 1), " +
			`CAST('{"email":"Player' || (x % ` + p + ` + 1) || '@Example.com","field":"display_name"}' AS jsonb) FROM generate_series(?::bigint, ?::bigint) AS g(x)`
	case dialect.MySQL:
		stmt = cols + "SELECT UTC_TIMESTAMP(6), 'user.update', 'users', CONCAT('bench-u', x % " + p + " + 1), " +
			`CONCAT('{"email":"Player', x % ` + p + ` + 1, '@Example.com","field":"display_name"}') FROM (SELECT seq AS x FROM seq_FROM_to_TO) AS c`
	default:
		stmt = "WITH RECURSIVE c(x) AS (SELECT ? UNION ALL SELECT x + 1 FROM c WHERE x < ?) " + cols +
			"SELECT strftime('%Y-%m-%d %H:%M:%f+00:00', 'now'), 'user.update', 'users', 'bench-u' || (x % " + p + " + 1), " +
			`'{"email":"Player' || (x % ` + p + ` + 1) || '@Example.com","field":"display_name"}' FROM c`
	}
	const batch = 100_000 // one statement stays well under the driver's read timeout
	for from := have + 1; from <= n; from += batch {
		to := min(from+batch-1, n)
		var err error
		if db.Dialect().Name() == dialect.MySQL {
			_, err = db.ExecContext(ctx, strings.NewReplacer("FROM_", strconv.FormatInt(from, 10)+"_", "_TO", "_"+strconv.FormatInt(to, 10)).Replace(stmt))
		} else {
			_, err = db.ExecContext(ctx, stmt, from, to)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// erasable are the seeded players not erased yet (their emails unchanged),
// with the email each erase is confirmed with.
func erasable(ctx context.Context, db *bun.DB) ([][2]string, error) {
	ids := make([]string, erasePlayers)
	for i := range ids {
		ids[i] = "bench-u" + strconv.Itoa(i+1)
	}
	var out [][2]string
	rs, err := db.NewSelect().Table("game_users").Column("id", "email").
		Where("id IN (?)", bun.List(ids)).Where("email LIKE 'Player%'").Rows(ctx)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	for rs.Next() {
		var p [2]string
		if err := rs.Scan(&p[0], &p[1]); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rs.Err()
}

// eraseWork erases the players one after another until ctx ends.
func eraseWork(c *client, players [][2]string) operatorWork {
	var (
		mu   sync.Mutex
		next int
	)
	return operatorWork{"", func(ctx context.Context, w *windowCount) {
		for ctx.Err() == nil {
			mu.Lock()
			i := next
			next++
			mu.Unlock()
			if i >= len(players) {
				w.done(ctx, fmt.Errorf("no player left to erase (%d seeded)", erasePlayers))
				<-ctx.Done()
				return
			}
			body, _ := json.Marshal(map[string]string{"confirm": players[i][1]})
			_, err := c.do(ctx, "POST", "/admin-api/users/"+players[i][0]+"/_erase", string(body), 200)
			w.done(ctx, err)
		}
	}}
}
