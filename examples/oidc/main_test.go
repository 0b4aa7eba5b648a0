package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/gameadmin/admin"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"golang.org/x/oauth2"
)

// TestSSOFlow runs the whole flow against a fake provider on localhost:
// login, the provider's redirect back, the code exchange (PKCE checked),
// userinfo, and the panel session StartSession issues.
func TestSSOFlow(t *testing.T) {
	sqldb, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "oidc.db"))
	if err != nil {
		t.Fatal(err)
	}
	db := bun.NewDB(sqldb, sqlitedialect.New())
	defer db.Close()
	a, err := admin.New(db, admin.Options{Secret: []byte("0123456789abcdef0123456789abcdef-oidc")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()
	h, _ := a.Auth().HashPassword(ctx, "unused password")
	op := &admin.User{Email: "op@example.com", PasswordHash: h}
	if _, err := db.NewInsert().Model(op).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Moderation().SetRole(ctx, op.ID, admin.RoleMod); err != nil {
		t.Fatal(err)
	}

	var challenge string
	provider := http.NewServeMux()
	provider.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		if r.Form.Get("code") != "good-code" || oauth2.S256ChallengeFromVerifier(r.Form.Get("code_verifier")) != challenge {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": "at-1", "token_type": "Bearer"})
	})
	provider.HandleFunc("GET /userinfo", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer at-1" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"email": "OP@example.com", "email_verified": true})
	})
	idp := httptest.NewServer(provider)
	defer idp.Close()

	mux := http.NewServeMux()
	a.Mount(mux)
	game := httptest.NewServer(mux)
	defer game.Close()
	sso := &SSO{Admin: a, DB: db, UserinfoURL: idp.URL + "/userinfo", Client: idp.Client(), Config: oauth2.Config{
		ClientID: "game", ClientSecret: "s", RedirectURL: game.URL + "/sso/callback",
		Endpoint: oauth2.Endpoint{AuthURL: idp.URL + "/authorize", TokenURL: idp.URL + "/token"},
	}}
	sso.Mount(mux)

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(game.URL + "/sso/login")
	if err != nil {
		t.Fatal(err)
	}
	auth, _ := url.Parse(res.Header.Get("Location"))
	state := auth.Query().Get("state")
	challenge = auth.Query().Get("code_challenge")
	if res.StatusCode != http.StatusFound || state == "" || challenge == "" || auth.Query().Get("code_challenge_method") != "S256" {
		t.Fatalf("login = %d %s; want a redirect with state and a PKCE challenge", res.StatusCode, auth)
	}

	// A forged state is refused; the provider's redirect back signs in.
	if res, _ := c.Get(game.URL + "/sso/callback?code=good-code&state=forged"); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("forged state = %d; want 400", res.StatusCode)
	}
	res, err = c.Get(game.URL + "/sso/callback?code=good-code&state=" + url.QueryEscape(state))
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/admin/" {
		t.Fatalf("callback = %d %q; want a redirect to /admin/", res.StatusCode, res.Header.Get("Location"))
	}
	res, err = c.Get(game.URL + "/admin-api/auth/me")
	if err != nil {
		t.Fatal(err)
	}
	var me map[string]any
	json.NewDecoder(res.Body).Decode(&me)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || me["userId"] != op.ID || me["role"] != "mod" {
		t.Fatalf("me = %d %v; want the mod's session", res.StatusCode, me)
	}
}
