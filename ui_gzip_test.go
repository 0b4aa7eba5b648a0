package admin

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gameadmin/admin/internal/testdb"
)

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

// TestUIPrecompressed: every script and stylesheet of the build has its
// brotli and gzip forms beside it (made by the build, not at start-up),
// and a client accepting br gets the build's .br bytes; gzip gets the
// build's .gz bytes.
func TestUIPrecompressed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), Options{})
	entries, err := uiDist.ReadDir("ui/dist/assets")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, d := range entries {
		name := d.Name()
		if !strings.HasSuffix(name, ".js") && !strings.HasSuffix(name, ".css") {
			continue
		}
		plain, _ := uiDist.ReadFile("ui/dist/assets/" + name)
		if len(plain) < 1024 {
			continue
		}
		for _, enc := range []struct{ ext, accept, header string }{{".br", "gzip, deflate, br, zstd", "br"}, {".gz", "gzip", "gzip"}} {
			want, err := uiDist.ReadFile("ui/dist/assets/" + name + enc.ext)
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
