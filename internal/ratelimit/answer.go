package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/gameadmin/admin/internal/errbody"
)

// ErrUnavailable reports a request refused because a rate limiter failed
// (its shared store is down): the request is refused rather than let
// through unlimited (the panel's ErrLimiterUnavailable).
var ErrUnavailable = errors.New("admin: rate limiter unavailable")

// Spend spends a token of key's bucket in l: an *Error when the bucket
// is empty, ErrUnavailable wrapping the cause when the limiter fails.
func Spend(ctx context.Context, l Limiter, key string) error {
	return result(l.Allow(ctx, key))
}

// result is a limiter's answer as Spend returns it.
func result(allowed bool, retry time.Duration, err error) error {
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if !allowed {
		return &Error{RetryAfter: retry}
	}
	return nil
}

// Answer turns Spend's refusals into the panel's HTTP answers: an *Error
// is 429 rate_limited with its Retry-After in whole seconds, at least
// one; ErrUnavailable is 503 rate_limiter_unavailable, with the cause
// kept for the log. Any other error is returned as it is.
func Answer(err error) error {
	var rl *Error
	switch {
	case errors.As(err, &rl):
		return refused(rl.RetryAfter)
	case errors.Is(err, ErrUnavailable):
		return errbody.New(http.StatusServiceUnavailable, "rate_limiter_unavailable", "rate limiter unavailable; try again shortly").Because(err)
	}
	return err
}

// refused is the 429 answer of a refusal that lasts retry.
func refused(retry time.Duration) *errbody.Error {
	sec := max(int(math.Ceil(retry.Seconds())), 1)
	e := errbody.New(http.StatusTooManyRequests, "rate_limited", "too many requests; retry in %d s", sec)
	e.RetryAfterSec = sec
	e.Params = map[string]any{"retryAfterSec": sec}
	return e
}
