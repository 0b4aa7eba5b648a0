// Command bench measures the panel's list, read, create, guard and login
// endpoints over loopback against a seeded events table, next to a
// baseline measured in the same run, in windows alternating with the
// scenario's: the same query through the same *bun.DB without HTTP or
// auth.
//
//	go run ./bench -db sqlite:/tmp/bench.db -rows 1000000
//	go run ./bench -db postgres://postgres@127.0.0.1:5432/bench?sslmode=disable -rows 10000000
//	go run ./bench -db mysql://root@127.0.0.1:3306/bench -rows 1000000
//
// With -game it measures the game's side instead (game.go): the ticks of
// a room server embedding the panel and its bot players' message gaps,
// idle and under the operators' work.
//
//	go run ./bench -game -db sqlite:/tmp/bench.db -rows 200000 -rooms 50 -bots 1000 -window 10s
//
// It replaces the rows of game_analytics_events (and adds an operator to
// game_users): point it at a scratch database.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	_ "modernc.org/sqlite"

	admin "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/live"
)

func main() {
	dsn := flag.String("db", "sqlite:bench.db", "database: sqlite:PATH, a postgres:// URL or a mysql://USER[:PASS]@HOST[:PORT]/DATABASE URL (MariaDB or MySQL; its game_analytics_events rows are replaced)")
	rows := flag.Int64("rows", 100_000, "events to seed")
	duration := flag.Duration("duration", 5*time.Second, "time each scenario and baseline runs")
	concurrency := flag.Int("concurrency", 8, "concurrent clients")
	asJSON := flag.Bool("json", false, "print the results as JSON")
	reuse := flag.Bool("reuse", false, "keep the events when the table already holds -rows of them")
	only := flag.String("only", "", "run only the scenarios whose name contains this")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the scenarios to this file")
	createDB := flag.String("create-db", "", "PostgreSQL, MariaDB: create this database through -db, run in it, and drop it afterwards")
	argon := flag.String("argon2id", "", "the panel's argon2id cost as MEMORY_KIB,TIME (default: the library's)")
	clients := flag.String("clients", "internal", "where the requests of the panel's API come from: internal (goroutines of this process) or external (a child process, so that the CPU per request is the server's and the clients' CPU sets no ceiling)")
	child := flag.Bool("load-child", false, "internal: run as -clients external's child, reading its load on stdin")
	game := flag.Bool("game", false, "measure the game's side instead of the requests: a room server in this process, bot sockets in a child, the panel's operators' work in windows (docs/performance.md, The game's side); -concurrency is the operators paging")
	var g gameConfig
	flag.IntVar(&g.rooms, "rooms", 50, "-game: arena rooms, each ticking at 20 Hz")
	flag.IntVar(&g.bots, "bots", 1000, "-game: bot sockets over the arena rooms (and one more in the big room)")
	flag.IntVar(&g.entities, "entities", 5000, "-game: entities in the big room's state")
	flag.DurationVar(&g.window, "window", 10*time.Second, "-game: the length of each window")
	botsChildFlag := flag.Bool("bots-child", false, "internal: run as -game's bots, reading their sockets on stdin")
	operatorsChildFlag := flag.Bool("operators-child", false, "internal: run as -game's operators, reading their work on stdin")
	flag.IntVar(&dbConcurrency, "db-concurrency", 0, "the panel's Options.DatabaseConcurrency (0: its default, negative: no bound and no pauses)")
	flag.StringVar(&sqliteTuning, "sqlite-pragmas", sqliteTuning, "SQLite: the pragmas beside WAL, busy_timeout, synchronous and foreign_keys, comma-separated (\"\" for none): the README's recommended ones by default")
	flag.Parse()
	log.SetFlags(0)
	if *botsChildFlag {
		if err := botsChild(); err != nil {
			log.Fatalf("bench bots child: %v", err)
		}
		return
	}
	if *operatorsChildFlag {
		if err := operatorsChild(); err != nil {
			log.Fatalf("bench operators child: %v", err)
		}
		return
	}
	if *child {
		if err := loadChild(); err != nil {
			log.Fatalf("bench load child: %v", err)
		}
		return
	}
	if *clients != "internal" && *clients != "external" {
		log.Fatalf("bench: -clients %q: want internal or external", *clients)
	}
	defer func() { os.Exit(exit) }() // last, after the database is dropped
	if *createDB != "" {
		drop, err := scratchDB(*dsn, *createDB)
		if err != nil {
			log.Fatalf("bench: %v", err)
		}
		defer drop()
		u, _ := url.Parse(*dsn)
		u.Path = "/" + *createDB
		*dsn = u.String()
	}
	var hasher admin.PasswordHasher
	if *argon != "" {
		var h admin.Argon2id
		if _, err := fmt.Sscanf(*argon, "%d,%d", &h.Memory, &h.Time); err != nil {
			log.Fatalf("bench: -argon2id %q: want MEMORY_KIB,TIME", *argon)
		}
		hasher = h
	}
	var gp *gameConfig
	if *game {
		if g.rooms < 1 || g.bots < g.rooms || g.window <= 0 {
			log.Fatalf("bench: -game wants -rooms >= 1, -bots >= -rooms and a positive -window")
		}
		gp = &g
	}
	if err := run(*dsn, *rows, *duration, *concurrency, *asJSON, *reuse, *only, *cpuprofile, hasher, *clients == "external", gp); err != nil {
		log.Printf("bench: %v", err)
		exit = 1
	}
}

