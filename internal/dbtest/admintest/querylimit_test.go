package admintest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// search is the expensive list of the query-limit tests: a substring no
// event has (fillSearchable), in the unindexed JSON payload, counted
// exactly. Every row is read, by the page and by the count.
const search = "/admin-api/analyticsEvents?payload_like=zz&_count=exact"

// early is a search whose only matches are the first events: a page
// finds them at once, then reads every other row for more. SQLite
// interrupts a statement only while it looks for its first row, so this
// page is ended in time only if it is built to find every row before
// its first (query.Whole).
const early = "/admin-api/analyticsEvents?payload_like=early&_sort=id&_order=asc&_count=none"

// fillSearchable inserts events from to to, each with a payload of 70
// characters (which the search reads through), quickly and in
// statements short enough for pgdriver's read timeout: generate_series
// on PostgreSQL, MariaDB's Sequence engine (whose table seq_1_to_N is
// named by its bounds), a recursive common table expression on SQLite.
func fillSearchable(t *testing.T, db *bun.DB, from, to int) {
	t.Helper()
	const pad = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz"
	for lo := from; lo <= to; lo += 250_000 {
		hi := min(lo+250_000-1, to)
		var q string
		switch db.Dialect().Name() {
		case dialect.PG:
			q = fmt.Sprintf(`INSERT INTO game_analytics_events (name, payload)
				SELECT 'ev', jsonb_build_object('n', i, 'pad', '%s') FROM generate_series(%d, %d) AS i`, pad, lo, hi)
		case dialect.MySQL:
			q = fmt.Sprintf(`INSERT INTO game_analytics_events (name, payload)
				SELECT 'ev', CONCAT('{"n":', seq, ',"pad":"%s"}') FROM seq_%d_to_%d`, pad, lo, hi)
		default:
			q = fmt.Sprintf(`WITH RECURSIVE s(i) AS (SELECT %d UNION ALL SELECT i + 1 FROM s WHERE i < %d)
				INSERT INTO game_analytics_events (name, payload)
				SELECT 'ev', '{"n":' || i || ',"pad":"%s"}' FROM s`, lo, hi, pad)
		}
		if _, err := db.ExecContext(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
}

// fillForLimit fills the events table for a test of QueryTimeout (its
// limit queryLimit) and answers how long search's statement takes
// unbounded.
// PostgreSQL gets a million events and a limit of 300 ms; MariaDB the
// same limit and as many events as the statement needs to take three
// times that (from 250,000, doubling, up to four million). SQLite, whose
// statements under -race take tens of times longer, and its fill too,
// gets a limit of 50 ms and as many events as the statement needs to
// take eight times that: from 25,000, doubling, up to two million.
func fillForLimit(t *testing.T, db *bun.DB) (took time.Duration) {
	t.Helper()
	timeout := queryLimit(db)
	scan := `SELECT count(*) FROM game_analytics_events WHERE payload LIKE '%zz%'`
	rows, most, want := 25_000, 2_000_000, 400*time.Millisecond
	switch db.Dialect().Name() {
	case dialect.PG:
		scan = `SELECT count(*) FROM game_analytics_events WHERE CAST(payload AS TEXT) ILIKE '%zz%'`
		rows, most, want = 1_000_000, 4_000_000, 900*time.Millisecond
	case dialect.MySQL:
		rows, most, want = 250_000, 4_000_000, 900*time.Millisecond
	}
	for filled := 0; ; rows = min(2*rows, most) {
		fillSearchable(t, db, filled+1, rows)
		filled = rows
		began := time.Now()
		var n int64
		if err := db.QueryRowContext(context.Background(), scan).Scan(&n); err != nil || n != 0 {
			t.Fatalf("the search: %d rows, %v; want 0", n, err)
		}
		if took = time.Since(began); took >= want || rows >= most {
			break
		}
	}
	if took < 3*timeout {
		t.Fatalf("%d events searched in %s: too quick to test a limit of %s on", rows, took, timeout)
	}
	if db.Dialect().Name() == dialect.PG {
		// A game's table has statistics; a table filled a moment ago has
		// none until autovacuum comes by, and without them PostgreSQL
		// guesses a third of the rows for id <= 5 and reads them all.
		if _, err := db.ExecContext(context.Background(), "ANALYZE game_analytics_events"); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d events; the search takes %s unbounded; QueryTimeout %s", rows, took, timeout)
	return took
}

// TestQueryLimits is the scenario on a table of a million events
// (fewer on SQLite, see fillForLimit) with an unindexed JSON payload.
//
// One search that reads every row, counted exactly, is ended by the
// database at QueryTimeout (page and count together) and answered 503
// query_timeout with a message that says to narrow the filter, the
// database's cancel in the log; so is one whose page finds
// its few matches at once and then reads on, and a CSV export whose
// first batch runs out, before any row. Each is logged as a warning
// with its cause and its parameters' names (not their values), never as
// an error.
//
// Then 16 such searches at once from three operators: each operator runs
// two at a time (QueryConcurrency's default) and the others answer 429
// rate_limited with Retry-After; the database ends those that run at
// QueryTimeout, 503 query_timeout. Their text repeats, so they run as
// prepared statements (stmtcache), under the limit all the same. Nothing
// else is answered (no 500, no dropped connection), none hangs (the
// limit and 20 s, a bound for a loaded machine), and on PostgreSQL no
// statement of theirs is still running afterwards.
func TestQueryLimits(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		app := ""
		switch db.Dialect().Name() {
		case dialect.PG:
			// A pool of its own, named, so pg_stat_activity shows its
			// backends and no other test's.
			app = fmt.Sprintf("gameadmin_limits_%d", time.Now().UnixNano())
			db = testdb.PGNamed(t, app)
		case dialect.SQLite:
			// SQLite in WAL mode reads on several connections at once,
			// as PostgreSQL's and MariaDB's pools (8) do: the searches
			// run side by side, each under its own limit, rather than
			// wait in turn for testdb's one connection.
			db.SetMaxOpenConns(8)
		}
		timeout := queryLimit(db)
		e := newEnv(t, db, Options{QueryTimeout: timeout})
		c := e.crew("analyticsEvents")
		third := e.user("mod2@example.com", "mod password")
		if err := e.admin.Moderation().AssignMod(context.Background(), third, "analyticsEvents"); err != nil {
			t.Fatal(err)
		}
		ops := []*client{c.admin, c.modScoped, e.login("mod2@example.com", "mod password")}
		for range 3 {
			insert(t, db, &AnalyticsEvent{Name: "ev", Payload: map[string]any{"note": "early"}, CreatedAt: time.Now()})
		}
		oneSearch(t, e, c.admin, timeout, fillForLimit(t, db))
		manySearches(t, e, ops, timeout)
		// Every statement was ended in the server, not just given up by
		// the client: none of this pool's (PostgreSQL) or this test's
		// database's (MariaDB) is still running.
		running := ""
		switch db.Dialect().Name() {
		case dialect.PG:
			running = `SELECT count(*) FROM pg_stat_activity
				WHERE application_name = '` + app + `' AND state <> 'idle' AND pid <> pg_backend_pid() AND query LIKE '%game_analytics_events%'`
		case dialect.MySQL:
			running = `SELECT count(*) FROM information_schema.PROCESSLIST
				WHERE DB = DATABASE() AND COMMAND = 'Query' AND ID <> CONNECTION_ID() AND INFO LIKE '%game_analytics_events%'`
		}
		if running != "" {
			var n int
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				if err := e.db.QueryRowContext(context.Background(), running).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n == 0 || time.Now().After(deadline) {
					break
				}
			}
			if n != 0 {
				t.Fatalf("%d statements on the events table still running after the answers; want none", n)
			}
		}
		if logs := e.logs.String(); strings.Contains(logs, "level=ERROR") {
			t.Errorf("an error was logged:\n%s", logs)
		}
		// A search that an index serves answers as before.
		c.admin.do("GET", "/admin-api/analyticsEvents?id_lte=5&_count=exact", nil).want(t, 200)
	})
}

