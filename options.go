package admin

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/gameadmin/admin/internal/engine"
)

// Range is the window a series answers for: [From, To), points every Step.
type Range = engine.Range

// Series is the data of a "series" widget: one or more lines of points.
type Series = engine.Series

// Line is one named series of points.
type Line = engine.Line

// Point is one value at a time: the start of its step.
type Point = engine.Point

// Widget is a dashboard panel computed for the signed-in operator.
type Widget = engine.Widget

// Stat is one figure of a "stats" widget: what it counts, how many, and
// the page of the panel that lists them.
type Stat = engine.Stat

// HealthCheck is one dependency reported by the health widget and
// GET /admin-api/_health as "<Name>": "ok" or "unreachable".
type HealthCheck struct {
	// Name is the key of the check in the health answer, e.g. "redis";
	// "ok", "db" and "latencyMs" are taken.
	Name string
	// Check returns nil when the dependency answers. It gets the health
	// request's context, bounded to 2 seconds; its error is logged.
	Check func(ctx context.Context) error
}

// Options configure New. The zero value of every field is a working default,
// stated in the field's comment.
type Options struct {
	// Secret is the HS256 key that signs session and reset tokens, at least
	// 32 bytes. The panel reads no environment variable: a game keeps it
	// where it keeps its other secrets and passes it here. When it is
	// empty, New fails in production and otherwise uses a random
	// per-process key (sessions end at restart) and logs one warning.
	Secret []byte
	// SetupToken is the token that lets the first visitor of a panel with
	// no admin create one (POST /auth/bootstrap, the UI's setup page):
	// set it, at least 16 characters and the same on every node, in a
	// deployment. When empty, each start makes a random one and, while no
	// admin exists, logs the one-time link <UIPath>/setup?token=… at Warn.
	// Every bootstrap needs the token, from any address: a proxy on the
	// same host may add no forwarding header, so loopback proves nothing.
	// A scripted deployment calls Admin.CreateFirstAdmin instead.
	SetupToken string
	// Production turns on production behaviour: secure cookies and a
	// mandatory Secret. Default false.
	Production bool
	// UIPath is where the panel UI is served, as the browser sees it.
	// Default "/admin". The UI learns it, and APIPath, from the page the
	// server sends, so the panel works under any path (see
	// docs/adopting.md, "Paths and several panels").
	UIPath string
	// APIPath is where the HTTP API is served, as the browser sees it.
	// Default "/admin-api". Neither path may contain the other: "/ops/admin"
	// with "/ops/admin-api" is fine. Routers mount the *Admin under both,
	// without stripping the prefix.
	APIPath string
	// TrustedOrigins are origins ("https://game.example") whose
	// state-changing requests are accepted although they are cross-origin
	// to the request's Host: the public site of a reverse proxy that
	// rewrites Host, or a separate front-end origin. Added to the panel's
	// http.CrossOriginProtection, which guards the API and every Guard.
	// Default nil: same origin only.
	TrustedOrigins []string
	// Tables maps each resource key to its Bun model, a typed nil pointer.
	// It decides which tables exist in the panel; "users" names the table
	// operators sign in from, which needs id, email and password-hash
	// columns (UserColumns names them; token version, ban and display name
	// are optional). Its id may be text, a UUID or an integer: the
	// built-in tables New creates give their user columns the same type.
	// The panel's own "roles" and "adminAudit" are added when missing;
	// "users" is not: Tables (with the Resources' models) without a
	// "users" entry fails New. To keep the built-in users table and add
	// tables of the game's, start from BuiltinTables() and add entries,
	// or leave Tables nil and declare them as Resources. Its email may be
	// NULL in a row (a guest player). Default: BuiltinTables().
	Tables map[string]any
	// Resources configures how tables look and behave, by key. A
	// Resource's model is its table: an entry without a Tables entry adds
	// the table; one whose Tables entry is another model fails New. Every
	// column, relation and resource its config names must exist (New fails
	// naming the closest valid name).
	Resources map[string]*Resource
	// Relations declares relations of tables, by key, on top of those read
	// from Bun rel: tags. An unknown key, target or column fails New.
	Relations map[string][]Relation
	// Widgets are extra dashboard widgets, shown after the built-in ones.
	Widgets []Widget
	// WidgetTimeout bounds the dashboard: it answers when every widget is
	// done or WidgetTimeout has passed, whichever comes first, and a
	// widget not done by then shows "timeout" (a built-in chart finishes
	// in the background, for the next request), so one slow query, or a
	// widget ignoring its ctx, cannot hold the page. A game whose own
	// widgets are slow by nature gives them longer. Default 5 s;
	// negative fails New.
	WidgetTimeout time.Duration
	// DashboardTotals names the resources, by key, whose row counts the
	// dashboard's Totals widget shows, each counted as its list counts
	// (the planner's estimate on a large table). Default: users. An
	// empty, non-nil slice leaves the widget out. An unknown key fails New.
	DashboardTotals []string
	// Session configures the session cookie.
	Session SessionOptions
	// RateLimit configures the auth endpoints' limiters.
	RateLimit RateLimitOptions
	// TrustedProxies lists the peers whose X-Forwarded-For and Forwarded
	// headers are believed (read from the right, past the trusted hops).
	// Default: DefaultTrustedProxies(), loopback only; list a load
	// balancer's addresses here.
	TrustedProxies []netip.Prefix
	// ClientIPHeader names one more header a trusted proxy sets to the
	// client's address, such as "X-Real-IP" or "CF-Connecting-IP": when a
	// request from a TrustedProxies peer carries it, it wins over
	// X-Forwarded-For. Name it only if your proxy overwrites it on every
	// request: one that passes a client's own header through (Go's
	// ReverseProxy with Rewrite, nginx without proxy_set_header) lets the
	// client choose its rate-limit key. Default "": none.
	ClientIPHeader string
	// OnResetRequest delivers a password-reset link, typically by email. It
	// runs in the background after the request has been answered, so its
	// timing does not reveal whether the email exists. Default: log the
	// link with Logger (local development only).
	OnResetRequest func(ctx context.Context, req ResetRequest) error
	// ResetOperatorsOnly makes POST /auth/request-reset deliver links to
	// operators (admins and mods) only, for a users table shared with
	// players who reset their passwords through the game's own flow: a
	// player's request is answered exactly as any other (same status, body
	// and timing, as the lookup runs after the answer) and only audited,
	// with "delivered": false. The trade-off: a player who finds the panel's
	// sign-in page gets no link and no explanation, by design. Default
	// false: every user with an account gets a link (ResetRequest.Role says
	// whose it is). Admin invites are sent whatever the role.
	ResetOperatorsOnly bool
	// PasswordHasher hashes every password the panel writes (bootstrap,
	// reset, invite, password change, a new user's) and verifies sign-ins.
	// Default: DefaultArgon2id(), which also verifies bcrypt hashes and
	// never rewrites them as argon2id unless UpgradeBcrypt is set. A game
	// whose own login checks bcrypt uses Bcrypt.
	PasswordHasher PasswordHasher
	// HashConcurrency bounds how many password hashes run at once, so a
	// login flood cannot use up CPU or memory. Default: GOMAXPROCS.
	HashConcurrency int
	// Rooms connects the panel to the game's live rooms. Default nil: the
	// room endpoints answer 501.
	Rooms Rooms
	// RoomTimeout bounds every call the panel makes into Rooms: an
	// operator's inspect, kick, lock, unlock, state edit, dispose and
	// room list, a user's live sessions, the dashboard's live rooms and
	// players-online samples, and the closing of a banned or revoked
	// player's connections. Past it the endpoint answers 504 room_timeout
	// (a ban answers with "partial": true) while the call may still be
	// held, and the call's ctx ends, so package live drops the work
	// unrun if the room has not started it. A panic of the game's code
	// while a call is served answers 500 room_failed naming the room and
	// is logged with its stack; the room runs on. Default 5 s; negative
	// fails New.
	RoomTimeout time.Duration
	// Logger receives the panel's logs. Default slog.Default().
	Logger *slog.Logger
	// Clock is the time the panel decides by: which TOTP code is current
	// (and when a recovery code was spent); whether a ban has ended, for
	// sign-in, Auth.Banned, Auth.UserStates and the bulk ban's
	// "already_banned"; that a new ban's end is still ahead, and a ban's
	// BannedAt; and the dashboard's "now": its chart ranges, today's
	// counts and the players-online samples (Rooms), taken at start and
	// every minute; a player report's filing and resolution times
	// (its folding window, the queue's last 24 hours); whether a refused
	// enum label or check reads the catalog again (at most once a second
	// per column or check; CatalogRefresh); and the time a time
	// ResourceConfig.VersionColumn is bumped to. A game's tests set it to move time without waiting.
	// Lifetimes keep the real time: of sessions, reset links, device
	// cookies and the TOTP sign-in step, and of rate limits, timeouts and
	// caches; so do the timestamps the panel writes otherwise (audit
	// entries, updated_at, created_at) and what the database works out
	// itself (column defaults, the users list's _banned filter and the
	// dashboard's "Banned now"). Default time.Now.
	Clock func() time.Time
	// MaxBodyBytes bounds every request body. Default 1 MiB.
	MaxBodyBytes int64
	// MaxTextLength is the most characters the panel writes to a text
	// column without a limit of its own (a varchar(n) keeps its n): a
	// longer value is refused with 400 validation naming the field, and
	// the form says so before sending. Default 10,000; negative: no limit.
	MaxTextLength int
	// PlayersCanRead turns on the seed's behaviour, where a player who
	// signs in can list and read every resource (and so other players'
	// emails), and run the custom actions whose Roles are empty: an
	// explicit opt-in, for a users table that holds no players. Default
	// false: every resource endpoint needs admin or mod, and a policy of
	// Everyone() means operators.
	PlayersCanRead bool
	// RequireTOTP makes operators enrol a second factor before they can do
	// anything but enrol (see docs/security.md, "Two-factor sign-in"): TOTPAdmins,
	// TOTPOperators (admins and mods) or TOTPNone. Default "": TOTPNone.
	RequireTOTP TOTPPolicy
	// ExactCountBelow is the estimated result size under which a list
	// counts its total exactly by default; at or past it the list answers
	// the statistics' estimate with X-Total-Count-Estimated: true, and no
	// COUNT(*) runs. _count=exact still counts. Default 100,000; negative:
	// always count exactly. An estimate is reused for 2 seconds per table
	// and filter, so paging does not ask the statistics again; a result it
	// calls small is still counted on every request. See
	// docs/performance.md, "Large tables".
	ExactCountBelow int64
	// AuditMaxPayloadBytes bounds the JSON payload of one audit row: past
	// it the largest values are replaced by "[truncated: N bytes]" and the
	// payload gains "_truncated": {"bytes": N}, so a custom action's 1 MB
	// body does not become 1 MB of audit log. Default 16 KiB; negative: no
	// bound.
	AuditMaxPayloadBytes int
	// TablePrefix names every table the library creates, its
	// schema-version table <TablePrefix>admin_schema included: letters,
	// digits and underscores. Default "game_" (DefaultTablePrefix).
	TablePrefix string
	// Migrations is MigrateAuto (the default: New creates the built-in
	// tables it needs) or MigrateOff (New only verifies them; apply
	// MigrationSQL's statements with the game's own migration tool). New
	// creates the built-in tables Tables uses with their built-in model,
	// plus the panel's own (roles, audit, second factors), never one the
	// game replaced. See docs/adopting.md.
	Migrations MigrationMode
	// UserColumns maps the panel's user fields onto the users table's
	// columns. Default: id, email, password_hash, display_name,
	// token_version, ban.
	UserColumns UserColumns
	// ExactCountBudget bounds a count a client asked for with _count=exact:
	// past it the count is cancelled and the estimate answered (marked
	// estimated). Default 0: no bound but QueryTimeout, past which the
	// list answers 503 query_timeout.
	ExactCountBudget time.Duration
	// CountBudget bounds the counts the panel runs by itself: a list's
	// total when the statistics call the result small (below
	// ExactCountBelow), and the one statement that counts the relation
	// tabs of a row (GET …/:id/_counts). Past it the count is cancelled
	// and the statistics' estimate answers, marked estimated (the tabs
	// name theirs in _estimated), so a table whose foreign key has no
	// index cannot make each visit of a row scan it. QueryTimeout, when
	// shorter, bounds them first. Default 500 ms; negative fails New.
	CountBudget time.Duration
	// QueryTimeout bounds the time the statements of one list take on the
	// database together (its page and its count; relation tabs and a
	// row's history are lists too), and that of each batch of a CSV
	// export (a batch of 500 rows, each given the whole time, however
	// long the download): PostgreSQL ends them in the server (SET LOCAL
	// statement_timeout), SQLite interrupts them. A list that runs out
	// answers 503 query_timeout, whose message says to narrow the
	// filter, and the log has a warning with the cause; an automatic
	// count that runs out answers the estimate instead. A page that
	// reads only its own rows (in the primary key's order, which the
	// table indexes, without a filter or search, near the start or by
	// keyset) runs without it, as a read by id does. Default 5 s;
	// negative: no limit.
	QueryTimeout time.Duration
	// CatalogRefresh is how often the panel reads again, from the
	// database's catalog, what a game's migration may change while it
	// runs: the labels of enum types (ALTER TYPE … ADD VALUE), check
	// constraints (which columns a check's refusal names) and triggers
	// (whether a write reads its row again, so its answer is the row as
	// stored). A write or filter refused for an enum label the panel does
	// not know, and a check it does not know, read the table's catalog
	// again at once (at most once a second per column or check), so this
	// is the bound for the rest: a trigger added, a check or label dropped.
	// What New read of the columns themselves (their kinds, types,
	// nullability) and the resources' configuration need a restart
	// (docs/adopting.md, "When your migrations run while the panel
	// does"). The reads run on a goroutine of their own that Close
	// stops. Default 1 minute; negative: never (the reads on a refusal
	// still run).
	CatalogRefresh time.Duration
	// QueryConcurrency bounds how many expensive requests one operator
	// runs at once: lists with a text search (_q, a _like filter) or an
	// exact count (_count=exact), and CSV exports. One more answers 429
	// rate_limited with Retry-After. Default 2; negative: no bound.
	QueryConcurrency int
	// DatabaseConcurrency bounds how many of the panel's reads run at
	// once, all operators of this Admin together (several panels in one
	// process have a bound each): list pages and their counts, the
	// search box, the reports' queue, the audit log's list, a dashboard
	// page's built-in widgets (one place for all of them), each batch of
	// a CSV or personal-data export, each range of an erase's search of
	// the audit log. The rest wait their turn, first come first served,
	// within QueryTimeout (past it: 503 query_timeout with Retry-After).
	// The panel runs beside a game whose ticks must not wait for a CPU,
	// often with the database on the same machine: a bounded share keeps
	// the other cores for the game (docs/performance.md, "The game's
	// side"). Exports and an erase's search also pause after each batch
	// as long as it took. A read by id and every write go unbounded.
	// Default: half the process's GOMAXPROCS, at least 1 (one at a time
	// on 2 cores); negative: no bound and no pauses, for a database on a
	// machine of its own with cores to spare.
	DatabaseConcurrency int
	// ExportMaxRows caps the rows of one CSV export
	// (GET /admin-api/<resource>/_export.csv): a larger result ends after
	// that many rows, and the audit entry says "truncated". The answer's
	// X-Export-Max-Rows header states the cap. Default 100,000; negative:
	// no cap.
	ExportMaxRows int64
	// ExportNoBOM leaves out the UTF-8 byte-order mark that starts every
	// CSV export, which Excel needs to read non-ASCII names right. Set it
	// for tools that take the mark for part of the first column's name.
	ExportNoBOM bool
	// HealthChecks are extra dependencies the health widget and
	// GET /admin-api/_health report beside the database, such as the Redis
	// of a multi-node deployment (redisstore.HealthCheck). They are shown,
	// not judged: "ok" stays the database's, so a load balancer keeps a node
	// that can still serve. Default nil.
	HealthChecks []HealthCheck
	// ReportCategories are the kinds of player report the game files with
	// Admin.FileReport ("cheating", "abuse", "name"), each with how its
	// evidence reads in the reports queue. Default nil: reports are off
	// (FileReport returns ErrReportsOff, the reports endpoints answer 404
	// and the catalog says so). A key twice, a bad key or evidence naming
	// no resource fails New.
	ReportCategories []ReportCategory
	// ReportWindow is how long a reporter's repeated reports of the same
	// player in the same category fold into their first open one (its
	// count goes up) instead of adding to the queue. Default 10 minutes;
	// negative fails New.
	ReportWindow time.Duration
	// ReportClaimExpiry is how long a moderator's claim on a player's
	// reports keeps other moderators out: a claim not acted on for that
	// long is taken by the next moderator's claim (audited as such), and
	// no longer refuses their resolution. Default 30 minutes; negative
	// fails New.
	ReportClaimExpiry time.Duration
	// OnAudit receives every audit entry once the change it records has
	// committed: an entry of a transaction that rolls back is never sent.
	// It is called from one goroutine of the panel's, fed by a queue of
	// AuditQueue events, so a slow or failing receiver never slows or
	// fails a request; when the queue is full the event is dropped,
	// counted (Admin.AuditEventsDropped) and a warning is logged at most
	// once a minute. A panic in it is logged and the next event still
	// comes. Its ctx ends when Close stops waiting for it. WebhookSink
	// is a ready receiver. The panel then works on a copy of the *bun.DB
	// given to New with a query hook of its own, which sees its
	// transactions commit; the game's entries written with RecordTx are
	// sent when their transaction is one of Audit().RunInTx's. Default
	// nil: none.
	OnAudit func(ctx context.Context, e AuditEvent)
	// AuditQueue is how many events wait for OnAudit before new ones are
	// dropped. Default 1024.
	AuditQueue int
}

