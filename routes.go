package admin

import (
	"net/http"
	"strings"
)

// routes builds the handler: the API behind cross-origin protection, and
// the UI.
func (a *Admin) routes() http.Handler {
	mux := http.NewServeMux()
	api := func(pattern string, h http.Handler) {
		method, path, _ := strings.Cut(pattern, " ")
		mux.Handle(method+" "+a.opts.APIPath+path, h)
	}
	// auth_http.go
	api("GET /auth/status", a.public(a.handleStatus))
	api("POST /auth/bootstrap", a.public(a.handleBootstrap))
	api("POST /auth/login", a.public(a.handleLogin))
	api("GET /auth/me", a.signedIn(a.handleMe))
	api("POST /auth/logout", a.signedIn(a.handleLogout))
	api("POST /auth/logout-everywhere", a.signedIn(a.handleLogoutEverywhere))
	// reset_http.go
	api("POST /auth/request-reset", a.public(a.handleRequestReset))
	api("POST /auth/reset", a.public(a.handleReset))
	// totp_http.go
	api("POST /auth/login/totp", a.public(a.handleLoginTOTP))
	api("GET /auth/totp", a.signedIn(a.handleTOTPStatus))
	api("POST /auth/totp/enroll", a.signedIn(a.handleTOTPEnroll))
	api("POST /auth/totp/confirm", a.signedIn(a.handleTOTPConfirm))
	api("POST /auth/totp/disable", a.signedIn(a.handleTOTPDisable))
	api("POST /auth/totp/recovery-codes", a.signedIn(a.handleRecoveryCodes))
	api("POST /users/{id}/totp/reset", a.signedIn(a.handleTOTPReset))
	// account_http.go
	api("GET /auth/sessions", a.signedIn(a.handleSessions))
	api("POST /auth/password", a.signedIn(a.handlePasswordChange))
	// dashboard.go, catalog.go
	api("GET /_health", a.public(a.handleHealth))
	api("GET /_dashboard", a.signedIn(a.handleDashboard))
	api("GET /{$}", a.signedIn(a.handleCatalog))
	mux.Handle("GET "+a.opts.APIPath, a.signedIn(a.handleCatalog))
	// resources: crud.go (GET /{resource}/_export.csv is export.go), actions.go, relations.go
	api("GET /{resource}", a.signedIn(a.handleList))
	api("POST /{resource}", a.signedIn(a.handleCreate))
	api("GET /{resource}/{id}", a.signedIn(a.handleRead))
	api("PATCH /{resource}/{id}", a.signedIn(a.handleUpdate))
	api("PUT /{resource}/{id}", a.signedIn(a.handleUpdate))
	api("DELETE /{resource}/{id}", a.signedIn(a.handleDelete))
	api("POST /{resource}/_action/{name}", a.signedIn(a.handleAction))
	api("GET /{resource}/{id}/{sub}", a.signedIn(a.handleRowSub))
	api("GET /{resource}/{id}/relations/{name}", a.signedIn(a.handleRelation))
	// users_http.go: ban, unban, revoke-sessions, invite
	api("POST /{resource}/{id}/{op}", a.signedIn(a.handleUserOp))
	// rooms_http.go
	api("GET /rooms", a.signedIn(a.handleRoomList))
	api("GET /rooms/by-user/{userId}", a.signedIn(a.handleRoomsByUser))
	api("GET /rooms/{roomId}", a.signedIn(a.handleRoomInspect))
	api("PATCH /rooms/{roomId}", a.signedIn(a.handleRoomLock))
	api("DELETE /rooms/{roomId}", a.signedIn(a.handleRoomDispose))
	api("DELETE /rooms/{roomId}/clients/{sessionId}", a.signedIn(a.handleRoomKick))
	api("PATCH /rooms/{roomId}/state", a.signedIn(a.handleRoomStateEdit))
	api("DELETE /rooms/{roomId}/state", a.signedIn(a.handleRoomStateDelete))
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
