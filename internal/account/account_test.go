package account

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/passhash"
	"github.com/gameadmin/admin/internal/ratelimit"
	"github.com/gameadmin/admin/internal/token"
	"github.com/gameadmin/admin/internal/users"
)

// The database tests of accounts are admintest's (auth_http_test.go,
// login_test.go, totp_http_test.go, reset_http_test.go, session_test.go,
// setup_test.go, startsession_test.go, …): these are the checks that need
// none.

func code(err error) string {
	var ae *errbody.Error
	if errors.As(err, &ae) {
		return ae.Code
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

func TestCredentialsCheck(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		c     Credentials
		isNew bool
		want  string
	}{
		{Credentials{Email: " a@example.com ", Password: "long enough"}, true, ""},
		{Credentials{Email: "", Password: "x"}, false, "missing_field"},
		{Credentials{Email: "Alice <a@example.com>", Password: "x"}, false, "invalid_value"},
		{Credentials{Email: "a@example.com"}, false, "missing_field"},
		{Credentials{Email: "a@example.com", Password: "short"}, true, "password_too_short"},
		{Credentials{Email: "a@example.com", Password: "short"}, false, ""}, // sign-in: any length
		{Credentials{Email: "a@example.com", Password: strings.Repeat("x", 1025)}, false, "password_too_long"},
		{Credentials{Email: "a@example.com", Password: "long enough", DisplayName: strings.Repeat("é", 201)}, true, "invalid_value"},
	} {
		c := tt.c
		if got := code(c.Check(tt.isNew)); got != tt.want {
			t.Errorf("%+v.Check(%v) = %q; want %q", tt.c, tt.isNew, got, tt.want)
		}
	}
	c := Credentials{Email: " Alice@Example.com ", Password: "x"}
	if err := c.Check(false); err != nil || c.Email != "Alice@Example.com" {
		t.Fatalf("Check trims and keeps the case: %q, %v", c.Email, err)
	}
}

func TestCheckEmail(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 250) + "@x.io"
	_, err := CheckEmail(long)
	var ae *errbody.Error
	if !errors.As(err, &ae) || !strings.Contains(ae.Message, "…") {
		t.Fatalf("a long email: %v; want invalid_value quoting it cut short", err)
	}
}

func TestCheckCodeLen(t *testing.T) {
	t.Parallel()
	if err := CheckCodeLen("123456", ""); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(CheckCodeLen(strings.Repeat("1", 65), ""), errInvalidCode) || !errors.Is(CheckCodeLen("", strings.Repeat("p", 1025)), errInvalidCode) {
		t.Fatal("a code or password past its bound is not invalid_code")
	}
}

func TestLoginError(t *testing.T) {
	t.Parallel()
	if !errors.Is(loginError(ErrInvalidCredentials), errInvalidCredentials) {
		t.Fatal("invalid credentials: not 401 invalid_credentials")
	}
	if code(loginError(&ratelimit.Error{RetryAfter: time.Second})) != "rate_limited" {
		t.Fatal("a refusal: not 429")
	}
	other := errors.New("db down")
	if loginError(other) != other {
		t.Fatal("another error changed")
	}
}

func TestSetupToken(t *testing.T) {
	t.Parallel()
	if _, err := NewSetupToken("short"); err == nil {
		t.Fatal("a short SetupToken was taken")
	}
	given, err := NewSetupToken("0123456789abcdef")
	if err != nil || given.Generated() || given.Value() != "0123456789abcdef" {
		t.Fatalf("given: %+v, %v", given, err)
	}
	s, err := NewSetupToken("")
	if err != nil || !s.Generated() || len(s.Value()) < minSetupToken {
		t.Fatalf("generated: %v", err)
	}
	if s.Matches("") || s.Matches(s.Value()+"x") || !s.Matches(s.Value()) {
		t.Fatal("Matches")
	}
	s.Spend()
	if !s.Spent() || s.Matches(s.Value()) {
		t.Fatal("a spent token still matches")
	}
}