// exit is the status main's deferred cleanups end with.
var exit int

// scratchDB creates the PostgreSQL or MariaDB database name (dropping a
// leftover one) through dsn's server, and returns its drop.
func scratchDB(dsn, name string) (drop func(), err error) {
	ctx := context.Background()
	if isMySQL(dsn) {
		return scratchMySQL(ctx, dsn, name)
	}
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
	db := bun.NewDB(sqldb, pgdialect.New())
	if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS ? WITH (FORCE)", bun.Ident(name)); err != nil {
		db.Close()
		return nil, err
	}
	if _, err := db.ExecContext(ctx, "CREATE DATABASE ?", bun.Ident(name)); err != nil {
		db.Close()
		return nil, err
	}
	return func() {
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS ? WITH (FORCE)", bun.Ident(name)); err != nil {
			log.Printf("bench: drop database %s: %v", name, err)
		}
		db.Close()
	}, nil
}

// dbConcurrency is -db-concurrency: the panel's Options.DatabaseConcurrency.
var dbConcurrency int

// sqliteTuning are the SQLite pragmas the README recommends beside WAL
// and the rest (-sqlite-pragmas).
var sqliteTuning = "mmap_size(268435456),cache_size(-500)"

// openDB opens the database as the README recommends: for SQLite, WAL,
// memory-mapped reads, a pool of connections and IMMEDIATE write
// transactions; for MariaDB, times in UTC, utf8mb4 (openMySQL).
func openDB(dsn string, conns int) (*bun.DB, error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		tuning := ""
		for p := range strings.SplitSeq(sqliteTuning, ",") {
			if p = strings.TrimSpace(p); p != "" {
				tuning += "&_pragma=" + p
			}
		}
		sqldb, err := sql.Open("sqlite", "file:"+strings.TrimPrefix(dsn, "sqlite:")+
			"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)"+tuning+"&_txlock=immediate")
		if err != nil {
			return nil, err
		}
		sqldb.SetMaxOpenConns(conns)
		sqldb.SetMaxIdleConns(conns)
		return bun.NewDB(sqldb, sqlitedialect.New()), nil
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
		sqldb.SetMaxOpenConns(conns)
		sqldb.SetMaxIdleConns(conns)
		return bun.NewDB(sqldb, pgdialect.New()), nil
	case isMySQL(dsn):
		return openMySQL(dsn, conns)
	}
	return nil, fmt.Errorf("-db %q: want sqlite:PATH, a postgres:// URL or a mysql:// URL", dsn)
}