// queryLimit is TestQueryLimits' QueryTimeout on db: 300 ms, or 50 ms on
// SQLite (see fillForLimit).
func queryLimit(db *bun.DB) time.Duration {
	if db.Dialect().Name() == dialect.SQLite {
		return 50 * time.Millisecond
	}
	return 300 * time.Millisecond
}

// oneSearch is TestQueryLimits' single search and export; took is how
// long the search's statement takes unbounded.
func oneSearch(t *testing.T, e *env, admin *client, timeout, took time.Duration) {
	t.Helper()
	for _, path := range []string{search, early, strings.Replace(early, "analyticsEvents?", "analyticsEvents/_export.csv?", 1)} {
		began := time.Now()
		r := admin.do("GET", path, nil).want(t, 503, "query_timeout")
		elapsed := time.Since(began)
		if msg := r.body["error"].(string); !strings.Contains(msg, "narrow the filter") {
			t.Errorf("GET %s: message %q; want it to say to narrow the filter", path, msg)
		}
		// The 503 and the database's cause in the log (below) say the
		// statement was ended at the limit; the time only guards against
		// a hang, generously, since a loaded machine is slow to answer.
		if bound := timeout + 20*time.Second; elapsed > bound {
			t.Errorf("GET %s answered after %s; want within %s (the limit %s, the statement %s)", path, elapsed, bound, timeout, took)
		}
	}
	logs := e.logs.String()
	if n := strings.Count(logs, `level=WARN msg="admin: statements ran past QueryTimeout"`); n != 3 {
		t.Errorf("%d query-timeout warnings; want 3:\n%s", n, logs)
	}
	if !strings.Contains(logs, "57014") && !strings.Contains(logs, "1969") && !strings.Contains(logs, "context deadline exceeded") {
		t.Errorf("the warnings do not carry the database's cause:\n%s", logs)
	}
	// The filters are named, their values (what an operator looked for)
	// are not.
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, "ran past QueryTimeout") {
			continue
		}
		if !strings.Contains(line, "payload_like") || strings.Contains(line, "=zz") || strings.Contains(line, "=early") {
			t.Errorf("the warning should name the parameters and leave out their values: %s", line)
		}
	}
}

