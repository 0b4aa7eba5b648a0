package admin

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"image/png"
	"net/http"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
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
	totpPeriod          = 30
	totpSkew            = 1
	totpIssuer          = "Game Admin"
	totpChallengeTTL    = 5 * time.Minute
	totpChallengeCookie = "game_admin_totp"
	kindTOTPChallenge   = "totp_challenge"
	recoveryCodeCount   = 10
	recoveryCodeChars   = 16 // base32: 80 bits, so a plain SHA-256 is enough at rest
	maxCodeBytes        = 64
	totpKeyInfo         = "gameadmin totp secret v1"
	totpSealPrefix      = "v1:"
)

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

var (
	errInvalidCode   = errorf(http.StatusBadRequest, "invalid_code", "the code is wrong, expired or already used")
	errTOTPRequired  = errorf(http.StatusForbidden, "totp_enrollment_required", "set up two-factor sign-in on your account page first")
	errBadChallenge  = errorf(http.StatusUnauthorized, "invalid_challenge", "the sign-in step has expired; sign in again")
	errTOTPNotOn     = errorf(http.StatusConflict, "totp_not_enabled", "two-factor sign-in is not on for this account")
	errTOTPAlreadyOn = errorf(http.StatusConflict, "totp_already_enabled", "two-factor sign-in is on already; disable it first")
)

// totpState is the panel's TOTP machinery: the AEAD that seals secrets at
// rest, the policy, and the clock (tests move it instead of sleeping).
type totpState struct {
	aead   cipher.AEAD
	policy TOTPPolicy
	now    func() time.Time
}

// newTOTPState derives the secret-sealing key from the panel's Secret with
// HKDF-SHA256, so the signing key itself never encrypts anything.
func newTOTPState(secret []byte, policy TOTPPolicy) (*totpState, error) {
	switch policy {
	case "":
		policy = TOTPNone
	case TOTPNone, TOTPAdmins, TOTPOperators:
	default:
		return nil, fmt.Errorf("admin: RequireTOTP %q: want none, admins or operators", policy)
	}
	key, err := hkdf.Key(sha256.New, secret, nil, totpKeyInfo, 32)
	if err != nil {
		return nil, fmt.Errorf("admin: totp key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("admin: totp key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("admin: totp key: %w", err)
	}
	return &totpState{aead: aead, policy: policy, now: time.Now}, nil
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

// seal encrypts a base32 TOTP secret, bound to its user by the AEAD's
// additional data so a sealed secret cannot be copied to another row.
func (t *totpState) seal(userID, secret string) string {
	nonce := make([]byte, t.aead.NonceSize())
	rand.Read(nonce)
	out := t.aead.Seal(nonce, nonce, []byte(secret), []byte("totp:"+userID))
	return totpSealPrefix + base64.StdEncoding.EncodeToString(out)
}

func (t *totpState) open(userID, sealed string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(sealed, totpSealPrefix))
	if err != nil || !strings.HasPrefix(sealed, totpSealPrefix) || len(raw) < t.aead.NonceSize() {
		return "", errors.New("admin: totp secret: malformed")
	}
	n := t.aead.NonceSize()
	plain, err := t.aead.Open(nil, raw[:n], raw[n:], []byte("totp:"+userID))
	if err != nil {
		// Most likely Options.Secret changed since enrolment (README:
		// Two-factor sign-in, rotating the secret).
		return "", fmt.Errorf("admin: totp secret of %s: cannot decrypt: %w", userID, err)
	}
	return string(plain), nil
}

// matchStep returns the time step, within totpSkew of now, whose code is
// code. Each candidate is computed by pquerna/otp and compared in constant
// time; the step lets the caller refuse a replay.
func matchStep(secret, code string, now time.Time) (int64, bool) {
	code = strings.TrimSpace(code)
	if len(code) != otp.DigitsSix.Length() {
		return 0, false
	}
	cur := now.Unix() / totpPeriod
	for s := cur - totpSkew; s <= cur+totpSkew; s++ {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(s*totpPeriod, 0), totpOpts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return s, true
		}
	}
	return 0, false
}