func run(dsn string, rows int64, d time.Duration, concurrency int, asJSON, reuse bool, only, cpuprofile string, hasher admin.PasswordHasher, external bool, game *gameConfig) error {
	ctx := context.Background()
	if rows < 1000 {
		return fmt.Errorf("-rows must be at least 1000")
	}
	db, err := openDB(dsn, concurrency+2)
	if err != nil {
		return err
	}
	defer db.Close()
	lookup := &signInQuery{}
	db = db.WithQueryHook(lookup)
	var (
		hub *live.Hub
		rt  admin.Rooms // nil unless -game: a nil *live.Hub is not
	)
	if game != nil {
		hub = gameHub(*game)
		defer hub.Close()
		rt = hub
	}
	a, err := admin.New(db, admin.Options{
		Rooms:          rt,
		Secret:         []byte("bench-secret-bench-secret-bench-secret"),
		Logger:         slog.New(&onceHandler{Handler: slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})}),
		PasswordHasher: hasher,
		RateLimit:      admin.RateLimitOptions{Login: admin.NoLimit{}, LoginFailuresPerEmail: admin.NoLimit{}, LoginFailuresPerNetwork: admin.NoLimit{}, PerIP: admin.NoLimit{}, Exports: admin.NoLimit{}},
		ExportMaxRows:  rows, // the export scenario downloads the whole table
		// One operator's clients run every scenario concurrently: the
		// per-operator bound on searches and exact counts would answer
		// most of them 429 instead of measuring them.
		QueryConcurrency:    -1,
		DatabaseConcurrency: dbConcurrency,
	})
	if err != nil {
		return err
	}
	defer a.Close()
	took, err := seed(ctx, db, rows, reuse)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	progress(asJSON, "seeded %d events in %s (%s)\n", rows, took.Round(time.Millisecond), db.Dialect().Name())
	if err := seedUsers(ctx, db, rows); err != nil {
		return fmt.Errorf("seed users: %w", err)
	}
	email, password, operatorID, err := operator(ctx, db, a)
	if err != nil {
		return fmt.Errorf("operator: %w", err)
	}

	mux := http.NewServeMux()
	a.Mount(mux)
	if hub != nil {
		mux.Handle("/ws/", http.StripPrefix("/ws/", hub))
	}
	one := oneRow(db, rows)
	mux.Handle("/plain", one)
	mux.Handle("/guarded", admin.Guard(admin.GuardOptions{Admin: a, APIOnly: true})(one))
	fl := newFloors(db, operatorID, rows)
	self, err := selfChecked(db, fl.session, one)
	if err != nil {
		return fmt.Errorf("the guarded route's floor: %w", err)
	}
	mux.Handle("/selfcheck", self)
	// The hand-written references (hand): the pages and the read the
	// panel's are judged by, each with the session check, over HTTP here.
	depth, cursors := offsetDepth(rows)
	for _, h := range []struct {
		path, where string
		arg         func(i int64) any
		one         bool
	}{
		{"/hand/page", "", nil, false},
		{"/hand/filtered", "e.name = 'purchase'", nil, false},
		{"/hand/cursor", "e.id < ?", func(i int64) any { return cursorID(rows, depth, i%cursors) }, false},
		{"/hand/read", "e.id = ?", func(i int64) any { return readID(rows, i) }, true},
	} {
		handler, err := hand(db, h.where, h.arg, h.one)
		if err != nil {
			return fmt.Errorf("the hand-written %s: %w", h.path, err)
		}
		checked, err := selfChecked(db, fl.session, handler)
		if err != nil {
			return fmt.Errorf("the hand-written %s: %w", h.path, err)
		}
		mux.Handle(h.path, checked)
	}
	if db.Dialect().Name() == dialect.PG {
		// The first page as PostgreSQL renders it: what a page costs
		// this process when it only copies the database's JSON.
		handler, err := handJSON(db)
		if err != nil {
			return fmt.Errorf("the hand-written page of PostgreSQL's JSON: %w", err)
		}
		checked, err := selfChecked(db, fl.session, handler)
		if err != nil {
			return fmt.Errorf("the hand-written page of PostgreSQL's JSON: %w", err)
		}
		mux.Handle("/hand/page-json", checked)
		// The first page read through pgx's own rows, written by hand:
		// what a page read in Go costs this process at the least.
		handler, closePgx, err := handPgx(dsn, concurrency+2)
		if err != nil {
			return fmt.Errorf("the hand-written page of pgx's rows: %w", err)
		}
		defer closePgx()
		if checked, err = selfChecked(db, fl.session, handler); err != nil {
			return fmt.Errorf("the hand-written page of pgx's rows: %w", err)
		}
		mux.Handle("/hand/page-pgx", checked)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()
	c := &client{hc: &http.Client{Transport: plainTransport(concurrency)}, base: "http://" + ln.Addr().String()}
	if c.cookie, err = c.login(ctx, email, password); err != nil {
		return err
	}

	resetPeakRSS()
	stopSampling := make(chan struct{})
	defer close(stopSampling)
	go samplePrivate(stopSampling)
	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if game != nil {
		return runGame(ctx, db, *game, hub, c.cookie, c.base, rows, concurrency, os.Stdout)
	}
	rep, err := scenarios(ctx, db, c, fl, dsn, rows, d, concurrency, email, password, only, asJSON, external)
	if err != nil {
		return err
	}
	rep.Rows, rep.Database, rep.Concurrency, rep.Duration = rows, db.Dialect().Name().String(), concurrency, d.String()
	rep.Clients = "internal"
	if external {
		rep.Clients = "external"
	}
	if rep.SignInPlan, rep.SignInIndexed, err = lookup.plan(ctx, db); err != nil {
		rep.SignInError = withCause(err)
	}
	rep.PeakRSSMiB, rep.PeakPrivateMiB = peakRSSMiB(), peakPrivateMiB()
	if only == "" || strings.Contains("export", only) {
		progress(asJSON, "export...\n")
		if rep.Exports, err = exports(ctx, c, rows); err != nil {
			rep.ExportError = withCause(err)
		}
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		rep.print(os.Stdout)
	}
	var failed []string
	if names := rep.failures(); len(names) > 0 {
		failed = append(failed, fmt.Sprintf("%d scenarios could not run (%s)", len(names), strings.Join(names, "; ")))
	}
	if rep.ExportError != "" {
		failed = append(failed, "the export failed")
	}
	if rep.SignInError != "" {
		failed = append(failed, "the sign-in plan could not be read")
	}
	if len(failed) > 0 {
		return fmt.Errorf("on %s: %s (above)", rep.Database, strings.Join(failed, ", "))
	}
	return nil
}

