package token

import (
	"sync"
	"time"
)

// verifiedMax is how many tokens a Verified holds before it forgets them
// all: a panel's signed-in operators, many times over.
const verifiedMax = 1024

// Verified is Parse for the tokens of one kind that come again and again
// (the session cookie, on every request): a token it has taken is not
// decoded and its signature not checked again, only its expiry, against
// the clock. What the token grants is still read live by its caller (the
// session check re-reads the token version and role every request); a
// token only ever enters after Parse took it, with the same signer and
// kind. Safe for concurrent use; the zero value needs Signer and Kind.
type Verified struct {
	Signer *Signer
	Kind   string

	mu sync.RWMutex
	m  map[string]*Claims
}

// Parse is Signer.Parse(raw, Kind), remembered. The claims are shared:
// the caller must not change them.
func (v *Verified) Parse(raw string) (*Claims, error) {
	v.mu.RLock()
	c, ok := v.m[raw]
	v.mu.RUnlock()
	if ok {
		if !time.Now().Before(c.ExpiresAt.Time) {
			return nil, ErrInvalid
		}
		return c, nil
	}
	c, err := v.Signer.Parse(raw, v.Kind)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	if v.m == nil || len(v.m) >= verifiedMax {
		v.m = make(map[string]*Claims)
	}
	v.m[raw] = c
	v.mu.Unlock()
	return c, nil
}
