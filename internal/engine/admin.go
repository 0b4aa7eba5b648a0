// Package engine is the panel itself: the root package admin declares the
// public API and New hands its declarations here. Nothing in it is a
// stable API; a game imports github.com/gameadmin/admin.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gameadmin/admin/internal/account"
	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/dashboard"
	"github.com/gameadmin/admin/internal/dberr"
	"github.com/gameadmin/admin/internal/history"
	"github.com/gameadmin/admin/internal/rows"
	"github.com/gameadmin/admin/internal/slots"
	"github.com/gameadmin/admin/internal/stmtcache"

	"github.com/gameadmin/admin/internal/token"

	"github.com/gameadmin/admin/internal/migrate"
	"github.com/gameadmin/admin/internal/moderation"
	"github.com/gameadmin/admin/internal/roomcall"

	"github.com/gameadmin/admin/internal/jobs"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/ratelimit"
	"github.com/gameadmin/admin/internal/reports"
	"github.com/gameadmin/admin/internal/userdata"
	"github.com/gameadmin/admin/internal/users"
)

// Admin is the panel: an http.Handler serving /admin-api/* and the UI under
// Options.UIPath. Create it with New and stop it with Close.
type Admin struct {
	db         *bun.DB
	ui         fs.FS // the built UI, embedded by the root package (ui/dist)
	opts       Options
	log        *slog.Logger
	users      *users.Table
	limits     RateLimitOptions
	exports    slots.Slots // one CSV export at a time per operator
	handler    http.Handler
	cop        *http.CrossOriginProtection // shared by the API and Guard
	tokens     *account.Tokens             // session cookies and tokens
	tableNames                             // Options.TablePrefix, defaulted
	roles      *users.RoleTable            // the roles table

	// queries runs the reads under QueryTimeout and QueryConcurrency,
	// through stmts (querylimit.go).
	queries *queryRunner

	plan *migrate.Plan // the built-in tables and how they are named

	resources map[string]*resource // by key
	order     []string             // sidebar order of the keys
	// specials are the resources with behaviour of their own, by key
	// (special.go): the users resource and the audit log.
	specials specials
	usersRes *usersResource // the users resource (users_resource.go)
	auditRes *auditResource // the audit log (audit_resource.go)

	moderation *Moderation
	sanctions  *moderation.Sanctions // ban, unban, revoke and the end of sessions, once
	// store runs the row statements (package rows) on the panel's
	// database, with its users and roles tables and its sanctions.
	store    rows.Store
	userData *userdata.Service // a player's data requests: export and erase
	reports  *reports.Store    // players' reports: filing, the queue, claims (reports.go)
	auth     *Auth
	audit    *Audit
	events   *auditEvents // Options.OnAudit's queue, or nil (events.go)

	widgetTimeout time.Duration // Options.WidgetTimeout, defaulted
	totals        []string      // Options.DashboardTotals, defaulted

	now func() time.Time // Options.Clock, defaulted

	dashboard    *dashboard.Dashboard // GET /_dashboard and /_health, the charts (internal/dashboard)
	rows         *rowsHandler         // a resource's rows (crud.go), which the history reads through too
	history      *history.Handler     // a row's History and revert, the audit log's labels and search (internal/history)
	stopSampling chan struct{}        // ends its players-online sampling (background.go)

	roleViews map[string]map[Role]*resource // resources as a lower role sees them (visibility.go)

	setup *account.SetupToken // the first run's token (setup.go)

	bgMu   sync.Mutex
	bg     sync.WaitGroup // background work: reset deliveries
	closed atomic.Bool

	jobs      *jobs.Queue     // bounded background work: reset deliveries (background.go)
	auditJobs *jobs.Queue     // and failure audit rows, which slow deliveries cannot starve
	failures  *audit.Failures // collapsed anonymous failures (internal/audit)

	versions *rows.Versions // rows' ETags, keyed from the secret (internal/rows)

	sessions *account.SessionCheck // the live session check, its statement prepared
	stmts    *stmtcache.Cache      // statements whose text repeats, prepared

	estimates   *query.Estimates // row estimates, kept for a moment
	countBudget time.Duration    // Options.CountBudget, defaulted

	live     *liveCatalog       // the tables' enum labels, checks and triggers, read again (livecatalog.go)
	stopLive context.CancelFunc // ends its refresh
}

