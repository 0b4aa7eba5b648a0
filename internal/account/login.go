package account

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/netkey"
	"github.com/gameadmin/admin/internal/ratelimit"
	"github.com/gameadmin/admin/internal/token"
	"github.com/gameadmin/admin/internal/users"
)

// UserIDByEmail returns the id of the user with that email, matched the
// way panel sign-in matches it: without regard to case, an exact match
// first. It is for the game's own sign-in paths (an SSO callback before
// StartSession, a support tool), so that they agree with the panel on
// who an email is. It returns users.ErrNotFound, or ErrAmbiguousEmail when
// several accounts differ from the email only in case and none matches
// it exactly.
func (au *Auth) UserIDByEmail(ctx context.Context, email string) (string, error) {
	acc, err := au.users.AccountByEmail(ctx, au.db, email)
	var amb *users.AmbiguousEmailError
	switch {
	case errors.As(err, &amb):
		return "", fmt.Errorf("%w (%s)", ErrAmbiguousEmail, strings.Join(amb.IDs, ", "))
	case err != nil:
		return "", err
	}
	return acc.ID, nil
}

// accountByEmail is users.Table.AccountByEmail for sign-in and reset: an
// email that matches several accounts only without regard to case is
// logged (with their ids) and answered as users.ErrNotFound, so nobody is
// signed into an account they may not own.
func (au *Auth) accountByEmail(ctx context.Context, email string) (*users.Account, error) {
	acc, err := au.users.AccountByEmail(ctx, au.db, email)
	var amb *users.AmbiguousEmailError
	if errors.As(err, &amb) {
		au.log.WarnContext(ctx, "admin: sign-in or reset refused: the email matches several accounts in different case and none exactly; type it exactly as stored, or make the stored emails differ", "userIds", amb.IDs)
		return nil, users.ErrNotFound
	}
	return acc, err
}

// accountByLogin finds the account at.Login names, as at.By says: an
// email (AccountByEmail, its ambiguity refused as accountByEmail does),
// a username (AccountByUsername) or either (AccountByLogin). An
// ambiguity is logged and answered users.ErrNotFound.
func (au *Auth) accountByLogin(ctx context.Context, at LoginAttempt) (*users.Account, error) {
	var acc *users.Account
	var err error
	switch at.By {
	case ByEmail:
		return au.accountByEmail(ctx, at.Login)
	case ByUsername:
		acc, err = au.users.AccountByUsername(ctx, au.db, at.Login)
	default:
		acc, err = au.users.AccountByLogin(ctx, au.db, at.Login)
	}
	var amb *users.AmbiguousEmailError
	var ambName *users.AmbiguousUsernameError
	switch {
	case errors.As(err, &amb):
		au.log.WarnContext(ctx, "admin: sign-in refused: the email matches several accounts in different case and none exactly; type it exactly as stored, or make the stored emails differ", "userIds", amb.IDs)
		return nil, users.ErrNotFound
	case errors.As(err, &ambName):
		au.log.WarnContext(ctx, "admin: sign-in refused: several accounts have that username; give the username column a unique index", "userIds", ambName.IDs)
		return nil, users.ErrNotFound
	}
	return acc, err
}

// What a sign-in's login is matched against (LoginAttempt.By).
const (
	// ByLogin matches an email or a username (users.Table.AccountByLogin).
	ByLogin = ""
	// ByEmail matches an email only (the body's "email").
	ByEmail = "email"
	// ByUsername matches a username only (the body's "username").
	ByUsername = "username"
)

// LoginAttempt is one password check: who for, and where it came from.
type LoginAttempt struct {
	// Login is the email or username as typed, trimmed; emailKey(Login)
	// keys the limits.
	Login string
	// By says what Login is matched against: ByLogin (either),
	// ByEmail or ByUsername.
	By       string
	Password string
	// IP is the client's address; "" when unknown (Auth().Authenticate),
	// which skips the per-IP buckets and shares one network bucket.
	IP   string
	Meta map[string]any // ip and userAgent for the audit log
	// Device is the attempt's valid device cookie (Tokens.Device), if it
	// has one.
	Device *token.Claims
	// via names the caller in failure audit rows: "" for the panel's own
	// sign-in, "authenticate" for the game's.
	via string
}

