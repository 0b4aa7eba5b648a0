package admintest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// TestBadInput: every endpoint answers malformed bodies with a 4xx error
// body, and nothing is written.
func TestBadInput(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{MaxBodyBytes: 4 << 10})
		c := e.client()
		endpoints := []struct {
			path  string
			valid map[string]any
			field string // a string field to corrupt
		}{
			{"/admin-api/auth/bootstrap", map[string]any{"email": "a@example.com", "password": "correct horse"}, "email"},
			{"/admin-api/auth/login", map[string]any{"email": "a@example.com", "password": "correct horse"}, "email"},
			{"/admin-api/auth/request-reset", map[string]any{"email": "a@example.com"}, "email"},
			{"/admin-api/auth/reset", map[string]any{"token": "x.y.z", "password": "correct horse"}, "token"},
		}
		for _, ep := range endpoints {
			with := func(k string, v any) string {
				m := map[string]any{}
				for k, v := range ep.valid {
					m[k] = v
				}
				m[k] = v
				b, _ := json.Marshal(m)
				return string(b)
			}
			valid := with(ep.field, ep.valid[ep.field])
			bodies := []struct {
				name string
				body string
				code int
				err  string
			}{
				{"empty", "", 400, "invalid_body"},
				{"malformed", `{"email":`, 400, "invalid_json"},
				{"not an object", `["a@example.com"]`, 400, "invalid_body"},
				{"null", `null`, 400, "missing_field"},
				{"empty object", `{}`, 400, "missing_field"},
				{"wrong type", with(ep.field, 5), 400, "invalid_value"},
				{"unknown field", with("role", "admin"), 400, "unknown_field"},
				{"trailing data", valid + " {}", 400, "invalid_body"},
				{"a stray closing brace", valid + " }", 400, "invalid_body"},
				{"a stray closing bracket", valid + "]", 400, "invalid_body"},
				{"invalid utf-8", strings.Replace(with(ep.field, "BAD"), "BAD", "\xff", 1), 400, "invalid_body"},
				{"oversized", with(ep.field, strings.Repeat("x", 5<<10)), 413, "body_too_large"},
			}
			for _, b := range bodies {
				t.Run(ep.path+"/"+b.name, func(t *testing.T) {
					c.do("POST", ep.path, b.body).want(t, b.code, b.err)
				})
			}
		}
		// Nothing was created by any of it.
		n, err := db.NewSelect().Model((*User)(nil)).Count(context.Background())
		if err != nil || n != 0 {
			t.Fatalf("users after bad input = %d, %v; want 0", n, err)
		}
		if !strings.Contains(e.logs.String(), "") || strings.Contains(e.logs.String(), "internal error") {
			t.Fatalf("bad input caused an internal error:\n%s", e.logs)
		}
		// Unknown API paths and methods are JSON 404s.
		c.do("GET", "/admin-api/a/b/c/d/e", nil).want(t, 404, "not_found")
		c.do("PUT", "/admin-api/auth", nil).want(t, 404, "not_found")
	})
}

// TestJSONBodiesSayWhatIsWrong: a key twice in one object is refused (the
// decoder would keep the last, a proxy or a log may read the first); a
// value of the wrong kind is named in JSON's words, not Go's; JSON answers
// are never sniffed as another type.
func TestJSONBodiesSayWhatIsWrong(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), Options{})
	root, _ := e.bootstrap()
	r := e.client().do("POST", "/admin-api/auth/login", `{"email":"root@example.com","password":"x","password":"correct horse"}`).want(t, 400, "invalid_json")
	if !contains(r.body["error"].(string), `"password" appears twice`) {
		t.Fatalf("duplicate key answer = %s", r.raw)
	}
	root.do("POST", "/admin-api/configs", `{"key":"k","value":1,"value":2}`).want(t, 400, "invalid_json")
	root.do("POST", "/admin-api/configs", `{"key":"k","value":{"a":1,"b":[{"k":1,"k":2}]}}`).want(t, 400, "invalid_json")
	if n := count(t, e.db, (*Config)(nil)); n != 0 {
		t.Fatalf("%d configs after a refused body", n)
	}
	// The same key in two objects is fine.
	root.do("POST", "/admin-api/configs", `{"key":"k","value":{"key":"inner","value":[{"key":1},{"key":2}]}}`).want(t, 201)
	r = e.client().do("POST", "/admin-api/auth/login", `{"email":["a@example.com"],"password":"correct horse"}`).want(t, 400, "invalid_value")
	if msg := r.body["error"].(string); msg != `field "email" must be a string, not a list` {
		t.Fatalf("type error = %q; want it in JSON's words", msg)
	}
	if got := r.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Fatalf("X-Content-Type-Options = %q; want nosniff", got)
	}
}

