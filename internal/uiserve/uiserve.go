// Package uiserve serves the panel's embedded single-page UI: fixed
// content types, the build's compressed forms (or gzip made at startup),
// an ETag per encoding, a strict Content-Security-Policy, and index.html
// with the UI and API paths filled into its <meta> tags for every path
// the client routes itself.
package uiserve

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"html"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/gameadmin/admin/internal/errbody"
)

// CSP is the UI's Content-Security-Policy: everything from the panel's
// own origin, no inline script or style, no framing.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// uiTypes fixes the content types of what a Vite build emits, so that they
// do not depend on the host's mime.types (which may, say, call scripts
// application/x-javascript).
var uiTypes = map[string]string{
	".html":  "text/html; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".css":   "text/css; charset=utf-8",
	".json":  "application/json",
	".svg":   "image/svg+xml",
	".png":   "image/png",
	".ico":   "image/x-icon",
	".woff2": "font/woff2",
}

// uiFile is one embedded file, ready to serve, with its compressed forms:
// brotli when the build wrote a .br beside it, gzip from the build's .gz
// or made at startup.
type uiFile struct {
	body        []byte
	contentType string
	etag        string
	br, gz      []byte
}

// New returns the handler of the UI mounted at uiPath, for a panel whose
// API is at apiPath. dist is the build (Vite's dist: index.html and
// assets/ at its root). It serves the hashed files of assets/ with a
// year-long cache, and index.html for every other path (the UI routes on
// the client), with uiPath and apiPath filled into its <meta> tags (no
// inline script: the CSP stays strict) so that it works wherever it is
// mounted. Requests other than GET and HEAD get 405 in the error body of
// internal/errbody.
//
// New reads and compresses every file once; it panics when dist cannot
// be read or has no index.html.
func New(dist fs.FS, uiPath, apiPath string) http.Handler {
	files := map[string]uiFile{}
	err := fs.WalkDir(dist, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(dist, name)
		if err != nil {
			return err
		}
		ct := uiTypes[path.Ext(name)]
		if ct == "" {
			ct = mime.TypeByExtension(path.Ext(name))
		}
		if ct == "" {
			ct = http.DetectContentType(b)
		}
		files[name] = newUIFile(b, ct)
		return nil
	})
	if err != nil {
		panic("admin: embedded UI: " + err.Error())
	}
	for name, f := range files {
		if strings.HasSuffix(name, ".br") || strings.HasSuffix(name, ".gz") {
			continue
		}
		f.br = files[name+".br"].body
		f.gz = files[name+".gz"].body
		if f.gz == nil {
			f.gz = gzipped(f.body)
		}
		files[name] = f
	}
	for name := range files {
		if strings.HasSuffix(name, ".br") || strings.HasSuffix(name, ".gz") {
			delete(files, name)
		}
	}
	index, ok := files["index.html"]
	if !ok {
		panic("admin: embedded UI has no index.html; run `npm run build` in ui/")
	}
	p, api := html.EscapeString(uiPath), html.EscapeString(apiPath)
	// The build links its files relatively (Vite base "./"); a deep link
	// like <uiPath>/users/1 needs them absolute. A <base href> would not
	// do: the CSP's base-uri 'none' forbids it.
	index = newUIFile([]byte(strings.NewReplacer(
		`"./assets/`, `"`+p+`/assets/`,
		"__ADMIN_UI_PATH__", p,
		"__ADMIN_API_PATH__", api,
	).Replace(string(index.body))), index.contentType)
	index.gz = gzipped(index.body)
	delete(files, "index.html")

	prefix := uiPath + "/"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			errbody.Write(w, errMethod)
			return
		}
		name := strings.TrimPrefix(r.URL.Path, prefix)
		if f, ok := files[name]; ok {
			if strings.HasPrefix(name, "assets/") {
				h.Set("Cache-Control", "public, max-age=31536000, immutable")
			} else {
				h.Set("Cache-Control", "no-cache")
			}
			f.serve(w, r)
			return
		}
		if strings.HasPrefix(name, "assets/") {
			// A stale page asking for an old bundle gets a 404, not HTML
			// under a script's name.
			http.NotFound(w, r)
			return
		}
		h.Set("Cache-Control", "no-cache")
		index.serve(w, r)
	})
}

// errMethod answers a request that is neither GET nor HEAD. The engine's
// writeError sends a 4xx without a cause as it is, unlogged; so does this.
var errMethod = errbody.New(http.StatusMethodNotAllowed, "method_not_allowed", "method not allowed")

func newUIFile(b []byte, contentType string) uiFile {
	sum := sha256.Sum256(b)
	return uiFile{body: b, contentType: contentType, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
}

// gzipped is b compressed with gzip, or nil when that does not make it
// smaller (images, fonts).
func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	if buf.Len() >= len(b) {
		return nil
	}
	return buf.Bytes()
}

// serve answers f in the best encoding the client accepts. Each encoding
// has its own ETag (a cache must not answer one for the other), and Vary
// tells shared caches the answer depends on Accept-Encoding.
func (f uiFile) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	body, etag := f.body, f.etag
	if f.br != nil || f.gz != nil {
		h.Add("Vary", "Accept-Encoding")
		ae := r.Header.Get("Accept-Encoding")
		switch {
		case f.br != nil && acceptsEncoding(ae, "br"):
			body, etag = f.br, strings.TrimSuffix(f.etag, `"`)+`-br"`
			h.Set("Content-Encoding", "br")
		case f.gz != nil && acceptsEncoding(ae, "gzip"):
			body, etag = f.gz, strings.TrimSuffix(f.etag, `"`)+`-gz"`
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// acceptsEncoding reports whether an Accept-Encoding header value accepts
// enc (by name or *), not with q=0.
func acceptsEncoding(header, enc string) bool {
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.TrimSpace(name)
		if !strings.EqualFold(name, enc) && name != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		if q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000" {
			return false
		}
		return true
	}
	return false
}
