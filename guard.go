package admin

import (
	"context"
	"net/http"
	"sync/atomic"

	"github.com/gameadmin/admin/internal/engine"
)

// Operator is the signed-in identity of a request, read live from the
// database: its role and, for mods, the resource keys in its scopes.
// Every authenticated endpoint and Guard put it on the request context.
type Operator = engine.Operator

// OperatorFrom returns the operator that Guard or an admin endpoint put on ctx.
func OperatorFrom(ctx context.Context) (Operator, bool) {
	return engine.OperatorFrom(ctx)
}

// GuardOptions configure Guard.
type GuardOptions struct {
	// Admin is the panel whose sessions the guard checks. Default: the one
	// Admin the process has created with New; when it has created more
	// than one (two panels, or a panel re-made), Guard panics rather than
	// guess, so set it.
	Admin *Admin
	// Role is the minimum role (admin > mod > user). Default RoleAdmin.
	Role Role
	// LoginURL is where unauthenticated browser navigations are sent, as
	// <LoginURL>/?next=<path>. Default: the panel's sign-in page,
	// <UIPath>/login?next=<path>, which returns there after sign-in (a
	// full page load when the path is outside the panel).
	LoginURL string
	// APIOnly answers JSON even to browser navigations. Default false.
	APIOnly bool
}

// only is the Admin New created, while it has created just one: Guard's
// default. made counts them.
var (
	only atomic.Pointer[Admin]
	made atomic.Int64
)

// Guard protects any handler with the session of opts.Admin (see
// Admin.Guard, which it calls). With no opts.Admin it uses the one Admin the
// process created with New, and panics when there is none or more than
// one: a guard must not start serving with no panel or the wrong one.
//
//	mux.Handle("/ops/monitor", admin.Guard(admin.GuardOptions{Admin: a, Role: admin.RoleMod})(monitor))
func Guard(opts GuardOptions) func(http.Handler) http.Handler {
	a := opts.Admin
	if a == nil {
		if a = only.Load(); a == nil || made.Load() != 1 {
			panic("admin: Guard: GuardOptions.Admin is not set, and the process has not made exactly one Admin to default to")
		}
	}
	return a.Guard(opts)
}

// Guard protects any handler with this panel's session (opts.Admin, if
// set, must be a): the session is
// verified against the database on every request and the operator is put
// on the context (OperatorFrom).
//
// A request is a browser navigation when its Accept header contains
// text/html. Navigations without a valid session are redirected (302) to
// the sign-in page with ?next=<path and query> (any same-origin path: the
// UI returns there after sign-in); with too low a role, to the sign-in page
// with the session cookie cleared, which breaks redirect loops. Other
// requests get 401, or 403 naming both roles. After the Admin's Close,
// every request is answered 503 closed. Like the panel's own API, a guarded
// route refuses state-changing requests from another origin (403) unless
// Options.TrustedOrigins lists it, since the session cookie alone would
// otherwise authorize them.
func (a *Admin) Guard(opts GuardOptions) func(http.Handler) http.Handler {
	if opts.Admin != nil && opts.Admin != a {
		panic("admin: Guard: GuardOptions.Admin is another Admin than the receiver")
	}
	return a.e.Guard(engine.GuardOptions{Role: opts.Role, LoginURL: opts.LoginURL, APIOnly: opts.APIOnly})
}
