package engine

import (
	"io/fs"
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"

	"github.com/gameadmin/admin/internal/account"
	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/history"
	"github.com/gameadmin/admin/internal/openapi"
	"github.com/gameadmin/admin/internal/uiserve"
	"github.com/gameadmin/admin/internal/userdata"
	"github.com/gameadmin/admin/internal/users"
)

// Route is one endpoint of the HTTP API, as Routes lists it and the
// panel serves it.
type Route struct {
	// Method is the request's method; "" matches every method.
	Method string
	// Path is the pattern's path under Options.APIPath, in net/http's
	// pattern syntax ("/{resource}/{id}/_history"); "" is the API path
	// itself, without its slash, and "/" every path no other route
	// serves.
	Path string
	// Handler names what answers it: auth, rows, users, rooms, reports,
	// dashboard, search, openapi, catalog, export, history, userdata, or
	// notFound.
	Handler string
	// Public is true for the routes answered without a session.
	Public bool
}

// Routes lists every endpoint of the HTTP API, in the order the panel
// matches them (tier). It is the route table the panel serves, without
// its handlers.
func Routes() []Route {
	eps := handlers{}.endpoints()
	out := make([]Route, len(eps))
	for i, e := range eps {
		out[i] = e.Route
	}
	return out
}

// handlers are the API's endpoint families, each built over the narrow
// dependencies it uses (newHandlers): none reaches anything it was not
// given. A zero handlers is fine to name the methods of (Routes).
type handlers struct {
	auth      *authHandler     // auth_http.go, totp_http.go, reset_http.go, account_http.go, setup.go
	rows      *rowsHandler     // a resource's rows: crud.go, relations.go, actions.go
	users     userHandler      // players: users_http.go, users_bulk.go
	rooms     *roomsHandler    // rooms_http.go
	reports   *reportsHandler  // reports_http.go, reports.go
	dashboard dashboardHandler // dashboard.go
	search    *searchHandler   // search.go
	openapi   *openAPIHandler  // openapi.go
	catalog   *catalogHandler  // catalog.go
	export    *exportHandler   // export.go
	history   *history.Handler // a row's history and revert (internal/history)
	userData  *userdata.Service
	rowScope  *rowScopeHandler // a mod's row scope: rowscope_http.go
}

// newHandlers builds the endpoint families over a's parts: what each
// takes is all it can reach.
func newHandlers(a *Admin) handlers {
	ur := a.usersRes
	cat := &catalogHandler{order: a.order, as: a.resourceAs, allowed: a.allowed, specials: a.specials, maxText: a.opts.MaxTextLength}
	ips := a.clientIPs()
	return handlers{
		auth: &authHandler{
			auth: a.auth, tokens: a.tokens, sessions: a.sessions, totp: totpGate{apiPath: a.opts.APIPath, auth: a.auth},
			setup: a.setup, db: a.db, roles: a.roles, users: a.users, audit: a.audit, ips: ips,
			prefs: account.NewPrefs(a.db, string(a.tableNames)),
			rooms: a.opts.Rooms != nil, reports: a.reports.On(),
			catalog: cat.catalog, userID: ur.pathUserID,
			userEntry: func(r *http.Request, op Operator, action, userID string, kv ...any) AuditEntry {
				return ur.entry(requestMeta(r, ips), op, action, userID, kv...)
			},
		},
		rows:      a.rows,
		users:     userHandlerOf(a),
		rooms:     newRoomsHandler(a.opts.Rooms, a.opts.RoomTimeout, a.gate, ur.userID, a.db, a.roles, a.audit, ips),
		reports:   newReportsHandler(a),
		dashboard: dashboardHandler{dash: a.dashboard},
		search:    newSearchHandler(a.order, a.resourceAs, a.allowed, a.queries, a.log),
		openapi: newOpenAPIHandler(cat.catalog, a.allowed, openapi.Input{
			APIPath: a.opts.APIPath, CookieName: a.opts.Session.CookieName,
			Audit: a.resources[audit.Key] != nil, Users: a.resources[users.Key] != nil, Rooms: a.opts.Rooms != nil,
			MaxReasonLen: maxReasonLen, MaxBulkIDs: maxActionIDs, ReportCategories: reportKeys(a.reports.Categories()),
		}),
		catalog:  cat,
		export:   newExportHandler(a, a.rows),
		history:  a.history,
		userData: a.userData,
		rowScope: &rowScopeHandler{db: a.db, roles: a.roles, mod: a.moderation, userID: ur.pathUserID},
	}
}

