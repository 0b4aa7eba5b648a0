package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	admin "github.com/gameadmin/admin"
)

// A floor is what a panel request cannot avoid running, as the database
// itself runs it: the session check every panel request makes (read live), then the
// request's own statements, prepared, with nothing of the panel around
// them. On PostgreSQL pgbench runs it (-M prepared, its own process); on
// SQLite and MariaDB the same statements go through database/sql,
// prepared, in this process, from as many goroutines as the panel's
// clients (on MariaDB the driver's client side is then in this process's
// CPU, as pgbench's is not). A panel request is measured against its
// floor in the same run.
type floor struct {
	name  string
	stmts []string // {id} is a random id in 1..ids
	ids   int64
	tx    bool // in one transaction
}

// idToken marks where a floor's statement takes its varying id.
const idToken = "{id}"

// floors builds the statements of each floor from the same Bun queries
// the panel's own are shaped like, with literals where the panel binds
// values.
type floors struct {
	db      *bun.DB
	session string // the session check, for the bench's operator
	rows    int64
}

func newFloors(db *bun.DB, operatorID string, rows int64) *floors {
	// The statement the panel's session check runs
	// (internal/users.RoleTable.SessionQuery): the role, its scopes, the
	// row scope's values, the token version, and no bans table here.
	session := db.NewSelect().TableExpr("game_users AS u").
		Join("LEFT JOIN game_roles AS r ON r.user_id = u.id").
		Join("LEFT JOIN game_row_scopes AS rs ON rs.user_id = u.id").
		ColumnExpr("r.role").ColumnExpr("r.scopes").ColumnExpr("rs.scope_values").ColumnExpr("u.token_version").ColumnExpr("0").
		Where("u.id = ?", operatorID).String()
	return &floors{db: db, session: session, rows: rows}
}

// page is the session check and then one statement of events.
func (f *floors) page(name string, q func(*bun.SelectQuery) *bun.SelectQuery, also ...string) *floor {
	sel := q(f.db.NewSelect().Model((*admin.AnalyticsEvent)(nil)).Order("id DESC").Limit(100)).String()
	return &floor{name: name, stmts: append([]string{f.session, sel}, also...), ids: f.rows}
}

// estimate is the table estimate a default-count first page reads on
// PostgreSQL (internal/query's tableEstimate).
const estimate = `SELECT CASE WHEN c.reltuples < 0 THEN -1 WHEN c.relpages > 0 THEN c.reltuples / c.relpages * (pg_relation_size(c.oid) / current_setting('block_size')::int) ELSE c.reltuples END FROM pg_class c WHERE c.oid = to_regclass('"game_analytics_events"')`

// write is one transaction of the session check, a write that returns
// the row, and its audit entry.
func (f *floors) write(name, stmt string) *floor {
	audit := f.db.NewInsert().Model(&admin.AuditEntry{
		CreatedAt: time.Now().UTC(), OperatorID: "bench", Action: "create", Resource: "analyticsEvents", TargetID: "1",
		Payload: map[string]any{"row": map[string]any{"id": 1, "user_id": "u1", "name": "bench", "payload": map[string]any{"i": 1}}, "ip": "127.0.0.1"},
	}).ModelTableExpr("game_admin_audit").ExcludeColumn("id").String()
	return &floor{name: name, stmts: []string{f.session, stmt, audit}, ids: f.rows, tx: true}
}

func (f *floors) insert() *floor {
	q := f.db.NewInsert().Model(&admin.AnalyticsEvent{UserID: "u1", Name: "bench", Payload: map[string]any{"i": 1}, CreatedAt: time.Now().UTC()}).
		ExcludeColumn("id").Returning("*")
	return f.write("session + INSERT…RETURNING + audit", q.String())
}

func (f *floors) update() *floor {
	q := f.db.NewUpdate().Model((*admin.AnalyticsEvent)(nil)).Set("name = ?", "bench2").Where("id = ?", bun.Safe(idToken)).Returning("*")
	if f.db.Dialect().Name() == dialect.MySQL {
		// MariaDB has no UPDATE…RETURNING: the panel reads the row again
		// by its key in the write's transaction.
		fl := f.write("session + UPDATE + select by pk + audit", q.String())
		fl.stmts = slices.Insert(fl.stmts, 2, f.byID())
		return fl
	}
	return f.write("session + UPDATE…RETURNING + audit", q.String())
}

