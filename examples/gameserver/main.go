// Command gameserver is the demo game server: it mounts the admin panel on
// its own mux, protects its other routes with the panel's guard, and runs
// on embedded SQLite by default.
//
//	go run ./examples/gameserver                 # SQLite file gameserver.db, :8080
//	go run ./examples/gameserver -seed           # fill demo data first
//	go run ./examples/gameserver -db 'postgres://postgres@127.0.0.1:5432/test?sslmode=disable'
//	go run ./examples/gameserver -db 'mysql://root@127.0.0.1:3306/game'   # MariaDB or MySQL
//	go run ./examples/gameserver -db 'postgres://...' -redis redis://127.0.0.1:6379 -node a   # one of several nodes
//
// The session secret comes from ADMIN_JWT_SECRET; without it sessions end
// when the process restarts. ADMIN_WEBHOOK_URL, a Discord or Slack
// incoming webhook, receives a line for every ban, erasure and player
// past five open reports.
package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/gameadmin/admin"
	"github.com/gameadmin/admin/live"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	_ "modernc.org/sqlite"
)

func main() {
	addr := flag.String("addr", ":8080", "listen address")
	dsn := flag.String("db", "sqlite:gameserver.db", "database: sqlite:PATH, a postgres:// URL or a mysql:// URL")
	seed := flag.Bool("seed", false, "fill the database with demo data")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(*addr, *dsn, *seed, log); err != nil {
		log.Error("gameserver", "err", err)
		os.Exit(1)
	}
}

func run(addr, dsn string, seed bool, log *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	db, err := openDB(dsn)
	if err != nil {
		return err
	}
	defer db.Close()

	handler, a, stopGame, err := setup(ctx, db, seed, log)
	if err != nil {
		return err
	}
	defer stopGame()

	srv := newServer(addr, handler)
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	host := addr
	if strings.HasPrefix(host, ":") {
		host = "localhost" + host
	}
	log.Info("admin panel ready", "url", "http://"+host+"/admin/", "api", "http://"+host+"/admin-api/auth/status")
	// The panel logged its setup link site-relative; this one opens in a
	// terminal with a click.
	if link := a.SetupLink(ctx); link != "" {
		log.Warn("no admin yet: open this link to create the first one", "url", "http://"+host+link)
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newServer bounds what one client can hold: a slow body, a slow reader
// and an idle keep-alive connection all end. WebSocket connections are not
// cut by these: gorilla/websocket clears the server's deadlines when it
// takes the connection over, and the hub sets its own (PongTimeout,
// WriteTimeout).
func newServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second, // headers and body
		WriteTimeout:      30 * time.Second, // from the end of the headers to the end of the answer
		IdleTimeout:       60 * time.Second, // between keep-alive requests
		MaxHeaderBytes:    64 << 10,
	}
}

