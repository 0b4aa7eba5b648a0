// Package admin is an embeddable admin panel for Go game servers: operator
// sign-in with a signed session cookie, a live-read role hierarchy
// (admin > mod > user) with per-resource mod scopes, moderation, an
// append-only audit log, a route guard, password reset and rate limits, over
// the game's own Bun database (PostgreSQL or SQLite).
//
// Mount it on the game's mux:
//
//	a, err := admin.New(db, admin.Options{})
//	if err != nil { ... }
//	defer a.Close()
//	a.Mount(mux) // /admin-api/ and /admin/
package admin

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
)

// Options configure New. The zero value of every field is a working default,
// stated in the field's comment.
type Options struct {
	// Secret is the HS256 key that signs session and reset tokens, at least
	// 32 bytes. Default: env ADMIN_JWT_SECRET, else JWT_SECRET. When none is
	// set, New fails in production and otherwise uses a random per-process
	// key (sessions end at restart) and logs one warning.
	Secret []byte
	// Production turns on production behaviour: secure cookies and a
	// mandatory Secret. Default: env APP_ENV == "production".
	Production bool
	// UIPath is where the panel UI is served. Default "/admin".
	UIPath string
	// Tables maps each resource key to its Bun model, a typed nil pointer.
	// It decides which tables exist in the panel; "users" names the table
	// operators sign in from, which needs id, email and password_hash
	// columns (token_version, ban and display_name are optional).
	// Default: BuiltinTables().
	Tables map[string]any
	// Resources configures how tables look and behave, by key. An entry
	// without a Tables entry is never listed.
	Resources map[string]*Resource
	// Relations declares relations of tables, by key, on top of those read
	// from Bun rel: tags.
	Relations map[string][]Relation
	// Widgets are extra dashboard widgets, shown after the built-in ones.
	Widgets []Widget
	// Session configures the session cookie.
	Session SessionOptions
	// RateLimit configures the auth endpoints' limiters.
	RateLimit RateLimitOptions
	// TrustedProxies lists the peers whose X-Forwarded-For and X-Real-IP
	// headers are believed. Default: DefaultTrustedProxies (loopback and
	// private ranges).
	TrustedProxies []netip.Prefix
	// OnResetRequest delivers a password-reset link, typically by email. It
	// runs in the background after the request has been answered, so its
	// timing does not reveal whether the email exists. Default: log the
	// link with Logger (local development only).
	OnResetRequest func(ctx context.Context, req ResetRequest) error
	// PasswordHasher hashes and verifies passwords. Default: DefaultArgon2id,
	// which also verifies bcrypt hashes.
	PasswordHasher PasswordHasher
	// HashConcurrency bounds how many password hashes run at once, so a
	// login flood cannot use up CPU or memory. Default: GOMAXPROCS.
	HashConcurrency int
	// Rooms connects the panel to the game's live rooms. Default nil: the
	// room endpoints answer 501.
	Rooms Rooms
	// Logger receives the panel's logs. Default slog.Default().
	Logger *slog.Logger
	// MaxBodyBytes bounds every request body. Default 1 MiB.
	MaxBodyBytes int64
	// OperatorsOnly makes every resource endpoint require admin or mod; a
	// policy of Everyone then means operators. Default false, as SEED.md
	// has it: a signed-in plain user may call list and read. Recommended.
	OperatorsOnly bool
	// RequireTOTP makes operators enrol a second factor before they can do
	// anything but enrol (see README, Two-factor sign-in): TOTPAdmins,
	// TOTPOperators (admins and mods) or TOTPNone. Default "": TOTPNone.
	RequireTOTP TOTPPolicy
	// ExactCountBelow is the estimated result size under which a list
	// counts its total exactly by default; at or past it the list answers
	// the statistics' estimate with X-Total-Count-Estimated: true, and no
	// COUNT(*) runs. _count=exact still counts. Default 100,000; negative:
	// always count exactly. See README "Large tables".
	ExactCountBelow int64
	// ExactCountBudget bounds a count a client asked for with _count=exact:
	// past it the count is cancelled and the estimate answered (marked
	// estimated). Default 0: no bound but the request's own.
	ExactCountBudget time.Duration
}

// SessionOptions configure the session cookie, named game_admin_session.
type SessionOptions struct {
	// TTL is how long a session lasts. Default 7 days.
	TTL time.Duration
	// SameSite is the cookie's SameSite mode. Default http.SameSiteStrictMode.
	SameSite http.SameSite
	// Secure overrides the cookie's Secure flag. Default nil: Secure in
	// production (Options.Production).
	Secure *bool
	// Domain sets the cookie's Domain, for serving from a subdomain.
	// Default "": host-only.
	Domain string
}

// ResetRequest is what OnResetRequest receives. URL is the site-relative
// link <UIPath>/reset?token=<Token>; the callback prepends the origin.
type ResetRequest struct {
	Email  string
	UserID string
	Token  string
	URL    string
}