var _ http.Handler = (*Admin)(nil)

// estimateTTL is how long a row estimate, per table and filter, is reused
// (query.Estimates): the statistics it comes from move only with ANALYZE
// or the table's growth.
const estimateTTL = 2 * time.Second

const (
	defaultAPIPath    = "/admin-api"
	defaultUIPath     = "/admin"
	defaultTTL        = 7 * 24 * time.Hour
	defaultMaxBody    = 1 << 20
	minSecretBytes    = 32
	sessionCookieName = "game_admin_session"
)

// NewContext builds the panel from the compiled options and the built UI
// (admin.NewContext documents it): it validates opts, brings the built-in
// tables up to date within ctx and starts the background work.
func NewContext(ctx context.Context, db *bun.DB, opts Options, ui fs.FS) (*Admin, error) {
	if db == nil {
		return nil, errors.New("admin: New: nil *bun.DB")
	}
	// The panel works on a copy of db that sees its transactions commit,
	// so that OnAudit hears of an entry only once its change is there; the
	// game's own *bun.DB is left as it was.
	var commits *audit.Commits
	if opts.OnAudit != nil {
		commits = audit.NewCommits()
		db = db.WithQueryHook(commits)
	}
	a := &Admin{db: db, ui: ui, log: opts.Logger, now: opts.Clock, widgetTimeout: opts.WidgetTimeout, estimates: query.NewEstimates(estimateTTL), countBudget: opts.CountBudget}
	if a.log == nil {
		a.log = slog.Default()
	}
	if a.now == nil {
		a.now = time.Now
	}
	switch {
	case a.widgetTimeout < 0:
		return nil, fmt.Errorf("admin: WidgetTimeout %v is negative", a.widgetTimeout)
	case a.widgetTimeout == 0:
		a.widgetTimeout = dashboard.DefaultWidgetTimeout
	}
	if opts.AuditQueue < 0 {
		return nil, fmt.Errorf("admin: AuditQueue %d is negative", opts.AuditQueue)
	}
	switch {
	case a.countBudget < 0:
		return nil, fmt.Errorf("admin: CountBudget %v is negative", a.countBudget)
	case a.countBudget == 0:
		a.countBudget = query.DefaultBudget
	}
	a.stmts = stmtcache.New(db.DB, preparedPages)
	a.stmts.Final = statementsOwn
	if db.Dialect().Name() == dialect.SQLite {
		a.stmts.SerializeWrites() // the panel's writers queue in Go, not in SQLite's busy handler
	}
	a.stmts.OnGiveUp = func(err error) {
		a.log.Warn("admin: prepared statements keep failing where the plain query works (PgBouncer in transaction mode?); sending them plainly from now on", "err", err)
	}
	secret, err := initSecret(&opts, a.log)
	if err != nil {
		return nil, err
	}
	a.versions = rows.NewVersions(secret)
	totp, err := account.NewTOTPSettings(secret, opts.RequireTOTP, a.now)
	if err != nil {
		return nil, err
	}
	if err := normalizePaths(&opts); err != nil {
		return nil, err
	}
	if opts.Tables == nil {
		opts.Tables = BuiltinTables()
	} else {
		// The panel's own tables are always in the panel: a game that
		// lists only its tables still gets the audit log and roles pages.
		opts.Tables = maps.Clone(opts.Tables)
		for _, key := range panelKeys() {
			if _, ok := opts.Tables[key]; !ok {
				opts.Tables[key] = BuiltinTables()[key]
			}
		}
	}
	if opts.Session.CookieName == "" {
		opts.Session.CookieName = sessionCookieName
	}
	// Valid checks the name (an RFC 7230 token) and the empty value.
	if (&http.Cookie{Name: opts.Session.CookieName}).Valid() != nil {
		return nil, fmt.Errorf("admin: Session.CookieName %q is not a valid cookie name", opts.Session.CookieName)
	}
	if opts.Tables, err = resourceTables(opts.Tables, opts.Resources); err != nil {
		return nil, err
	}
	if err := checkUsersTable(opts.Tables); err != nil {
		return nil, err
	}
	if opts.Session.TTL <= 0 {
		opts.Session.TTL = defaultTTL
	}
	if opts.Session.SameSite == 0 || opts.Session.SameSite == http.SameSiteDefaultMode {
		opts.Session.SameSite = http.SameSiteStrictMode
	}
	secure := opts.Production
	if opts.Session.Secure != nil {
		secure = *opts.Session.Secure
	}
	if opts.Session.SameSite == http.SameSiteNoneMode && !secure {
		return nil, errors.New("admin: Session.SameSite None needs a Secure cookie (browsers drop it otherwise)")
	}
	if opts.TrustedProxies == nil {
		opts.TrustedProxies = DefaultTrustedProxies()
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = defaultMaxBody
	}
	if opts.MaxTextLength == 0 {
		opts.MaxTextLength = rows.DefaultMaxTextLength
	}
	if opts.AuditMaxPayloadBytes == 0 {
		opts.AuditMaxPayloadBytes = audit.DefaultMaxPayload
	}
	if opts.QueryTimeout == 0 {
		opts.QueryTimeout = defaultQueryTimeout
	}
	if opts.QueryConcurrency == 0 {
		opts.QueryConcurrency = defaultQueryConcurrency
	}
	if opts.DatabaseConcurrency == 0 {
		opts.DatabaseConcurrency = max(1, runtime.GOMAXPROCS(0)/2)
	}
	switch {
	case opts.RoomTimeout < 0:
		return nil, fmt.Errorf("admin: RoomTimeout %v is negative", opts.RoomTimeout)
	case opts.RoomTimeout == 0:
		opts.RoomTimeout = defaultRoomTimeout
	}
	// Every call into the game's runtime, whoever makes it, goes through
	// the bound (rooms_http.go).
	opts.Rooms = roomcall.Bound(opts.Rooms, opts.RoomTimeout)
	seen := map[string]bool{"ok": true, "db": true, "latencyMs": true}
	for _, c := range opts.HealthChecks {
		if c.Name == "" || seen[c.Name] {
			return nil, fmt.Errorf("admin: HealthChecks: name %q is empty, reserved or used twice", c.Name)
		}
		seen[c.Name] = true
	}
	hasher := opts.PasswordHasher
	if hasher == nil {
		hasher = DefaultArgon2id()
	}
	a.limits = ratelimit.Defaults(opts.RateLimit)
	a.opts = opts
	a.queries = newQueryRunner(db, a.stmts, opts.QueryTimeout, opts.QueryConcurrency, slots.NewGate(opts.DatabaseConcurrency))
	a.tokens = &account.Tokens{Signer: &token.Signer{Secret: secret, Audience: opts.APIPath, AcceptNoAudience: opts.APIPath == defaultAPIPath},
		Session: opts.Session, Secure: secure}

	prefix, err := tablePrefix(opts.TablePrefix)
	if err != nil {
		return nil, err
	}
	a.tableNames, a.opts.TablePrefix = tableNames(prefix), prefix
	if a.users, err = newUserTable(db.Dialect().Tables(), opts.Tables["users"], prefix, opts.UserColumns); err != nil {
		return nil, err
	}
	a.roles = &users.RoleTable{Name: string(a.tableNames) + "roles", RowScopes: string(a.tableNames) + "row_scopes", Users: a.users}
	if len(a.users.Off) > 0 {
		a.log.Info("admin: users table " + a.users.Name + " lacks optional columns; features off: " + strings.Join(a.users.Off, "; "))
	}
	if a.plan, err = newSchemaPlan(db.Dialect(), prefix, opts.Tables, a.users); err != nil {
		return nil, err
	}
	a.usersRes = newUsersResource(db, a.roles, a.allowed, a.now, a.log)
	a.auditRes = &auditResource{} // its build needs nothing; the rest is wired below
	a.specials = specials{users.Key: a.usersRes, audit.Key: a.auditRes}
	if err := (*compiler)(a).buildResources(db); err != nil {
		return nil, err
	}
	if opts.Migrations == MigrateOff {
		if err := a.plan.Verify(ctx, db); err != nil {
			return nil, err
		}
	} else if err := a.plan.Migrate(ctx, db); err != nil {
		return nil, fmt.Errorf("admin: migrate: %w", err)
	}
	if err := (*compiler)(a).readCatalog(ctx, db); err != nil {
		return nil, err
	}
	a.live = newLiveCatalog(a)
	(*compiler)(a).checkSQLite(ctx)
	if err := a.usersRes.fromCatalog(); err != nil {
		return nil, err
	}
	if err := a.users.CheckBanTable(ctx, db); err != nil {
		return nil, err
	}
	if err := (*compiler)(a).checkCreatedAt(); err != nil {
		return nil, err
	}
	if opts.PlayersCanRead {
		(*compiler)(a).warnPlayersCanRead(ctx)
	}
	a.jobs = jobs.New(a.log, backgroundQueueCap)
	a.auditJobs = jobs.New(a.log, backgroundQueueCap)
	a.failures = audit.NewFailures()
	a.audit = audit.New(db, string(a.tableNames)+"admin_audit", opts.AuditMaxPayloadBytes, a.log)
	a.audit.PrepareIn(a.stmts)
	a.audit.SendCommits(commits)
	a.sanctions = moderation.NewSanctions(db, a.roles, a.audit, opts.Rooms, a.now, a.log)
	a.store = rows.Store{DB: db, Users: a.users, Roles: a.roles, Sanctions: a.sanctions, Stmts: a.stmts, Versions: a.versions, Now: a.now}
	if a.reports, err = newReportStore(a); err != nil {
		return nil, err
	}
	a.userData = a.newUserData()
	if a.auth, err = account.New(account.Config{DB: db, Roles: a.roles, TablePrefix: string(a.tableNames), Tokens: a.tokens, Audit: a.audit, Sanctions: a.sanctions,
		Hasher: hasher, HashConcurrency: opts.HashConcurrency, Limits: a.limits, TOTP: totp,
		Proxies: a.clientIPs(), UIPath: opts.UIPath, OnResetRequest: opts.OnResetRequest, ResetOperatorsOnly: opts.ResetOperatorsOnly,
		Jobs: a.jobs, AuditJobs: a.auditJobs, Failures: a.failures, NewUser: a.usersRes.bootstrapDefaults, DBError: rows.DBError,
		Closed: func() error { return closedError(&a.closed) }, Now: a.now, Log: a.log}); err != nil {
		return nil, err
	}
	a.sessions = account.NewSessionCheck(db, a.roles, a.tokens, a.stmts, a.log)
	a.moderation = moderation.New(db, a.roles, a.audit, resourcePolicies(a.resources), opts.PlayersCanRead)
	a.cop = http.NewCrossOriginProtection()
	for _, o := range opts.TrustedOrigins {
		if err := a.cop.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("admin: TrustedOrigins: %w", err)
		}
	}
	if a.setup, err = account.NewSetupToken(opts.SetupToken); err != nil {
		return nil, err
	}
	a.usersRes.hash = a.auth.Hash
	if opts.Rooms != nil {
		a.usersRes.sessions = func(ctx context.Context, userID string) (int, error) {
			return activeSessions(ctx, opts.Rooms, userID)
		}
	}
	a.rows = newRowsHandler(a)
	a.history = a.newHistory()
	*a.auditRes = auditResource{resources: a.resources, order: a.order, rooms: opts.Rooms != nil,
		resAs: a.resourceAs, allowed: a.allowed, limited: a.queries.limited, ownParams: listParams(a.specials), history: a.history}
	a.dashboard = newDashboard(a)
	a.handler = routes(a)
	a.events = startAuditEvents(opts, commits, eventLabels(db, a.roles), a.log)
	a.startBackground()
	(*compiler)(a).announceSetup(ctx)
	return a, nil
}