func progress(quiet bool, format string, args ...any) {
	if !quiet {
		fmt.Fprintf(os.Stderr, format, args...)
	}
}

// operator adds an admin with a fresh email and returns its credentials
// and id.
func operator(ctx context.Context, db *bun.DB, a *admin.Admin) (email, password, id string, err error) {
	email = fmt.Sprintf("bench-%d@example.com", time.Now().UnixNano())
	password = "correct horse battery"
	hash, err := a.Auth().HashPassword(ctx, password)
	if err != nil {
		return "", "", "", err
	}
	u := &admin.User{Email: email, PasswordHash: hash}
	if _, err := db.NewInsert().Model(u).Exec(ctx); err != nil {
		return "", "", "", err
	}
	return email, password, u.ID, a.Moderation().SetRole(ctx, u.ID, admin.RoleAdmin)
}

// oneRow answers one event, chosen by the i query parameter, as JSON: the
// route the guard benchmark wraps.
func oneRow(db *bun.DB, rows int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev admin.AnalyticsEvent
		id := int64(1)
		fmt.Sscan(r.URL.Query().Get("i"), &id)
		if err := db.NewSelect().Model(&ev).Where("id = ?", id%rows+1).Scan(r.Context()); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(ev)
	})
}

// login signs in and returns the session cookie.
func (c *client) login(ctx context.Context, email, password string) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, "POST", c.base+"/admin-api/auth/login",
		stringsReader(fmt.Sprintf(`{"email":%q,"password":%q}`, email, password)))
	req.Header.Set("Content-Type", "application/json")
	res, err := c.hc.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	io.Copy(io.Discard, res.Body)
	if res.StatusCode != 200 {
		return "", fmt.Errorf("login: %s", res.Status)
	}
	for _, ck := range res.Cookies() {
		if ck.Name == "game_admin_session" {
			return ck.Name + "=" + ck.Value, nil
		}
	}
	return "", fmt.Errorf("login: no session cookie")
}