// byID selects the event {id}.
func (f *floors) byID() string {
	return f.db.NewSelect().Model((*admin.AnalyticsEvent)(nil)).Where("id = ?", bun.Safe(idToken)).String()
}

func (f *floors) read() *floor {
	return &floor{name: "session + select by pk", ids: f.rows, stmts: []string{f.session, f.byID()}}
}

// runner measures a floor in windows, as drivePair measures a baseline.
type runner interface {
	window(s *sample, concurrency int, w time.Duration) error
}

// runnerFor is pgbench on PostgreSQL, prepared statements in this process
// on SQLite and MariaDB.
func (f *floors) runnerFor(fl *floor, dsn string) (runner, error) {
	if f.db.Dialect().Name() == dialect.PG {
		return newPgbench(fl, dsn)
	}
	return newInProcess(f.db.DB, fl)
}

// pgbench runs a floor as a pgbench script.
type pgbench struct {
	dsn, dir, script string
}

func newPgbench(fl *floor, dsn string) (*pgbench, error) {
	if _, err := exec.LookPath("pgbench"); err != nil {
		return nil, fmt.Errorf("the PostgreSQL floors need pgbench (Debian: postgresql-client): %w", err)
	}
	dir, err := os.MkdirTemp("", "bench-floor-")
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\\set id random(1, %d)\n", fl.ids)
	if fl.tx {
		b.WriteString("BEGIN;\n")
	}
	for _, s := range fl.stmts {
		b.WriteString(strings.ReplaceAll(s, idToken, ":id") + ";\n")
	}
	if fl.tx {
		b.WriteString("COMMIT;\n")
	}
	script := filepath.Join(dir, "floor.sql")
	if err := os.WriteFile(script, []byte(b.String()), 0o600); err != nil {
		return nil, err
	}
	return &pgbench{dsn: dsn, dir: dir, script: script}, nil
}

var (
	pgbenchTxs = regexp.MustCompile(`number of transactions actually processed: (\d+)`)
	pgbenchTPS = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)
)

// window runs pgbench for w (whole seconds, at least one; a window under
// a second, as in CI's smoke run, runs 20 transactions a client) and adds
// its transactions' latencies, from pgbench's per-transaction log, to s.
func (p *pgbench) window(s *sample, concurrency int, w time.Duration) error {
	logs, err := os.MkdirTemp(p.dir, "log-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(logs)
	length := []string{"-T", strconv.Itoa(max(1, int(w.Round(time.Second)/time.Second)))}
	if w < time.Second {
		length = []string{"-t", "20"}
	}
	args := append([]string{"-n", "-M", "prepared", "-c", strconv.Itoa(concurrency), "-j", strconv.Itoa(min(concurrency, 2)),
		"-f", p.script, "-l", "--log-prefix", filepath.Join(logs, "tx")}, length...)
	cmd := exec.Command("pgbench", append(args, p.dsn)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgbench: %v: %s", err, out)
	}
	txs, tps := pgbenchTxs.FindSubmatch(out), pgbenchTPS.FindSubmatch(out)
	if txs == nil || tps == nil {
		return fmt.Errorf("pgbench: no transactions or tps in: %s", out)
	}
	n, _ := strconv.ParseFloat(string(txs[1]), 64)
	rate, _ := strconv.ParseFloat(string(tps[1]), 64)
	if rate > 0 {
		s.elapsed += time.Duration(n / rate * float64(time.Second))
	}
	files, _ := filepath.Glob(filepath.Join(logs, "tx*"))
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// client_id transaction_no time script_no time_epoch time_us
			fields := strings.Fields(sc.Text())
			if len(fields) < 3 {
				continue
			}
			us, err := strconv.ParseInt(fields[2], 10, 64)
			if err != nil {
				continue
			}
			s.lat = append(s.lat, time.Duration(us)*time.Microsecond)
		}
		f.Close()
	}
	return nil
}

// inProcess runs a floor through database/sql, each statement prepared
// once, every row read to its end as raw bytes.
type inProcess struct {
	db    *sql.DB
	fl    *floor
	stmts []*sql.Stmt
	ids   []int // per statement, how many times it takes the id
}