// ServeHTTP serves the API under Options.APIPath and the UI under
// Options.UIPath, reading the full request path: a router mounts the
// *Admin under both paths as they are (chi's r.Mount, echo.WrapHandler,
// gin.WrapH, a ServeMux pattern), with no http.StripPrefix. After Close it
// answers 503 closed.
func (a *Admin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if a.closed.Load() {
		writeError(a.log, w, r, errClosed)
		return
	}
	a.handler.ServeHTTP(w, r)
}

// closedError is errClosed once closed (by Close), else nil: what
// StartSession and FileReport refuse with.
func closedError(closed *atomic.Bool) error {
	if closed.Load() {
		return errClosed
	}
	return nil
}

// Mount registers the panel on mux at its API path and UI path.
func (a *Admin) Mount(mux *http.ServeMux) {
	mux.Handle(a.opts.APIPath+"/", a)
	mux.Handle(a.opts.APIPath, a)
	mux.Handle(a.opts.UIPath+"/", a)
	mux.Handle(a.opts.UIPath, a)
}

// statementsOwn reports whether a prepared statement's failure is the
// statement's own, which its plain text would meet as well: a time limit
// ended it (querylimit.go), or the database refused a write's values (a
// duplicate key, a bad value). Such a failure is returned as it is; any
// other drops the statement and runs its text plainly.
func statementsOwn(err error) bool {
	if query.IsQueryCanceled(err) {
		return true
	}
	// 0A000 is also "cached plan must not change result type": a plan
	// the schema outdated, not the write's fault.
	_, refused := dberr.Classify(err)
	return refused && !strings.Contains(err.Error(), "cached plan")
}

