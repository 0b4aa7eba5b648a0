package admin

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
)

// uiDist is the built single-page UI (ui/dist, committed; rebuild it with
// `cd ui && npm ci && npm run build`).
//
//go:embed all:ui/dist
var uiDist embed.FS

// uiCSP is the UI's Content-Security-Policy: everything from the panel's
// own origin, no inline script or style, no framing.
const uiCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
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

// uiFile is one embedded file, ready to serve.
type uiFile struct {
	body        []byte
	contentType string
	etag        string
}

// uiHandler serves the UI under Options.UIPath: the hashed files of
// assets/ with a year-long cache, and index.html for every other path (the
// UI routes on the client), with UIPath filled in so that it works
// wherever it is mounted.
func (a *Admin) uiHandler() http.Handler {
	files := map[string]uiFile{}
	sub, err := fs.Sub(uiDist, "ui/dist")
	if err != nil {
		panic("admin: embedded UI: " + err.Error())
	}
	err = fs.WalkDir(sub, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(sub, name)
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
	index, ok := files["index.html"]
	if !ok {
		panic("admin: embedded UI has no index.html; run `npm run build` in ui/")
	}
	p := html.EscapeString(a.opts.UIPath)
	// The build links its files relatively (Vite base "./"); a deep link
	// like <UIPath>/users/1 needs them absolute. A <base href> would not
	// do: the CSP's base-uri 'none' forbids it.
	index = newUIFile([]byte(strings.NewReplacer(
		`"./assets/`, `"`+p+`/assets/`,
		"__ADMIN_UI_PATH__", p,
	).Replace(string(index.body))), index.contentType)
	delete(files, "index.html")

	prefix := a.opts.UIPath + "/"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", uiCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			a.writeError(w, r, errorf(http.StatusMethodNotAllowed, "method_not_allowed", "method not allowed"))
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

func newUIFile(b []byte, contentType string) uiFile {
	sum := sha256.Sum256(b)
	return uiFile{body: b, contentType: contentType, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
}

func (f uiFile) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("ETag", f.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
}