// Admin is the panel: an http.Handler serving /admin-api/* and the UI under
// Options.UIPath. Create it with New and stop it with Close.
type Admin struct {
	db       *bun.DB
	opts     Options
	log      *slog.Logger
	secret   []byte
	secure   bool
	users    *userTable
	limits   RateLimitOptions
	hasher   PasswordHasher
	hashGate *hashGate
	dummy    string
	handler  http.Handler
	cop      *http.CrossOriginProtection // shared by the API and Guard

	resources map[string]*resource // by key
	order     []string             // sidebar order of the keys

	moderation *Moderation
	auth       *Auth
	audit      *Audit
	totp       *totpState

	bgMu   sync.Mutex
	bg     sync.WaitGroup // background work: reset deliveries
	closed atomic.Bool
}

var _ http.Handler = (*Admin)(nil)

// current is the Admin most recently created by New, used by Guard when
// GuardOptions.Admin is nil.
var current atomic.Pointer[Admin]

const (
	apiPrefix         = "/admin-api"
	defaultUIPath     = "/admin"
	defaultTTL        = 7 * 24 * time.Hour
	defaultMaxBody    = 1 << 20
	minSecretBytes    = 32
	sessionCookieName = "game_admin_session"
)

// New validates opts, brings the built-in tables up to date (custom tables
// are never created) and returns the panel. Calling it again on the same
// database is safe: applied migrations are skipped.
func New(db *bun.DB, opts Options) (*Admin, error) {
	if db == nil {
		return nil, errors.New("admin: New: nil *bun.DB")
	}
	a := &Admin{db: db, log: opts.Logger}
	if a.log == nil {
		a.log = slog.Default()
	}
	if !opts.Production && os.Getenv("APP_ENV") == "production" {
		opts.Production = true
	}
	if err := a.initSecret(&opts); err != nil {
		return nil, err
	}
	totp, err := newTOTPState(a.secret, opts.RequireTOTP)
	if err != nil {
		return nil, err
	}
	a.totp = totp
	if opts.UIPath == "" {
		opts.UIPath = defaultUIPath
	}
	opts.UIPath = "/" + strings.Trim(opts.UIPath, "/")
	if opts.UIPath == "/" || strings.HasPrefix(opts.UIPath+"/", apiPrefix+"/") {
		return nil, fmt.Errorf("admin: UIPath %q must be a sub-path other than %s", opts.UIPath, apiPrefix)
	}
	if opts.Tables == nil {
		opts.Tables = BuiltinTables()
	}
	if opts.Session.TTL <= 0 {
		opts.Session.TTL = defaultTTL
	}
	if opts.Session.SameSite == 0 || opts.Session.SameSite == http.SameSiteDefaultMode {
		opts.Session.SameSite = http.SameSiteStrictMode
	}
	a.secure = opts.Production
	if opts.Session.Secure != nil {
		a.secure = *opts.Session.Secure
	}
	if opts.Session.SameSite == http.SameSiteNoneMode && !a.secure {
		return nil, errors.New("admin: Session.SameSite None needs a Secure cookie (browsers drop it otherwise)")
	}
	if opts.TrustedProxies == nil {
		opts.TrustedProxies = DefaultTrustedProxies
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = defaultMaxBody
	}
	a.hasher = opts.PasswordHasher
	if a.hasher == nil {
		a.hasher = DefaultArgon2id
	}
	a.hashGate = newHashGate(opts.HashConcurrency)
	a.limits = defaultLimiters(opts.RateLimit)
	a.opts = opts

	users, err := newUserTable(db, opts.Tables["users"])
	if err != nil {
		return nil, err
	}
	a.users = users
	if err := a.buildResources(db); err != nil {
		return nil, err
	}
	if err := migrate(context.Background(), db); err != nil {
		return nil, fmt.Errorf("admin: migrate: %w", err)
	}
	dummy, err := a.hasher.Hash(rand.Text())
	if err != nil {
		return nil, fmt.Errorf("admin: password hasher: %w", err)
	}
	a.dummy = dummy
	a.moderation = &Moderation{a: a}
	a.auth = &Auth{a: a}
	a.audit = &Audit{a: a}
	a.cop = http.NewCrossOriginProtection()
	a.handler = a.routes()
	current.Store(a)
	return a, nil
}

func (a *Admin) initSecret(opts *Options) error {
	secret := opts.Secret
	if len(secret) == 0 {
		for _, env := range []string{"ADMIN_JWT_SECRET", "JWT_SECRET"} {
			if v := os.Getenv(env); v != "" {
				secret = []byte(v)
				break
			}
		}
	}
	switch {
	case len(secret) == 0 && opts.Production:
		return errors.New("admin: no Secret: set Options.Secret or ADMIN_JWT_SECRET in production")
	case len(secret) == 0:
		secret = []byte(rand.Text() + rand.Text())
		a.log.Warn("admin: no ADMIN_JWT_SECRET set; using a random key, so sessions end when the process restarts")
	case len(secret) < minSecretBytes:
		return fmt.Errorf("admin: Secret is %d bytes; at least %d are needed", len(secret), minSecretBytes)
	}
	a.secret = secret
	opts.Secret = nil // the key lives in a.secret only
	return nil
}

