package account

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/gameadmin/admin/internal/sqldialect"
	"net/http"
	"time"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/netkey"
	"github.com/gameadmin/admin/internal/ratelimit"
	"github.com/gameadmin/admin/internal/token"
	"github.com/gameadmin/admin/internal/twofactor"
	"github.com/gameadmin/admin/internal/users"
	"github.com/pquerna/otp"
	"github.com/uptrace/bun"
)

// TOTPPolicy says which operators must sign in with a second factor
// (Options.RequireTOTP).
type TOTPPolicy string

// The values of Options.RequireTOTP.
const (
	// TOTPNone requires nobody to enrol; anyone may still turn TOTP on.
	TOTPNone TOTPPolicy = "none"
	// TOTPAdmins requires every admin to enrol.
	TOTPAdmins TOTPPolicy = "admins"
	// TOTPOperators requires every admin and mod to enrol.
	TOTPOperators TOTPPolicy = "operators"
)

// TOTP parameters: the ones every authenticator app supports (RFC 6238
// defaults). A code is accepted one step either side of now, for clock drift.
const (
	totpIssuer          = "Game Admin"
	totpChallengeTTL    = 5 * time.Minute
	totpChallengeCookie = "game_admin_totp"
	recoveryCodeCount   = 10
	maxCodeBytes        = 64
)

// OperatorTOTP is a row of game_operator_totp: one second factor per user,
// pending until the first code confirms it.
type OperatorTOTP struct {
	bun.BaseModel `bun:"table:game_operator_totp,alias:ot"`

	UserID      string     `bun:"user_id,pk"`
	Secret      string     `bun:"secret,notnull"` // sealed: twofactor.Sealer
	Enabled     bool       `bun:"enabled,notnull"`
	LastStep    int64      `bun:"last_step,notnull"` // last accepted time step: replays are refused
	CreatedAt   time.Time  `bun:"created_at,notnull"`
	ConfirmedAt *time.Time `bun:"confirmed_at"`
}

// TOTPChallenge is a row of game_totp_challenges: a sign-in challenge a
// second step was tried with, by its id. Failures counts its wrong codes;
// maxChallengeFailures means void, or spent by a sign-in.
type TOTPChallenge struct {
	bun.BaseModel `bun:"table:game_totp_challenges,alias:tc"`

	JTI       string    `bun:"jti,pk"`
	UserID    string    `bun:"user_id,notnull"`
	Failures  int64     `bun:"failures,notnull"`
	ExpiresAt time.Time `bun:"expires_at,notnull"`
}

// RecoveryCode is a row of game_operator_recovery_codes: the SHA-256 of one
// single-use code.
type RecoveryCode struct {
	bun.BaseModel `bun:"table:game_operator_recovery_codes,alias:rc"`

	UserID   string     `bun:"user_id,pk"`
	CodeHash string     `bun:"code_hash,pk"`
	UsedAt   *time.Time `bun:"used_at"`
}

// SecondFactor is Auth seen from its second-factor half: enrolment,
// codes, challenges and recovery codes.
type SecondFactor Auth

// SecondFactor is au's second-factor half.
func (au *Auth) SecondFactor() *SecondFactor { return (*SecondFactor)(au) }

// totpRow returns userID's row, or nil when there is none.
func (au *SecondFactor) totpRow(ctx context.Context, db bun.IDB, userID string) (*OperatorTOTP, error) {
	var row OperatorTOTP
	err := db.NewSelect().Model(&row).ModelTableExpr("?", au.tables.aliased("operator_totp", "ot")).Where("user_id = ?", userID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("admin: totp of %s: %w", userID, err)
	}
	return &row, nil
}

// enabled reports whether userID signs in with a second factor.
func (au *SecondFactor) enabled(ctx context.Context, userID string) (bool, error) {
	return au.db.NewSelect().Model((*OperatorTOTP)(nil)).ModelTableExpr("?", au.tables.aliased("operator_totp", "ot")).
		Where("user_id = ?", userID).Where("enabled = ?", true).Exists(ctx)
}