func TestTOTPSettings(t *testing.T) {
	t.Parallel()
	secret := []byte(strings.Repeat("s", 32))
	if _, err := NewTOTPSettings(secret, "everyone", time.Now); err == nil {
		t.Fatal("an unknown policy was taken")
	}
	for policy, want := range map[TOTPPolicy][3]bool{ // admin, mod, user
		"":            {false, false, false},
		TOTPNone:      {false, false, false},
		TOTPAdmins:    {true, false, false},
		TOTPOperators: {true, true, false},
	} {
		s, err := NewTOTPSettings(secret, policy, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		got := [3]bool{s.requires(authz.RoleAdmin), s.requires(authz.RoleMod), s.requires(authz.RoleUser)}
		if got != want {
			t.Errorf("policy %q requires %v; want %v", policy, got, want)
		}
	}
}

func newTokens() *Tokens {
	return &Tokens{Signer: &token.Signer{Secret: []byte(strings.Repeat("k", 32)), Audience: "/admin-api"},
		Session: SessionOptions{CookieName: "sess", TTL: time.Hour, SameSite: http.SameSiteStrictMode, Domain: "example.com"}, Secure: true}
}

func TestTokensCookies(t *testing.T) {
	t.Parallel()
	tk := newTokens()
	w := httptest.NewRecorder()
	if err := tk.SetSessionCookie(w, "u1", authz.RoleMod, 3); err != nil {
		t.Fatal(err)
	}
	ck := w.Result().Cookies()[0]
	if ck.Name != "sess" || ck.Path != "/" || ck.Domain != "example.com" || ck.MaxAge != 3600 || !ck.HttpOnly || !ck.Secure || ck.SameSite != http.SameSiteStrictMode {
		t.Fatalf("session cookie: %+v", ck)
	}
	c, err := tk.Signer.Parse(ck.Value, token.KindSession)
	if err != nil || c.UserID != "u1" || c.Role != "mod" || c.TV != 3 {
		t.Fatalf("session token: %+v, %v", c, err)
	}

	w = httptest.NewRecorder()
	tk.ClearSessionCookie(w)
	if ck := w.Result().Cookies()[0]; ck.Name != "sess" || ck.MaxAge >= 0 || ck.Value != "" {
		t.Fatalf("cleared: %+v", ck)
	}

	w = httptest.NewRecorder()
	tk.SetChallengeCookie(w, "chal")
	ck = w.Result().Cookies()[0]
	if ck.Name != totpChallengeCookie || ck.Path != "/admin-api/auth/login/totp" || ck.MaxAge != int(totpChallengeTTL/time.Second) {
		t.Fatalf("challenge cookie: %+v", ck)
	}
	r := httptest.NewRequest("POST", "/admin-api/auth/login/totp", nil)
	if tk.Challenge(r) != "" {
		t.Fatal("a challenge without a cookie")
	}
	r.AddCookie(ck)
	if tk.Challenge(r) != "chal" {
		t.Fatal("the cookie's challenge was not read")
	}
	w = httptest.NewRecorder()
	tk.ClearChallengeCookie(w)
	if ck := w.Result().Cookies()[0]; ck.Name != totpChallengeCookie || ck.MaxAge >= 0 {
		t.Fatalf("challenge cleared: %+v", ck)
	}
}

func TestDeviceCookie(t *testing.T) {
	t.Parallel()
	tk := newTokens()
	r := httptest.NewRequest("POST", "/admin-api/auth/login", nil)
	if tk.Device(r) != nil {
		t.Fatal("a device without a cookie")
	}
	w := httptest.NewRecorder()
	if err := tk.SetDeviceCookie(w, nil, "u1"); err != nil {
		t.Fatal(err)
	}
	ck := w.Result().Cookies()[0]
	if ck.Name != deviceCookie || ck.Path != "/admin-api/auth/login" {
		t.Fatalf("device cookie: %+v", ck)
	}
	r.AddCookie(ck)
	d := tk.Device(r)
	if d == nil || d.UserID != "u1" || d.ID == "" {
		t.Fatalf("device: %+v", d)
	}
	w = httptest.NewRecorder()
	if err := tk.SetDeviceCookie(w, d, "u1"); err != nil || len(w.Result().Cookies()) != 0 {
		t.Fatal("the browser holding the account's cookie got another")
	}
}

func TestNewAuth(t *testing.T) {
	t.Parallel()
	if _, err := New(Config{Hasher: failingHasher{}}); err == nil || !strings.HasPrefix(err.Error(), "admin: password hasher: ") {
		t.Fatalf("a failing hasher: %v", err)
	}
	au, err := New(Config{Hasher: passhash.Bcrypt{Cost: 4}, Roles: &users.RoleTable{Users: &users.Table{}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := au.closed(); err != nil {
		t.Fatalf("no Closed: %v", err)
	}
	if _, err := au.Authenticate(context.Background(), "", "x"); !errors.Is(err, ErrInvalidCredentials) {
		t.Fatalf("no email: %v", err)
	}
}

type failingHasher struct{ passhash.Bcrypt }

func (failingHasher) Hash(string) (string, error) { return "", errors.New("broken") }
