package admin

import "github.com/gameadmin/admin/internal/engine"

// Errors of the Go API. Callers branch on them with errors.Is; those that
// are an *APIError also say how the panel answers them over HTTP.
var (
	// ErrNotFound reports that a user, row or room does not exist.
	ErrNotFound = engine.ErrNotFound
	// ErrUnsupported reports that the users table lacks a column a feature needs
	// (ban or token_version), or that no Rooms implementation is configured.
	ErrUnsupported = engine.ErrUnsupported
	// ErrInvalidRole reports a role other than admin, mod or user.
	ErrInvalidRole = engine.ErrInvalidRole
	// ErrUnknownResource reports a mod scope naming no resource of the panel.
	ErrUnknownResource = engine.ErrUnknownResource
	// ErrLastAdmin refuses a change that would leave no admin (Moderation's
	// SetRole, a delete or demotion over HTTP): bootstrap would open again
	// to anyone who asks.
	ErrLastAdmin = engine.ErrLastAdmin

	// ErrInvalidCredentials reports an unknown email or a wrong password;
	// the two are deliberately indistinguishable.
	ErrInvalidCredentials = engine.ErrInvalidCredentials
	// ErrBanned reports a sign-in by a user whose ban is in force.
	ErrBanned = engine.ErrBanned
	// ErrAmbiguousEmail reports an email that matches several accounts only
	// without regard to case (stored "Sam@x" and "sam@x", asked for "SAM@x"):
	// UserIDByEmail names none rather than guess.
	ErrAmbiguousEmail = engine.ErrAmbiguousEmail
	// ErrRateLimited reports a sign-in refused by a rate limit before any
	// password was checked. The error Auth().Authenticate returns is a
	// *RateLimitError, which says when to try again.
	ErrRateLimited = engine.ErrRateLimited
	// ErrLimiterUnavailable reports a sign-in refused because a rate limiter
	// failed (its shared store is down): the attempt is refused rather than
	// let through unlimited. Auth().Authenticate and AuthenticateFrom return
	// it wrapping the cause; a game answers 503.
	ErrLimiterUnavailable = engine.ErrLimiterUnavailable
	// ErrSecondFactorRequired is StartSession's answer for a user with
	// two-factor sign-in on: no session was issued, a challenge is pending in
	// its cookie, and the browser should be sent to SecondFactorURL to enter
	// a code.
	ErrSecondFactorRequired = engine.ErrSecondFactorRequired
	// ErrBootstrapClosed refuses the first-admin sign-up once an admin exists.
	ErrBootstrapClosed = engine.ErrBootstrapClosed
	// ErrInvalidResetToken refuses a password reset link that is unknown,
	// expired or spent.
	ErrInvalidResetToken = engine.ErrInvalidResetToken
)

// Errors a Rooms implementation returns for unknown rooms and sessions,
// for a state path that does not fit the room state, and for the game's
// code failing while serving a call. The first five are package rooms'
// errors under the panel's names: the same values, so errors.Is matches
// either name.
var (
	// ErrRoomNotFound is rooms.ErrRoomNotFound.
	ErrRoomNotFound = engine.ErrRoomNotFound
	// ErrSessionNotFound is rooms.ErrSessionNotFound.
	ErrSessionNotFound = engine.ErrSessionNotFound
	// ErrInvalidPath is rooms.ErrInvalidPath.
	ErrInvalidPath = engine.ErrInvalidPath
	// ErrInvalidStateValue is rooms.ErrInvalidStateValue.
	ErrInvalidStateValue = engine.ErrInvalidStateValue
	// ErrRoomFailed is rooms.ErrRoomFailed: the panel answers 500
	// room_failed, and the room runs on.
	ErrRoomFailed = engine.ErrRoomFailed
	// ErrNodeUnavailable reports that the node owning a room cannot be
	// reached (it is gone, or the shared store is down); the panel answers
	// 503 node_unavailable.
	ErrNodeUnavailable = engine.ErrNodeUnavailable
	// ErrNodeTimeout reports that the node owning a room did not answer in
	// time; the panel answers 504 node_timeout.
	ErrNodeTimeout = engine.ErrNodeTimeout
)

// Errors of Admin.FileReport; the one returned wraps one of them with
// what was wrong, so callers branch with errors.Is.
var (
	// ErrReportsOff refuses a report when Options.ReportCategories is empty.
	ErrReportsOff = engine.ErrReportsOff
	// ErrUnknownPlayer refuses a report whose player or reporter is not in
	// the users table.
	ErrUnknownPlayer = engine.ErrUnknownPlayer
	// ErrUnknownCategory refuses a report whose category the game did not
	// declare.
	ErrUnknownCategory = engine.ErrUnknownCategory
	// ErrReportLimited refuses a report past the reporter's rate
	// (RateLimitOptions.Reports); the error is also a *RateLimitError,
	// which says when to try again.
	ErrReportLimited = engine.ErrReportLimited
	// ErrInvalidReport refuses a report out of bounds: no reporter, a
	// player reporting themselves, text over 1,000 characters, evidence
	// over 4 KiB or not what its category declares, or what a database
	// cannot store as it is (text, room or session that is not UTF-8 or
	// holds a NUL; evidence escaping half a surrogate pair). Its message
	// names the field.
	ErrInvalidReport = engine.ErrInvalidReport
)

// NewError returns an error that the panel answers with status and message
// as they are: for Action handlers and Defaults functions to refuse with a
// reason the operator should read. code is a snake_case identifier; a
// status outside 400-599 becomes 400.
func NewError(status int, code, message string) *APIError {
	return engine.NewError(status, code, message)
}

// RateLimitError is a sign-in refused by a rate limit; errors.Is(err,
// ErrRateLimited) reports it.
type RateLimitError = engine.RateLimitError

// APIError is an answer of the panel's HTTP API, and the error of the Go
// API calls that have one (ErrLastAdmin, an action's NewError). Every
// endpoint answers with its body:
// {"error": "<human message>", "code": "<snake_case>", "status": N}, plus
// "retryAfterSec" on 429s, "requestId" on 5xx answers (the id their log
// line carries), "params" where the message names specifics (a limit,
// a field, who holds a claim: values a client words the answer with in
// its own language) and "fields" with "problems" (each field's problem as
// a code and params) on answers about columns. Its fields are Status,
// Code, Message, RetryAfterSec, RequestID, Params, Fields, Problems and
// Cause (why the answer is what it is: logged with a 5xx, never sent;
// Unwrap returns it); WithParams returns a copy with params added. errors.Is matches two APIErrors of the same status, code
// and message, whatever their causes; errors.As finds one in a chain.
// The live package answers its refusals with the same type.
type APIError = engine.APIError