// checkTOTP verifies a code against userID's second factor (enabled, or
// pending when confirming) and spends its time step in one conditional
// update, so two requests with one code cannot both pass.
func (au *SecondFactor) checkTOTP(ctx context.Context, userID, code string, pending bool) error {
	row, err := au.totpRow(ctx, au.db, userID)
	if err != nil {
		return err
	}
	if row == nil || row.Enabled == pending {
		if pending {
			return errbody.New(http.StatusConflict, "totp_not_enrolling", "start enrolment first")
		}
		return errTOTPNotOn
	}
	secret, err := au.totp.sealer.Open(userID, row.Secret)
	if err != nil {
		au.log.ErrorContext(ctx, "admin: totp secret unreadable; an admin can reset it", "userId", userID, "err", err)
		return errInvalidCode
	}
	step, ok := twofactor.MatchStep(secret, code, au.totp.now())
	if !ok {
		return errInvalidCode
	}
	res, err := au.db.NewUpdate().Model((*OperatorTOTP)(nil)).ModelTableExpr("?", au.tables.aliased("operator_totp", "ot")).Set("last_step = ?", step).
		Where("user_id = ?", userID).Where("last_step < ?", step).Where("enabled = ?", row.Enabled).Exec(ctx)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n != 1 {
		return errInvalidCode
	}
	return nil
}

// newRecoveryCodes replaces userID's recovery codes with fresh ones through
// db and returns them in clear, to be shown once.
func (au *SecondFactor) newRecoveryCodes(ctx context.Context, db bun.IDB, userID string) ([]string, error) {
	if _, err := db.NewDelete().Model((*RecoveryCode)(nil)).ModelTableExpr("?", sqldialect.DeleteFrom(db.Dialect().Name(), au.tables.tbl("operator_recovery_codes"), "rc")).Where("user_id = ?", userID).Exec(ctx); err != nil {
		return nil, err
	}
	codes := make([]string, recoveryCodeCount)
	rows := make([]RecoveryCode, recoveryCodeCount)
	for i := range codes {
		var hash string
		codes[i], hash = twofactor.NewRecoveryCode()
		rows[i] = RecoveryCode{UserID: userID, CodeHash: hash}
	}
	if _, err := db.NewInsert().Model(&rows).ModelTableExpr("?", au.tables.tbl("operator_recovery_codes")).Exec(ctx); err != nil {
		return nil, err
	}
	return codes, nil
}

// useRecoveryCode spends one of userID's recovery codes; the conditional
// update makes it single-use even under concurrent requests.
func (au *SecondFactor) useRecoveryCode(ctx context.Context, userID, code string) error {
	n := twofactor.NormalizeRecoveryCode(code)
	if n == "" {
		return errInvalidCode
	}
	if on, err := au.enabled(ctx, userID); err != nil {
		return err
	} else if !on {
		return errTOTPNotOn
	}
	res, err := au.db.NewUpdate().Model((*RecoveryCode)(nil)).ModelTableExpr("?", au.tables.aliased("operator_recovery_codes", "rc")).Set("used_at = ?", au.totp.now().UTC()).
		Where("user_id = ?", userID).Where("code_hash = ?", twofactor.HashRecoveryCode(n)).Where("used_at IS NULL").Exec(ctx)
	if err != nil {
		return err
	}
	if k, err := res.RowsAffected(); err != nil {
		return err
	} else if k != 1 {
		return errInvalidCode
	}
	return nil
}

// recoveryCodesLeft counts userID's unused recovery codes.
func (au *SecondFactor) recoveryCodesLeft(ctx context.Context, userID string) (int, error) {
	n, err := au.db.NewSelect().Model((*RecoveryCode)(nil)).ModelTableExpr("?", au.tables.aliased("operator_recovery_codes", "rc")).Where("user_id = ?", userID).Where("used_at IS NULL").Count(ctx)
	return int(n), err
}