// ReportCategory is a kind of player report the game declares
// (Options.ReportCategories): Key, what the game files; Label, what
// operators read (default Key); Evidence, how a report's evidence reads
// in the queue: "" (none taken), "text" (a JSON string, shown as text) or
// "row" (the id of a row of the resource Resource names, shown as a link
// to it with its label).
type ReportCategory = engine.ReportCategory

// Report is one player's report about another, as the game files it with
// Admin.FileReport: who reports (ReporterID) whom (PlayerID), its
// Category (a key of Options.ReportCategories), the player's free Text
// (at most 1,000 characters), the RoomID and SessionID it happened in
// (optional; the queue links them while the room is live), and Evidence
// (optional JSON, at most 4 KiB) as the category declares it.
type Report = engine.Report

// SessionOptions configure the session cookie.
type SessionOptions struct {
	// CookieName names the session cookie. Default "game_admin_session".
	// Two panels served from one host need different names, or signing in
	// to one signs out of the other (neither accepts the other's session:
	// tokens are bound to their panel's APIPath).
	CookieName string
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
	// Role is the user's panel role (RoleUser for a player), so that a
	// game whose players and operators share one users table can word, or
	// route, the message for each.
	Role  Role
	Token string
	URL   string
	// Invite is true for a link an admin sent from the user page (POST
	// /admin-api/users/:id/invite) to someone who has no password yet,
	// so the message can welcome them instead of speaking of a reset.
	Invite bool
}

