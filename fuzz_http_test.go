package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/golang-jwt/jwt/v5"
)

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
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { a.Close() })
	p.a = a
	rec := p.serve("POST", "/admin-api/auth/bootstrap", `{"email":"root@example.com","password":"correct horse"}`, "")
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
	if p.userID, err = a.users.createUser(ctx, db, "player@example.com", "", h); err != nil {
		f.Fatal(err)
	}
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

// FuzzSessionCookie sends arbitrary Cookie headers to a signed-in endpoint
// and to a Guard: only a token signed with the panel's key is a session
// (the fuzzer cannot forge one), and nothing answers 5xx.
func FuzzSessionCookie(f *testing.F) {
	p := newFuzzPanel(f)
	sign := func(c claims, method jwt.SigningMethod, key any) string {
		c.IssuedAt = jwt.NewNumericDate(time.Now())
		c.ExpiresAt = jwt.NewNumericDate(time.Now().Add(time.Hour))
		s, err := jwt.NewWithClaims(method, c).SignedString(key)
		if err != nil {
			f.Fatal(err)
		}
		return s
	}
	reset, err := p.a.signToken(claims{UserID: p.adminID, Kind: kindReset}, time.Hour)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		"game_admin_session=" + p.cookie,
		"game_admin_session=" + reset,
		"game_admin_session=" + sign(claims{UserID: p.adminID, Kind: kindSession}, jwt.SigningMethodHS512, testSecret),
		"game_admin_session=" + sign(claims{UserID: p.adminID, Kind: kindSession}, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType),
		"game_admin_session=" + sign(claims{UserID: p.adminID, Kind: kindSession}, jwt.SigningMethodHS256, []byte("another key, 32 bytes at least....")),
		"game_admin_session=" + sign(claims{UserID: p.adminID, Kind: kindSession, TV: 7}, jwt.SigningMethodHS256, testSecret),
		"game_admin_session=" + sign(claims{UserID: "nobody", Kind: kindSession}, jwt.SigningMethodHS256, testSecret),
		"a=b; game_admin_session=" + p.cookie + "; game_admin_session=x",
		"game_admin_session=", "game_admin_session=a.b.c", "=;;", `game_admin_session="` + p.cookie + `"`,
	} {
		f.Add(s)
	}
	guard := p.a.Guard(GuardOptions{Role: RoleUser, APIOnly: true})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		op, _ := OperatorFrom(r.Context())
		_, _ = io.WriteString(w, op.UserID)
	}))
	f.Fuzz(func(t *testing.T, cookie string) {
		req := httptest.NewRequest("GET", "http://panel.test/admin-api/auth/me", nil)
		req.Header.Set("Cookie", cookie)
		signed := false
		if ck, err := req.Cookie(sessionCookieName); err == nil {
			if c, err := p.a.parseToken(ck.Value, kindSession); err == nil {
				// Seeds come from the coordinating process too, whose
				// admin has another id: only the kind is certain.
				if c.Kind != kindSession || c.UserID == "" {
					t.Fatalf("parseToken accepted %q as %+v", ck.Value, c)
				}
				signed = true
			}
		}
		rec := p.serve("GET", "/admin-api/auth/me", "", cookie)
		p.checkAnswer(t, "GET /auth/me with Cookie "+cookie, rec)
		if rec.Code == 200 && !signed {
			t.Fatalf("Cookie %q signed in without a token of the panel's key", cookie)
		}
		if rec.Code != 200 && rec.Code != 401 {
			t.Fatalf("GET /auth/me with Cookie %q = %d; want 200 or 401", cookie, rec.Code)
		}
		grec := httptest.NewRecorder()
		guard.ServeHTTP(grec, req)
		if grec.Code >= 500 || grec.Code == 200 && !signed {
			t.Fatalf("Guard with Cookie %q = %d %s", cookie, grec.Code, grec.Body)
		}
	})
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
			"", "{}", "null", "[]", `"x"`, "1", "{} {}", "{", `{"a":1}`, "\xff",
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
