package admintest

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
)

// The UI does not touch the database: SQLite is enough for these tests.

var assetRef = regexp.MustCompile(`(?:src|href)="([^"]+/assets/[^"]+)"`)

// uiBuild is the UI build the panel embeds (ui/dist, which the root
// package embeds), as the repository holds it.
var uiBuild = os.DirFS(filepath.Join("..", "..", "..", "ui", "dist"))

// uiPolicy is the Content-Security-Policy the panel sends with the root
// page of its UI.
func uiPolicy(t *testing.T, e *env) string {
	t.Helper()
	res, err := http.Get(e.srv.URL + e.admin.UIPath() + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.Header.Get("Content-Security-Policy")
}

// wantUIHeaders fails unless r carries the UI's headers: the one policy
// of every page and file of the UI (its root page's), which allows
// nothing but the panel's own origin.
func wantUIHeaders(t *testing.T, e *env, r *resp) {
	t.Helper()
	for h, want := range map[string]string{
		"Content-Security-Policy": uiPolicy(t, e),
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "same-origin",
		"X-Frame-Options":         "DENY",
	} {
		if got := r.Header.Get(h); got != want {
			t.Errorf("%s %s: %s = %q; want %q", r.Request.Method, r.Request.URL.Path, h, got, want)
		}
	}
	csp := r.Header.Get("Content-Security-Policy")
	for _, d := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, d) {
			t.Errorf("CSP %q lacks %q", csp, d)
		}
	}
	if strings.Contains(csp, "unsafe") {
		t.Errorf("CSP %q allows unsafe sources", csp)
	}
}

func TestUIServesIndexForClientRoutes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, uiPath, apiPath, path string
	}{
		{"root", "", "", "/admin/"},
		{"deep link", "", "", "/admin/users/123"},
		{"deep link with query", "", "", "/admin/guilds?_sort=name&_order=desc"},
		{"sign-in", "", "", "/admin/login?next=%2Fadmin%2Fusers"},
		{"reset link", "", "", "/admin/reset?token=abc.def"},
		{"custom UIPath", "/ops/panel", "", "/ops/panel/rooms/abc"},
		{"custom paths, deep link", "/ops/admin", "/ops/admin-api", "/ops/admin/users/7"},
		{"custom paths, reset link", "/ops/admin/", "ops/admin-api", "/ops/admin/reset?token=abc.def"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, testdb.SQLite(t), Options{UIPath: tt.uiPath, APIPath: tt.apiPath})
			r := e.client().do("GET", tt.path, nil).want(t, http.StatusOK)
			if ct := r.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type = %q; want text/html; charset=utf-8", ct)
			}
			wantUIHeaders(t, e, r)
			if cc := r.Header.Get("Cache-Control"); cc != "no-cache" {
				t.Errorf("index Cache-Control = %q; want no-cache", cc)
			}
			body := string(r.raw)
			ui := e.admin.UIPath()
			if !strings.Contains(body, `<div id="root">`) {
				t.Fatalf("GET %s is not index.html:\n%s", tt.path, body)
			}
			if want := `<meta name="admin-ui-path" content="` + ui + `"`; !strings.Contains(body, want) {
				t.Errorf("index.html lacks %s", want)
			}
			if want := `<meta name="admin-api-path" content="` + e.admin.APIPath() + `"`; !strings.Contains(body, want) {
				t.Errorf("index.html lacks %s", want)
			}
			if strings.Contains(body, "__ADMIN_") || strings.Contains(body, `"./assets/`) {
				t.Errorf("index.html still has a placeholder or a relative asset URL:\n%s", body)
			}
			refs := assetRef.FindAllStringSubmatch(body, -1)
			if len(refs) == 0 {
				t.Fatalf("index.html links no assets:\n%s", body)
			}
			for _, m := range refs {
				if !strings.HasPrefix(m[1], ui+"/assets/") {
					t.Errorf("asset URL %q is not under %s/assets/", m[1], ui)
				}
			}
		})
	}
}

func TestUIAssets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), Options{})
	c := e.client()
	index := c.do("GET", "/admin/", nil).want(t, http.StatusOK)
	types := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
	seen := map[string]bool{}
	for _, m := range assetRef.FindAllStringSubmatch(string(index.raw), -1) {
		url := m[1]
		ext := url[strings.LastIndex(url, "."):]
		r := c.do("GET", url, nil).want(t, http.StatusOK)
		if got, want := r.Header.Get("Content-Type"), types[ext]; got != want {
			t.Errorf("GET %s: Content-Type = %q; want %q", url, got, want)
		}
		if cc := r.Header.Get("Cache-Control"); !strings.Contains(cc, "max-age=31536000") || !strings.Contains(cc, "immutable") {
			t.Errorf("GET %s: Cache-Control = %q; want a year, immutable", url, cc)
		}
		wantUIHeaders(t, e, r)
		if len(r.raw) == 0 || strings.Contains(string(r.raw), `<div id="root">`) {
			t.Errorf("GET %s did not answer the asset", url)
		}
		etag := r.Header.Get("ETag")
		c.hdr.Set("If-None-Match", etag)
		c.do("GET", url, nil).want(t, http.StatusNotModified)
		c.hdr.Del("If-None-Match")
		seen[ext] = true
	}
	if !seen[".js"] || !seen[".css"] {
		t.Fatalf("index.html links %v; want a script and a stylesheet", seen)
	}

	t.Run("missing asset is 404, not index.html", func(t *testing.T) {
		r := c.do("GET", "/admin/assets/index-gone.js", nil).want(t, http.StatusNotFound)
		if strings.Contains(string(r.raw), `<div id="root">`) {
			t.Fatal("a missing asset was answered with index.html")
		}
	})
	t.Run("UIPath without slash redirects", func(t *testing.T) {
		r := c.do("GET", "/admin", nil)
		if r.StatusCode/100 != 3 || r.Header.Get("Location") != "/admin/" {
			t.Fatalf("GET /admin = %d Location %q; want a redirect to /admin/", r.StatusCode, r.Header.Get("Location"))
		}
	})
	t.Run("only GET and HEAD", func(t *testing.T) {
		c.do("HEAD", "/admin/users", nil).want(t, http.StatusOK)
		c.do("POST", "/admin/users", map[string]any{}).want(t, http.StatusMethodNotAllowed, "method_not_allowed")
	})
}

func TestUILeavesAPIAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), Options{})
	c := e.client()
	r := c.do("GET", "/admin-api/auth/status", nil).want(t, http.StatusOK)
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("status Content-Type = %q; want application/json", ct)
	}
	if r.body["needsBootstrap"] != true {
		t.Fatalf("status = %s; want needsBootstrap", r.raw)
	}
	c.do("GET", "/admin-api", nil).want(t, http.StatusUnauthorized)
	c.do("GET", "/admin-api/users/123", nil).want(t, http.StatusUnauthorized)
	c.do("GET", "/admin-api/no/such/route/here", nil).want(t, http.StatusNotFound)
	admin, _ := e.bootstrap()
	cat := admin.do("GET", "/admin-api", nil).want(t, http.StatusOK)
	if !strings.HasPrefix(string(cat.raw), "[") {
		t.Fatalf("catalog = %.80s; want a JSON array", cat.raw)
	}
}

// TestUICompressed: the UI's files are sent gzip-compressed to a client
// that asks for it, as they are to one that does not, each with its own
// ETag, and a revalidation with that ETag is a 304.
func TestUICompressed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), Options{})
	index := e.client().do("GET", "/admin/", nil).want(t, http.StatusOK)
	m := assetRef.FindStringSubmatch(string(index.raw))
	if m == nil {
		t.Fatalf("index.html links no asset: %s", index.raw)
	}
	get := func(path, ae, inm string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", e.srv.URL+path, nil)
		req.Header.Set("Accept-Encoding", ae)
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}
	for _, path := range []string{m[1], "/admin/users"} {
		plain, plainBody := get(path, "identity", "")
		if plain.StatusCode != 200 || plain.Header.Get("Content-Encoding") != "" {
			t.Fatalf("GET %s (identity) = %d, Content-Encoding %q", path, plain.StatusCode, plain.Header.Get("Content-Encoding"))
		}
		gz, gzBody := get(path, "br;q=0, gzip, deflate", "")
		if gz.Header.Get("Content-Encoding") != "gzip" || gz.Header.Get("Vary") != "Accept-Encoding" {
			t.Fatalf("GET %s (gzip): Content-Encoding %q, Vary %q; want gzip, Accept-Encoding", path, gz.Header.Get("Content-Encoding"), gz.Header.Get("Vary"))
		}
		zr, err := gzip.NewReader(bytes.NewReader(gzBody))
		if err != nil {
			t.Fatal(err)
		}
		unzipped, _ := io.ReadAll(zr)
		if !bytes.Equal(unzipped, plainBody) || len(gzBody) >= len(plainBody) {
			t.Fatalf("GET %s: gzip body (%d bytes) does not unzip to the plain one (%d bytes)", path, len(gzBody), len(plainBody))
		}
		if gz.Header.Get("ETag") == plain.Header.Get("ETag") {
			t.Fatalf("GET %s: the gzip and plain answers share the ETag %s", path, gz.Header.Get("ETag"))
		}
		again, _ := get(path, "gzip", gz.Header.Get("ETag"))
		if again.StatusCode != http.StatusNotModified {
			t.Fatalf("GET %s with If-None-Match = %d; want 304", path, again.StatusCode)
		}
		off, _ := get(path, "gzip;q=0", "")
		if off.Header.Get("Content-Encoding") != "" {
			t.Fatalf("GET %s with gzip;q=0: Content-Encoding %q", path, off.Header.Get("Content-Encoding"))
		}
	}
}

// TestUIPrecompressed: every script and stylesheet of the build has its
// brotli and gzip forms beside it (made by the build, not at start-up),
// and a client accepting br gets the build's .br bytes; gzip gets the
// build's .gz bytes.
func TestUIPrecompressed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), Options{})
	entries, err := fs.ReadDir(uiBuild, "assets")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, d := range entries {
		name := d.Name()
		if !strings.HasSuffix(name, ".js") && !strings.HasSuffix(name, ".css") {
			continue
		}
		plain, _ := fs.ReadFile(uiBuild, "assets/"+name)
		if len(plain) < 1024 {
			continue
		}
		for _, enc := range []struct{ ext, accept, header string }{{".br", "gzip, deflate, br, zstd", "br"}, {".gz", "gzip", "gzip"}} {
			want, err := fs.ReadFile(uiBuild, "assets/"+name+enc.ext)
			if err != nil {
				t.Fatalf("the build wrote no %s%s: run `npm run build` in ui/", name, enc.ext)
			}
			req, _ := http.NewRequest("GET", e.srv.URL+"/admin/assets/"+name, nil)
			req.Header.Set("Accept-Encoding", enc.accept)
			res, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.Header.Get("Content-Encoding") != enc.header || !bytes.Equal(got, want) {
				t.Errorf("GET %s (%s): Content-Encoding %q, %d bytes; want %q and the build's %d bytes", name, enc.accept, res.Header.Get("Content-Encoding"), len(got), enc.header, len(want))
			}
			if len(want) >= len(plain) {
				t.Errorf("%s%s (%d bytes) is not smaller than %s (%d)", name, enc.ext, len(want), name, len(plain))
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no script or stylesheet checked")
	}
}
