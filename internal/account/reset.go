package account

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/netkey"
	"github.com/gameadmin/admin/internal/ratelimit"
	"github.com/gameadmin/admin/internal/token"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
)

// RequestReset spends the request-reset limits of the client at ip and
// queues the lookup and delivery (POST /auth/request-reset): the answer
// is the same, and as fast, whether the email exists, the queue took the
// job or dropped it (logged). meta goes in the audit entries. A users
// table without an email column sends no links: 400 no_email.
func (au *Auth) RequestReset(ctx context.Context, email, ip string, meta map[string]any) error {
	if !au.users.HasEmail {
		return ErrNoEmailColumn
	}
	email = strings.TrimSpace(email)
	if email == "" {
		return errbody.New(http.StatusBadRequest, "missing_field", "email is required").WithParams("field", "email")
	}
	if len(email) > maxEmailBytes {
		return errbody.New(http.StatusBadRequest, "invalid_value", "email is not a valid address")
	}
	if err := ratelimit.Spend(ctx, au.limits.PerIP, netkey.Address(ip)); err != nil {
		return loginError(au.auditLimited(ctx, err, "PerIP", ip, email, meta))
	}
	if err := ratelimit.Spend(ctx, au.limits.RequestReset, netkey.Address(ip)+"|"+emailKey(email)); err != nil {
		return loginError(au.auditLimited(ctx, err, "RequestReset", ip, email, meta))
	}
	au.jobs.Submit(ctx, func(ctx context.Context) { au.sendReset(ctx, ip, email, meta) })
	return nil
}

// sendReset runs on a background worker: it looks the email up, and
// delivers a link only when it belongs to an account. Requests for unknown
// emails are audited collapsed per client IP (audit.Failures).
func (au *Auth) sendReset(ctx context.Context, ip, email string, meta map[string]any) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	acc, err := au.accountByEmail(ctx, email)
	if err != nil {
		if !errors.Is(err, users.ErrNotFound) {
			au.log.ErrorContext(ctx, "admin: reset lookup", "err", err)
		}
		if au.failures.First("auth.password_reset_requested", netkey.Address(ip), emailKey(email)) {
			au.audit.Event(ctx, audit.Entry{Action: "auth.password_reset_requested", Resource: "auth", Payload: audit.Payload(meta, "email", email)})
		}
		return
	}
	_, op, err := au.roles.SessionState(ctx, au.db, acc.ID)
	if err != nil {
		au.log.ErrorContext(ctx, "admin: reset lookup", "userId", acc.ID, "err", err)
		return
	}
	payload := audit.Payload(meta, "email", email)
	if au.reset.operatorsOnly && !op.Role.AtLeast(authz.RoleMod) {
		// The request was answered as any other; only the log says why
		// nothing was sent.
		payload["delivered"], payload["reason"] = false, "not_an_operator"
	} else if err := au.spendDelivery(ctx, acc.ID); err != nil {
		// Past the account's ceiling: answered as any other, not sent,
		// audited once per window (the rest counted into one row).
		if !au.failures.FirstFor("auth.reset_delivery_limited", acc.ID) {
			return
		}
		payload["delivered"], payload["reason"] = false, "rate_limited"
		if !errors.As(err, new(*ratelimit.Error)) {
			au.log.ErrorContext(ctx, "admin: reset delivery limiter", "userId", acc.ID, "err", err)
			payload["reason"] = "rate_limiter_unavailable"
		}
	} else if err := au.deliverReset(ctx, acc, op.Role, false); err != nil {
		au.log.ErrorContext(ctx, "admin: OnResetRequest failed", "userId", acc.ID, "err", err)
	}
	au.audit.Event(ctx, audit.Entry{OperatorID: acc.ID, Action: "auth.password_reset_requested", Resource: "auth", TargetID: acc.ID, Payload: payload})
}

// spendDelivery spends one of userID's reset and invite deliveries
// (RateLimitOptions.ResetDeliveries).
func (au *Auth) spendDelivery(ctx context.Context, userID string) error {
	return ratelimit.Spend(ctx, au.limits.ResetDeliveries, userID)
}