// deleteTOTP removes userID's second factor and recovery codes through db.
func (au *SecondFactor) deleteTOTP(ctx context.Context, db bun.IDB, userID string) (bool, error) {
	res, err := db.NewDelete().Model((*OperatorTOTP)(nil)).ModelTableExpr("?", sqldialect.DeleteFrom(db.Dialect().Name(), au.tables.tbl("operator_totp"), "ot")).Where("user_id = ?", userID).Exec(ctx)
	if err != nil {
		return false, err
	}
	if _, err := db.NewDelete().Model((*RecoveryCode)(nil)).ModelTableExpr("?", sqldialect.DeleteFrom(db.Dialect().Name(), au.tables.tbl("operator_recovery_codes"), "rc")).Where("user_id = ?", userID).Exec(ctx); err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// ResetTOTP removes userID's second factor and recovery codes and ends the
// user's sessions (when the users table has token_version), so the next
// sign-in takes the password alone. It reports whether there was a factor.
// It is the way back in when the last admin has lost both phone and
// recovery codes: call it from the game's own tooling. It writes no audit
// entry; the panel's POST /users/:id/totp/reset does.
func (au *Auth) ResetTOTP(ctx context.Context, userID string) (bool, error) {
	return au.SecondFactor().Reset(ctx, userID, nil)
}

// Reset is Auth.ResetTOTP; entry, when not nil, is written in the same
// transaction with "hadTotp" added to its payload (the panel's POST
// /users/{id}/totp/reset).
func (au *SecondFactor) Reset(ctx context.Context, userID string, entry *audit.Entry) (bool, error) {
	var had bool
	err := au.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if had, err = au.deleteTOTP(ctx, tx, userID); err != nil {
			return err
		}
		if au.users.HasTokenVersion {
			if err := au.sanctions.BumpTokenVersion(ctx, tx, userID); err != nil {
				return err
			}
		}
		if entry == nil {
			return nil
		}
		entry.Payload["hadTotp"] = had
		return au.audit.RecordTx(ctx, tx, *entry)
	})
	if err != nil {
		return false, fmt.Errorf("admin: reset totp of %q: %w", userID, err)
	}
	au.sanctions.SessionsEnded(ctx, userID, "second factor reset")
	return had, nil
}

// limitTOTP spends one attempt of the TOTP limiter for the user and one for
// the client IP: a guesser is slowed down whichever of the two it spreads.
func (au *SecondFactor) limitTOTP(ctx context.Context, userID, ip string) error {
	// Per user and network: guesses from one place cannot block the
	// owner's step from another.
	if err := ratelimit.Answer(ratelimit.Spend(ctx, au.limits.TOTP, "user|"+userID+"|"+netkey.Network(ip))); err != nil {
		return err
	}
	return ratelimit.Answer(ratelimit.Spend(ctx, au.limits.TOTP, "ip|"+netkey.Address(ip)))
}