// manySearches is TestQueryLimits' burst: 16 searches at once, spread
// over ops.
func manySearches(t *testing.T, e *env, ops []*client, timeout time.Duration) {
	t.Helper()
	type answer struct {
		status     int
		code       string
		retryAfter string
		elapsed    time.Duration
	}
	const requests = 16
	answers := make([]answer, requests)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range requests {
		cl := ops[i%len(ops)]
		wg.Go(func() {
			<-start
			began := time.Now()
			r := cl.do("GET", search, nil)
			code, _ := r.body["code"].(string)
			answers[i] = answer{r.StatusCode, code, r.Header.Get("Retry-After"), time.Since(began)}
		})
	}
	close(start)
	wg.Wait()
	byStatus := map[string]int{}
	for _, a := range answers {
		byStatus[fmt.Sprintf("%d %s", a.status, a.code)]++
		switch {
		case a.status >= 200 && a.status < 300:
		case a.status == http.StatusTooManyRequests && a.code == "rate_limited" && a.retryAfter != "":
		case a.status == http.StatusServiceUnavailable && a.code == "query_timeout":
		default:
			t.Errorf("answer %d %q (Retry-After %q); want 2xx, 429 rate_limited with Retry-After or 503 query_timeout", a.status, a.code, a.retryAfter)
		}
		if a.elapsed > timeout+20*time.Second {
			t.Errorf("an answer (%d %s) came after %s; want within %s, not a hang", a.status, a.code, a.elapsed, timeout+20*time.Second)
		}
	}
	t.Logf("answers: %v", byStatus)
	if byStatus["503 query_timeout"] == 0 || byStatus["429 rate_limited"] == 0 {
		t.Errorf("answers %v; want at least one 503 query_timeout and one 429 rate_limited", byStatus)
	}
}