// EraseRule says what erasing a user does to a resource's rows that refer
// to the user: set it as ResourceConfig.Erase. Without one, rows whose
// reference is NOT NULL are deleted and nullable references are cleared.
type EraseRule = engine.EraseRule

// EraseDelete deletes the rows.
var EraseDelete = engine.EraseDelete

// EraseKeep keeps the rows as they are: a legal hold (purchases kept
// for the tax office). They stay linked to the erased account, whose
// own personal values are gone.
var EraseKeep = engine.EraseKeep

// EraseAnonymize keeps the rows and clears Columns in them: NULL, or
// "[erased]" in a NOT NULL text column.
type EraseAnonymize = engine.EraseAnonymize

// compile turns the options into the engine's form: the structs whose
// fields are the same convert, the game's callback is wrapped to take the
// engine's request. TestCompileKeepsEveryField fails when a field is added
// to one side only or left out here.
func (o Options) compile() engine.Options {
	out := engine.Options{
		Secret:               o.Secret,
		SetupToken:           o.SetupToken,
		Production:           o.Production,
		UIPath:               o.UIPath,
		APIPath:              o.APIPath,
		TrustedOrigins:       o.TrustedOrigins,
		Tables:               o.Tables,
		Resources:            o.Resources,
		Widgets:              o.Widgets,
		WidgetTimeout:        o.WidgetTimeout,
		DashboardTotals:      o.DashboardTotals,
		TrustedProxies:       o.TrustedProxies,
		ClientIPHeader:       o.ClientIPHeader,
		ResetOperatorsOnly:   o.ResetOperatorsOnly,
		PasswordHasher:       o.PasswordHasher,
		HashConcurrency:      o.HashConcurrency,
		Rooms:                o.Rooms,
		RoomTimeout:          o.RoomTimeout,
		Logger:               o.Logger,
		Clock:                o.Clock,
		MaxBodyBytes:         o.MaxBodyBytes,
		MaxTextLength:        o.MaxTextLength,
		PlayersCanRead:       o.PlayersCanRead,
		RequireTOTP:          o.RequireTOTP,
		ExactCountBelow:      o.ExactCountBelow,
		AuditMaxPayloadBytes: o.AuditMaxPayloadBytes,
		TablePrefix:          o.TablePrefix,
		Migrations:           o.Migrations,
		ExactCountBudget:     o.ExactCountBudget,
		CountBudget:          o.CountBudget,
		QueryTimeout:         o.QueryTimeout,
		CatalogRefresh:       o.CatalogRefresh,
		QueryConcurrency:     o.QueryConcurrency,
		DatabaseConcurrency:  o.DatabaseConcurrency,
		ExportMaxRows:        o.ExportMaxRows,
		ExportNoBOM:          o.ExportNoBOM,
		ReportCategories:     o.ReportCategories,
		ReportWindow:         o.ReportWindow,
		ReportClaimExpiry:    o.ReportClaimExpiry,
		OnAudit:              o.OnAudit,
		AuditQueue:           o.AuditQueue,
		Session:              engine.SessionOptions(o.Session),
		RateLimit:            engine.RateLimitOptions(o.RateLimit),
		UserColumns:          engine.UserColumns(o.UserColumns),
	}
	if o.Relations != nil {
		out.Relations = make(map[string][]engine.Relation, len(o.Relations))
		for k, rels := range o.Relations {
			for _, r := range rels {
				out.Relations[k] = append(out.Relations[k], engine.Relation(r))
			}
		}
	}
	for _, h := range o.HealthChecks {
		out.HealthChecks = append(out.HealthChecks, engine.HealthCheck(h))
	}
	if f := o.OnResetRequest; f != nil {
		out.OnResetRequest = func(ctx context.Context, req engine.ResetRequest) error { return f(ctx, ResetRequest(req)) }
	}
	return out
}
