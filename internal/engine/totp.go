package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gameadmin/admin/internal/token"

	"github.com/gameadmin/admin/internal/twofactor"

	"github.com/gameadmin/admin/internal/netkey"
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

// operatorTOTP is a row of game_operator_totp: one second factor per user,
// pending until the first code confirms it.
type operatorTOTP struct {
	bun.BaseModel `bun:"table:game_operator_totp,alias:ot"`

	UserID      string     `bun:"user_id,pk"`
	Secret      string     `bun:"secret,notnull"` // sealed: twofactor.Sealer
	Enabled     bool       `bun:"enabled,notnull"`
	LastStep    int64      `bun:"last_step,notnull"` // last accepted time step: replays are refused
	CreatedAt   time.Time  `bun:"created_at,notnull"`
	ConfirmedAt *time.Time `bun:"confirmed_at"`
}

// totpChallenge is a row of game_totp_challenges: a sign-in challenge a
// second step was tried with, by its id. Failures counts its wrong codes;
// maxChallengeFailures means void, or spent by a sign-in.
type totpChallenge struct {
	bun.BaseModel `bun:"table:game_totp_challenges,alias:tc"`

	JTI       string    `bun:"jti,pk"`
	UserID    string    `bun:"user_id,notnull"`
	Failures  int64     `bun:"failures,notnull"`
	ExpiresAt time.Time `bun:"expires_at,notnull"`
}

// recoveryCode is a row of game_operator_recovery_codes: the SHA-256 of one
// single-use code.
type recoveryCode struct {
	bun.BaseModel `bun:"table:game_operator_recovery_codes,alias:rc"`

	UserID   string     `bun:"user_id,pk"`
	CodeHash string     `bun:"code_hash,pk"`
	UsedAt   *time.Time `bun:"used_at"`
}

// secondFactor is Auth seen from its second-factor half: enrolment, codes,
// challenges and recovery codes.
type secondFactor Auth

// totpRow returns userID's row, or nil when there is none.
func (au *secondFactor) totpRow(ctx context.Context, db bun.IDB, userID string) (*operatorTOTP, error) {
	var row operatorTOTP
	err := db.NewSelect().Model(&row).ModelTableExpr("?", au.aliased("operator_totp", "ot")).Where("user_id = ?", userID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("admin: totp of %s: %w", userID, err)
	}
	return &row, nil
}

// totpEnabled reports whether userID signs in with a second factor.
func (au *secondFactor) totpEnabled(ctx context.Context, userID string) (bool, error) {
	return au.db.NewSelect().Model((*operatorTOTP)(nil)).ModelTableExpr("?", au.aliased("operator_totp", "ot")).
		Where("user_id = ?", userID).Where("enabled = ?", true).Exists(ctx)
}