// ServeHTTP serves the API under /admin-api/ and the UI under Options.UIPath.
func (a *Admin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.handler.ServeHTTP(w, r)
}

// Mount registers the panel on mux at /admin-api/ and the UI path.
func (a *Admin) Mount(mux *http.ServeMux) {
	mux.Handle(apiPrefix+"/", a)
	mux.Handle(apiPrefix, a)
	mux.Handle(a.opts.UIPath+"/", a)
	mux.Handle(a.opts.UIPath, a)
}

// Close waits for background work (reset-link deliveries) to finish. The
// panel answers 503 afterwards. It does not close the database.
func (a *Admin) Close() error {
	a.bgMu.Lock()
	a.closed.Store(true)
	a.bgMu.Unlock()
	a.bg.Wait()
	current.CompareAndSwap(a, nil)
	return nil
}

// Moderation returns the role and scope API.
func (a *Admin) Moderation() *Moderation { return a.moderation }

// Auth returns the session, ban and password API.
func (a *Admin) Auth() *Auth { return a.auth }

// Audit returns the audit-log API.
func (a *Admin) Audit() *Audit { return a.audit }

// Operator is the signed-in identity of a request, read live from the
// database: its role and, for mods, the resource keys in its scopes.
// Every authenticated endpoint and Guard put it on the request context.
type Operator struct {
	UserID string   `json:"userId"`
	Role   Role     `json:"role"`
	Scopes []string `json:"scopes"`
}

type operatorKey struct{}

// OperatorFrom returns the operator that Guard or an admin endpoint put on ctx.
func OperatorFrom(ctx context.Context) (Operator, bool) {
	op, ok := ctx.Value(operatorKey{}).(Operator)
	return op, ok
}

func withOperator(ctx context.Context, op Operator) context.Context {
	return context.WithValue(ctx, operatorKey{}, op)
}

// routes builds the handler: the API behind cross-origin protection, and
// the UI.
func (a *Admin) routes() http.Handler {
	mux := http.NewServeMux()
	api := func(pattern string, h http.Handler) {
		method, path, _ := strings.Cut(pattern, " ")
		mux.Handle(method+" "+apiPrefix+path, h)
	}
	api("GET /auth/status", a.public(a.handleStatus))
	api("POST /auth/bootstrap", a.public(a.handleBootstrap))
	api("POST /auth/login", a.public(a.handleLogin))
	api("GET /auth/me", a.signedIn(a.handleMe))
	api("POST /auth/logout", a.signedIn(a.handleLogout))
	api("POST /auth/logout-everywhere", a.signedIn(a.handleLogoutEverywhere))
	api("POST /auth/request-reset", a.public(a.handleRequestReset))
	api("POST /auth/reset", a.public(a.handleReset))
	a.totpRoutes(api)
	api("GET /_health", a.public(a.handleHealth))
	api("GET /_dashboard", a.signedIn(a.handleDashboard))
	api("GET /{$}", a.signedIn(a.handleCatalog))
	mux.Handle("GET "+apiPrefix, a.signedIn(a.handleCatalog))
	api("GET /{resource}", a.signedIn(a.handleList))
	api("POST /{resource}", a.signedIn(a.handleCreate))
	api("GET /{resource}/{id}", a.signedIn(a.handleRead))
	api("PATCH /{resource}/{id}", a.signedIn(a.handleUpdate))
	api("PUT /{resource}/{id}", a.signedIn(a.handleUpdate))
	api("DELETE /{resource}/{id}", a.signedIn(a.handleDelete))
	api("POST /{resource}/_action/{name}", a.signedIn(a.handleAction))
	api("GET /{resource}/{id}/{sub}", a.signedIn(a.handleRowSub))
	api("GET /{resource}/{id}/relations/{name}", a.signedIn(a.handleRelation))
	api("POST /{resource}/{id}/{op}", a.signedIn(a.handleUserOp))
	api("GET /rooms", a.signedIn(a.handleRoomList))
	api("GET /rooms/by-user/{userId}", a.signedIn(a.handleRoomsByUser))
	api("GET /rooms/{roomId}", a.signedIn(a.handleRoomInspect))
	api("PATCH /rooms/{roomId}", a.signedIn(a.handleRoomLock))
	api("DELETE /rooms/{roomId}", a.signedIn(a.handleRoomDispose))
	api("DELETE /rooms/{roomId}/clients/{sessionId}", a.signedIn(a.handleRoomKick))
	api("PATCH /rooms/{roomId}/state", a.signedIn(a.handleRoomStateEdit))
	api("DELETE /rooms/{roomId}/state", a.signedIn(a.handleRoomStateDelete))
	mux.Handle(apiPrefix+"/", a.public(func(http.ResponseWriter, *http.Request) error { return errNotFoundRoute }))
	mux.Handle(a.opts.UIPath+"/", a.uiHandler())

	// State-changing requests from another origin are refused whatever the
	// cookie's SameSite mode: browsers send Sec-Fetch-Site, and Origin is
	// checked against Host for those that do not.
	a.cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.writeError(w, r, errCrossOrigin)
	}))
	return a.cop.Handler(mux)
}
