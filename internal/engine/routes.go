package engine

import (
	"io/fs"
	"net/http"
	"strings"

	"github.com/gameadmin/admin/internal/uiserve"
)

// api is the HTTP API: its methods are the endpoints (handle*), one file
// per area as the route table below says, over the state of one panel.
// Admin's own methods are the Go API and the machinery the endpoints
// share.
// The handlers by concern, each the panel as its routes see it. Their
// underlying types are one, so a handler converts to another's to use it.
type (
	authAPI    struct{ *Admin } // sign-in, second factor, reset, the operator's account, setup
	rowsAPI    struct{ *Admin } // a resource's rows: list, read, writes, tabs, labels, actions
	roomsAPI   struct{ *Admin } // live rooms and sessions
	reportsAPI struct{ *Admin } // players' reports: the queue, claims, resolutions (reports.go, reports_http.go)
	viewsAPI   struct{ *Admin } // dashboard (internal/dashboard), history (internal/history), audit log, catalog, OpenAPI, CSV, search
)

// routes builds the handler: the API behind cross-origin protection, and
// the UI.
func (a *Admin) routes() http.Handler {
	auth, rows, users, rooms, views := authAPI{a}, rowsAPI{a}, userHandlerOf(a), roomsAPI{a}, viewsAPI{a}
	mux := http.NewServeMux()
	api := func(pattern string, h http.Handler) {
		method, path, _ := strings.Cut(pattern, " ")
		mux.Handle(method+" "+a.opts.APIPath+path, h)
	}
	// auth_http.go
	api("GET /auth/status", a.public(auth.handleStatus))
	api("POST /auth/bootstrap", a.public(auth.handleBootstrap))
	api("POST /auth/login", a.public(auth.handleLogin))
	api("GET /auth/me", a.signedIn(auth.handleMe))
	api("POST /auth/logout", a.signedIn(auth.handleLogout))
	api("POST /auth/logout-everywhere", a.signedIn(auth.handleLogoutEverywhere))
	// reset_http.go
	api("POST /auth/request-reset", a.public(auth.handleRequestReset))
	api("POST /auth/reset", a.public(auth.handleReset))
	// totp_http.go
	api("POST /auth/login/totp", a.public(auth.handleLoginTOTP))
	api("GET /auth/totp", a.signedIn(auth.handleTOTPStatus))
	api("POST /auth/totp/enroll", a.signedIn(auth.handleTOTPEnroll))
	api("POST /auth/totp/confirm", a.signedIn(auth.handleTOTPConfirm))
	api("POST /auth/totp/disable", a.signedIn(auth.handleTOTPDisable))
	api("POST /auth/totp/recovery-codes", a.signedIn(auth.handleRecoveryCodes))
	api("POST /users/{id}/totp/reset", a.signedIn(auth.handleTOTPReset))
	// account_http.go
	api("GET /auth/sessions", a.signedIn(auth.handleSessions))
	api("POST /auth/password", a.signedIn(auth.handlePasswordChange))
	// dashboard.go (the page and the health answer are internal/dashboard's), catalog.go
	api("GET /_health", a.public(views.handleHealth))
	api("GET /_dashboard", a.signedIn(views.handleDashboard))
	api("GET /_openapi.json", a.signedIn(views.handleOpenAPI))    // openapi.go
	api("GET /_search", a.signedIn(views.handleSearch))           // search.go
	api("GET /_reports", a.signedIn(reportsAPI{a}.handleReports)) // reports_http.go; its POSTs are handleRowOp's
	api("GET /{$}", a.signedIn(views.handleCatalog))
	mux.Handle("GET "+a.opts.APIPath, a.signedIn(views.handleCatalog))
	// resources: crud.go (GET /{resource}/_export.csv is export.go), actions.go, relations.go
	api("GET /{resource}", a.signedIn(rows.handleList))
	api("POST /{resource}", a.signedIn(rows.handleCreate))
	api("GET /{resource}/{id}", a.signedIn(rows.handleRead))
	api("PATCH /{resource}/{id}", a.signedIn(rows.handleUpdate))
	api("PUT /{resource}/{id}", a.signedIn(rows.handleUpdate))
	api("DELETE /{resource}/{id}", a.signedIn(rows.handleDelete))
	api("POST /{resource}/_action/{name}", a.signedIn(rows.handleAction))
	// GET: _counts (relations.go), _history (internal/history), _export (internal/userdata)
	api("GET /{resource}/{id}/{sub}", a.signedIn(views.handleRowSub))
	api("GET /{resource}/{id}/relations/{name}", a.signedIn(rows.handleRelation))
	// POST: _revert (internal/history), _erase (internal/userdata), _restore (crud.go); users_http.go: ban,
	// unban, revoke-sessions, invite; users_bulk.go: the same for a selection
	api("POST /{resource}/{id}/{op}", a.signedIn(views.handleRowOp))
	api("POST /{resource}/_bulk/{op}", a.signedIn(users.handleUserBulk))
	// rooms_http.go
	api("GET /rooms", a.signedIn(rooms.handleRoomList))
	api("GET /rooms/by-user/{userId}", a.signedIn(rooms.handleRoomsByUser))
	api("GET /rooms/{roomId}", a.signedIn(rooms.handleRoomInspect))
	api("PATCH /rooms/{roomId}", a.signedIn(rooms.handleRoomLock))
	api("DELETE /rooms/{roomId}", a.signedIn(rooms.handleRoomDispose))
	api("DELETE /rooms/{roomId}/clients/{sessionId}", a.signedIn(rooms.handleRoomKick))
	api("PATCH /rooms/{roomId}/state", a.signedIn(rooms.handleRoomStateEdit))
	api("DELETE /rooms/{roomId}/state", a.signedIn(rooms.handleRoomStateDelete))
	mux.Handle(a.opts.APIPath+"/", a.public(func(http.ResponseWriter, *http.Request) error { return errNotFoundRoute }))
	mux.Handle(a.opts.UIPath+"/", a.uiHandler())

	// State-changing requests from another origin are refused whatever the
	// cookie's SameSite mode: browsers send Sec-Fetch-Site, and Origin is
	// checked against Host for those that do not.
	a.cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.writeError(w, r, errCrossOrigin)
	}))
	return a.cop.Handler(mux)
}

