package admin

import (
	"context"
	"net/http"

	"github.com/gameadmin/admin/internal/engine"
	"github.com/uptrace/bun"
)

// Admin is the panel: an http.Handler serving /admin-api/* and the UI under
// Options.UIPath. Create it with New and stop it with Close.
type Admin struct {
	e     *engine.Admin
	auth  *Auth
	mod   *Moderation
	audit *Audit
}

var _ http.Handler = (*Admin)(nil)

// New validates opts, brings the built-in tables up to date (custom tables
// are never created) and returns the panel. Calling it again on the same
// database is safe: applied migrations are skipped. It is NewContext with
// context.Background(): the migrations wait as long as the database makes
// them (another node holding the migration lock, an unreachable server).
func New(db *bun.DB, opts Options) (*Admin, error) {
	return NewContext(context.Background(), db, opts)
}

// NewContext is New with a context that bounds the work on the database
// at start-up (the migrations and the lock that serializes them across
// nodes): when ctx ends first, NewContext returns an error wrapping
// ctx.Err() and the migration transaction is rolled back. ctx is not kept.
func NewContext(ctx context.Context, db *bun.DB, opts Options) (*Admin, error) {
	e, err := engine.NewContext(ctx, db, opts.compile(), uiDist)
	if err != nil {
		return nil, err
	}
	a := &Admin{e: e, auth: &Auth{e.Auth()}, mod: &Moderation{e.Moderation()}, audit: &Audit{e.Audit()}}
	return a, nil
}

// Moderation returns the role and scope API.
func (a *Admin) Moderation() *Moderation { return a.mod }

// Auth returns the session, ban and password API.
func (a *Admin) Auth() *Auth { return a.auth }

// Audit returns the audit-log API.
func (a *Admin) Audit() *Audit { return a.audit }

// FileReport files a player's report about another from the game's code
// (a chat command, an in-game button) and returns the report's id. The
// category must be one of Options.ReportCategories (else
// ErrUnknownCategory; none declared: ErrReportsOff), the player and the
// reporter users of the users table (else ErrUnknownPlayer), the text and
// evidence within bounds (else ErrInvalidReport). Each reporter is rate
// limited (RateLimitOptions.Reports: ErrReportLimited, also a
// *RateLimitError); a report of the same player in the same category by
// the same reporter within Options.ReportWindow folds into their open one,
// whose id is returned and whose count goes up. A new report is recorded
// in the audit log as report.file, with the player's open reports as
// openReports. Nothing is written when it fails.
func (a *Admin) FileReport(ctx context.Context, r Report) (int64, error) {
	return a.e.FileReport(ctx, r)
}

// ServeHTTP serves the API under Options.APIPath and the UI under
// Options.UIPath, reading the full request path: a router mounts the
// *Admin under both paths as they are (chi's r.Mount, echo.WrapHandler,
// gin.WrapH, a ServeMux pattern), with no http.StripPrefix. After Close it
// answers 503 closed.
func (a *Admin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.e.ServeHTTP(w, r)
}

// Mount registers the panel on mux at its API path and UI path.
func (a *Admin) Mount(mux *http.ServeMux) {
	a.e.Mount(mux)
}

// Close waits for background work (reset-link deliveries) to finish, and
// for Options.OnAudit to receive the queued events, at most 5 seconds
// (then the context it is given ends and the rest are dropped). The
// panel, its UI and every Guard made from it answer 503 afterwards. It does
// not close the database.
func (a *Admin) Close() error {
	return a.e.Close()
}

// AuditEventsDropped is how many audit events Options.OnAudit did not
// receive because its queue was full or the panel was closing.
func (a *Admin) AuditEventsDropped() int64 {
	return engine.AuditEventsDropped(a.e)
}

// UIPath is where the panel UI is served (Options.UIPath, normalized).
func (a *Admin) UIPath() string {
	return a.e.UIPath()
}

// APIPath is where the HTTP API is served (Options.APIPath, normalized).
func (a *Admin) APIPath() string {
	return a.e.APIPath()
}

// ClientIP returns the client IP of r as a canonical string, honouring
// X-Forwarded-For, Forwarded and Options.ClientIPHeader only when the peer
// is in the panel's Options.TrustedProxies. It is the key of the panel's
// rate limiters; a game's own limiters should use it too.
func (a *Admin) ClientIP(r *http.Request) string {
	return a.e.ClientIP(r)
}

// MigrationMode says whether New creates the built-in tables.
type MigrationMode = engine.MigrationMode

// MigrateAuto (the default) makes New create the built-in tables it
// needs and record each step in <TablePrefix>admin_schema.
const MigrateAuto = engine.MigrateAuto

