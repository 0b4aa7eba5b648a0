// Command existingbackend is a game backend that had its own players
// table, migrations, router and sign-in before it took the admin panel in
// (docs/adopting.md):
//
//   - the panel signs operators in from the game's players table (bigint
//     ids, the game's own column names: Options.UserColumns), whose
//     bcrypt hashes, mixed-case emails and NOT NULL password column it
//     leaves as the game's own login (/api/login) expects them;
//   - its tables (ops_*) are created by the game's migration runner from
//     admin.MigrationSQL, and New only checks them (MigrateOff);
//   - a chi router mounts it at /ops/admin with its API at /ops/admin-api,
//     beside the game's routes, one of which (/ops/economy) only admins
//     reach through a.Guard;
//   - the game's sign-in hands operators a panel session with
//     a.Auth().StartSession: here a fake SSO callback,
//     /sso/callback?user=<email>&sig=<hex HMAC-SHA256 of the email under
//     -sso-secret>, standing in for a real identity provider.
//
// Run it on SQLite or PostgreSQL:
//
//	go run ./examples/existingbackend                      # SQLite file existingbackend.db, :8080
//	go run ./examples/existingbackend -db 'postgres://postgres@127.0.0.1:5432/test?sslmode=disable'
//
// Then open http://localhost:8080/ops/admin/ and create the first admin,
// or sign in through the fake SSO (SSO_SECRET=s3cret in the environment):
//
//	sig=$(printf %s ops@example.com | openssl dgst -sha256 -hmac s3cret -r | cut -d' ' -f1)
//	open "http://localhost:8080/sso/callback?user=ops@example.com&sig=$sig"
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/gameadmin/admin"
	"github.com/go-chi/chi/v5"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	_ "modernc.org/sqlite"
)

func main() {
	addr := flag.String("addr", ":8080", "listen address")
	dsn := flag.String("db", "sqlite:existingbackend.db", "database: sqlite:PATH or a postgres:// URL")
	secret := flag.String("sso-secret", os.Getenv("SSO_SECRET"), "the fake SSO's HMAC secret (default $SSO_SECRET; empty: /sso/callback refuses everyone)")
	firstAdmin := flag.String("first-admin", "", "create the panel's first admin with this email (password from $FIRST_ADMIN_PASSWORD) and start")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(*addr, *dsn, []byte(*secret), *firstAdmin, log); err != nil {
		log.Error("existingbackend", "err", err)
		os.Exit(1)
	}
}

func run(addr, dsn string, ssoSecret []byte, firstAdmin string, log *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	db, err := openDB(dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	// The game migrates first, as it always has; the panel only checks.
	if err := migrate(ctx, db, panelOptions(db, log)); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	handler, a, err := setup(db, ssoSecret, log)
	if err != nil {
		return err
	}
	defer a.Close()
	// A scripted deployment's first admin: no setup link to open.
	if firstAdmin != "" {
		id, err := a.CreateFirstAdmin(ctx, firstAdmin, os.Getenv("FIRST_ADMIN_PASSWORD"), "")
		switch {
		case errors.Is(err, admin.ErrBootstrapClosed):
			log.Info("-first-admin: an admin exists already; nothing created")
		case err != nil:
			return fmt.Errorf("-first-admin: %w", err)
		default:
			log.Info("first admin created", "userId", id)
		}
	}
	srv := &http.Server{Addr: addr, Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	host := addr
	if strings.HasPrefix(host, ":") {
		host = "localhost" + host
	}
	if len(ssoSecret) == 0 {
		log.Warn("fake SSO off: set -sso-secret or SSO_SECRET to sign in through /sso/callback")
	}
	log.Info("game backend ready", "panel", "http://"+host+"/ops/admin/")
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

// panelOptions is the panel's configuration: the game's players table is
// its users table, the panel's own tables are named ops_*, and it lives
// under /ops/ like the game's other operator pages. The same
// Options give the migration its DDL and New its schema check, so the
// two cannot disagree.
func panelOptions(db *bun.DB, log *slog.Logger) admin.Options {
	return admin.Options{
		Logger:      log,
		TablePrefix: "ops_",
		Migrations:  admin.MigrateOff,
		Tables: map[string]any{
			"users":      (*Player)(nil),
			"userNotes":  (*admin.UserNote)(nil), // operators' notes about players
			"roles":      (*admin.RoleAssignment)(nil),
			"adminAudit": (*admin.AuditEntry)(nil),
		},
		UserColumns: admin.UserColumns{PasswordHash: "pw_hash", DisplayName: "nickname", Ban: "banned", TokenVersion: "token_gen"},
		// The game's own login checks bcrypt; every hash the panel writes
		// (bootstrap, reset, invite, password change, a new player's
		// password) is then one it accepts. No stored hash changes scheme.
		PasswordHasher: admin.Bcrypt{},
		Resources:      map[string]*admin.Resource{"users": playersResource(db)},
		UIPath:         "/ops/admin",
		APIPath:        "/ops/admin-api",
	}
}

// setup builds the game's chi router: the panel mounted, unstripped, at
// /ops/admin and /ops/admin-api, the game's public API, /ops/economy for
// admins only, and the SSO callback.
func setup(db *bun.DB, ssoSecret []byte, log *slog.Logger) (http.Handler, *admin.Admin, error) {
	a, err := admin.New(db, panelOptions(db, log))
	if err != nil {
		return nil, nil, err
	}
	r := chi.NewRouter()
	r.Mount(a.UIPath(), a)
	r.Mount(a.APIPath(), a)
	r.With(admin.Guard(admin.GuardOptions{Admin: a, APIOnly: true})).Get("/ops/economy", economy(db))
	r.Get("/api/players/{id}", publicProfile(db))
	r.Post("/api/login", playerLogin(db))
	r.Get("/sso/callback", ssoCallback(db, a, ssoSecret))
	return r, a, nil
}

// openDB opens sqlite:PATH (embedded, pure Go) or a postgres:// URL.
func openDB(dsn string) (*bun.DB, error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		sqldb, err := sql.Open("sqlite", "file:"+strings.TrimPrefix(dsn, "sqlite:")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate")
		if err != nil {
			return nil, err
		}
		sqldb.SetMaxOpenConns(1)
		return bun.NewDB(sqldb, sqlitedialect.New()), nil
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
		sqldb.SetMaxOpenConns(10)
		return bun.NewDB(sqldb, pgdialect.New()), nil
	}
	return nil, fmt.Errorf("-db %q: want sqlite:PATH or a postgres:// URL", dsn)
}