// newReportsHandler builds the reports endpoints over a's parts; the
// dashboard's open-reports figures are its too (newDashboard).
func newReportsHandler(a *Admin) *reportsHandler {
	ur := a.usersRes
	notes := ""
	if builtinDef("userNotes", a.opts.Tables["userNotes"]) != nil {
		notes = string(a.tableNames) + "user_notes"
	}
	return &reportsHandler{
		store: a.reports, db: a.db, roles: a.roles, sanctions: a.sanctions, audit: a.audit, queries: a.queries,
		rt: a.opts.Rooms, notes: notes, ips: a.clientIPs(), log: a.log, now: a.now, auditTable: string(a.tbl("admin_audit")),
		gate: a.gate, allowed: a.allowed, as: a.resourceAs, userID: ur.userID,
		checkBan: ur.checkBan, moderationSupported: ur.moderationSupported,
	}
}

// endpoint is a route and the function that answers it: fn for a public
// route, opFn for one that needs a session.
type endpoint struct {
	Route
	fn   handlerFunc
	opFn opHandlerFunc
}

// endpoints is the route table: every endpoint of the API, a pattern of
// its own. Routes builds it over zero handlers, so it only names their
// methods and never calls one.
func (h handlers) endpoints() []endpoint {
	public := func(method, path, handler string, fn handlerFunc) endpoint {
		return endpoint{Route: Route{Method: method, Path: path, Handler: handler, Public: true}, fn: fn}
	}
	signedIn := func(method, path, handler string, fn opHandlerFunc) endpoint {
		return endpoint{Route: Route{Method: method, Path: path, Handler: handler}, opFn: fn}
	}
	// The users' moderation reads its op from the path (handleUserOp,
	// handleUserBulk); each op has a pattern of its own, which names it.
	userOp := func(path, op string, fn opHandlerFunc) endpoint {
		return signedIn("POST", path, "users", func(w http.ResponseWriter, r *http.Request, o Operator) error {
			r.SetPathValue("op", op)
			return fn(w, r, o)
		})
	}
	notFound := func(w http.ResponseWriter, r *http.Request, op Operator) error { return errNotFoundRoute }
	return []endpoint{
		// auth_http.go
		public("GET", "/auth/status", "auth", h.auth.handleStatus),
		public("POST", "/auth/bootstrap", "auth", h.auth.handleBootstrap),
		public("POST", "/auth/login", "auth", h.auth.handleLogin),
		signedIn("GET", "/auth/me", "auth", h.auth.handleMe),
		signedIn("POST", "/auth/logout", "auth", h.auth.handleLogout),
		signedIn("POST", "/auth/logout-everywhere", "auth", h.auth.handleLogoutEverywhere),
		signedIn("PUT", "/auth/locale", "auth", h.auth.handleLocale),
		// reset_http.go
		public("POST", "/auth/request-reset", "auth", h.auth.handleRequestReset),
		public("POST", "/auth/reset", "auth", h.auth.handleReset),
		// totp_http.go
		public("POST", "/auth/login/totp", "auth", h.auth.handleLoginTOTP),
		signedIn("GET", "/auth/totp", "auth", h.auth.handleTOTPStatus),
		signedIn("POST", "/auth/totp/enroll", "auth", h.auth.handleTOTPEnroll),
		signedIn("POST", "/auth/totp/confirm", "auth", h.auth.handleTOTPConfirm),
		signedIn("POST", "/auth/totp/disable", "auth", h.auth.handleTOTPDisable),
		signedIn("POST", "/auth/totp/recovery-codes", "auth", h.auth.handleRecoveryCodes),
		signedIn("POST", "/users/{id}/totp/reset", "auth", h.auth.handleTOTPReset),
		// rowscope_http.go
		signedIn("GET", "/users/{id}/row-scope", "users", h.rowScope.handleGet),
		signedIn("PUT", "/users/{id}/row-scope", "users", h.rowScope.handlePut),
		// account_http.go
		signedIn("GET", "/auth/sessions", "auth", h.auth.handleSessions),
		signedIn("POST", "/auth/password", "auth", h.auth.handlePasswordChange),
		// dashboard.go (the page and the health answer are internal/dashboard's)
		public("GET", "/_health", "dashboard", h.dashboard.handleHealth),
		signedIn("GET", "/_dashboard", "dashboard", h.dashboard.handleDashboard),
		signedIn("GET", "/_openapi.json", "openapi", h.openapi.handleOpenAPI), // openapi.go
		signedIn("GET", "/_search", "search", h.search.handleSearch),          // search.go
		// reports_http.go
		signedIn("GET", "/_reports", "reports", h.reports.handleReports),
		signedIn("POST", "/_reports/{playerId}/claim", "reports", h.reports.handleReportClaim),
		signedIn("POST", "/_reports/{playerId}/resolve", "reports", h.reports.handleReportResolve),
		signedIn("POST", "/_reports/{playerId}/release", "reports", h.reports.handleReportRelease),
		// catalog.go
		signedIn("GET", "", "catalog", h.catalog.handleCatalog),
		signedIn("GET", "/{$}", "catalog", h.catalog.handleCatalog),
		// rooms_http.go
		signedIn("GET", "/rooms", "rooms", h.rooms.handleRoomList),
		signedIn("GET", "/rooms/by-user/{userId}", "rooms", h.rooms.handleRoomsByUser),
		signedIn("GET", "/rooms/{roomId}", "rooms", h.rooms.handleRoomInspect),
		signedIn("PATCH", "/rooms/{roomId}", "rooms", h.rooms.handleRoomLock),
		signedIn("DELETE", "/rooms/{roomId}", "rooms", h.rooms.handleRoomDispose),
		signedIn("DELETE", "/rooms/{roomId}/clients/{sessionId}", "rooms", h.rooms.handleRoomKick),
		signedIn("PATCH", "/rooms/{roomId}/state", "rooms", h.rooms.handleRoomStateEdit),
		signedIn("DELETE", "/rooms/{roomId}/state", "rooms", h.rooms.handleRoomStateDelete),

		// A resource: export.go, actions.go, users_bulk.go.
		signedIn("GET", "/{resource}/"+exportPath, "export", h.export.handleExport), // a row keyed "_export.csv" has no page
		signedIn("POST", "/{resource}/_action/{name}", "rows", h.rows.handleAction),
		userOp("/{resource}/_bulk/ban", "ban", h.users.handleUserBulk),
		userOp("/{resource}/_bulk/unban", "unban", h.users.handleUserBulk),
		userOp("/{resource}/_bulk/revoke-sessions", "revoke-sessions", h.users.handleUserBulk),

		// Its rows: crud.go, relations.go.
		signedIn("GET", "/{resource}", "rows", h.rows.handleList),
		signedIn("POST", "/{resource}", "rows", h.rows.handleCreate),
		signedIn("GET", "/{resource}/{id}", "rows", h.rows.handleRead),
		signedIn("PATCH", "/{resource}/{id}", "rows", h.rows.handleUpdate),
		signedIn("PUT", "/{resource}/{id}", "rows", h.rows.handleUpdate),
		signedIn("DELETE", "/{resource}/{id}", "rows", h.rows.handleDelete),
		signedIn("GET", "/{resource}/{id}/_counts", "rows", h.rows.handleCounts),
		signedIn("GET", "/{resource}/{id}/relations/{name}", "rows", h.rows.handleRelation),
		signedIn("POST", "/{resource}/{id}/_restore", "rows", h.rows.handleRestore),
		// internal/history (history.go)
		signedIn("GET", "/{resource}/{id}/_history", "history", h.history.Rows),
		signedIn("POST", "/{resource}/{id}/_revert", "history", h.history.Revert),
		// internal/userdata (userdata.go)
		signedIn("GET", "/{resource}/{id}/_export", "userdata", h.userData.Export),
		signedIn("POST", "/{resource}/{id}/_erase", "userdata", h.userData.Erase),
		// users_http.go
		userOp("/{resource}/{id}/ban", "ban", h.users.handleUserOp),
		userOp("/{resource}/{id}/unban", "unban", h.users.handleUserOp),
		userOp("/{resource}/{id}/revoke-sessions", "revoke-sessions", h.users.handleUserOp),
		userOp("/{resource}/{id}/invite", "invite", h.users.handleUserOp),

		// What no route serves: under a row, 404 once signed in (a bulk
		// op comes here too); anywhere else, 404.
		signedIn("GET", "/{resource}/{id}/{sub}", "notFound", notFound),
		signedIn("POST", "/{resource}/{id}/{op}", "notFound", notFound),
		public("", "/", "notFound", func(http.ResponseWriter, *http.Request) error { return errNotFoundRoute }),
	}
}