// uiHandler serves the UI under Options.UIPath (internal/uiserve), from
// the build the root package embeds (ui/dist).
func (a *Admin) uiHandler() http.Handler {
	dist, err := fs.Sub(a.ui, "ui/dist")
	if err != nil {
		panic("admin: embedded UI: " + err.Error())
	}
	return uiserve.New(dist, a.opts.UIPath, a.opts.APIPath)
}

// handleRowSub and handleRowOp dispatch a row's sub-resources, which
// share one pattern per method.
func (a viewsAPI) handleRowSub(w http.ResponseWriter, r *http.Request, op Operator) error {
	switch r.PathValue("sub") {
	case "_counts":
		return rowsAPI(a).handleCounts(w, r, op)
	case "_history":
		return a.history.Rows(w, r, op)
	case "_export":
		return a.userData.Export(w, r, op)
	}
	return errNotFoundRoute
}

func (a viewsAPI) handleRowOp(w http.ResponseWriter, r *http.Request, op Operator) error {
	// POST /_reports/{playerId}/claim and /resolve (reports_http.go): a
	// pattern of their own would clash with /{resource}/_bulk/{op}.
	if r.PathValue("resource") == "_reports" {
		return reportsAPI(a).handleReportOp(w, r, op)
	}
	switch r.PathValue("op") {
	case "_revert":
		return a.history.Revert(w, r, op)
	case "_erase":
		return a.userData.Erase(w, r, op)
	case "_restore":
		return rowsAPI(a).handleRestore(w, r, op)
	}
	return userHandlerOf(a.Admin).handleUserOp(w, r, op)
}
