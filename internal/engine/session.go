package engine

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/gameadmin/admin/internal/token"
	"github.com/gameadmin/admin/internal/users"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// resetTTL is the fixed lifetime of a password-reset token.
const resetTTL = 15 * time.Minute

// tokens signs and reads the panel's tokens and writes its cookies: the
// secret, the audience (the APIPath) and the session cookie's settings.
// The panel and Auth share one.
type tokens struct {
	signer  *token.Signer
	session SessionOptions
	secure  bool // the cookies' Secure flag
}

// setSessionCookie signs a session for userID at token version tv.
func (a *tokens) setSessionCookie(w http.ResponseWriter, userID string, role Role, tv int64) error {
	tok, err := a.signer.Sign(token.Claims{UserID: userID, Role: string(role), TV: tv, Kind: token.KindSession}, a.session.TTL)
	if err != nil {
		return err
	}
	http.SetCookie(w, a.cookie(tok, int(a.session.TTL/time.Second)))
	return nil
}

func (a *tokens) clearSessionCookie(w http.ResponseWriter) {
	http.SetCookie(w, a.cookie("", -1))
}

func (a *tokens) cookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name:     a.session.CookieName,
		Value:    value,
		Path:     "/",
		Domain:   a.session.Domain,
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   a.secure,
		SameSite: a.session.SameSite,
	}
}

// deviceCookie names the signed cookie of a browser that signed in to an
// account before (OWASP's "device cookies"): its sign-in attempts spend
// RateLimitOptions.LoginFailuresPerDevice instead of the account's
// buckets, so guesses from elsewhere cannot lock its owner out. It is sent
// to the sign-in endpoints only, and names the account, not the password:
// it is no credential.
const (
	deviceCookie = "game_admin_device"
	deviceTTL    = 180 * 24 * time.Hour
)

// device returns r's device cookie when the panel issued it and it has
// not expired, else nil.
func (a *tokens) device(r *http.Request) *token.Claims {
	ck, err := r.Cookie(deviceCookie)
	if err != nil {
		return nil
	}
	c, err := a.signer.Parse(ck.Value, token.KindDevice)
	if err != nil || c.ID == "" {
		return nil
	}
	return c
}

// setDeviceCookie marks the browser of a sign-in whose password was right
// as userID's device, unless it holds that account's cookie already.
func (a *tokens) setDeviceCookie(w http.ResponseWriter, held *token.Claims, userID string) error {
	if held != nil && held.UserID == userID {
		return nil
	}
	c := token.Claims{UserID: userID, Kind: token.KindDevice}
	c.ID = rand.Text()
	tok, err := a.signer.Sign(c, deviceTTL)
	if err != nil {
		return err
	}
	ck := a.cookie(tok, int(deviceTTL/time.Second))
	ck.Name, ck.Path = deviceCookie, a.signer.Audience+"/auth/login"
	http.SetCookie(w, ck)
	return nil
}

// challengeCookie carries the pending second sign-in step, sent to POST
// /auth/login/totp only.
func (a *tokens) challengeCookie(value string, maxAge int) *http.Cookie {
	c := a.cookie(value, maxAge)
	c.Name, c.Path = totpChallengeCookie, a.signer.Audience+"/auth/login/totp"
	return c
}

// authenticate verifies the session cookie and re-reads the token version
// and role from the database: a revoked session fails at once and a new role
// applies on the next request. Any failure is errUnauthenticated; database
// errors are returned as they are.
func (a *Admin) authenticate(ctx context.Context, r *http.Request) (Operator, error) {
	ck, err := r.Cookie(a.opts.Session.CookieName)
	if err != nil {
		return Operator{}, errUnauthenticated
	}
	c, err := a.signer.Parse(ck.Value, token.KindSession)
	if err != nil {
		return Operator{}, errUnauthenticated
	}
	tv, op, err := a.sessionStmt.state(ctx, a, c.UserID)
	switch {
	case errors.Is(err, ErrNotFound):
		return Operator{}, errUnauthenticated
	case err != nil:
		return Operator{}, err
	case tv != c.TV:
		return Operator{}, errUnauthenticated
	}
	return op, nil
}

// sessionCheck runs the statement authenticate reads the session with —
// the query of sessionState — as a prepared statement: database/sql
// prepares it once per pooled connection, so each request skips
// PostgreSQL's parse and plan (SQLite's prepare), which cost about as much
// as running it. It is still one statement per request, reading the token
// version and the role live: nothing is cached but the plan.
// Bun's query hooks do not see it.
//
// Any error of the prepared statement (the tables not migrated yet, a
// plan the database invalidated) drops it and answers through
// sessionState, which has the last word; the next request prepares again.
// After maxStmtFailures such errors where the plain query worked (a pooler
// that does not keep prepared statements, as PgBouncer in transaction
// mode before 1.21), it is not prepared again.
type sessionCheck struct {
	mu       sync.Mutex
	stmt     *sql.Stmt
	closed   bool // Admin.Close, or given up on
	failures int
}