// tiers is how many muxes serve the API in turn (tier).
const tiers = 3

// tier is the mux of the three that serves path. net/http's mux refuses
// two patterns that match a path in common when neither is the more
// specific: GET /rooms/{roomId} and GET /{resource}/_export.csv both
// match /rooms/_export.csv, POST /{resource}/_action/{name} and
// POST /{resource}/{id}/ban both /gadgets/_action/ban. So a literal
// segment beats a wildcard from the left, as in chi's tree: the panel's
// own paths (a literal first segment) are tier 0, a resource's (a
// literal second: _export.csv, _action, _bulk) tier 1, its rows' tier 2;
// each mux hands what it does not serve to the next, and the last
// answers the rest 404.
func tier(path string) int {
	if path == "/" {
		return tiers - 1
	}
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	wild := func(s string) bool { return strings.HasPrefix(s, "{") && s != "{$}" }
	switch {
	case !wild(segs[0]):
		return 0
	case len(segs) > 1 && !wild(segs[1]):
		return 1
	}
	return tiers - 1
}

// routes builds the panel's handler: the API (the route table over a's
// handlers) behind cross-origin protection, and the UI.
func routes(a *Admin) http.Handler {
	w := wrap{closed: &a.closed, maxBody: a.opts.MaxBodyBytes, log: a.log, sessions: a.sessions,
		totp: totpGate{apiPath: a.opts.APIPath, auth: a.auth}}
	compress := compressor()
	mux := serveRoutes(a.opts.APIPath, newHandlers(a).endpoints(), func(e endpoint) http.Handler {
		if e.opFn != nil {
			return compress(w.signedIn(e.opFn))
		}
		return compress(w.public(e.fn))
	})
	mux.Handle(a.opts.UIPath+"/", uiHandler(a.ui, a.opts.UIPath, a.opts.APIPath))

	// State-changing requests from another origin are refused whatever the
	// cookie's SameSite mode: browsers send Sec-Fetch-Site, and Origin is
	// checked against Host for those that do not.
	a.cop.SetDenyHandler(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		writeError(a.log, rw, r, errCrossOrigin)
	}))
	return a.cop.Handler(mux)
}