// limitedPages records the list pages that ran under QueryTimeout's
// limit: on PostgreSQL its SET LOCAL statement_timeout, on MariaDB its
// session's max_statement_time (query.LimitedMySQL), on SQLite a page
// built to find every row before its first (query.Whole's MATERIALIZED).
type limitedPages struct {
	mu  sync.Mutex
	ran []string
}

func (h *limitedPages) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	if strings.HasPrefix(ev.Query, "SET LOCAL statement_timeout") || strings.HasPrefix(ev.Query, "SET @gameadmin_limit") ||
		strings.Contains(ev.Query, "AS MATERIALIZED") {
		h.mu.Lock()
		h.ran = append(h.ran, ev.Query)
		h.mu.Unlock()
	}
	return ctx
}

func (*limitedPages) AfterQuery(context.Context, *bun.QueryEvent) {}

func (h *limitedPages) take() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(h.ran)
	h.ran = nil
	return n
}

// TestBoundedPagesRunUnlimited: a page whose shape bounds what it reads
// (the primary key's order, no filter or search, a shallow window, on a
// table without soft deletes) runs as a read by id does, without the
// time limit's transaction on PostgreSQL or SQLite's find-every-row
// shape; every page a request can make long keeps the limit, and both
// answer the same rows.
func TestBoundedPagesRunUnlimited(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		var hook limitedPages
		createTables(t, db, (*sdGuild)(nil))
		insert(t, db, &[]sdGuild{{Name: "alpha"}, {Name: "beta"}})
		// A game's table whose model names a key the table does not index.
		must(db.ExecContext(context.Background(), "CREATE TABLE loose_guilds (id BIGINT, name TEXT NOT NULL)"))
		insert(t, db, &[]looseGuild{{ID: 1, Name: "gamma"}, {ID: 2, Name: "delta"}})
		// And a table of its own whose labels come from that table.
		createTables(t, db, (*loosePost)(nil))
		insert(t, db, &[]loosePost{{GuildID: 1}, {GuildID: 2}})
		e := newEnv(t, db.WithQueryHook(&hook), Options{
			Tables:    tablesWith(map[string]any{"guilds": (*sdGuild)(nil), "loose": (*looseGuild)(nil), "posts": (*loosePost)(nil)}),
			Relations: map[string][]Relation{"posts": {{Name: "guild", Target: "loose", Kind: One, FK: "guild_id"}}},
		})
		c, _ := e.bootstrap()
		uid := e.user("p@example.com", "player password")
		for i := range 12 {
			insert(t, db, &AnalyticsEvent{UserID: uid, Name: fmt.Sprintf("ev%02d", i), CreatedAt: time.Now()})
		}
		ids := func(rows []map[string]any) string {
			var out []string
			for _, r := range rows {
				out = append(out, fmt.Sprint(r["id"]))
			}
			return strings.Join(out, ",")
		}
		page := func(path string, limited bool) (rows []map[string]any) {
			t.Helper()
			// The first run is plain, the second prepared: Bun's hooks see
			// PostgreSQL's SET LOCAL and MariaDB's SET both times, SQLite's
			// page the first.
			for run := range 2 {
				hook.take()
				rows, _ = c.list(t, path, nil)
				if n := hook.take(); (n > 0) != limited && (run == 0 || db.Dialect().Name() != dialect.SQLite) {
					t.Errorf("GET %s (run %d) ran %d statements of the time limit; want limited=%v", path, run, n, limited)
				}
			}
			return rows
		}
		ev := "/admin-api/analyticsEvents?_count=none&"
		first := page(ev+"_sort=id&_order=desc&_start=0&_end=5", false)
		if len(first) != 5 {
			t.Fatalf("the first page has %d rows; want 5", len(first))
		}
		page(ev+"_start=0&_end=5", false)
		page(ev+"_start=995&_end=1000", false)
		walk, r := c.list(t, "/admin-api/analyticsEvents", url.Values{"_limit": {"5"}, "_sort": {"id"}, "_order": {"desc"}})
		if got, want := ids(walk), ids(first); got != want {
			t.Fatalf("keyset page %s; the offset page %s", got, want)
		}
		page(ev+"_limit=5&_sort=id&_order=desc&_cursor="+url.QueryEscape(r.Header.Get("X-Next-Cursor")), false)

		// Each of these can read any number of rows for its page.
		filtered := page(ev+"_sort=id&_order=desc&_start=0&_end=5&name_like=ev", true)
		if got, want := ids(filtered), ids(first); got != want {
			t.Errorf("the limited page %s; the bounded one %s", got, want)
		}
		page(ev+"_sort=name&_start=0&_end=5", true)
		page(ev+"_q=ev&_start=0&_end=5", true)
		page(ev+"user_id="+uid+"&_start=0&_end=5", true)
		page(ev+"_start=995&_end=1005", true) // past MaxWindow
		page("/admin-api/guilds?_count=none&_start=0&_end=5", true)
		if rows := page("/admin-api/loose?_count=none&_start=0&_end=5", true); len(rows) != 2 {
			t.Fatalf("the unindexed table's page has %d rows; want 2", len(rows))
		}
		if rows := page("/admin-api/posts?_count=none&_sort=id&_start=0&_end=5", true); len(rows) != 2 || labels(rows[0])["guild_id"] != "gamma" {
			t.Fatalf("the page labelled from the unindexed table: %v; want 2 rows, the first labelled gamma", rows)
		}
	})
}