// maxStmtFailures is how many times the prepared session statement may
// fail where the plain query works before the panel stops preparing it.
const maxStmtFailures = 5

// failed counts a failure of the prepared statement where the plain query
// worked, and reports whether it was the one that gave up on preparing.
func (s *sessionCheck) failed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures++
	if s.failures != maxStmtFailures || s.closed {
		return false
	}
	s.closed = true
	return true
}

// state is sessionState through the prepared statement.
func (s *sessionCheck) state(ctx context.Context, a *Admin, userID string) (int64, Operator, error) {
	if a.db.Dialect().Name() == dialect.SQLite {
		return a.sessionStateByText(ctx, userID)
	}
	stmt := s.prepared(ctx, a)
	if stmt == nil {
		return a.sessionState(ctx, userID)
	}
	var row users.SessionRow
	err := stmt.QueryRowContext(ctx, userID).Scan(row.Dest()...)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, Operator{}, ErrNotFound
	case err != nil:
		if ctx.Err() != nil {
			return 0, Operator{}, err
		}
		s.drop(stmt)
		tv, op, plainErr := a.sessionState(ctx, userID)
		if plainErr == nil && s.failed() {
			a.log.Warn("admin: the session check's prepared statement keeps failing where the plain query works (PgBouncer in transaction mode?); using the plain query from now on", "err", err)
		}
		return tv, op, plainErr
	}
	return row.State(userID)
}

// prepared is the statement, prepared on first use; nil when it cannot be
// (the fallback is sessionState). A failed Prepare counts as a failure of
// the statement: after maxStmtFailures the panel logs the cause and stops
// preparing, rather than trying again on every request.
func (s *sessionCheck) prepared(ctx context.Context, a *Admin) *sql.Stmt {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stmt != nil || s.closed {
		return s.stmt
	}
	// sessionState's query, with a parameter for the id.
	param := bun.Safe("?")
	if a.db.Dialect().Name() == dialect.PG {
		param = bun.Safe("$1")
	}
	q := a.roles.SessionQuery(a.db, param)
	// The *sql.DB's own Prepare: bun would read the SQLite "?" as one of
	// its placeholders.
	stmt, err := a.db.DB.PrepareContext(ctx, q.String())
	if err != nil {
		if ctx.Err() == nil {
			if s.failures++; s.failures >= maxStmtFailures {
				s.closed = true
				a.log.Warn("admin: the session check cannot be prepared; using the plain query from now on", "err", err)
			}
		}
		return nil
	}
	s.stmt = stmt
	return stmt
}

// drop closes stmt if it is still the prepared statement.
func (s *sessionCheck) drop(stmt *sql.Stmt) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stmt == stmt {
		s.stmt = nil
		stmt.Close()
	}
}

// close closes the statement for good (Admin.Close).
func (s *sessionCheck) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.stmt != nil {
		s.stmt.Close()
		s.stmt = nil
	}
}

// sessionStateByText is sessionState with the id in the statement's text,
// prepared per operator (a.stmts), which SQLite needs: once ANALYZE has
// sampled the users' indexes (STAT4), a statement with a bound id is
// prepared again on every run, so the planner can weigh the value. That
// was a third of a guarded request's time on a 1M-user table.
func (a *Admin) sessionStateByText(ctx context.Context, userID string) (int64, Operator, error) {
	q := a.roles.SessionQuery(a.db, userID)
	rs, err := a.stmts.Query(ctx, q.String(), func() (*sql.Rows, error) { return q.Rows(ctx) })
	if err != nil {
		return 0, Operator{}, err
	}
	defer rs.Close()
	if !rs.Next() {
		if err := rs.Err(); err != nil {
			return 0, Operator{}, err
		}
		return 0, Operator{}, ErrNotFound
	}
	var row users.SessionRow
	if err := rs.Scan(row.Dest()...); err != nil {
		return 0, Operator{}, err
	}
	return row.State(userID)
}

// sessionState is the session check's query, not prepared
// (users.RoleTable.SessionState).
func (a *Admin) sessionState(ctx context.Context, userID string) (int64, Operator, error) {
	return a.roles.SessionState(ctx, a.db, userID)
}
