package admintest

import (
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/token"
)

// sessionCookieName is the default SessionOptions.CookieName: a test that
// reads it fails if the default changes.
const sessionCookieName = "game_admin_session"

// signer signs as a panel on testSecret at the default API path, so tests
// can forge the tokens a panel would issue (and ones it must refuse).
func signer() *token.Signer {
	return &token.Signer{Secret: testSecret, Audience: "/admin-api", AcceptNoAudience: true}
}

// signed is a token of c valid for ttl (negative: already expired).
func signed(t testing.TB, c token.Claims, ttl time.Duration) string {
	t.Helper()
	s, err := signer().Sign(c, ttl)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
