package engine

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// GuardOptions configure Guard.
type GuardOptions struct {
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
	role := opts.Role
	if role == "" {
		role = RoleAdmin
	}
	if !role.Valid() {
		panic(fmt.Sprintf("admin: Guard: invalid role %q", role))
	}
	login := a.opts.UIPath + "/login"
	if opts.LoginURL != "" {
		login = strings.TrimRight(opts.LoginURL, "/") + "/"
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if a.closed.Load() {
				writeError(a.log, w, r, errClosed)
				return
			}
			if err := a.cop.Check(r); err != nil {
				writeError(a.log, w, r, errCrossOrigin)
				return
			}
			nav := !opts.APIOnly && strings.Contains(r.Header.Get("Accept"), "text/html")
			op, err := a.sessions.Verify(r.Context(), r)
			if err == nil {
				// Not totpGate: r.Pattern is the game's mux's here, and
				// the panel's exemptions are no business of a game route.
				err = a.auth.SecondFactor().Require(r.Context(), op)
			}
			switch {
			case errors.Is(err, errTOTPRequired) && nav:
				http.Redirect(w, r, a.opts.UIPath+"/account", http.StatusFound)
			case errors.Is(err, errUnauthenticated) && nav:
				target := login
				if p := r.URL.RequestURI(); isPlainPath(p) && isPlainPath(r.URL.Path) {
					target += "?next=" + url.QueryEscape(p)
				}
				http.Redirect(w, r, target, http.StatusFound)
			case err != nil:
				writeError(a.log, w, r, err)
			case !op.Role.AtLeast(role) && nav:
				a.tokens.ClearSessionCookie(w)
				http.Redirect(w, r, login, http.StatusFound)
			case !op.Role.AtLeast(role):
				writeError(a.log, w, r, errorf(http.StatusForbidden, "forbidden",
					"requires role '%s' or higher (you have '%s')", role, op.Role).WithParams("reason", "role", "required", string(role), "role", string(op.Role)))
			default:
				next.ServeHTTP(w, r.WithContext(withOperator(r.Context(), op)))
			}
		})
	}
}

// isPlainPath reports whether p is a site-relative path that cannot send a
// browser to another origin: it starts with one slash, not "//" or "/\", and
// holds no control characters.
func isPlainPath(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, `/\`) {
		return false
	}
	for _, c := range p {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}
