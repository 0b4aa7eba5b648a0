package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/go-chi/chi/v5"
	"github.com/uptrace/bun"

	"github.com/gameadmin/admin"
)

var assetRef = regexp.MustCompile(`(?:src|href)="([^"]+/assets/[^"]+)"`)

// TestMountOnChi mounts the panel, unstripped, on chi with Mount and with
// a wildcard inside Route, and walks the API, the UI, its assets and a
// guarded game route. (The root package's tests mount it on ServeMux; chi
// lives here so that the panel's own module does not require it.)
func TestMountOnChi(t *testing.T) {
	opts := admin.Options{UIPath: "/ops/admin", APIPath: "/ops/admin-api",
		Secret: []byte("0123456789abcdef0123456789abcdef"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	gameRoute := func(w http.ResponseWriter, r *http.Request) {
		op, _ := admin.OperatorFrom(r.Context())
		fmt.Fprintf(w, "game page %s", op.UserID)
	}
	mounts := map[string]func(a *admin.Admin) http.Handler{
		"Mount": func(a *admin.Admin) http.Handler {
			r := chi.NewRouter()
			r.Mount("/ops/admin", a)
			r.Mount("/ops/admin-api", a)
			r.With(admin.Guard(admin.GuardOptions{Admin: a})).Get("/ops/monitor", gameRoute)
			r.Get("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "game home") })
			return r
		},
		"Route": func(a *admin.Admin) http.Handler {
			r := chi.NewRouter()
			r.Route("/ops", func(r chi.Router) {
				r.Handle("/admin*", a) // both /ops/admin... and /ops/admin-api...
				r.With(admin.Guard(admin.GuardOptions{Admin: a})).Get("/monitor", gameRoute)
			})
			return r
		},
	}
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		for name, mount := range mounts {
			t.Run(name, func(t *testing.T) {
				a, err := admin.New(db, opts)
				if err != nil {
					t.Fatal(err)
				}
				srv := httptest.NewServer(mount(a))
				t.Cleanup(func() { srv.Close(); a.Close() })
				anon := newClient(t, srv)
				anon.call("GET", "/ops/admin-api/auth/status", "", 200)
				if res, _ := anon.get("/ops/monitor"); res.StatusCode != 302 || res.Header.Get("Location") != "/ops/admin/login?next=%2Fops%2Fmonitor" {
					t.Fatalf("guard = %d, Location %q", res.StatusCode, res.Header.Get("Location"))
				}
				c := newClient(t, srv)
				const creds = `{"email":"root@example.com","password":"correct horse"}`
				if anon.call("GET", "/ops/admin-api/auth/status", "", 200)["needsBootstrap"] == true {
					if _, err := a.CreateFirstAdmin(context.Background(), "root@example.com", "correct horse", ""); err != nil {
						t.Fatal(err)
					}
				}
				c.call("POST", "/ops/admin-api/auth/login", creds, 200)
				id := c.call("GET", "/ops/admin-api/auth/me", "", 200)["userId"].(string)
				c.call("GET", "/ops/admin-api", "", 200)
				c.call("GET", "/ops/admin-api/", "", 200)
				c.call("GET", "/ops/admin-api/users/"+id, "", 200)
				c.call("PATCH", "/ops/admin-api/users/"+id, `{"display_name":"Root"}`, 200)
				c.call("GET", "/ops/admin-api/users/"+id+"/_counts", "", 200)
				c.call("GET", "/ops/admin-api/no-such-thing", "", 404)
				if res, body := c.get("/ops/monitor"); res.StatusCode != 200 || body != "game page "+id {
					t.Fatalf("guarded route = %d %q", res.StatusCode, body)
				}
				res, index := c.get("/ops/admin/users/" + id)
				refs := assetRef.FindAllStringSubmatch(index, -1)
				if res.StatusCode != 200 || len(refs) == 0 {
					t.Fatalf("deep link = %d, not index.html: %s", res.StatusCode, index)
				}
				for _, m := range refs {
					if res, _ := c.get(m[1]); res.StatusCode != 200 {
						t.Errorf("asset %s = %d", m[1], res.StatusCode)
					}
				}
				if res, _ := c.get("/ops/admin/reset?token=abc"); res.StatusCode != 200 {
					t.Errorf("reset page = %d", res.StatusCode)
				}
				c.call("POST", "/ops/admin-api/auth/logout", "", 200)
			})
		}
	})
}
