package account

// The sign-in's rate limits: which buckets a password check spends, under
// which keys, when a token is given back, and how a refusal is audited.
// The buckets themselves (their defaults, Redis or memory) are
// internal/ratelimit's; a key names a client by internal/netkey's address
// (IPv6 /64) or network (/24, /48).

import (
	"context"
	"errors"
	"strings"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/netkey"
	"github.com/gameadmin/admin/internal/ratelimit"
	"github.com/gameadmin/admin/internal/users"
)

// emailKey is an email, or a username, as the rate limiters and failure
// counters key it:
// trimmed and lower-cased, so that "Alice@x" and "alice@x" share their
// buckets. It is never what is stored or looked up: accounts are matched
// without regard to case (users.Table.AccountByEmail) and stored as typed.
func emailKey(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// spendRequest spends the buckets every sign-in request costs, before any
// database work or hashing: the client address's (PerIP, key: the address)
// and the address and email's (Login, key: address|email). A game's
// Authenticate has no address and spends neither.
func (au *Auth) spendRequest(ctx context.Context, at LoginAttempt, key string) error {
	if at.IP == "" {
		return nil
	}
	if err := ratelimit.Spend(ctx, au.limits.PerIP, netkey.Address(at.IP)); err != nil {
		return au.auditLimited(ctx, err, "PerIP", at.IP, at.Login, at.Meta)
	}
	if err := ratelimit.Spend(ctx, au.limits.Login, netkey.Address(at.IP)+"|"+key); err != nil {
		return au.auditLimited(ctx, err, "Login", at.IP, at.Login, at.Meta)
	}
	return nil
}

// spentToken is a token a sign-in spent from a failure bucket.
type spentToken struct {
	l   ratelimit.Limiter
	key string
}

// reserveGuess spends the token a password check costs, before the check:
// from the device's own budget when the attempt comes with that account's
// device cookie and the budget holds one, else from the email's bucket
// for the client's network and from the email's ceiling over all networks.
// A refusal is a *ratelimit.Error (audited): past the ceiling, guesses at
// the account are refused whatever their parallelism, while its owner's
// browser keeps its own budget.
func (au *Auth) reserveGuess(ctx context.Context, at LoginAttempt, acc *users.Account, key string) ([]spentToken, error) {
	var rl *ratelimit.Error
	if acc != nil && at.Device != nil && at.Device.UserID == acc.ID {
		dev := spentToken{au.limits.LoginFailuresPerDevice, "device|" + at.Device.ID}
		switch err := ratelimit.Spend(ctx, dev.l, dev.key); {
		case err == nil:
			at.Meta["device"] = true
			return []spentToken{dev}, nil
		case !errors.As(err, &rl):
			return nil, err
		}
		// Past its own budget the browser is a stranger again.
	}
	network := spentToken{au.limits.LoginFailuresPerNetwork, netkey.Network(at.IP) + "|" + key}
	if err := ratelimit.Spend(ctx, network.l, network.key); err != nil {
		return nil, au.auditLimited(ctx, err, "LoginFailuresPerNetwork", at.IP, at.Login, at.Meta)
	}
	email := spentToken{au.limits.LoginFailuresPerEmail, key}
	if err := ratelimit.Spend(ctx, email.l, email.key); err != nil {
		au.refund(ctx, []spentToken{network}) // this attempt was not evaluated
		return nil, au.auditLimited(ctx, err, "LoginFailuresPerEmail", at.IP, at.Login, at.Meta)
	}
	return []spentToken{network, email}, nil
}

// refund gives spent tokens back where the limiter can (ratelimit.Refunder).
func (au *Auth) refund(ctx context.Context, spent []spentToken) {
	for _, s := range spent {
		if r, ok := s.l.(ratelimit.Refunder); ok {
			if err := r.Refund(ctx, s.key); err != nil {
				au.log.ErrorContext(ctx, "admin: login limiter refund", "err", err)
			}
		}
	}
}

// auditLimited records a request a rate limit refused as
// auth.rate_limited {limiter, email (or username: loginField), ip,
// userAgent}, in the background and
// collapsed per client address (/64 for IPv6) and window as anonymous
// failures are: one row opens the window, one more counts the rest. It
// returns err, and does nothing for an error that is not a refusal.
func (au *Auth) auditLimited(ctx context.Context, err error, limiter, ip, email string, meta map[string]any) error {
	var rl *ratelimit.Error
	if !errors.As(err, &rl) || !au.failures.First("auth.rate_limited", netkey.Address(ip), emailKey(email)) {
		return err
	}
	e := audit.Entry{Action: "auth.rate_limited", Resource: "auth", Payload: audit.Payload(meta, "limiter", limiter)}
	if email != "" {
		e.Payload[au.loginField(email)] = email
	}
	au.auditJobs.Submit(ctx, func(ctx context.Context) { au.audit.Event(ctx, e) })
	return err
}

// LimitBootstrap spends the first admin's sign-up limits for the client
// at ip (its PerIP and Bootstrap buckets) before anything else is read:
// a refusal is audited as auth.rate_limited with meta, and answered 429
// or 503.
func (au *Auth) LimitBootstrap(ctx context.Context, ip string, meta map[string]any) error {
	if err := ratelimit.Spend(ctx, au.limits.PerIP, netkey.Address(ip)); err != nil {
		return loginError(au.auditLimited(ctx, err, "PerIP", ip, "", meta))
	}
	if err := ratelimit.Spend(ctx, au.limits.Bootstrap, netkey.Address(ip)); err != nil {
		return loginError(au.auditLimited(ctx, err, "Bootstrap", ip, "", meta))
	}
	return nil
}