// Close waits for background work (reset-link deliveries) to finish, and
// for Options.OnAudit to receive the queued events, at most 5 seconds
// (then the context it is given ends and the rest are dropped). The
// panel, its UI and every Guard made from it answer 503 afterwards. It does
// not close the database.
func (a *Admin) Close() error {
	a.bgMu.Lock()
	a.closed.Store(true)
	a.bgMu.Unlock()
	a.stopBackground()
	a.bg.Wait()
	if a.events != nil {
		a.events.close() // after the background work, whose audit rows it may still hear of
	}
	a.sessions.Close()
	a.stmts.Close()
	return nil
}

// preparedPages is how many statements the panel keeps prepared: the
// texts that repeat across its resources (first and filtered pages, a
// resource's read by id, on SQLite each operator's session check). Each
// is prepared once per pooled connection.
const preparedPages = 32

// UIPath is where the panel UI is served (Options.UIPath, normalized).
func (a *Admin) UIPath() string { return a.opts.UIPath }

// APIPath is where the HTTP API is served (Options.APIPath, normalized).
func (a *Admin) APIPath() string { return a.opts.APIPath }

// Moderation returns the role and scope API.
func (a *Admin) Moderation() *Moderation { return a.moderation }

// Auth returns the session, ban and password API.
func (a *Admin) Auth() *Auth { return a.auth }

// Audit returns the audit-log API.
func (a *Admin) Audit() *Audit { return a.audit }
