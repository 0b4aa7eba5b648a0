package account

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"net/http"
	"sync"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/stmtcache"
	"github.com/gameadmin/admin/internal/token"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// SessionCheck is the live session check every signed-in request runs
// (Verify). It runs the statement it reads the session with — the query
// of users.RoleTable.SessionState — as a prepared statement: database/sql
// prepares it once per pooled connection, so each request skips
// PostgreSQL's parse and plan (SQLite's prepare), which cost about as much
// as running it. It is still one statement per request, reading the token
// version and the role live: nothing is cached but the plan.
// Bun's query hooks do not see it.
//
// Any error of the prepared statement (the tables not migrated yet, a
// plan the database invalidated) drops it and answers through
// the plain query, which has the last word; the next request prepares
// again. After maxStmtFailures such errors where the plain query worked (a
// pooler that does not keep prepared statements, as PgBouncer in
// transaction mode before 1.21), it is not prepared again.
type SessionCheck struct {
	db     *bun.DB
	roles  *users.RoleTable
	tokens *Tokens
	stmts  *stmtcache.Cache // SQLite's statements, prepared per operator
	log    *slog.Logger
	// cookies are the session tokens already verified: a request's
	// cookie is decoded and its signature checked once, its expiry every
	// time.
	cookies token.Verified

	mu       sync.Mutex
	stmt     *sql.Stmt
	closed   bool // Close, or given up on
	failures int
}

// NewSessionCheck returns the check of the sessions tokens signs, read
// from the users and roles of roles. stmts keeps the panel's prepared
// statements (SQLite's session check is one per operator); logger hears
// when the prepared statement is given up on.
func NewSessionCheck(db *bun.DB, roles *users.RoleTable, tokens *Tokens, stmts *stmtcache.Cache, logger *slog.Logger) *SessionCheck {
	return &SessionCheck{db: db, roles: roles, tokens: tokens, stmts: stmts, log: logger,
		cookies: token.Verified{Signer: tokens.Signer, Kind: token.KindSession}}
}

// Verify verifies r's session cookie and re-reads the token version and
// role from the database: a revoked session fails at once and a new role
// applies on the next request. Any failure is ErrUnauthenticated;
// database errors are returned as they are.
func (s *SessionCheck) Verify(ctx context.Context, r *http.Request) (authz.Operator, error) {
	ck, err := r.Cookie(s.tokens.Session.CookieName)
	if err != nil {
		return authz.Operator{}, ErrUnauthenticated
	}
	c, err := s.cookies.Parse(ck.Value)
	if err != nil {
		return authz.Operator{}, ErrUnauthenticated
	}
	tv, op, err := s.state(ctx, c.UserID)
	switch {
	case errors.Is(err, users.ErrNotFound), errors.Is(err, users.ErrBanned):
		return authz.Operator{}, ErrUnauthenticated
	case err != nil:
		return authz.Operator{}, err
	case tv != c.TV:
		return authz.Operator{}, ErrUnauthenticated
	}
	return op, nil
}

// maxStmtFailures is how many times the prepared session statement may
// fail where the plain query works before the panel stops preparing it.
const maxStmtFailures = 5

// failed counts a failure of the prepared statement where the plain query
// worked, and reports whether it was the one that gave up on preparing.
func (s *SessionCheck) failed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures++
	if s.failures != maxStmtFailures || s.closed {
		return false
	}
	s.closed = true
	return true
}

// state is the session query through the prepared statement.
func (s *SessionCheck) state(ctx context.Context, userID string) (int64, authz.Operator, error) {
	if s.db.Dialect().Name() == dialect.SQLite {
		return s.stateByText(ctx, userID)
	}
	stmt := s.prepared(ctx)
	if stmt == nil {
		return s.roles.LiveSession(ctx, s.db, userID)
	}
	var row users.SessionRow
	err := stmt.QueryRowContext(ctx, userID).Scan(row.Dest()...)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, authz.Operator{}, users.ErrNotFound
	case err != nil:
		if ctx.Err() != nil {
			return 0, authz.Operator{}, err
		}
		s.drop(stmt)
		tv, op, plainErr := s.roles.LiveSession(ctx, s.db, userID)
		if plainErr == nil && s.failed() {
			s.log.Warn("admin: the session check's prepared statement keeps failing where the plain query works (PgBouncer in transaction mode?); using the plain query from now on", "err", err)
		}
		return tv, op, plainErr
	}
	return row.Live(userID)
}

// prepared is the statement, prepared on first use; nil when it cannot be
// (the fallback is the plain query). A failed Prepare counts as a failure of
// the statement: after maxStmtFailures the panel logs the cause and stops
// preparing, rather than trying again on every request.
func (s *SessionCheck) prepared(ctx context.Context) *sql.Stmt {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stmt != nil || s.closed {
		return s.stmt
	}
	// The session query, with a parameter for the id.
	param := bun.Safe("?")
	if s.db.Dialect().Name() == dialect.PG {
		param = bun.Safe("$1")
	}
	q := s.roles.SessionQuery(s.db, param)
	// The *sql.DB's own Prepare: bun would read the SQLite "?" as one of
	// its placeholders.
	stmt, err := s.db.DB.PrepareContext(ctx, q.String())
	if err != nil {
		if ctx.Err() == nil {
			if s.failures++; s.failures >= maxStmtFailures {
				s.closed = true
				s.log.Warn("admin: the session check cannot be prepared; using the plain query from now on", "err", err)
			}
		}
		return nil
	}
	s.stmt = stmt
	return stmt
}

// drop closes stmt if it is still the prepared statement.
func (s *SessionCheck) drop(stmt *sql.Stmt) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stmt == stmt {
		s.stmt = nil
		stmt.Close()
	}
}

// Close closes the statement for good (the panel's Close).
func (s *SessionCheck) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.stmt != nil {
		s.stmt.Close()
		s.stmt = nil
	}
}

// stateByText is the session query with the id in the statement's text,
// prepared per operator (s.stmts), which SQLite needs: once ANALYZE has
// sampled the users' indexes (STAT4), a statement with a bound id is
// prepared again on every run, so the planner can weigh the value. That
// was a third of a guarded request's time on a 1M-user table.
func (s *SessionCheck) stateByText(ctx context.Context, userID string) (int64, authz.Operator, error) {
	q := s.roles.SessionQuery(s.db, userID)
	rs, err := s.stmts.Query(ctx, q.String(), func() (*sql.Rows, error) { return q.Rows(ctx) })
	if err != nil {
		return 0, authz.Operator{}, err
	}
	defer rs.Close()
	if !rs.Next() {
		if err := rs.Err(); err != nil {
			return 0, authz.Operator{}, err
		}
		return 0, authz.Operator{}, users.ErrNotFound
	}
	var row users.SessionRow
	if err := rs.Scan(row.Dest()...); err != nil {
		return 0, authz.Operator{}, err
	}
	return row.Live(userID)
}