// fuzzPanel is a panel on SQLite with gadgets (one row, an "echo" action
// per row and in bulk), an admin session and a plain user, driven in
// process through ServeHTTP.
type fuzzPanel struct {
	a               *Admin
	logs            *syncBuffer
	cookie          string // the admin's session token
	adminID, userID string
}

func newFuzzPanel(f *testing.F) *fuzzPanel {
	db := testdb.SQLite(f)
	ctx := context.Background()
	if _, err := db.NewCreateTable().Model((*testGadget)(nil)).Exec(ctx); err != nil {
		f.Fatal(err)
	}
	echo := func(_ context.Context, row map[string]any, c ActionContext) (any, error) {
		return map[string]any{"row": row != nil, "args": len(c.Args)}, nil
	}
	p := &fuzzPanel{logs: &syncBuffer{}}
	a, err := New(db, Options{
		Secret: testSecret, PasswordHasher: testHasher, Logger: slog.New(slog.NewTextHandler(p.logs, nil)),
		Tables: tablesWith(map[string]any{"gadgets": (*testGadget)(nil)}),
		Resources: map[string]*Resource{"gadgets": DefineResource((*testGadget)(nil), ResourceConfig{Actions: []Action{
			{Name: "echo", Handler: echo}, {Name: "echoRow", PerRow: true, Handler: echo},
		}})},
		RateLimit:      RateLimitOptions{Login: NoLimit{}, Bootstrap: NoLimit{}, RequestReset: NoLimit{}, LoginFailuresPerEmail: NoLimit{}},
		OnResetRequest: func(context.Context, ResetRequest) error { return nil },
		SetupToken:     testSetupToken, // the recorder's requests come from 192.0.2.1
	})
	if err != nil {
		f.Fatalf("New: %v", err)
	}
	f.Cleanup(func() { a.Close() })
	p.a = a
	rec := p.serve("POST", "/admin-api/auth/bootstrap", `{"email":"root@example.com","password":"correct horse","token":"`+testSetupToken+`"}`, "")
	if rec.Code != 201 {
		f.Fatalf("bootstrap = %d %s", rec.Code, rec.Body)
	}
	for _, c := range rec.Result().Cookies() {
		if c.Name == sessionCookieName {
			p.cookie = c.Value
		}
	}
	var boot struct{ UserID string }
	if err := json.Unmarshal(rec.Body.Bytes(), &boot); err != nil {
		f.Fatal(err)
	}
	p.adminID = boot.UserID
	h, err := a.Auth().HashPassword(ctx, "player password")
	if err != nil {
		f.Fatal(err)
	}
	player := &User{Email: "player@example.com", PasswordHash: h} // as the game's sign-up writes it
	if _, err := db.NewInsert().Model(player).Exec(ctx); err != nil {
		f.Fatal(err)
	}
	p.userID = player.ID
	if rec := p.serve("POST", "/admin-api/gadgets", `{"name":"one"}`, "game_admin_session="+p.cookie); rec.Code != 201 {
		f.Fatalf("create gadget = %d %s", rec.Code, rec.Body)
	}
	return p
}

// serve answers one request in process; cookie is the raw Cookie header.
func (p *fuzzPanel) serve(method, path, body, cookie string) *httptest.ResponseRecorder {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, "http://panel.test"+path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	rec := httptest.NewRecorder()
	p.a.ServeHTTP(rec, req)
	return rec
}