// Login is the second sign-in step (POST /auth/login/totp): the
// challenge token of the first, and a code or a recovery code (exactly
// one), from the client at ip; meta goes in the audit entries. Its errors
// are the endpoint's answers.
func (au *SecondFactor) Login(ctx context.Context, challenge, code, recovery, ip string, meta map[string]any) (SignIn, error) {
	if (code == "") == (recovery == "") {
		return SignIn{}, errbody.New(http.StatusBadRequest, "missing_field", "give either code or RecoveryCode").WithParams("fields", []string{"code", "recoveryCode"})
	}
	if len(code) > maxCodeBytes || len(recovery) > maxCodeBytes {
		return SignIn{}, errInvalidCode
	}
	c, err := au.tokens.Signer.Parse(challenge, token.KindTOTPChallenge)
	if err != nil {
		return SignIn{}, errBadChallenge
	}
	acc, err := au.users.AccountByID(ctx, au.db, c.UserID)
	if errors.Is(err, users.ErrNotFound) {
		return SignIn{}, errBadChallenge
	}
	if err != nil {
		return SignIn{}, err
	}
	if acc.TokenVersion != c.TV {
		return SignIn{}, errBadChallenge
	}
	if acc.Ban.Active(au.now()) {
		return SignIn{}, errBannedSignIn
	}
	if err := au.limitTOTP(ctx, acc.ID, ip); err != nil {
		return SignIn{}, err
	}
	if open, err := au.openChallenge(ctx, acc.ID, c.ID); err != nil {
		return SignIn{}, err
	} else if !open {
		return SignIn{}, errBadChallenge
	}
	method := "totp"
	if recovery != "" {
		method = "recovery"
		err = au.useRecoveryCode(ctx, acc.ID, recovery)
	} else {
		err = au.checkTOTP(ctx, acc.ID, code, false)
	}
	if err != nil {
		if errors.Is(err, errInvalidCode) || errors.Is(err, errTOTPNotOn) {
			(*Auth)(au).Record(ctx, meta, acc.ID, "auth.totp_failed", acc.Email, "method", method)
			// Not found: the challenge is void already.
			if ferr := au.challengeUpdate(ctx, c.ID, "failures = failures + 1"); ferr != nil && !errors.Is(ferr, users.ErrNotFound) {
				return SignIn{}, ferr
			}
		}
		return SignIn{}, err
	}
	// Spent: the same challenge signs in once, however many codes it has.
	if err := au.challengeUpdate(ctx, c.ID, "failures = ?", maxChallengeFailures); errors.Is(err, users.ErrNotFound) {
		return SignIn{}, errBadChallenge
	} else if err != nil {
		return SignIn{}, err
	}
	_, op, err := au.roles.SessionState(ctx, au.db, acc.ID)
	if err != nil {
		return SignIn{}, err
	}
	if method == "recovery" {
		(*Auth)(au).Record(ctx, meta, acc.ID, "auth.recovery_used", acc.Email)
	}
	(*Auth)(au).Record(ctx, meta, acc.ID, "auth.login", acc.Email, "secondFactor", method)
	return SignIn{UserID: acc.ID, Role: op.Role, TV: acc.TokenVersion}, nil
}

// maxChallengeFailures is how many wrong codes one sign-in challenge
// takes before it is void (the user signs in with the password again).
const maxChallengeFailures = 5

// openChallenge records the challenge jti of userID (once; rows past
// their expiry are dropped on the way) and reports whether it may still
// be tried: fewer than maxChallengeFailures wrong codes, not spent by a
// sign-in. The state is in the database, so it holds across nodes.
func (au *SecondFactor) openChallenge(ctx context.Context, userID, jti string) (bool, error) {
	now := time.Now().UTC()
	if _, err := au.db.NewDelete().Model((*TOTPChallenge)(nil)).ModelTableExpr("?", sqldialect.DeleteFrom(au.db.Dialect().Name(), au.tables.tbl("totp_challenges"), "tc")).
		Where("user_id = ?", userID).Where("expires_at < ?", now).Exec(ctx); err != nil {
		return false, err
	}
	row := &TOTPChallenge{JTI: jti, UserID: userID, ExpiresAt: now.Add(totpChallengeTTL)}
	if _, err := sqldialect.OnConflictNothing(au.db.NewInsert().Model(row).ModelTableExpr("?", au.tables.tbl("totp_challenges")), "jti").Exec(ctx); err != nil {
		return false, err
	}
	var failures int64
	err := au.db.NewSelect().Model((*TOTPChallenge)(nil)).ModelTableExpr("?", au.tables.aliased("totp_challenges", "tc")).
		Column("failures").Where("jti = ?", jti).Scan(ctx, &failures)
	return err == nil && failures < maxChallengeFailures, err
}

// challengeUpdate applies set to challenge jti while it is open;
// users.ErrNotFound when it is not (spent or void).
func (au *SecondFactor) challengeUpdate(ctx context.Context, jti, set string, args ...any) error {
	res, err := au.db.NewUpdate().Model((*TOTPChallenge)(nil)).ModelTableExpr("?", au.tables.aliased("totp_challenges", "tc")).
		Set(set, args...).Where("jti = ?", jti).Where("failures < ?", maxChallengeFailures).Exec(ctx)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n != 1 {
		return users.ErrNotFound
	}
	return nil
}