// setup builds the game: its guilds table, the live arena, player sign-in,
// and the panel mounted beside them with /monitor for admins and
// /playground for mods. The returned stop closes the rooms and the panel.
func setup(ctx context.Context, db *bun.DB, seed bool, log *slog.Logger) (http.Handler, *admin.Admin, func(), error) {
	p := &players{db: db, secret: playerSecret()}
	// UserStates re-checks live players against the panel every 30 s and
	// when Redis comes back: a ban made on another node during an outage
	// still closes their socket here.
	hub := live.NewHub(live.Options{Authenticate: p.authenticate, IsBanned: p.isBanned, UserStates: p.userStates, Logger: log})
	hub.Define("arena", arenaRoom(func(rep admin.Report) {
		a := p.panel.Load()
		if a == nil {
			return // the panel is not up yet
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		// A refused report (rate limited, unknown category) is the
		// player's mistake: logged, not fatal.
		if _, err := a.FileReport(ctx, rep); err != nil {
			log.Info("arena: report refused", "reporter", rep.ReporterID, "err", err)
		}
	}))
	cl, err := startCluster(hub, log) // nil without -redis
	if err != nil {
		hub.Close()
		return nil, nil, nil, err
	}

	tables := admin.BuiltinTables()
	tables["users"] = (*Player)(nil)
	tables["guilds"] = (*Guild)(nil)
	tables["steam_accounts"] = (*SteamAccount)(nil)
	tables["matches"] = (*Match)(nil)
	tables["map_stats"] = (*MapStat)(nil)
	tables["chat_log"] = (*ChatLine)(nil)
	opts := admin.Options{
		Secret:     []byte(os.Getenv("ADMIN_JWT_SECRET")),
		SetupToken: os.Getenv("ADMIN_SETUP_TOKEN"), // a cluster's nodes share one
		Production: os.Getenv("APP_ENV") == "production",
		Logger:     log,
		Tables:     tables,
		// Players and staff sign in by username or email.
		UserColumns: userColumns,
		Resources: map[string]*admin.Resource{"users": usersResource(), "guilds": guildsResource(db), "steam_accounts": steamResource(),
			"matches": matchesResource(), "map_stats": mapStatsResource(), "chat_log": chatLogResource()},
		Rooms: hub,
		// The dashboard counts players and guilds; the other tables are
		// one click away in the sidebar.
		DashboardTotals: []string{"users", "guilds"},
		// Players report each other from the game; moderators work the
		// reports in the panel's queue.
		ReportCategories: []admin.ReportCategory{
			{Key: "cheating", Label: "Cheating", Evidence: "row", Resource: "matches"},
			{Key: "abuse", Label: "Abuse", Evidence: "text"},
			{Key: "name", Label: "Offensive name"},
		},
	}
	cl.configure(&opts)
	if opts.OnAudit, err = webhookSink(log); err != nil {
		cl.close()
		hub.Close()
		return nil, nil, nil, err
	}
	// The game's tables exist before New, which reads their columns
	// from the database (that map_stats is a view, the treasury's
	// scale). guilds.owner_id references the users table, so the panel's
	// own tables come first: MigrationSQL's statements are idempotent,
	// and New then finds every step recorded.
	if err := migrateBefore(ctx, db, opts); err != nil {
		cl.close()
		hub.Close()
		return nil, nil, nil, err
	}
	a, err := admin.New(db, opts)
	if err != nil {
		cl.close()
		hub.Close()
		return nil, nil, nil, err
	}
	p.admin = a
	p.panel.Store(a)
	stop := func() {
		cl.close()
		hub.Close()
		a.Close()
	}
	if seed {
		if err := seedDemo(ctx, db, a); err != nil {
			stop()
			return nil, nil, nil, fmt.Errorf("seed: %w", err)
		}
		log.Info("demo data seeded")
	}
	mux := http.NewServeMux()
	a.Mount(mux)
	mux.Handle("/monitor", admin.Guard(admin.GuardOptions{Admin: a})(http.HandlerFunc(monitor(db))))
	mux.Handle("/playground", admin.Guard(admin.GuardOptions{Admin: a, Role: admin.RoleMod})(http.HandlerFunc(playground)))
	mux.HandleFunc("POST /api/auth/login", p.handleLogin)
	mux.Handle("/ws/", http.StripPrefix("/ws/", hub))
	return mux, a, stop, nil
}

// webhookSink posts bans, erasures and players past five open reports to
// the Discord or Slack incoming webhook ADMIN_WEBHOOK_URL, linking to the
// panel at ADMIN_PANEL_URL (default http://localhost:8080/admin). Without
// the variable it is nil: no posts. The URL is a secret: an error names
// its host only.
func webhookSink(log *slog.Logger) (func(context.Context, admin.AuditEvent), error) {
	hook := os.Getenv("ADMIN_WEBHOOK_URL")
	if hook == "" {
		return nil, nil
	}
	u, err := url.Parse(hook)
	if err != nil || u.Scheme != "https" {
		return nil, errors.New("ADMIN_WEBHOOK_URL is not an https URL")
	}
	var kind admin.WebhookKind
	switch u.Hostname() {
	case "discord.com", "discordapp.com":
		kind = admin.Discord
	case "hooks.slack.com":
		kind = admin.Slack
	default:
		return nil, fmt.Errorf("ADMIN_WEBHOOK_URL: host %q is neither discord.com nor hooks.slack.com", u.Hostname())
	}
	panel := os.Getenv("ADMIN_PANEL_URL")
	if panel == "" {
		panel = "http://localhost:8080/admin"
	}
	log.Info("moderation events go to a webhook", "kind", kind, "host", u.Hostname())
	return admin.WebhookSink(admin.WebhookOptions{URL: hook, Kind: kind, PanelURL: panel, Logger: log}), nil
}

// migrateBefore creates the panel's built-in tables and then the game's.
func migrateBefore(ctx context.Context, db *bun.DB, opts admin.Options) error {
	stmts, err := admin.MigrationSQL(db.Dialect(), builtinUsers(opts))
	if err != nil {
		return fmt.Errorf("migrate the panel's tables: %w", err)
	}
	for _, st := range stmts {
		if _, err := db.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("migrate the panel's tables: %w", err)
		}
	}
	if err := migrateUsernames(ctx, db); err != nil {
		return fmt.Errorf("migrate usernames: %w", err)
	}
	if err := migrateMatches(ctx, db); err != nil {
		return fmt.Errorf("migrate matches: %w", err)
	}
	if err := migrateGuilds(ctx, db); err != nil {
		return fmt.Errorf("migrate guilds: %w", err)
	}
	if err := migrateSteam(ctx, db); err != nil {
		return fmt.Errorf("migrate steam_accounts: %w", err)
	}
	return nil
}