// operatorTOTP is a row of game_operator_totp: one second factor per user,
// pending until the first code confirms it.
type operatorTOTP struct {
	bun.BaseModel `bun:"table:game_operator_totp"`

	UserID      string     `bun:"user_id,pk"`
	Secret      string     `bun:"secret,notnull"` // sealed, see totpState.seal
	Enabled     bool       `bun:"enabled,notnull"`
	LastStep    int64      `bun:"last_step,notnull"` // last accepted time step: replays are refused
	CreatedAt   time.Time  `bun:"created_at,notnull"`
	ConfirmedAt *time.Time `bun:"confirmed_at"`
}

// recoveryCode is a row of game_operator_recovery_codes: the SHA-256 of one
// single-use code.
type recoveryCode struct {
	bun.BaseModel `bun:"table:game_operator_recovery_codes"`

	UserID   string     `bun:"user_id,pk"`
	CodeHash string     `bun:"code_hash,pk"`
	UsedAt   *time.Time `bun:"used_at"`
}

// totpRow returns userID's row, or nil when there is none.
func (a *Admin) totpRow(ctx context.Context, db bun.IDB, userID string) (*operatorTOTP, error) {
	var row operatorTOTP
	err := db.NewSelect().Model(&row).Where("user_id = ?", userID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("admin: totp of %s: %w", userID, err)
	}
	return &row, nil
}

// totpEnabled reports whether userID signs in with a second factor.
func (a *Admin) totpEnabled(ctx context.Context, userID string) (bool, error) {
	return a.db.NewSelect().Model((*operatorTOTP)(nil)).
		Where("user_id = ?", userID).Where("enabled = ?", true).Exists(ctx)
}

// totpGate refuses an operator whom RequireTOTP makes enrol and who has
// not, except on the endpoints that lead to enrolment.
func (a *Admin) totpGate(r *http.Request, op Operator) error {
	if !a.totp.requires(op.Role) || totpExempt[strings.TrimPrefix(r.Pattern, r.Method+" ")] {
		return nil
	}
	on, err := a.totpEnabled(r.Context(), op.UserID)
	if err != nil {
		return err
	}
	if !on {
		return errTOTPRequired
	}
	return nil
}

// totpExempt are the routes an operator who must enrol can still reach.
var totpExempt = map[string]bool{
	apiPrefix + "/auth/me":                true,
	apiPrefix + "/auth/logout":            true,
	apiPrefix + "/auth/logout-everywhere": true,
	apiPrefix + "/auth/totp":              true,
	apiPrefix + "/auth/totp/enroll":       true,
	apiPrefix + "/auth/totp/confirm":      true,
}

// checkTOTP verifies a code against userID's second factor (enabled, or
// pending when confirming) and spends its time step in one conditional
// update, so two requests with one code cannot both pass.
func (a *Admin) checkTOTP(ctx context.Context, userID, code string, pending bool) error {
	row, err := a.totpRow(ctx, a.db, userID)
	if err != nil {
		return err
	}
	if row == nil || row.Enabled == pending {
		if pending {
			return errorf(http.StatusConflict, "totp_not_enrolling", "start enrolment first")
		}
		return errTOTPNotOn
	}
	secret, err := a.totp.open(userID, row.Secret)
	if err != nil {
		a.log.ErrorContext(ctx, "admin: totp secret unreadable; an admin can reset it", "userId", userID, "err", err)
		return errInvalidCode
	}
	step, ok := matchStep(secret, code, a.totp.now())
	if !ok {
		return errInvalidCode
	}
	res, err := a.db.NewUpdate().Model((*operatorTOTP)(nil)).Set("last_step = ?", step).
		Where("user_id = ?", userID).Where("last_step < ?", step).Where("enabled = ?", row.Enabled).Exec(ctx)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return errors.Join(err, errInvalidCode)
	}
	return nil
}