func newInProcess(db *sql.DB, fl *floor) (*inProcess, error) {
	p := &inProcess{db: db, fl: fl}
	for _, s := range fl.stmts {
		st, err := db.Prepare(strings.ReplaceAll(s, idToken, "?"))
		if err != nil {
			return nil, fmt.Errorf("prepare %s: %w", s, err)
		}
		p.stmts = append(p.stmts, st)
		p.ids = append(p.ids, strings.Count(s, idToken))
	}
	return p, nil
}

func (p *inProcess) window(s *sample, concurrency int, w time.Duration) error {
	s.load(concurrency, w, p.once)
	return nil
}

func (p *inProcess) once(ctx context.Context, _ int) error {
	id := rand.Int64N(p.fl.ids) + 1
	var tx *sql.Tx
	if p.fl.tx {
		var err error
		if tx, err = p.db.BeginTx(ctx, nil); err != nil {
			return err
		}
		defer tx.Rollback()
	}
	for i, st := range p.stmts {
		if tx != nil {
			st = tx.StmtContext(ctx, st)
		}
		args := make([]any, p.ids[i])
		for j := range args {
			args[j] = id
		}
		rs, err := st.QueryContext(ctx, args...)
		if err != nil {
			return err
		}
		cols, _ := rs.Columns()
		raw := make([]sql.RawBytes, len(cols))
		dest := make([]any, len(cols))
		for j := range raw {
			dest[j] = &raw[j]
		}
		for rs.Next() {
			if err := rs.Scan(dest...); err != nil {
				rs.Close()
				return err
			}
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return err
		}
	}
	if tx != nil {
		return tx.Commit()
	}
	return nil
}

// selfChecked is the guarded route's floor: the same handler, doing the
// session check itself (the guard's statement, prepared) before its row.
func selfChecked(db *bun.DB, session string, next http.Handler) (http.Handler, error) {
	st, err := db.DB.Prepare(session)
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var role, scopes, scopeValues sql.NullString
		var tv, banned int64
		if err := st.QueryRowContext(r.Context()).Scan(&role, &scopes, &scopeValues, &tv, &banned); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		next.ServeHTTP(w, r)
	}), nil
}

// hand is a request as a Go programmer would serve it by hand, a
// reference for the panel's: its statement (events with their players'
// labels) prepared once through database/sql, the rows scanned into a
// struct and written by encoding/json. where narrows the page, taking
// arg(i) of the request's i parameter when it has a placeholder; one
// answers the first row as an object, as a read by id does. Wrap it in
// selfChecked for the session check.
func hand(db *bun.DB, where string, arg func(i int64) any, one bool) (http.Handler, error) {
	if db.Dialect().Name() == dialect.PG {
		where = strings.ReplaceAll(where, "?", "$1")
	}
	stmt := `SELECT e.id, e.user_id, e.name, e.payload, e.created_at, COALESCE(NULLIF(u.display_name, ''), NULLIF(u.email, ''))
		FROM game_analytics_events AS e LEFT JOIN game_users AS u ON u.id = e.user_id`
	if where != "" {
		stmt += " WHERE " + where
	}
	page, err := db.DB.Prepare(stmt + " ORDER BY e.id DESC LIMIT 100")
	if err != nil {
		return nil, err
	}
	type event struct {
		ID        int64           `json:"id"`
		UserID    *string         `json:"user_id"`
		Name      string          `json:"name"`
		Payload   json.RawMessage `json:"payload"`
		CreatedAt time.Time       `json:"created_at"`
		Label     *string         `json:"user_id_label"`
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fail := func(err error) { http.Error(w, err.Error(), http.StatusInternalServerError) }
		var args []any
		if arg != nil {
			i, _ := strconv.ParseInt(r.URL.Query().Get("i"), 10, 64)
			args = append(args, arg(i))
		}
		rs, err := page.QueryContext(r.Context(), args...)
		if err != nil {
			fail(err)
			return
		}
		defer rs.Close()
		out := make([]event, 0, 100)
		for rs.Next() {
			var e event
			var payload []byte
			if err := rs.Scan(&e.ID, &e.UserID, &e.Name, &payload, &e.CreatedAt, &e.Label); err != nil {
				fail(err)
				return
			}
			e.Payload = payload
			out = append(out, e)
		}
		if err := rs.Err(); err != nil {
			fail(err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if !one {
			json.NewEncoder(w).Encode(out)
			return
		}
		if len(out) == 0 {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(out[0])
	}), nil
}