// playerSecret keys the game's player tokens: derived from
// ADMIN_JWT_SECRET so one secret configures the demo, but never the
// panel's own key.
func playerSecret() []byte {
	s := os.Getenv("ADMIN_JWT_SECRET")
	if s == "" {
		s = rand.Text()
	}
	sum := sha256.Sum256([]byte("gameserver player tokens:" + s))
	return sum[:]
}

// limiterKey keys the Redis limiters' bucket names, derived from
// ADMIN_JWT_SECRET like playerSecret, so that every node has the same one
// (without the secret each node would have its own, and buckets would not
// be shared: the demo then keys with plain SHA-256).
func limiterKey() []byte {
	s := os.Getenv("ADMIN_JWT_SECRET")
	if s == "" {
		return nil
	}
	sum := sha256.Sum256([]byte("gameserver limiter keys:" + s))
	return sum[:]
}

// openDB opens sqlite:PATH (embedded, pure Go), a postgres:// URL or a
// mysql:// URL (MariaDB or MySQL).
func openDB(dsn string) (*bun.DB, error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		path := strings.TrimPrefix(dsn, "sqlite:")
		// WAL lets readers run beside the writer, so the pool serves lists
		// concurrently; write transactions begin IMMEDIATE and wait their
		// turn under busy_timeout instead of failing with SQLITE_BUSY.
		sqldb, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_pragma=mmap_size(268435456)&_pragma=cache_size(-500)&_txlock=immediate")
		if err != nil {
			return nil, err
		}
		sqldb.SetMaxOpenConns(8)
		sqldb.SetMaxIdleConns(8)
		return bun.NewDB(sqldb, sqlitedialect.New()), nil
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
		// database/sql opens connections without limit by default: a flood
		// would open one per request until PostgreSQL refuses them all.
		sqldb.SetMaxOpenConns(20)
		sqldb.SetMaxIdleConns(10)
		sqldb.SetConnMaxIdleTime(5 * time.Minute)
		return bun.NewDB(sqldb, pgdialect.New()), nil
	case strings.HasPrefix(dsn, "mysql://"):
		return openMySQL(dsn)
	}
	return nil, fmt.Errorf("-db %q: want sqlite:PATH, a postgres:// URL or a mysql:// URL", dsn)
}

// monitor is an admin-only page of the game's own.
func monitor(db *bun.DB) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		op, _ := admin.OperatorFrom(r.Context())
		users, err := db.NewSelect().Model((*admin.User)(nil)).Count(r.Context())
		if err != nil {
			http.Error(w, "database unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"operator":%q,"role":%q,"users":%d}`+"\n", op.UserID, op.Role, users)
	}
}

// playground is open to mods and admins.
func playground(w http.ResponseWriter, r *http.Request) {
	op, _ := admin.OperatorFrom(r.Context())
	fmt.Fprintf(w, "playground: hello %s (%s)\n", op.UserID, op.Role)
}
