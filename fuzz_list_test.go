package admin

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/gameadmin/admin/internal/testdb"
)

// FuzzListHTTP sends arbitrary query strings to the list endpoint of a
// custom table as an admin: every answer must be below 500, and every
// refusal the error body.
func FuzzListHTTP(f *testing.F) {
	db := testdb.SQLite(f)
	ctx := context.Background()
	if _, err := db.NewCreateTable().Model((*testGadget)(nil)).Exec(ctx); err != nil {
		f.Fatal(err)
	}
	rows := slices.Clone(gadgetRows)
	if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
		f.Fatal(err)
	}
	logs := &syncBuffer{}
	a, err := New(db, Options{
		Secret: testSecret, PasswordHasher: testHasher, Logger: slog.New(slog.NewTextHandler(logs, nil)),
		Tables:    tablesWith(map[string]any{"gadgets": (*testGadget)(nil)}),
		Resources: map[string]*Resource{"gadgets": gadgetResource()},
		RateLimit: RateLimitOptions{Login: NoLimit{}, Bootstrap: NoLimit{}, RequestReset: NoLimit{}, LoginFailuresPerEmail: NoLimit{}, LoginFailuresPerNetwork: NoLimit{}, PerIP: NoLimit{}, Actions: NoLimit{}},
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { a.Close() })
	srv := httptest.NewServer(a)
	f.Cleanup(srv.Close)
	res, err := http.Post(srv.URL+"/admin-api/auth/bootstrap", "application/json",
		strings.NewReader(`{"email":"root@example.com","password":"correct horse"}`))
	if err != nil || res.StatusCode != 201 {
		f.Fatalf("bootstrap: %v %v", res.Status, err)
	}
	res.Body.Close()
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == sessionCookieName {
			cookie = c
		}
	}

	seeds := []string{
		"", "_sort=name&_order=desc", "_start=1&_end=3", "_q=alpha", "name_like=a_%25",
		"qty_in=1,2,3", "qty_gt=abc", "active=true", "seen_at_gte=2024-01-01", "meta_like=vip",
		"note_null=true", "_limit=2", "_limit=2&_cursor=" + base64.RawURLEncoding.EncodeToString([]byte(`{"k":["-qty","-id"],"v":[50,5]}`)),
		"_cursor=" + base64.RawURLEncoding.EncodeToString([]byte(`{"k":["-qty","-id"],"v":["x",{}]}`)),
		"_sort=price,qty&_order=asc,desc", "_order=asc", "price_lte=1e308", "qty=9223372036854775808",
		"seen_at=0000-01-01", "id_in=" + strings.Repeat("1,", 120), "secret=x", "%zz=1", "name=%00",
		"_q=" + strings.Repeat("%", 300), "_start=99999999999999", "_end=-1", "meta_null=false",
		"_sort=meta", "active_lt=1", "name_in=", "_limit=1000&_sort=seen_at",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	client := srv.Client()
	f.Fuzz(func(t *testing.T, raw string) {
		req, err := http.NewRequest("GET", srv.URL+"/admin-api/gadgets", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.URL.RawQuery = wireQuery(raw)
		req.AddCookie(cookie)
		res, err := client.Do(req)
		if err != nil {
			return // the client refused to send it: nothing reached the server
		}
		// Read to the end so the connection is reused: a new one per
		// request soon runs out of ports.
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		n := min(len(body), 512)
		if res.StatusCode >= 500 {
			t.Fatalf("GET /admin-api/gadgets?%s = %d %s; want < 500\n%s", raw, res.StatusCode, body[:n], logs.String())
		}
		if res.StatusCode != 200 && !strings.Contains(string(body[:n]), `"code"`) {
			t.Fatalf("GET /admin-api/gadgets?%s = %d %s; want the error body", raw, res.StatusCode, body[:n])
		}
	})
}

// wireQuery percent-encodes the bytes an HTTP request line cannot carry,
// so the fuzzer tests the panel rather than net/http's request parser.
func wireQuery(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c <= ' ' || c >= 0x7f || c == '#' {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
