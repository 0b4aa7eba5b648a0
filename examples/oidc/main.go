// Command oidc shows the panel behind the game's own single sign-on: the
// game runs the OpenID Connect authorization-code flow (with PKCE) through
// golang.org/x/oauth2, finds the operator by the verified email the
// provider's userinfo endpoint returns, and hands them a panel session with
// Auth().StartSession. The panel's password sign-in still works beside it.
//
//	OIDC_ISSUER=https://accounts.example.com OIDC_CLIENT_ID=... OIDC_CLIENT_SECRET=... \
//	  go run ./examples/oidc -addr :8080
//
// Then open http://localhost:8080/sso/login. The endpoints below follow
// the usual <issuer>/authorize, /token and /userinfo layout; read them from
// the provider's /.well-known/openid-configuration in a real game.
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/gameadmin/admin"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"golang.org/x/oauth2"
	_ "modernc.org/sqlite"
)

func main() {
	addr := flag.String("addr", ":8080", "listen address")
	dsn := flag.String("db", "file:oidc.db", "SQLite database")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(*addr, *dsn); err != nil {
		log.Error("oidc", "err", err)
		os.Exit(1)
	}
}

func run(addr, dsn string) error {
	sqldb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	db := bun.NewDB(sqldb, sqlitedialect.New())
	defer db.Close()
	a, err := admin.New(db, admin.Options{})
	if err != nil {
		return err
	}
	defer a.Close()
	issuer := strings.TrimRight(os.Getenv("OIDC_ISSUER"), "/")
	sso := &SSO{
		Admin: a,
		DB:    db,
		Config: oauth2.Config{
			ClientID:     os.Getenv("OIDC_CLIENT_ID"),
			ClientSecret: os.Getenv("OIDC_CLIENT_SECRET"),
			RedirectURL:  "http://localhost" + addr + "/sso/callback",
			Endpoint:     oauth2.Endpoint{AuthURL: issuer + "/authorize", TokenURL: issuer + "/token"},
			Scopes:       []string{"openid", "email"},
		},
		UserinfoURL: issuer + "/userinfo",
	}
	mux := http.NewServeMux()
	a.Mount(mux)
	sso.Mount(mux)
	return http.ListenAndServe(addr, mux)
}

// SSO signs operators in to the panel through an OpenID Connect provider.
type SSO struct {
	Admin       *admin.Admin
	DB          *bun.DB
	Config      oauth2.Config
	UserinfoURL string
	// Client makes the back-channel requests (token, userinfo). Default
	// http.DefaultClient.
	Client *http.Client
}

const stateCookie = "sso_state"

// Mount registers GET /sso/login and GET /sso/callback.
func (s *SSO) Mount(mux *http.ServeMux) {
	mux.HandleFunc("GET /sso/login", s.login)
	mux.HandleFunc("GET /sso/callback", s.callback)
}

// login sends the browser to the provider, with a fresh state and PKCE
// verifier kept in a short-lived cookie (SameSite Lax: it must come back
// on the provider's redirect, a cross-site navigation).
func (s *SSO) login(w http.ResponseWriter, r *http.Request) {
	state, verifier := rand.Text(), oauth2.GenerateVerifier()
	http.SetCookie(w, &http.Cookie{Name: stateCookie, Value: state + "." + verifier, Path: "/sso/", MaxAge: 600,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, s.Config.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier)), http.StatusFound)
}

// callback checks the state, exchanges the code, reads the user's verified
// email and starts the panel session for the operator who has it.
func (s *SSO) callback(w http.ResponseWriter, r *http.Request) {
	ck, err := r.Cookie(stateCookie)
	state, verifier, _ := strings.Cut(valueOf(ck, err), ".")
	if state == "" || r.URL.Query().Get("state") != state {
		http.Error(w, "sign-in expired; start again", http.StatusBadRequest)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: stateCookie, Path: "/sso/", MaxAge: -1})
	ctx := r.Context()
	if s.Client != nil {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, s.Client)
	}
	tok, err := s.Config.Exchange(ctx, r.URL.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		http.Error(w, "the provider refused the sign-in", http.StatusBadGateway)
		return
	}
	email, err := s.verifiedEmail(ctx, tok)
	if err != nil {
		http.Error(w, "the provider did not vouch for an email", http.StatusForbidden)
		return
	}
	// Only existing users: the panel's roles say who is an operator. The
	// email is matched as the panel's own sign-in matches it (without
	// regard to case, an exact match first).
	userID, err := s.Admin.Auth().UserIDByEmail(ctx, email)
	if err != nil {
		http.Error(w, "no account for "+email, http.StatusForbidden)
		return
	}
	err = s.Admin.Auth().StartSession(w, r, userID)
	switch {
	case errors.Is(err, admin.ErrSecondFactorRequired):
		http.Redirect(w, r, s.Admin.SecondFactorURL(s.Admin.UIPath()+"/"), http.StatusFound)
	case errors.Is(err, admin.ErrBanned):
		http.Error(w, "this account is banned", http.StatusForbidden)
	case err != nil:
		http.Error(w, "sign-in failed", http.StatusInternalServerError)
	default:
		http.Redirect(w, r, s.Admin.UIPath()+"/", http.StatusFound)
	}
}

// verifiedEmail asks the provider's userinfo endpoint, with the access
// token just obtained over the back channel, for the user's email, and
// accepts it only when the provider has verified it.
func (s *SSO) verifiedEmail(ctx context.Context, tok *oauth2.Token) (string, error) {
	res, err := s.Config.Client(ctx, tok).Get(s.UserinfoURL)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("userinfo: %s", res.Status)
	}
	var info struct {
		Email         string `json:"email"`
		EmailVerified bool   `json:"email_verified"`
	}
	if err := json.NewDecoder(res.Body).Decode(&info); err != nil {
		return "", err
	}
	if info.Email == "" || !info.EmailVerified {
		return "", errors.New("userinfo: no verified email")
	}
	return info.Email, nil
}

func valueOf(ck *http.Cookie, err error) string {
	if err != nil {
		return ""
	}
	return ck.Value
}