// checkTOTP verifies a code against userID's second factor (enabled, or
// pending when confirming) and spends its time step in one conditional
// update, so two requests with one code cannot both pass.
func (au *secondFactor) checkTOTP(ctx context.Context, userID, code string, pending bool) error {
	row, err := au.totpRow(ctx, au.db, userID)
	if err != nil {
		return err
	}
	if row == nil || row.Enabled == pending {
		if pending {
			return errorf(http.StatusConflict, "totp_not_enrolling", "start enrolment first")
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
	res, err := au.db.NewUpdate().Model((*operatorTOTP)(nil)).ModelTableExpr("?", au.aliased("operator_totp", "ot")).Set("last_step = ?", step).
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
func (au *secondFactor) newRecoveryCodes(ctx context.Context, db bun.IDB, userID string) ([]string, error) {
	if _, err := db.NewDelete().Model((*recoveryCode)(nil)).ModelTableExpr("?", au.aliased("operator_recovery_codes", "rc")).Where("user_id = ?", userID).Exec(ctx); err != nil {
		return nil, err
	}
	codes := make([]string, recoveryCodeCount)
	rows := make([]recoveryCode, recoveryCodeCount)
	for i := range codes {
		var hash string
		codes[i], hash = twofactor.NewRecoveryCode()
		rows[i] = recoveryCode{UserID: userID, CodeHash: hash}
	}
	if _, err := db.NewInsert().Model(&rows).ModelTableExpr("?", au.tbl("operator_recovery_codes")).Exec(ctx); err != nil {
		return nil, err
	}
	return codes, nil
}

// useRecoveryCode spends one of userID's recovery codes; the conditional
// update makes it single-use even under concurrent requests.
func (au *secondFactor) useRecoveryCode(ctx context.Context, userID, code string) error {
	n := twofactor.NormalizeRecoveryCode(code)
	if n == "" {
		return errInvalidCode
	}
	if on, err := au.totpEnabled(ctx, userID); err != nil {
		return err
	} else if !on {
		return errTOTPNotOn
	}
	res, err := au.db.NewUpdate().Model((*recoveryCode)(nil)).ModelTableExpr("?", au.aliased("operator_recovery_codes", "rc")).Set("used_at = ?", au.totp.now().UTC()).
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
func (au *secondFactor) recoveryCodesLeft(ctx context.Context, userID string) (int, error) {
	n, err := au.db.NewSelect().Model((*recoveryCode)(nil)).ModelTableExpr("?", au.aliased("operator_recovery_codes", "rc")).Where("user_id = ?", userID).Where("used_at IS NULL").Count(ctx)
	return int(n), err
}

// deleteTOTP removes userID's second factor and recovery codes through db.
func (au *secondFactor) deleteTOTP(ctx context.Context, db bun.IDB, userID string) (bool, error) {
	res, err := db.NewDelete().Model((*operatorTOTP)(nil)).ModelTableExpr("?", au.aliased("operator_totp", "ot")).Where("user_id = ?", userID).Exec(ctx)
	if err != nil {
		return false, err
	}
	if _, err := db.NewDelete().Model((*recoveryCode)(nil)).ModelTableExpr("?", au.aliased("operator_recovery_codes", "rc")).Where("user_id = ?", userID).Exec(ctx); err != nil {
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
	return (*secondFactor)(au).resetTOTP(ctx, userID, nil)
}

// resetTOTP is ResetTOTP; entry, when not nil, is written in the same
// transaction with "hadTotp" added to its payload.
func (au *secondFactor) resetTOTP(ctx context.Context, userID string, entry *AuditEntry) (bool, error) {
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
func (au *secondFactor) limitTOTP(ctx context.Context, userID, ip string) error {
	// Per user and network: guesses from one place cannot block the
	// owner's step from another.
	if err := limit(ctx, au.limits.TOTP, "user|"+userID+"|"+netkey.Network(ip)); err != nil {
		return err
	}
	return limit(ctx, au.limits.TOTP, "ip|"+netkey.Address(ip))
}

// loginTOTP is the second sign-in step: the challenge token of the first,
// and a code or a recovery code (exactly one).
func (au *secondFactor) loginTOTP(ctx context.Context, challenge, code, recovery, ip string, meta map[string]any) (signIn, error) {
	if (code == "") == (recovery == "") {
		return signIn{}, errorf(http.StatusBadRequest, "missing_field", "give either code or recoveryCode")
	}
	if len(code) > maxCodeBytes || len(recovery) > maxCodeBytes {
		return signIn{}, errInvalidCode
	}
	c, err := au.tokens.signer.Parse(challenge, token.KindTOTPChallenge)
	if err != nil {
		return signIn{}, errBadChallenge
	}
	acc, err := au.users.AccountByID(ctx, au.db, c.UserID)
	if errors.Is(err, ErrNotFound) {
		return signIn{}, errBadChallenge
	}
	if err != nil {
		return signIn{}, err
	}
	if acc.TokenVersion != c.TV {
		return signIn{}, errBadChallenge
	}
	if acc.Ban.Active(au.now()) {
		return signIn{}, errBannedSignIn
	}
	if err := au.limitTOTP(ctx, acc.ID, ip); err != nil {
		return signIn{}, err
	}
	if open, err := au.openChallenge(ctx, acc.ID, c.ID); err != nil {
		return signIn{}, err
	} else if !open {
		return signIn{}, errBadChallenge
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
			(*Auth)(au).record(ctx, meta, acc.ID, "auth.totp_failed", acc.Email, "method", method)
			// Not found: the challenge is void already.
			if ferr := au.challengeUpdate(ctx, c.ID, "failures = failures + 1"); ferr != nil && !errors.Is(ferr, ErrNotFound) {
				return signIn{}, ferr
			}
		}
		return signIn{}, err
	}
	// Spent: the same challenge signs in once, however many codes it has.
	if err := au.challengeUpdate(ctx, c.ID, "failures = ?", maxChallengeFailures); errors.Is(err, ErrNotFound) {
		return signIn{}, errBadChallenge
	} else if err != nil {
		return signIn{}, err
	}
	_, op, err := au.state(ctx, acc.ID)
	if err != nil {
		return signIn{}, err
	}
	if method == "recovery" {
		(*Auth)(au).record(ctx, meta, acc.ID, "auth.recovery_used", acc.Email)
	}
	(*Auth)(au).record(ctx, meta, acc.ID, "auth.login", acc.Email, "secondFactor", method)
	return signIn{userID: acc.ID, role: op.Role, tv: acc.TokenVersion}, nil
}

// maxChallengeFailures is how many wrong codes one sign-in challenge
// takes before it is void (the user signs in with the password again).
const maxChallengeFailures = 5

// openChallenge records the challenge jti of userID (once; rows past
// their expiry are dropped on the way) and reports whether it may still
// be tried: fewer than maxChallengeFailures wrong codes, not spent by a
// sign-in. The state is in the database, so it holds across nodes.
func (au *secondFactor) openChallenge(ctx context.Context, userID, jti string) (bool, error) {
	now := time.Now().UTC()
	if _, err := au.db.NewDelete().Model((*totpChallenge)(nil)).ModelTableExpr("?", au.aliased("totp_challenges", "tc")).
		Where("user_id = ?", userID).Where("expires_at < ?", now).Exec(ctx); err != nil {
		return false, err
	}
	row := &totpChallenge{JTI: jti, UserID: userID, ExpiresAt: now.Add(totpChallengeTTL)}
	if _, err := au.db.NewInsert().Model(row).ModelTableExpr("?", au.tbl("totp_challenges")).On("CONFLICT (jti) DO NOTHING").Exec(ctx); err != nil {
		return false, err
	}
	var failures int64
	err := au.db.NewSelect().Model((*totpChallenge)(nil)).ModelTableExpr("?", au.aliased("totp_challenges", "tc")).
		Column("failures").Where("jti = ?", jti).Scan(ctx, &failures)
	return err == nil && failures < maxChallengeFailures, err
}

// challengeUpdate applies set to challenge jti while it is open;
// ErrNotFound when it is not (spent or void).
func (au *secondFactor) challengeUpdate(ctx context.Context, jti, set string, args ...any) error {
	res, err := au.db.NewUpdate().Model((*totpChallenge)(nil)).ModelTableExpr("?", au.aliased("totp_challenges", "tc")).
		Set(set, args...).Where("jti = ?", jti).Where("failures < ?", maxChallengeFailures).Exec(ctx)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n != 1 {
		return ErrNotFound
	}
	return nil
}

// totpStatus is GET /auth/totp's answer for op (fields in the order of
// the keys the panel always sent).
type totpStatus struct {
	Enabled           bool `json:"enabled"`
	Pending           bool `json:"pending"`
	RecoveryCodesLeft int  `json:"recoveryCodesLeft"`
	Required          bool `json:"required"`
}

func (au *secondFactor) totpStatus(ctx context.Context, op Operator) (totpStatus, error) {
	row, err := au.totpRow(ctx, au.db, op.UserID)
	if err != nil {
		return totpStatus{}, err
	}
	left, err := au.recoveryCodesLeft(ctx, op.UserID)
	if err != nil {
		return totpStatus{}, err
	}
	return totpStatus{Enabled: row != nil && row.Enabled, Pending: row != nil && !row.Enabled,
		Required: au.totp.requires(op.Role), RecoveryCodesLeft: left}, nil
}

// enrollTOTP stores a new pending secret for userID, replacing any earlier
// pending one, and returns its key and a QR code of it.
func (au *secondFactor) enrollTOTP(ctx context.Context, userID string) (key *otp.Key, qr string, err error) {
	acc, err := au.users.AccountByID(ctx, au.db, userID)
	if err != nil {
		return nil, "", err
	}
	if key, qr, err = twofactor.NewKey(totpIssuer, acc.Email); err != nil {
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
		_, err = tx.NewInsert().Model(&operatorTOTP{UserID: userID, Secret: au.totp.sealer.Seal(userID, key.Secret()),
			CreatedAt: time.Now().UTC()}).ModelTableExpr("?", au.tbl("operator_totp")).Exec(ctx)
		return err
	})
	return key, qr, err
}

// spendCode spends the TOTP limiter and checks code against userID's second
// factor (the pending one when confirming); a refused code is audited.
func (au *secondFactor) spendCode(ctx context.Context, userID, code string, pending bool, step, ip string, meta map[string]any) error {
	if err := au.limitTOTP(ctx, userID, ip); err != nil {
		return err
	}
	err := au.checkTOTP(ctx, userID, code, pending)
	if errors.Is(err, errInvalidCode) {
		(*Auth)(au).record(ctx, meta, userID, "auth.totp_failed", "", "step", step)
	}
	return err
}

// confirmTOTP turns the pending factor on with its first code and returns
// the ten recovery codes, committed with the auth.totp_enabled entry. It
// ends the user's other sessions (a token-version bump, live connections
// closed): one opened before the second factor was on must not outlive
// it. tv is the new token version, for the caller's own session.
func (au *secondFactor) confirmTOTP(ctx context.Context, userID, code, ip string, meta map[string]any) (codes []string, tv int64, err error) {
	if err := au.spendCode(ctx, userID, code, true, "confirm", ip, meta); err != nil {
		return nil, 0, err
	}
	err = au.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		now := time.Now().UTC()
		_, err := tx.NewUpdate().Model((*operatorTOTP)(nil)).ModelTableExpr("?", au.aliased("operator_totp", "ot")).Set("enabled = ?", true).Set("confirmed_at = ?", now).
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

// disableTOTP turns userID's second factor off, proven by a code or the
// password, committed with the auth.totp_disabled entry.
func (au *secondFactor) disableTOTP(ctx context.Context, userID, code, password, ip string, meta map[string]any) error {
	if on, err := au.totpEnabled(ctx, userID); err != nil {
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

// regenerateRecoveryCodes replaces userID's recovery codes, proven by a
// code, committed with the auth.recovery_codes_regenerated entry.
func (au *secondFactor) regenerateRecoveryCodes(ctx context.Context, userID, code, ip string, meta map[string]any) (codes []string, err error) {
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

// totpState is the panel's TOTP setting: the sealer of secrets at rest, the
// policy, and the clock (tests move it instead of sleeping).
type totpState struct {
	sealer *twofactor.Sealer
	policy TOTPPolicy
	now    func() time.Time
}

func newTOTPState(secret []byte, policy TOTPPolicy, now func() time.Time) (*totpState, error) {
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
	return &totpState{sealer: sealer, policy: policy, now: now}, nil
}

// requires reports whether the policy makes role enrol.
func (t *totpState) requires(role Role) bool {
	switch t.policy {
	case TOTPAdmins:
		return role == RoleAdmin
	case TOTPOperators:
		return role.IsOperator()
	}
	return false
}