// compressor wraps an endpoint so that its answer is compressed when the
// client accepts it (klauspost/compress's gzhttp): zstd, else gzip, at
// their fastest levels, for the panel runs on the game's CPU. An answer
// below gzhttp's DefaultMinSize (1 KiB), or one that names its own
// Content-Encoding, goes as it is. A streamed answer stays streamed: a
// flush flushes the compressor, and Hijack and SetWriteDeadline reach the
// connection through the wrapper (Unwrap). An ETag stays the row's
// version, whatever the encoding: If-Match compares it.
func compressor() func(http.Handler) http.HandlerFunc {
	wrap, err := gzhttp.NewWrapper(gzhttp.CompressionLevel(gzip.BestSpeed))
	if err != nil {
		panic("admin: compressing answers: " + err.Error())
	}
	return wrap
}

// serveRoutes registers eps under apiPath, each answered by serve(e), in
// the muxes of their tiers, and returns the first, which hands on what it
// does not serve.
func serveRoutes(apiPath string, eps []endpoint, serve func(endpoint) http.Handler) *http.ServeMux {
	var muxes [tiers]*http.ServeMux
	for i := range muxes {
		muxes[i] = http.NewServeMux()
	}
	for _, e := range eps {
		pattern := apiPath + e.Path
		if e.Method != "" {
			pattern = e.Method + " " + pattern
		}
		muxes[tier(e.Path)].Handle(pattern, serve(e))
	}
	for i := range tiers - 1 {
		muxes[i].Handle(apiPath+"/", muxes[i+1])
	}
	return muxes[0]
}

// uiHandler serves the UI under uiPath (internal/uiserve), from the
// build the root package embeds (ui/dist).
func uiHandler(ui fs.FS, uiPath, apiPath string) http.Handler {
	dist, err := fs.Sub(ui, "ui/dist")
	if err != nil {
		panic("admin: embedded UI: " + err.Error())
	}
	return uiserve.New(dist, uiPath, apiPath)
}