// TOTPStatus is GET /auth/totp's answer for an operator (fields in the
// order of the keys the panel always sent).
type TOTPStatus struct {
	Enabled           bool `json:"enabled"`
	Pending           bool `json:"pending"`
	RecoveryCodesLeft int  `json:"recoveryCodesLeft"`
	Required          bool `json:"required"`
}

// Status is op's second factor: on, pending, required by the policy, and
// the recovery codes left.
func (au *SecondFactor) Status(ctx context.Context, op authz.Operator) (TOTPStatus, error) {
	row, err := au.totpRow(ctx, au.db, op.UserID)
	if err != nil {
		return TOTPStatus{}, err
	}
	left, err := au.recoveryCodesLeft(ctx, op.UserID)
	if err != nil {
		return TOTPStatus{}, err
	}
	return TOTPStatus{Enabled: row != nil && row.Enabled, Pending: row != nil && !row.Enabled,
		Required: au.totp.requires(op.Role), RecoveryCodesLeft: left}, nil
}

// Enroll stores a new pending secret for userID, replacing any earlier
// pending one, and returns its key and a QR code of it.
func (au *SecondFactor) Enroll(ctx context.Context, userID string) (key *otp.Key, qr string, err error) {
	acc, err := au.users.AccountByID(ctx, au.db, userID)
	if err != nil {
		return nil, "", err
	}
	// The authenticator app names the account by its email, else its
	// username, else its id: it needs a name.
	if key, qr, err = twofactor.NewKey(totpIssuer, cmp.Or(acc.Email, acc.Username, acc.ID)); err != nil {
		return nil, "", err
	}
	err = au.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		row, err := au.totpRow(ctx, tx, userID)
		if err != nil {
			return err
		}
		if row != nil && row.Enabled {
			return errTOTPAlreadyOn
		}
		if _, err := au.deleteTOTP(ctx, tx, userID); err != nil {
			return err
		}
		_, err = tx.NewInsert().Model(&OperatorTOTP{UserID: userID, Secret: au.totp.sealer.Seal(userID, key.Secret()),
			CreatedAt: time.Now().UTC()}).ModelTableExpr("?", au.tables.tbl("operator_totp")).Exec(ctx)
		return err
	})
	return key, qr, err
}

// spendCode spends the TOTP limiter and checks code against userID's second
// factor (the pending one when confirming); a refused code is audited.
func (au *SecondFactor) spendCode(ctx context.Context, userID, code string, pending bool, step, ip string, meta map[string]any) error {
	if err := au.limitTOTP(ctx, userID, ip); err != nil {
		return err
	}
	err := au.checkTOTP(ctx, userID, code, pending)
	if errors.Is(err, errInvalidCode) {
		(*Auth)(au).Record(ctx, meta, userID, "auth.totp_failed", "", "step", step)
	}
	return err
}

// Confirm turns the pending factor on with its first code and returns
// the ten recovery codes, committed with the auth.totp_enabled entry. It
// ends the user's other sessions (a token-version bump, live connections
// closed): one opened before the second factor was on must not outlive
// it. tv is the new token version, for the caller's own session.
func (au *SecondFactor) Confirm(ctx context.Context, userID, code, ip string, meta map[string]any) (codes []string, tv int64, err error) {
	if err := au.spendCode(ctx, userID, code, true, "confirm", ip, meta); err != nil {
		return nil, 0, err
	}
	err = au.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		now := time.Now().UTC()
		_, err := tx.NewUpdate().Model((*OperatorTOTP)(nil)).ModelTableExpr("?", au.tables.aliased("operator_totp", "ot")).Set("enabled = ?", true).Set("confirmed_at = ?", now).
			Where("user_id = ?", userID).Exec(ctx)
		if err != nil {
			return err
		}
		if codes, err = au.newRecoveryCodes(ctx, tx, userID); err != nil {
			return err
		}
		if tv, err = (*Auth)(au).endOtherSessions(ctx, tx, userID); err != nil {
			return err
		}
		return au.audit.RecordTx(ctx, tx, authEntry(meta, userID, "auth.totp_enabled", ""))
	})
	if err == nil {
		au.sanctions.SessionsEnded(ctx, userID, "second factor enabled")
	}
	return codes, tv, err
}