// checkLogin is the one password check behind POST /auth/login,
// Auth().Authenticate and Auth().AuthenticateFrom. In order: the
// request's buckets are spent (spendRequest, signin_limits.go, before any
// database work or hashing); the account is looked up; a token of the guess budget is
// spent (reserveGuess), so that parallel guesses cannot all pass a bucket
// with one token left; the password is verified (an unknown email against
// a dummy hash, the same work). A right password gives the guess token
// back. A failure keeps it spent and is audited as auth.login_failed in
// the background, so its timing is the same for known and unknown emails.
//
// It returns the account, or ErrInvalidCredentials, a *ratelimit.Error,
// ErrLimiterUnavailable (wrapping the cause) or a system error.
func (au *Auth) checkLogin(ctx context.Context, at LoginAttempt) (*users.Account, error) {
	key := emailKey(at.Login)
	if err := au.spendRequest(ctx, at, key); err != nil {
		return nil, err
	}
	acc, err := au.accountByLogin(ctx, at)
	if err != nil && !errors.Is(err, users.ErrNotFound) {
		return nil, err
	}
	spent, err := au.reserveGuess(ctx, at, acc, key)
	if err != nil {
		return nil, err
	}
	ok, err := au.verify(ctx, acc, at.Password)
	if err != nil || ok {
		au.refund(ctx, spent)
	}
	switch {
	case err != nil:
		return nil, err
	case ok:
		return acc, nil
	}
	au.auditLoginFailure(ctx, acc, at)
	return nil, ErrInvalidCredentials
}

// auditLoginFailure records auth.login_failed off the request path. A
// failure for a known account gets its own row; failures for emails that
// match no account are collapsed per client IP (see audit.Failures).
func (au *Auth) auditLoginFailure(ctx context.Context, acc *users.Account, at LoginAttempt) {
	payload := audit.Payload(at.Meta, au.loginField(at.Login), at.Login)
	if at.via != "" {
		payload["via"] = at.via
	}
	operator := ""
	if acc != nil {
		operator = acc.ID
	} else if !au.failures.First("auth.login_failed", netkey.Address(at.IP), emailKey(at.Login)) {
		return // counted into the next collapsed row
	}
	e := audit.Entry{OperatorID: operator, Action: "auth.login_failed", Resource: "auth", TargetID: operator, Payload: payload}
	au.auditJobs.Submit(ctx, func(ctx context.Context) { au.audit.Event(ctx, e) })
}

// loginError turns checkLogin's errors (and ratelimit.Spend's) into the
// endpoints' answers.
func loginError(err error) error {
	if errors.Is(err, ErrInvalidCredentials) {
		return errInvalidCredentials
	}
	return ratelimit.Answer(err)
}

// loginField is the audit payload's key for a login as typed: "email"
// for one with '@' or on a users table without usernames, else
// "username".
func (au *Auth) loginField(login string) string {
	if strings.Contains(login, "@") || !au.users.HasUsername {
		return "email"
	}
	return "username"
}

// Authenticate checks a login (an email or a username, matched as
// users.Table.AccountByLogin says) and password the way panel sign-in
// does and returns the user's id: same hashing and timing for unknown
// logins, and
// the same failure limits (LoginFailuresPerNetwork, with every call of
// Authenticate counted as one network, and LoginFailuresPerEmail) and
// auth.login_failed audit rows (with "via": "authenticate"). It returns
// ErrInvalidCredentials, ErrBanned, a *ratelimit.Error (ErrRateLimited) or
// an error wrapping ErrLimiterUnavailable.
//
// Games use it for their own player sign-in, so players and operators
// share one users table. Prefer AuthenticateFrom, which also knows the
// client's address: it adds the per-IP limits and keys the failure limit
// on the client's network, so one attacker cannot lock an account's game
// sign-in for everyone.
func (au *Auth) Authenticate(ctx context.Context, login, password string) (string, error) {
	return au.authenticate(ctx, LoginAttempt{Login: strings.TrimSpace(login), Password: password, Meta: map[string]any{}, via: "authenticate"})
}

