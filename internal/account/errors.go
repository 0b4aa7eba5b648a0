package account

import (
	"errors"
	"net/http"

	"github.com/gameadmin/admin/internal/errbody"
)

// Errors of the Go API over accounts; the panel's names for them are
// admin.ErrInvalidCredentials and its neighbours.
var (
	// ErrInvalidCredentials reports an unknown email or a wrong password;
	// the two are deliberately indistinguishable.
	ErrInvalidCredentials = errors.New("admin: invalid credentials")
	// ErrBanned reports a sign-in by a user whose ban is in force.
	ErrBanned = errors.New("admin: banned")
	// ErrAmbiguousEmail reports an email that matches several accounts only
	// without regard to case (stored "Sam@x" and "sam@x", asked for "SAM@x"):
	// UserIDByEmail names none rather than guess.
	ErrAmbiguousEmail = errors.New("admin: the email matches several accounts in different case")
	// ErrSecondFactorRequired is StartSession's answer for a user with
	// two-factor sign-in on: no session was issued, a challenge is pending in
	// its cookie, and the browser should be sent to SecondFactorURL to enter
	// a code.
	ErrSecondFactorRequired = errors.New("admin: second factor required")
	// ErrBootstrapClosed refuses the first-admin sign-up once an admin exists.
	ErrBootstrapClosed = errbody.New(http.StatusForbidden, "bootstrap_closed", "an admin exists already; bootstrap is closed")
	// ErrInvalidResetToken refuses a password reset link that is unknown,
	// expired or spent.
	ErrInvalidResetToken = errbody.New(http.StatusBadRequest, "invalid_token", "the reset token is invalid, expired or already used")
	// ErrUnauthenticated is the answer to a request without a session
	// that verifies (401 unauthenticated): SessionCheck.Verify's, and the
	// panel's for every endpoint that needs one.
	ErrUnauthenticated = errbody.New(http.StatusUnauthorized, "unauthenticated", "sign-in required")
	// ErrTOTPRequired refuses an operator whom Options.RequireTOTP makes
	// enrol in two-factor sign-in and who has not (SecondFactor.Require):
	// 403 totp_enrollment_required.
	ErrTOTPRequired = errbody.New(http.StatusForbidden, "totp_enrollment_required", "set up two-factor sign-in on your account page first")
)

// The HTTP answers of the sign-in endpoints that are not errors of the Go
// API.
var (
	errInvalidCredentials = errbody.New(http.StatusUnauthorized, "invalid_credentials", "invalid email or password")
	errBannedSignIn       = errbody.New(http.StatusForbidden, "banned", "this account is banned")

	errInvalidCode   = errbody.New(http.StatusBadRequest, "invalid_code", "the code is wrong, expired or already used")
	errBadChallenge  = errbody.New(http.StatusUnauthorized, "invalid_challenge", "the sign-in step has expired; sign in again")
	errTOTPNotOn     = errbody.New(http.StatusConflict, "totp_not_enabled", "two-factor sign-in is not on for this account")
	errTOTPAlreadyOn = errbody.New(http.StatusConflict, "totp_already_enabled", "two-factor sign-in is on already; disable it first")
)
