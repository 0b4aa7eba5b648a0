package engine

import (
	"net/http"
	"strings"
)

// api is the HTTP API: its methods are the endpoints (handle*), one file
// per area as the route table below says, over the state of one panel.
// Admin's own methods are the Go API and the machinery the endpoints
// share.
type api struct{ *Admin }

// routes builds the handler: the API behind cross-origin protection, and
// the UI.
func (a *Admin) routes() http.Handler {
	h := api{a}
	mux := http.NewServeMux()
	api := func(pattern string, h http.Handler) {
		method, path, _ := strings.Cut(pattern, " ")
		mux.Handle(method+" "+a.opts.APIPath+path, h)
	}
	// auth_http.go
	api("GET /auth/status", a.public(h.handleStatus))
	api("POST /auth/bootstrap", a.public(h.handleBootstrap))
	api("POST /auth/login", a.public(h.handleLogin))
	api("GET /auth/me", a.signedIn(h.handleMe))
	api("POST /auth/logout", a.signedIn(h.handleLogout))
	api("POST /auth/logout-everywhere", a.signedIn(h.handleLogoutEverywhere))
	// reset_http.go
	api("POST /auth/request-reset", a.public(h.handleRequestReset))
	api("POST /auth/reset", a.public(h.handleReset))
	// totp_http.go
	api("POST /auth/login/totp", a.public(h.handleLoginTOTP))
	api("GET /auth/totp", a.signedIn(h.handleTOTPStatus))
	api("POST /auth/totp/enroll", a.signedIn(h.handleTOTPEnroll))
	api("POST /auth/totp/confirm", a.signedIn(h.handleTOTPConfirm))
	api("POST /auth/totp/disable", a.signedIn(h.handleTOTPDisable))
	api("POST /auth/totp/recovery-codes", a.signedIn(h.handleRecoveryCodes))
	api("POST /users/{id}/totp/reset", a.signedIn(h.handleTOTPReset))
	// account_http.go
	api("GET /auth/sessions", a.signedIn(h.handleSessions))
	api("POST /auth/password", a.signedIn(h.handlePasswordChange))
	// dashboard.go, catalog.go
	api("GET /_health", a.public(h.handleHealth))
	api("GET /_dashboard", a.signedIn(h.handleDashboard))
	api("GET /_openapi.json", a.signedIn(h.handleOpenAPI)) // openapi.go
	api("GET /{$}", a.signedIn(h.handleCatalog))
	mux.Handle("GET "+a.opts.APIPath, a.signedIn(h.handleCatalog))
	// resources: crud.go (GET /{resource}/_export.csv is export.go), actions.go, relations.go
	api("GET /{resource}", a.signedIn(h.handleList))
	api("POST /{resource}", a.signedIn(h.handleCreate))
	api("GET /{resource}/{id}", a.signedIn(h.handleRead))
	api("PATCH /{resource}/{id}", a.signedIn(h.handleUpdate))
	api("PUT /{resource}/{id}", a.signedIn(h.handleUpdate))
	api("DELETE /{resource}/{id}", a.signedIn(h.handleDelete))
	api("POST /{resource}/_action/{name}", a.signedIn(h.handleAction))
	// GET: _counts (relations.go), _history (history.go), _export (userdata.go)
	api("GET /{resource}/{id}/{sub}", a.signedIn(h.handleRowSub))
	api("GET /{resource}/{id}/relations/{name}", a.signedIn(h.handleRelation))
	// POST: _revert (history.go), _erase (userdata.go); users_http.go: ban,
	// unban, revoke-sessions, invite; users_bulk.go: the same for a selection
	api("POST /{resource}/{id}/{op}", a.signedIn(h.handleRowOp))
	api("POST /{resource}/_bulk/{op}", a.signedIn(h.handleUserBulk))
	// rooms_http.go
	api("GET /rooms", a.signedIn(h.handleRoomList))
	api("GET /rooms/by-user/{userId}", a.signedIn(h.handleRoomsByUser))
	api("GET /rooms/{roomId}", a.signedIn(h.handleRoomInspect))
	api("PATCH /rooms/{roomId}", a.signedIn(h.handleRoomLock))
	api("DELETE /rooms/{roomId}", a.signedIn(h.handleRoomDispose))
	api("DELETE /rooms/{roomId}/clients/{sessionId}", a.signedIn(h.handleRoomKick))
	api("PATCH /rooms/{roomId}/state", a.signedIn(h.handleRoomStateEdit))
	api("DELETE /rooms/{roomId}/state", a.signedIn(h.handleRoomStateDelete))
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

// handleRowSub and handleRowOp dispatch a row's sub-resources, which
// share one pattern per method.
func (a api) handleRowSub(w http.ResponseWriter, r *http.Request, op Operator) error {
	switch r.PathValue("sub") {
	case "_counts":
		return a.handleCounts(w, r, op)
	case "_history":
		return a.handleHistory(w, r, op)
	case "_export":
		return a.handleUserExport(w, r, op)
	}
	return errNotFoundRoute
}

func (a api) handleRowOp(w http.ResponseWriter, r *http.Request, op Operator) error {
	switch r.PathValue("op") {
	case "_revert":
		return a.handleRevert(w, r, op)
	case "_erase":
		return a.handleUserErase(w, r, op)
	}
	return a.handleUserOp(w, r, op)
}