// SendInvite sends acc, whose role is role, a link to set a password
// (ResetRequest.Invite), spending one of its deliveries: the panel's POST
// /users/{id}/invite. Past the deliveries' limit it is the 429 (or 503)
// answer; otherwise the error is the signing's or OnResetRequest's.
func (au *Auth) SendInvite(ctx context.Context, acc *users.Account, role authz.Role) error {
	if !au.users.HasEmail {
		return ErrNoEmailColumn
	}
	if acc.Email == "" {
		return errbody.New(http.StatusBadRequest, "no_email", "this account has no email: an invite is sent by email")
	}
	if err := au.spendDelivery(ctx, acc.ID); err != nil {
		return loginError(err)
	}
	return au.deliverReset(ctx, acc, role, true)
}

// deliverReset signs a reset token for acc and hands the link to
// OnResetRequest (or, without one, to the log: local development only, as
// the link is a credential). role is the user's; invite marks a link an
// admin sent to a new operator. The error is the signing's or
// OnResetRequest's.
func (au *Auth) deliverReset(ctx context.Context, acc *users.Account, role authz.Role, invite bool) error {
	tok, err := au.tokens.Signer.Sign(token.Claims{UserID: acc.ID, TV: acc.TokenVersion, Kind: token.KindReset, PW: au.tokens.Signer.PasswordFingerprint(acc.PasswordHash)}, resetTTL)
	if err != nil {
		return fmt.Errorf("admin: sign reset token: %w", err)
	}
	req := ResetRequest{Email: acc.Email, UserID: acc.ID, Role: role, Token: tok, URL: au.reset.uiPath + "/reset?token=" + url.QueryEscape(tok), Invite: invite}
	if au.reset.deliver != nil {
		return au.reset.deliver(ctx, req)
	}
	au.log.InfoContext(ctx, "admin: password reset link (set Options.OnResetRequest to email it)", "email", acc.Email, "invite", invite, "url", req.URL)
	return nil
}

// ResetPassword sets the password a reset token (raw) was issued for and
// ends every session of the user, in one statement conditioned on the
// state the token was issued for (two concurrent uses of one token cannot
// both succeed), committed with its audit entry (meta) (POST
// /auth/reset).
func (au *Auth) ResetPassword(ctx context.Context, raw, password string, meta map[string]any) error {
	if raw == "" || password == "" {
		return errbody.New(http.StatusBadRequest, "missing_field", "token and password are required").WithParams("fields", []string{"token", "password"})
	}
	c, err := au.tokens.Signer.Parse(raw, token.KindReset)
	if err != nil {
		return ErrInvalidResetToken
	}
	if err := CheckNewPassword(password); err != nil {
		return err
	}
	acc, err := au.users.AccountByID(ctx, au.db, c.UserID)
	if errors.Is(err, users.ErrNotFound) {
		return ErrInvalidResetToken
	}
	if err != nil {
		return err
	}
	if acc.TokenVersion != c.TV || au.tokens.Signer.PasswordFingerprint(acc.PasswordHash) != c.PW {
		return ErrInvalidResetToken
	}
	h, err := au.Hash(ctx, password)
	if err != nil {
		return err
	}
	u := au.users
	err = au.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewUpdate().TableExpr("?", u.Ident()).Set("? = ?", u.Col(u.Cols.PasswordHash), h).
			Where("? = ?", u.Col(u.Cols.ID), acc.ID).Where("COALESCE(?, '') = ?", u.Col(u.Cols.PasswordHash), acc.PasswordHash)
		if u.HasTokenVersion {
			tv := u.Col(u.Cols.TokenVersion)
			q = q.Set("? = ? + 1", tv, tv).Where("? = ?", tv, acc.TokenVersion)
		}
		res, err := q.Exec(ctx)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			return ErrInvalidResetToken
		}
		return au.audit.RecordTx(ctx, tx, authEntry(meta, acc.ID, "auth.password_reset_completed", acc.Email))
	})
	if err == nil {
		au.sanctions.SessionsEnded(ctx, acc.ID, "password reset")
	}
	return err
}

// ErrNoEmailColumn is the answer of reset and invite on a users table
// without an email column (users.Table.HasEmail): 400 no_email.
var ErrNoEmailColumn = errbody.New(http.StatusBadRequest, "no_email", "the users table has no email column: reset links and invites are sent by email, so they are off")

// ResetRequest is admin.ResetRequest, field for field (the root converts one to the
// other); its documentation is there.
type ResetRequest struct {
	Email  string
	UserID string
	Role   authz.Role
	Token  string
	URL    string
	Invite bool
}
