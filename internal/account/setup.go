package account

import (
	"crypto/rand"
	"crypto/subtle"
	"fmt"
	"sync/atomic"
)

// minSetupToken is the shortest Options.SetupToken New accepts.
const minSetupToken = 16

// SetupToken is the token of one panel's first run: while no admin
// exists, the bootstrap takes it. It is a fresh random one each start,
// logged as a one-time link, or Options.SetupToken, the same on every
// node of a cluster; it is compared in constant time and spent by the
// bootstrap.
type SetupToken struct {
	value     string
	generated bool        // logged in the link: it was not the game's own
	spent     atomic.Bool // a bootstrap used it
}

// NewSetupToken returns given (Options.SetupToken), at least 16
// characters, or, when given is "", a new random token.
func NewSetupToken(given string) (*SetupToken, error) {
	if given != "" {
		if len(given) < minSetupToken {
			return nil, fmt.Errorf("admin: SetupToken must be at least %d characters", minSetupToken)
		}
		return &SetupToken{value: given}, nil
	}
	return &SetupToken{value: rand.Text(), generated: true}, nil
}

// Matches reports whether got is the token, not yet spent.
func (s *SetupToken) Matches(got string) bool {
	return !s.spent.Load() && subtle.ConstantTimeCompare([]byte(got), []byte(s.value)) == 1
}

// Value is the token.
func (s *SetupToken) Value() string { return s.value }

// Generated reports whether the token is a random one of this start (to
// be logged in the setup link), not the game's own.
func (s *SetupToken) Generated() bool { return s.generated }

// Spend marks the token used: a bootstrap made the first admin.
func (s *SetupToken) Spend() { s.spent.Store(true) }

// Spent reports whether a bootstrap used the token.
func (s *SetupToken) Spent() bool { return s.spent.Load() }