// MigrateOff makes New only verify that every step it needs is
// recorded and every table exists, failing with a message naming what
// is missing. The game applies MigrationSQL's statements with its own
// migration tool.
const MigrateOff = engine.MigrateOff

// DefaultTablePrefix names the built-in tables unless Options.TablePrefix
// says otherwise.
const DefaultTablePrefix = engine.DefaultTablePrefix

// MigrationSQL returns the statements that create the built-in tables New
// needs with opts, in order, for review or for the game's own migration
// tool (then set opts.Migrations to MigrateOff). d is a bun
// schema.Dialect, a dialect.Name, or a name: "pg" (or "postgres") or
// "sqlite". Every statement is idempotent. The statements name the
// tables with opts.TablePrefix, give user columns the type of the users
// table's id column, and end by recording each step in
// <TablePrefix>admin_schema, which New with MigrateOff checks.
func MigrationSQL(d any, opts Options) ([]string, error) {
	return engine.MigrationSQL(d, opts.compile())
}

// TableName returns the SQL name of a built-in table under
// Options.TablePrefix, by its key in BuiltinTables ("roles",
// "adminAudit", ...; "users" gives the users table, whatever model it
// is), or "" for another key. A game that reads a built-in model under a
// prefix other than "game_" names the table with it:
//
//	db.NewSelect().Model(&notes).ModelTableExpr("? AS un", bun.Ident(a.TableName("userNotes")))
func (a *Admin) TableName(key string) string {
	return a.e.TableName(key)
}

// SetupLink returns the site-relative link that creates the first admin,
// <UIPath>/setup?token=<token>, while no admin exists and the token is
// one New generated (the link it logged); "" otherwise (an admin exists,
// the token is Options.SetupToken, which the game knows, or the check
// failed). A game prefixes its own origin to print a link a terminal can
// open, as the demo does.
func (a *Admin) SetupLink(ctx context.Context) string {
	return a.e.SetupLink(ctx)
}

// CreateFirstAdmin creates the first admin from Go, for a scripted
// deployment (a CLI flag of the game's, an init job) that should not
// open the setup link: the same checks and audit entry
// (auth.bootstrap, "via": "go") as the setup page, without a token or a
// session. An existing user with that email is promoted when password is
// its password. With UserColumns.Username, email may be a username
// instead: a value without '@', or any value on a users table without an
// email column. It returns the admin's user id, or ErrBootstrapClosed
// once an admin exists, or an *APIError naming a bad email or a password
// that is too short.
func (a *Admin) CreateFirstAdmin(ctx context.Context, email, password, displayName string) (string, error) {
	return a.e.CreateFirstAdmin(ctx, email, password, displayName)
}

// SecondFactorURL is the panel's page for the code of a challenge that
// StartSession left pending: <UIPath>/login?step=totp, with next (a
// same-origin path, of the panel or the game) where sign-in then leads.
func (a *Admin) SecondFactorURL(next string) string {
	return a.e.SecondFactorURL(next)
}

// User is a row of game_users: players and operators alike.
//
// Email is stored as typed (trimmed, its case kept) and matched without
// regard to case, an exact match first (docs/adopting.md, "Emails and
// case"); a game that inserts users itself may store any case.
type User = engine.User

// BanInfo is the JSON held in game_users.ban while a user is banned.
type BanInfo = engine.BanInfo

// Config is a row of game_configs: one JSON value per key.
type Config = engine.Config

// Leaderboard is a row of game_leaderboards.
type Leaderboard = engine.Leaderboard

// AnalyticsEvent is a row of game_analytics_events.
type AnalyticsEvent = engine.AnalyticsEvent

// CloudSave is a row of game_cloud_saves, keyed by (user_id, slot).
type CloudSave = engine.CloudSave

// LeaderboardEntry is a row of game_leaderboard_entries, keyed by
// (leaderboard_id, user_id).
type LeaderboardEntry = engine.LeaderboardEntry

// RoleAssignment is a row of game_roles: a user's role and, for mods, the
// resource keys they may work on. A user without a row has RoleUser.
type RoleAssignment = engine.RoleAssignment

// UserNote is a row of game_user_notes: an operator's note about a user.
type UserNote = engine.UserNote

// BuiltinTables returns the canonical key of each built-in table mapped to
// its Bun model (a typed nil pointer). Start Options.Tables from it to add
// the game's own tables:
//
//	tables := admin.BuiltinTables()
//	tables["guilds"] = (*Guild)(nil)
func BuiltinTables() map[string]any {
	return engine.BuiltinTables()
}
