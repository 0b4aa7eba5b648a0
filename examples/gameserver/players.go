package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gameadmin/admin"
	"github.com/golang-jwt/jwt/v5"
	"github.com/uptrace/bun"
)

// Players sign in to the game with the same users table and password
// hashing as the panel, and get a token of the game's own: HS256, with the
// user's token version, so the panel's Ban and Revoke sessions end it too.

const playerTokenTTL = 24 * time.Hour

type playerClaims struct {
	UserID string `json:"userId"`
	TV     int64  `json:"tv"`
	Kind   string `json:"kind"` // "player": never a panel session
	jwt.RegisteredClaims
}

type players struct {
	db     *bun.DB
	admin  *admin.Admin
	secret []byte
	// panel is admin for the hub's own goroutines, which start before
	// the panel does.
	panel atomic.Pointer[admin.Admin]
}

// handleLogin is POST /api/auth/login {login (or email), password} ->
// {token}: login is an email or a username.
func (p *players) handleLogin(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Login    string `json:"login"`
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || cmp.Or(body.Login, body.Email) == "" || body.Password == "" {
		writeJSONError(w, http.StatusBadRequest, "login (an email or a username) and password are required")
		return
	}
	ctx := r.Context()
	// AuthenticateFrom spends the panel's per-IP and per-account limits
	// and audits failures, exactly as the panel's own sign-in does.
	id, err := p.admin.Auth().AuthenticateFrom(r, cmp.Or(body.Login, body.Email), body.Password)
	var limited *admin.RateLimitError
	switch {
	case errors.As(err, &limited):
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(limited.RetryAfter.Seconds())))))
		writeJSONError(w, http.StatusTooManyRequests, "too many attempts")
		return
	case errors.Is(err, admin.ErrInvalidCredentials):
		writeJSONError(w, http.StatusUnauthorized, "invalid email or password")
		return
	case errors.Is(err, admin.ErrBanned):
		writeJSONError(w, http.StatusForbidden, "this account is banned")
		return
	case errors.Is(err, admin.ErrLimiterUnavailable): // a limiter that refuses when it fails (redisstore.OutageClosed)
		slog.WarnContext(ctx, "game login refused: rate limiter unavailable", "err", err)
		w.Header().Set("Retry-After", "5")
		writeJSONError(w, http.StatusServiceUnavailable, "sign-in is unavailable; try again shortly")
		return
	case err != nil:
		slog.ErrorContext(ctx, "game login", "err", err)
		writeJSONError(w, http.StatusInternalServerError, "internal error")
		return
	}
	tv, err := p.tokenVersion(ctx, id)
	if err != nil {
		writeJSONError(w, http.StatusInternalServerError, "internal error")
		return
	}
	now := time.Now()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, playerClaims{UserID: id, TV: tv, Kind: "player",
		RegisteredClaims: jwt.RegisteredClaims{IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(playerTokenTTL))}}).
		SignedString(p.secret)
	if err != nil {
		writeJSONError(w, http.StatusInternalServerError, "internal error")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]string{"token": tok, "userId": id})
}

// authenticate resolves the player of a WebSocket upgrade from ?token= or
// Authorization: Bearer; the hub refuses a missing or stale token with 401.
func (p *players) authenticate(r *http.Request) (string, error) {
	raw := r.URL.Query().Get("token")
	if h := r.Header.Get("Authorization"); raw == "" && strings.HasPrefix(h, "Bearer ") {
		raw = strings.TrimPrefix(h, "Bearer ")
	}
	if raw == "" {
		return "", errors.New("no token")
	}
	var c playerClaims
	if _, err := jwt.ParseWithClaims(raw, &c, func(*jwt.Token) (any, error) { return p.secret, nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired()); err != nil || c.Kind != "player" {
		return "", errors.New("invalid token")
	}
	tv, err := p.tokenVersion(r.Context(), c.UserID)
	if err != nil || tv != c.TV {
		return "", errors.New("revoked token")
	}
	return c.UserID, nil
}

func (p *players) tokenVersion(ctx context.Context, userID string) (int64, error) {
	var tv int64
	err := p.db.NewSelect().Model((*admin.User)(nil)).Column("token_version").Where("id = ?", userID).Scan(ctx, &tv)
	return tv, err
}

// isBanned is the hub's check at every join.
func (p *players) isBanned(ctx context.Context, userID string) (bool, error) {
	b, err := p.admin.Auth().Banned(ctx, userID)
	return b != nil, err
}

func writeJSONError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": msg, "status": status})
}

// userStates is the hub's re-check of live players: the panel's own
// reading of token versions and bans.
func (p *players) userStates(ctx context.Context, ids []string) (map[string]admin.UserState, error) {
	a := p.panel.Load()
	if a == nil { // a re-check before the panel started
		return nil, errors.New("the panel is not started yet")
	}
	return a.Auth().UserStates(ctx, ids)
}
