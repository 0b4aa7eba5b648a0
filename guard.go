package admin

import (
	"context"
	"net/http"

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
	// Admin is the panel whose sessions the guard checks. Required by the
	// function Guard, which panics without it; Admin.Guard needs it not
	// (its receiver is the panel).
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

// Guard protects any handler with the session of opts.Admin (see
// Admin.Guard, which it calls). It panics when opts.Admin is nil: a guard
// must not start serving with no panel, and the library keeps no
// process-wide default to guess one from.
//
//	mux.Handle("/ops/monitor", admin.Guard(admin.GuardOptions{Admin: a, Role: admin.RoleMod})(monitor))
func Guard(opts GuardOptions) func(http.Handler) http.Handler {
	if opts.Admin == nil {
		panic("admin: Guard: GuardOptions.Admin is nil; set it to the *Admin whose sessions the guard checks")
	}
	return opts.Admin.Guard(opts)
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