// Disable turns userID's second factor off, proven by a code or the
// password, committed with the auth.totp_disabled entry.
func (au *SecondFactor) Disable(ctx context.Context, userID, code, password, ip string, meta map[string]any) error {
	if on, err := au.enabled(ctx, userID); err != nil {
		return err
	} else if !on {
		return errTOTPNotOn
	}
	if code != "" {
		if err := au.spendCode(ctx, userID, code, false, "disable", ip, meta); err != nil {
			return err
		}
	} else if err := au.limitTOTP(ctx, userID, ip); err != nil {
		return err
	} else if err := (*Auth)(au).checkPassword(ctx, userID, password); err != nil {
		return err
	}
	return au.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := au.deleteTOTP(ctx, tx, userID); err != nil {
			return err
		}
		return au.audit.RecordTx(ctx, tx, authEntry(meta, userID, "auth.totp_disabled", ""))
	})
}

// RegenerateRecoveryCodes replaces userID's recovery codes, proven by a
// code, committed with the auth.recovery_codes_regenerated entry.
func (au *SecondFactor) RegenerateRecoveryCodes(ctx context.Context, userID, code, ip string, meta map[string]any) (codes []string, err error) {
	if err := au.spendCode(ctx, userID, code, false, "recovery-codes", ip, meta); err != nil {
		return nil, err
	}
	err = au.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if codes, err = au.newRecoveryCodes(ctx, tx, userID); err != nil {
			return err
		}
		return au.audit.RecordTx(ctx, tx, authEntry(meta, userID, "auth.recovery_codes_regenerated", ""))
	})
	return codes, err
}

// TOTPSettings are the panel's TOTP settings: the sealer of secrets at
// rest, the policy, and the clock (tests move it instead of sleeping).
type TOTPSettings struct {
	sealer *twofactor.Sealer
	policy TOTPPolicy
	now    func() time.Time
}

// NewTOTPSettings checks policy (Options.RequireTOTP; "" is TOTPNone)
// and makes the sealer of second-factor secrets from the panel's secret.
func NewTOTPSettings(secret []byte, policy TOTPPolicy, now func() time.Time) (*TOTPSettings, error) {
	switch policy {
	case "":
		policy = TOTPNone
	case TOTPNone, TOTPAdmins, TOTPOperators:
	default:
		return nil, fmt.Errorf("admin: RequireTOTP %q: want none, admins or operators", policy)
	}
	sealer, err := twofactor.NewSealer(secret)
	if err != nil {
		return nil, err
	}
	return &TOTPSettings{sealer: sealer, policy: policy, now: now}, nil
}

// requires reports whether the policy makes role enrol.
func (t *TOTPSettings) requires(role authz.Role) bool {
	switch t.policy {
	case TOTPAdmins:
		return role == authz.RoleAdmin
	case TOTPOperators:
		return role.IsOperator()
	}
	return false
}

// Require refuses op when the policy (Options.RequireTOTP) makes its role
// enrol and it has not: 403 totp_enrollment_required.
func (au *SecondFactor) Require(ctx context.Context, op authz.Operator) error {
	if !au.totp.requires(op.Role) {
		return nil
	}
	on, err := au.enabled(ctx, op.UserID)
	if err != nil {
		return err
	}
	if !on {
		return ErrTOTPRequired
	}
	return nil
}

// CheckCodeLen refuses a code or a password sent with one (to disable the
// factor) past what any can be: 400 invalid_code, before any limiter is
// spent.
func CheckCodeLen(code, password string) error {
	if len(code) > maxCodeBytes || len(password) > maxPasswordBytes {
		return errInvalidCode
	}
	return nil
}