// newRecoveryCodes replaces userID's recovery codes with fresh ones through
// db and returns them in clear, to be shown once.
func newRecoveryCodes(ctx context.Context, db bun.IDB, userID string) ([]string, error) {
	if _, err := db.NewDelete().Model((*recoveryCode)(nil)).Where("user_id = ?", userID).Exec(ctx); err != nil {
		return nil, err
	}
	codes := make([]string, recoveryCodeCount)
	rows := make([]recoveryCode, recoveryCodeCount)
	for i := range codes {
		raw := rand.Text()[:recoveryCodeChars]
		codes[i] = raw[0:4] + "-" + raw[4:8] + "-" + raw[8:12] + "-" + raw[12:16]
		rows[i] = recoveryCode{UserID: userID, CodeHash: hashRecoveryCode(raw)}
	}
	if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
		return nil, err
	}
	return codes, nil
}

// normalizeRecoveryCode accepts a code with or without dashes, spaces and
// in any case; "" when it cannot be one.
func normalizeRecoveryCode(s string) string {
	s = strings.ToUpper(strings.NewReplacer("-", "", " ", "").Replace(s))
	if len(s) != recoveryCodeChars {
		return ""
	}
	for _, c := range s {
		if !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return ""
		}
	}
	return s
}

func hashRecoveryCode(normalized string) string {
	h := sha256.Sum256([]byte("gameadmin recovery:" + normalized))
	return hex.EncodeToString(h[:])
}

// useRecoveryCode spends one of userID's recovery codes; the conditional
// update makes it single-use even under concurrent requests.
func (a *Admin) useRecoveryCode(ctx context.Context, userID, code string) error {
	n := normalizeRecoveryCode(code)
	if n == "" {
		return errInvalidCode
	}
	if on, err := a.totpEnabled(ctx, userID); err != nil || !on {
		return errors.Join(err, errTOTPNotOn)
	}
	res, err := a.db.NewUpdate().Model((*recoveryCode)(nil)).Set("used_at = ?", a.totp.now().UTC()).
		Where("user_id = ?", userID).Where("code_hash = ?", hashRecoveryCode(n)).Where("used_at IS NULL").Exec(ctx)
	if err != nil {
		return err
	}
	if k, err := res.RowsAffected(); err != nil || k != 1 {
		return errors.Join(err, errInvalidCode)
	}
	return nil
}

// recoveryCodesLeft counts userID's unused recovery codes.
func (a *Admin) recoveryCodesLeft(ctx context.Context, userID string) (int, error) {
	n, err := a.db.NewSelect().Model((*recoveryCode)(nil)).Where("user_id = ?", userID).Where("used_at IS NULL").Count(ctx)
	return int(n), err
}

// deleteTOTP removes userID's second factor and recovery codes through db.
func deleteTOTP(ctx context.Context, db bun.IDB, userID string) (bool, error) {
	res, err := db.NewDelete().Model((*operatorTOTP)(nil)).Where("user_id = ?", userID).Exec(ctx)
	if err != nil {
		return false, err
	}
	if _, err := db.NewDelete().Model((*recoveryCode)(nil)).Where("user_id = ?", userID).Exec(ctx); err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// qrDataURL renders the otpauth key as a PNG QR code, locally: the secret
// never leaves the server for a QR service.
func qrDataURL(key *otp.Key) (string, error) {
	img, err := key.Image(240, 240)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", err
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// ResetTOTP removes userID's second factor and recovery codes and ends the
// user's sessions (when the users table has token_version), so the next
// sign-in takes the password alone. It reports whether there was a factor.
// It is the way back in when the last admin has lost both phone and
// recovery codes: call it from the game's own tooling. It writes no audit
// entry; the panel's POST /users/:id/totp/reset does.
func (au *Auth) ResetTOTP(ctx context.Context, userID string) (bool, error) {
	var had bool
	err := au.a.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if had, err = deleteTOTP(ctx, tx, userID); err != nil {
			return err
		}
		if au.a.users.hasTokenVer {
			return au.bumpTokenVersion(ctx, tx, userID)
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("admin: reset totp of %q: %w", userID, err)
	}
	return had, nil
}
