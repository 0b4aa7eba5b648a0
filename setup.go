package admin

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"

	"github.com/gameadmin/admin/internal/clientip"
)

// The first run. While no admin exists, POST /auth/bootstrap makes
// whoever calls it the admin, so a panel deployed and not yet opened
// would be the first visitor's. It takes a setup token: a fresh random
// one each start, logged as a one-time link (or Options.SetupToken, the
// same on every node of a cluster), compared in constant time and spent
// by the bootstrap. A request straight from a loopback address, with no
// forwarding header, needs none: `go run` on a laptop keeps its one-step
// first visit.

// minSetupToken is the shortest Options.SetupToken New accepts.
const minSetupToken = 16

// errSetupTokenRequired answers a bootstrap that needs the setup token and
// has none, or another.
var errSetupTokenRequired = errorf(http.StatusForbidden, "setup_token_required",
	"no admin exists yet: open the setup link the game server logged when it started")

// setupToken is the token of one panel's first run.
type setupToken struct {
	value     string
	generated bool        // logged in the link: it was not the game's own
	spent     atomic.Bool // a bootstrap used it
}

func newSetupToken(given string) (*setupToken, error) {
	if given != "" {
		if len(given) < minSetupToken {
			return nil, fmt.Errorf("admin: SetupToken must be at least %d characters", minSetupToken)
		}
		return &setupToken{value: given}, nil
	}
	return &setupToken{value: rand.Text(), generated: true}, nil
}

// matches reports whether got is the token, not yet spent.
func (s *setupToken) matches(got string) bool {
	return !s.spent.Load() && subtle.ConstantTimeCompare([]byte(got), []byte(s.value)) == 1
}

// direct reports a request straight from a loopback address: the peer is
// loopback and no proxy said it forwarded the request.
func direct(r *http.Request) bool {
	peer, ok := clientip.ParseHop(r.RemoteAddr)
	if !ok || !peer.IsLoopback() {
		return false
	}
	for _, h := range []string{"Forwarded", "X-Forwarded-For", "X-Real-IP"} {
		if len(r.Header.Values(h)) > 0 {
			return false
		}
	}
	return true
}

// announceSetup logs the first-run link while no admin exists. A token
// the game set is not logged: the game knows it.
func (a *Admin) announceSetup(ctx context.Context) {
	exists, err := a.adminExists(ctx, a.db)
	if err != nil || exists {
		return
	}
	link := a.opts.UIPath + "/setup"
	if !a.setup.generated {
		a.log.WarnContext(ctx, "admin: no admin yet; open "+link+"?token=<Options.SetupToken> to create the first one")
		return
	}
	a.log.WarnContext(ctx, "admin: no admin yet; open this one-time link to create the first one (a new token each start)",
		"link", link+"?token="+url.QueryEscape(a.setup.value))
}

// setupAllowed is the bootstrap's gate: a direct loopback request, or the
// unspent token. The answer for anyone else is the closed bootstrap when an
// admin exists (as without the gate), else setup_token_required.
func (a api) setupAllowed(r *http.Request, token string) error {
	if direct(r) || a.setup.matches(token) {
		return nil
	}
	if exists, err := a.adminExists(r.Context(), a.db); err != nil {
		return err
	} else if exists {
		return ErrBootstrapClosed
	}
	return errSetupTokenRequired
}