// AuthenticateFrom is Authenticate for a sign-in request r of the game's
// own: the client IP (a.ClientIP, honouring Options.TrustedProxies) spends
// the PerIP and Login buckets, the failure limit is keyed on the client's
// network, and failure audit rows carry ip and userAgent.
func (au *Auth) AuthenticateFrom(r *http.Request, login, password string) (string, error) {
	return au.authenticate(r.Context(), LoginAttempt{Login: strings.TrimSpace(login), Password: password,
		IP: au.proxies.Of(r), Meta: audit.RequestMeta(r, au.proxies.Of(r)), via: "authenticate"})
}

func (au *Auth) authenticate(ctx context.Context, at LoginAttempt) (string, error) {
	if at.Login == "" || len(at.Login) > maxEmailBytes || at.Password == "" || len(at.Password) > maxPasswordBytes {
		return "", ErrInvalidCredentials
	}
	acc, err := au.checkLogin(ctx, at)
	if err != nil {
		return "", err
	}
	if acc.Ban.Active(au.now()) {
		return "", ErrBanned
	}
	return acc.ID, nil
}

// SignIn is the outcome of a sign-in step: a session for UserID with
// Role at token version TV (Tokens.SetSessionCookie), or, when Challenge
// is set, a pending second step (Tokens.SetChallengeCookie).
type SignIn struct {
	UserID    string
	Role      authz.Role
	TV        int64
	Challenge string // a TOTP challenge token: no session yet
}

// Login is the panel's password sign-in (POST /auth/login): the limits
// and the password check of checkLogin, then what the user gets (issue).
// Its errors are the endpoint's answers: 401 invalid_credentials, 403
// banned, 429, 503.
func (au *Auth) Login(ctx context.Context, at LoginAttempt) (SignIn, error) {
	acc, err := au.checkLogin(ctx, at)
	if err != nil {
		return SignIn{}, loginError(err)
	}
	s, err := au.issue(ctx, acc, false, at.Meta)
	if errors.Is(err, ErrBanned) {
		return s, errBannedSignIn
	}
	if err != nil || s.Challenge != "" {
		return s, err
	}
	au.rehashIfNeeded(ctx, acc, at.Password)
	au.Record(ctx, at.Meta, acc.ID, "auth.login", acc.Email)
	return s, nil
}

// issue decides what a user the caller has identified gets: ErrBanned
// (audited), a TOTP challenge when its second factor is on (audited), or
// a session at its live role. kv are extra audit payload pairs.
//
// vouched skips the TOTP step: the caller's identity provider checked a
// second factor itself (StartSession with ExternalSignIn.SecondFactor).
func (au *Auth) issue(ctx context.Context, acc *users.Account, vouched bool, meta map[string]any, kv ...any) (SignIn, error) {
	if acc.Ban.Active(au.now()) {
		au.Record(ctx, meta, acc.ID, "auth.login_failed", acc.Email, append([]any{"reason", "banned"}, kv...)...)
		return SignIn{}, ErrBanned
	}
	on, err := au.SecondFactor().enabled(ctx, acc.ID)
	if err != nil {
		return SignIn{}, err
	}
	if on && !vouched {
		c := token.Claims{UserID: acc.ID, TV: acc.TokenVersion, Kind: token.KindTOTPChallenge}
		c.ID = rand.Text() // the challenge's own id: spent once, void after maxChallengeFailures
		tok, err := au.tokens.Signer.Sign(c, totpChallengeTTL)
		if err != nil {
			return SignIn{}, err
		}
		au.Record(ctx, meta, acc.ID, "auth.totp_challenge", acc.Email, kv...)
		return SignIn{UserID: acc.ID, Challenge: tok}, nil
	}
	_, op, err := au.roles.SessionState(ctx, au.db, acc.ID)
	if err != nil {
		return SignIn{}, err
	}
	return SignIn{UserID: acc.ID, Role: op.Role, TV: acc.TokenVersion}, nil
}
