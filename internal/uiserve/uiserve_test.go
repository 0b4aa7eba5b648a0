package uiserve

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

func TestAcceptsEncoding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		header, enc string
		want        bool
	}{
		{"gzip, deflate, br, zstd", "br", true},
		{"gzip, deflate", "br", false},
		{"gzip;q=0", "gzip", false},
		{"GZIP; q=0.5", "gzip", true},
		{"*", "gzip", true},
		{"", "gzip", false},
		{"x-gzip", "gzip", false},
	}
	for _, tt := range tests {
		if got := acceptsEncoding(tt.header, tt.enc); got != tt.want {
			t.Errorf("acceptsEncoding(%q, %q) = %v; want %v", tt.header, tt.enc, got, tt.want)
		}
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	script := strings.Repeat("console.log('panel');\n", 200)
	dist := fstest.MapFS{
		"index.html": {Data: []byte(`<meta name="admin-ui-path" content="__ADMIN_UI_PATH__">` +
			`<meta name="admin-api-path" content="__ADMIN_API_PATH__"><script src="./assets/app.js"></script>`)},
		"assets/app.js":    {Data: []byte(script)},
		"assets/app.js.br": {Data: []byte("brotli bytes")},
		"favicon.svg":      {Data: []byte("<svg/>")},
	}
	h := New(dist, `/ops"x`, "/ops/api")
	get := func(path, acceptEncoding string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		if acceptEncoding != "" {
			r.Header.Set("Accept-Encoding", acceptEncoding)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}

	// Any path the client routes gets index.html, paths filled in.
	w := get(`/ops"x/users/1`, "")
	want := `<meta name="admin-ui-path" content="/ops&#34;x">` +
		`<meta name="admin-api-path" content="/ops/api"><script src="/ops&#34;x/assets/app.js"></script>`
	if w.Code != http.StatusOK || w.Body.String() != want {
		t.Errorf("index: %d %q; want 200 %q", w.Code, w.Body, want)
	}
	for k, v := range map[string]string{
		"Content-Security-Policy": CSP, "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache",
		"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin",
	} {
		if got := w.Header().Get(k); got != v {
			t.Errorf("index %s = %q; want %q", k, got, v)
		}
	}

	// An asset: immutable, in the best encoding accepted, one ETag each.
	br := get(`/ops"x/assets/app.js`, "gzip, br")
	if br.Body.String() != "brotli bytes" || br.Header().Get("Content-Encoding") != "br" ||
		br.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" ||
		br.Header().Get("Content-Type") != "text/javascript; charset=utf-8" || br.Header().Get("Vary") != "Accept-Encoding" {
		t.Errorf("brotli asset: %q %v", br.Body, br.Header())
	}
	gz := get(`/ops"x/assets/app.js`, "gzip")
	zr, err := gzip.NewReader(gz.Body)
	if err != nil || gz.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip asset: %v %v", err, gz.Header())
	}
	if b, _ := io.ReadAll(zr); string(b) != script {
		t.Errorf("gzip asset decompresses to %d bytes; want the script", len(b))
	}
	plain := get(`/ops"x/assets/app.js`, "")
	if plain.Body.String() != script || plain.Header().Get("Content-Encoding") != "" {
		t.Errorf("identity asset: %d bytes, %v", plain.Body.Len(), plain.Header())
	}
	etags := map[string]bool{br.Header().Get("ETag"): true, gz.Header().Get("ETag"): true, plain.Header().Get("ETag"): true}
	if len(etags) != 3 {
		t.Errorf("ETags %v; want one per encoding", etags)
	}
	r := httptest.NewRequest(http.MethodGet, `/ops"x/assets/app.js`, nil)
	r.Header.Set("If-None-Match", plain.Header().Get("ETag"))
	nm := httptest.NewRecorder()
	h.ServeHTTP(nm, r)
	if nm.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d; want 304", nm.Code)
	}

	// A file outside assets/ is revalidated; a missing asset, or a
	// compressed form by its own name, is 404, not HTML.
	if w := get(`/ops"x/favicon.svg`, ""); w.Body.String() != "<svg/>" || w.Header().Get("Cache-Control") != "no-cache" {
		t.Errorf("favicon: %q %v", w.Body, w.Header())
	}
	for _, p := range []string{`/ops"x/assets/old.js`, `/ops"x/assets/app.js.br`} {
		if w := get(p, ""); w.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d; want 404", p, w.Code)
		}
	}

	// Other methods: 405 in the error body.
	pw := httptest.NewRecorder()
	h.ServeHTTP(pw, httptest.NewRequest(http.MethodPost, `/ops"x/`, nil))
	var body struct {
		Status int    `json:"status"`
		Code   string `json:"code"`
	}
	if err := json.NewDecoder(pw.Body).Decode(&body); err != nil || pw.Code != http.StatusMethodNotAllowed ||
		body.Status != 405 || body.Code != "method_not_allowed" || pw.Header().Get("Allow") != "GET, HEAD" ||
		pw.Header().Get("Content-Type") != "application/json" {
		t.Errorf("POST: %d %+v %v %v", pw.Code, body, err, pw.Header())
	}
}

func TestNewWithoutIndexPanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "no index.html") {
			t.Errorf("New without index.html: panic %v; want one naming index.html", p)
		}
	}()
	New(fstest.MapFS{"assets/app.js": {Data: []byte("x")}}, "/admin", "/admin/api")
}
