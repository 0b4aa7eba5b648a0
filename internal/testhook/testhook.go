// Package testhook lets the panel's own tests, in the dbtest module, reach
// inside one panel: move its clocks and bounds, hold a resource, read what
// it prepared. admin.NewContext reads the hook from its context once, at
// construction; a context without one changes nothing. Being internal, no
// code outside this repository can import it, so no game can set it.
package testhook

import (
	"context"
	"database/sql"
	"io/fs"
	"net/http"
	"time"

	"github.com/gameadmin/admin/internal/migrate"
	"github.com/uptrace/bun"
)

// Internals are the parts of one panel its tests reach. New fills every
// field.
type Internals struct {
	// SetNow replaces the TOTP clock.
	SetNow func(func() time.Time)
	// SetWidgetTimeout and SetTabCountBudget replace the dashboard's and
	// the relation counts' time bounds.
	SetWidgetTimeout  func(time.Duration)
	SetTabCountBudget func(time.Duration)
	// HoldExport takes userID's export slot as a running export would.
	HoldExport func(userID string) (release func(), ok bool)
	// SessionStmt is the prepared session statement, nil when none;
	// ResetStmtFailures forgets the failures counted so far, of which
	// MaxStmtFailures make the panel stop preparing it.
	SessionStmt func() *sql.Stmt
	// PreparedTexts is how many statements the panel's statement cache
	// holds prepared (internal/stmtcache).
	PreparedTexts     func() int
	ResetStmtFailures func()
	MaxStmtFailures   int
	// Authenticate runs the session check of every request on r.
	Authenticate func(ctx context.Context, r *http.Request) error
	// Handler serves fn as the panel serves its own handlers; WriteJSON
	// is how they answer.
	Handler   func(fn func(http.ResponseWriter, *http.Request) error) http.Handler
	WriteJSON func(w http.ResponseWriter, status int, v any)
	// Secret and Production are the options New settled on.
	Secret     []byte
	Production bool
	// CreateUser inserts a user with a password hash into the users
	// table, as bootstrap does; Account reads one back.
	CreateUser  func(ctx context.Context, email, hash string) (string, error)
	Account     func(ctx context.Context, id string) (email, hash string, tokenVersion int64, err error)
	AdminExists func(ctx context.Context) (bool, error)
	// Schema is every built-in table; Plan names those of this panel;
	// HasDefault reports whether the catalog lets a create leave a
	// resource's column out.
	Schema     *migrate.Schema
	Plan       *migrate.Plan
	HasDefault func(resource, column string) bool
	// SetEraseFault makes fn run between the steps of every erase, in its
	// transaction ("<relation>" after each resource, "audit" after the
	// redaction): an error it returns, or a connection it kills, fails
	// the erase there.
	SetEraseFault func(fn func(ctx context.Context, tx bun.Tx, step string) error)
	// OpenAPI is the OpenAPI document an admin gets, with every action
	// whatever role may run it, as JSON.
	OpenAPI func() ([]byte, error)
	// TakeSample writes the players online (Options.Rooms) as the
	// minute's sample at now, as the sampler does every minute.
	TakeSample func(ctx context.Context, now time.Time) error
	// UI is the embedded build; UICSP the policy its pages are sent with.
	UI    fs.FS
	UICSP string
}

type key struct{}

// With returns ctx carrying fn, which New calls with its Internals.
func With(ctx context.Context, fn func(*Internals)) context.Context {
	return context.WithValue(ctx, key{}, fn)
}

// From returns the hook of ctx, or nil.
func From(ctx context.Context) func(*Internals) {
	fn, _ := ctx.Value(key{}).(func(*Internals))
	return fn
}