// checkAnswer fails unless the answer is below 500 and, when not 2xx,
// the panel's error body (APIError).
func (p *fuzzPanel) checkAnswer(t *testing.T, what string, rec *httptest.ResponseRecorder) {
	t.Helper()
	body := rec.Body.Bytes()
	if rec.Code >= 500 {
		t.Fatalf("%s = %d %.512s; want < 500\n%s", what, rec.Code, body, p.logs.String())
	}
	if rec.Code >= 300 {
		var e struct {
			Error  string `json:"error"`
			Code   string `json:"code"`
			Status int    `json:"status"`
		}
		if err := json.Unmarshal(body, &e); err != nil || e.Code == "" || e.Error == "" || e.Status != rec.Code ||
			rec.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("%s = %d %.512s; want the error body", what, rec.Code, body)
		}
	}
}

// fuzzBodyEndpoints are the endpoints that decode a JSON body, as the admin
// (true) or anonymous. {user} is the plain user's id.
var fuzzBodyEndpoints = []struct {
	method, path string
	signedIn     bool
}{
	{"POST", "/admin-api/auth/login", false},
	{"POST", "/admin-api/auth/bootstrap", false},
	{"POST", "/admin-api/auth/request-reset", false},
	{"POST", "/admin-api/auth/reset", false},
	{"POST", "/admin-api/auth/login/totp", false},
	{"POST", "/admin-api/gadgets", true},
	{"PATCH", "/admin-api/gadgets/1", true},
	{"PUT", "/admin-api/gadgets/1", true},
	{"POST", "/admin-api/gadgets/_action/echo", true},
	{"POST", "/admin-api/gadgets/_action/echoRow", true},
	{"POST", "/admin-api/users/{user}/ban", true},
	{"POST", "/admin-api/users/{user}/unban", true},
	{"POST", "/admin-api/users/{user}/revoke-sessions", true},
	{"PATCH", "/admin-api/users/{user}", true},
	{"POST", "/admin-api/roles", true},
	{"POST", "/admin-api/auth/totp/confirm", true},
	{"POST", "/admin-api/auth/totp/disable", true},
	{"POST", "/admin-api/auth/totp/recovery-codes", true},
	{"POST", "/admin-api/auth/password", true},
	{"POST", "/admin-api/users/{user}/totp/reset", true},
}

// FuzzJSONBodies sends arbitrary bodies to every endpoint that decodes
// one: every answer is below 500 and every refusal the error body.
func FuzzJSONBodies(f *testing.F) {
	p := newFuzzPanel(f)
	for i := range fuzzBodyEndpoints {
		for _, b := range []string{
			"", "{}", "null", "[]", `"x"`, "1", "{} {}", "{}  }", `{"a":1}]`, "{", `{"a":1}`, "\xff",
			`{"email":"root@example.com","password":"correct horse"}`, `{"email":" A@B.C ","password":"x","displayName":"é"}`,
			`{"token":"a.b.c","password":"new password"}`, `{"challenge":"x","code":"123456"}`,
			`{"name":"n","qty":"9223372036854775808","price":1e400,"meta":{"a":[1]},"seen_at":"2024-01-01"}`,
			`{"qty":1,"active":"yes","note":null,"meta":[1,2]}`, `{"id":1,"x":{"y":[]}}`, `{"id":"1"}`, `{"id":1.5}`,
			`{"reason":"` + strings.Repeat("é", 501) + `","until":"2999-01-01T00:00:00Z"}`, `{"until":"yesterday"}`,
			`{"email":"new@example.com","display_name":"x","password_hash":"x","ban":{"reason":1}}`,
			`{"user_id":"u","role":"god","scopes":"x"}`, `{"code":"000000","password":"x","current":"y","next":"z"}`,
		} {
			f.Add(uint8(i), []byte(b))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		ep := fuzzBodyEndpoints[int(which)%len(fuzzBodyEndpoints)]
		path := strings.ReplaceAll(ep.path, "{user}", p.userID)
		cookie := ""
		if ep.signedIn {
			cookie = "game_admin_session=" + p.cookie
		}
		req := httptest.NewRequest(ep.method, "http://panel.test"+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if cookie != "" {
			req.Header.Set("Cookie", cookie)
		}
		rec := httptest.NewRecorder()
		p.a.ServeHTTP(rec, req)
		p.checkAnswer(t, ep.method+" "+path+" "+string(body), rec)
		if ep.signedIn && rec.Code == 401 {
			t.Fatalf("%s %s %q signed the admin out: %s", ep.method, path, body, rec.Body)
		}
	})
}
