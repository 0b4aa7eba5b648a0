package engine

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestServeRoutes: the route table registers without a conflict, and a
// request goes to the route whose literal segments come first from the
// left (tier), as the dispatchers it replaced sent it.
func TestServeRoutes(t *testing.T) {
	eps := handlers{}.endpoints()
	mux := serveRoutes("/admin-api", eps, func(e endpoint) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Route", e.Method+" "+e.Path)
		})
	})
	tests := []struct {
		method, path, route string
	}{
		{"GET", "/admin-api", "GET "},
		{"GET", "/admin-api/", "GET /{$}"},
		{"GET", "/admin-api/rooms/_export.csv", "GET /rooms/{roomId}"},
		{"GET", "/admin-api/rooms/by-user/_counts", "GET /rooms/by-user/{userId}"},
		{"GET", "/admin-api/gadgets/_export.csv", "GET /{resource}/_export.csv"},
		{"GET", "/admin-api/gadgets/7", "GET /{resource}/{id}"},
		{"GET", "/admin-api/gadgets/7/_counts", "GET /{resource}/{id}/_counts"},
		{"GET", "/admin-api/gadgets/7/_history", "GET /{resource}/{id}/_history"},
		{"GET", "/admin-api/users/7/_export", "GET /{resource}/{id}/_export"},
		{"GET", "/admin-api/gadgets/7/nope", "GET /{resource}/{id}/{sub}"},
		{"POST", "/admin-api/gadgets/_action/ban", "POST /{resource}/_action/{name}"},
		{"POST", "/admin-api/users/7/ban", "POST /{resource}/{id}/ban"},
		{"POST", "/admin-api/users/7/revoke-sessions", "POST /{resource}/{id}/revoke-sessions"},
		{"POST", "/admin-api/users/7/invite", "POST /{resource}/{id}/invite"},
		{"POST", "/admin-api/users/_bulk/unban", "POST /{resource}/_bulk/unban"},
		{"POST", "/admin-api/users/_bulk/nope", "POST /{resource}/{id}/{op}"},
		{"POST", "/admin-api/users/7/nope", "POST /{resource}/{id}/{op}"},
		{"POST", "/admin-api/_reports/7/claim", "POST /_reports/{playerId}/claim"},
		{"POST", "/admin-api/_reports/7/ban", "POST /{resource}/{id}/ban"},
		{"POST", "/admin-api/users/7/totp/reset", "POST /users/{id}/totp/reset"},
		{"POST", "/admin-api/_search", "POST /{resource}"},
		{"PUT", "/admin-api/rooms/r1", "PUT /{resource}/{id}"},
		{"GET", "/admin-api/a/b/c/d/e", " /"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			w := httptest.NewRecorder()
			mux.ServeHTTP(w, httptest.NewRequest(tt.method, tt.path, nil))
			if got := w.Header().Get("X-Route"); got != tt.route {
				t.Errorf("%s %s goes to %q; want %q", tt.method, tt.path, got, tt.route)
			}
		})
	}
}

// TestRoutes: every route of the table is listed once, and names its
// handler.
func TestRoutes(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Routes() {
		key := r.Method + " " + r.Path
		if seen[key] {
			t.Errorf("Routes lists %q twice", key)
		}
		seen[key] = true
		if r.Handler == "" {
			t.Errorf("Routes: %q names no handler", key)
		}
	}
}