// loosePost is labelled from looseGuild's table, whose key a join cannot
// look up by an index.
type loosePost struct {
	bun.BaseModel `bun:"table:loose_posts,alias:lp"`
	ID            int64 `bun:"id,pk,autoincrement"`
	GuildID       int64 `bun:"guild_id,notnull"`
}

// looseGuild's table (TestBoundedPagesRunUnlimited) has no primary key
// and no index: only the model names id as its key.
type looseGuild struct {
	bun.BaseModel `bun:"table:loose_guilds,alias:lg"`
	ID            int64  `bun:"id,pk"`
	Name          string `bun:"name,notnull"`
}

// TestDatabaseConcurrency: the panel's reads, all operators together,
// run DatabaseConcurrency at a time (here 1): while one is held (by a
// lock the test takes on its table), another operator's filtered list
// and first page wait their turn and are answered once the first is,
// while a read by id is not held. With no bound (-1) none waits.
// PostgreSQL: its LOCK TABLE holds a reader, which SQLite's WAL never
// does.
func TestDatabaseConcurrency(t *testing.T) {
	t.Parallel()
	for _, bound := range []int{1, -1} {
		t.Run(fmt.Sprint(bound), func(t *testing.T) {
			t.Parallel()
			db := testdb.PG(t)
			e := newEnv(t, db, Options{DatabaseConcurrency: bound, QueryTimeout: time.Minute})
			cr := e.crew("configs")
			insert(t, db, &[]Config{{Key: "a"}, {Key: "b"}})
			ctx := context.Background()
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if _, err := tx.ExecContext(ctx, "LOCK TABLE game_analytics_events IN ACCESS EXCLUSIVE MODE"); err != nil {
				t.Fatal(err)
			}
			type answer struct {
				status int
				after  time.Duration
			}
			get := func(c *client, path string) <-chan answer {
				out := make(chan answer, 1)
				start := time.Now()
				go func() { out <- answer{c.do("GET", path, nil).StatusCode, time.Since(start)} }()
				return out
			}
			held := get(cr.admin, "/admin-api/analyticsEvents?name_eq=x&_count=none")
			// The first is inside once its statement waits for the lock.
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				var n int
				if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
					WHERE wait_event_type = 'Lock' AND query LIKE '%game_analytics_events%' AND datname = current_database()`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n > 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the first list never reached the database")
				}
			}
			filtered := get(cr.modScoped, "/admin-api/configs?key_eq=a&_count=none")
			first := get(cr.modScoped, "/admin-api/configs?_count=none")
			byID := cr.modScoped.do("GET", "/admin-api/configs/a", nil).want(t, 200)
			var row map[string]any
			if err := json.Unmarshal(byID.raw, &row); err != nil || row["key"] != "a" {
				t.Fatalf("read by id = %s (%v)", byID.raw, err)
			}
			if bound < 0 {
				for _, c := range []<-chan answer{filtered, first} {
					if a := <-c; a.status != 200 {
						t.Fatalf("with no bound, a list = %d, want 200 while the other is held", a.status)
					}
				}
				tx.Rollback()
				if a := <-held; a.status != 200 {
					t.Fatalf("the held list = %d", a.status)
				}
				return
			}
			for _, c := range []<-chan answer{filtered, first} {
				select {
				case a := <-c:
					t.Fatalf("a list was answered (%d after %s) while the only place was held", a.status, a.after)
				case <-time.After(300 * time.Millisecond):
				}
			}
			tx.Rollback()
			for _, c := range []<-chan answer{held, filtered, first} {
				if a := <-c; a.status != 200 {
					t.Fatalf("after the lock = %d, want 200", a.status)
				}
			}
		})
	}
}

// TestMaxOffset: an offset page past query's MaxOffset (10,000) is 400
// naming the cursor, where the sort allows one; where it does not (a
// nullable sort column), the page runs. At the bound it runs.
func TestMaxOffset(t *testing.T) {
	t.Parallel()
	e := gadgetEnv(t, testdb.SQLite(t), Options{}, true)
	c := e.crew("gadgets")
	r := c.admin.do("GET", "/admin-api/gadgets?_start=10001&_end=10002", nil).want(t, 400, "invalid_query")
	if msg := r.body["error"].(string); !strings.Contains(msg, "_cursor") || !strings.Contains(msg, "10000") {
		t.Errorf("the refusal %q should name _cursor and the bound", msg)
	}
	c.admin.do("GET", "/admin-api/gadgets?_sort=qty&_start=10001&_end=10002", nil).want(t, 400, "invalid_query")
	c.admin.do("GET", "/admin-api/gadgets?_start=10000&_end=10100", nil).want(t, 200)
	c.admin.do("GET", "/admin-api/gadgets?_sort=note&_start=10001&_end=10002", nil).want(t, 200)

	// A full offset page names the cursor of the page after it: the way
	// on past the bound. A sort with no cursor has none.
	first := c.admin.do("GET", "/admin-api/gadgets?_sort=qty&_order=desc&_start=0&_end=2", nil).want(t, 200)
	next := first.Header.Get("X-Next-Cursor")
	if next == "" {
		t.Fatal("a full offset page has no X-Next-Cursor")
	}
	byCursor := c.admin.do("GET", "/admin-api/gadgets?_sort=qty&_order=desc&_limit=2&_cursor="+next, nil).want(t, 200)
	byOffset := c.admin.do("GET", "/admin-api/gadgets?_sort=qty&_order=desc&_start=2&_end=4", nil).want(t, 200)
	if string(byCursor.raw) != string(byOffset.raw) {
		t.Errorf("the page after the cursor = %s; the offset page = %s", byCursor.raw, byOffset.raw)
	}
	if h := c.admin.do("GET", "/admin-api/gadgets?_sort=note&_start=0&_end=2", nil).want(t, 200).Header.Get("X-Next-Cursor"); h != "" {
		t.Errorf("a page sorted on a nullable column names a cursor %q", h)
	}
}