func stringsReader(s string) io.Reader { return strings.NewReader(s) }

// resetPeakRSS starts the peak RSS afresh (Linux), and the private
// peak, so seeding is not counted.
func resetPeakRSS() {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	privatePeakKB.Store(0)
}

// peakRSSMiB is the process's peak resident set (Linux VmHWM), or 0.
// It counts the pages of a memory-mapped SQLite file once per
// connection that maps them, though they are the kernel's page cache,
// shared and reclaimable: peakPrivateMiB is the memory the process
// holds of its own.
func peakRSSMiB() float64 { return statusKB("VmHWM:") / 1024 }

// privatePeakKB is the largest RssAnon sampled since resetPeakRSS.
var privatePeakKB atomic.Int64

// samplePrivate records RssAnon (the process's private resident memory:
// heap, stacks, SQLite's page caches) every 20 ms until stop closes.
func samplePrivate(stop <-chan struct{}) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		kb := int64(statusKB("RssAnon:"))
		for {
			old := privatePeakKB.Load()
			if kb <= old || privatePeakKB.CompareAndSwap(old, kb) {
				break
			}
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// peakPrivateMiB is the largest private resident set sampled since
// resetPeakRSS (samplePrivate).
func peakPrivateMiB() float64 { return float64(privatePeakKB.Load()) / 1024 }

// statusKB is a kB field of /proc/self/status, or 0.
func statusKB(field string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			var kb float64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kb)
			return kb
		}
	}
	return 0
}

// withCause is err's text on one line, with the panel's cause of the
// failed request it names.
func withCause(err error) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if c := cause(msg); c != "" {
		msg += " (the panel's error: " + c + ")"
	}
	return msg
}

// onceHandler writes each distinct error the panel logs once (a failed
// request's cause: why a scenario failed), not once per request, and
// keeps each failed request's cause by its id for the report (cause).
type onceHandler struct {
	slog.Handler
	seen sync.Map
}

// causes are the errors of the panel's failed requests by request id,
// and of its failed dashboard widgets by "widget " and the widget's id.
var causes sync.Map

// cause is the error the panel logged for the failed request whose
// answer is body, or "".
func cause(body string) string {
	_, id, ok := strings.Cut(body, `"requestId":"`)
	if !ok {
		return ""
	}
	id, _, _ = strings.Cut(id, `"`)
	if err, ok := causes.Load(id); ok {
		return err.(string)
	}
	return ""
}

func (h *onceHandler) Handle(ctx context.Context, r slog.Record) error {
	key, id, err := r.Message, "", ""
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "requestId":
			id = a.Value.String()
		case "widget": // a dashboard widget's failure
			id = "widget " + a.Value.String()
			key += " " + a.String()
		case "path": // a PATCH's names its row
		case "err":
			err = a.Value.String()
			fallthrough
		default:
			key += " " + a.String()
		}
		return true
	})
	if id != "" && err != "" {
		causes.Store(id, err)
	}
	if _, dup := h.seen.LoadOrStore(key, true); dup {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}
