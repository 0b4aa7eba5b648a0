package token

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TestVerified: a remembered token answers its claims again; one that
// has expired since is refused; a token of another kind, another
// signer's, or one changed by a byte is refused as Parse refuses it; and
// the tokens remembered never pass verifiedMax.
func TestVerified(t *testing.T) {
	s := &Signer{Secret: []byte("0123456789abcdef0123456789abcdef"), Audience: "/admin-api"}
	v := &Verified{Signer: s, Kind: KindSession}
	tok, err := s.Sign(Claims{UserID: "u1", TV: 3, Kind: KindSession}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if c, err := v.Parse(tok); err != nil || c.UserID != "u1" || c.TV != 3 {
			t.Fatalf("Parse = %+v, %v", c, err)
		}
	}
	if len(v.m) != 1 {
		t.Fatalf("%d tokens remembered; want 1", len(v.m))
	}
	reset, _ := s.Sign(Claims{UserID: "u1", Kind: KindReset}, time.Hour)
	other, _ := (&Signer{Secret: []byte("another secret, just as long....."), Audience: "/admin-api"}).Sign(Claims{UserID: "u1", Kind: KindSession}, time.Hour)
	changed := tok[:len(tok)-2] + "xx"
	for name, raw := range map[string]string{"another kind": reset, "another secret": other, "changed": changed} {
		if c, err := v.Parse(raw); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Parse = %+v, %v; want ErrInvalid", name, c, err)
		}
	}
	// The remembered token's time runs out.
	v.m[tok].ExpiresAt = jwt.NewNumericDate(time.Now().Add(-time.Second))
	if c, err := v.Parse(tok); !errors.Is(err, ErrInvalid) {
		t.Fatalf("an expired remembered token: Parse = %+v, %v; want ErrInvalid", c, err)
	}
	for i := range verifiedMax + 10 {
		raw, _ := s.Sign(Claims{UserID: fmt.Sprint("u", i), Kind: KindSession}, time.Hour)
		if _, err := v.Parse(raw); err != nil {
			t.Fatal(err)
		}
		if len(v.m) > verifiedMax {
			t.Fatalf("%d tokens remembered; want at most %d", len(v.m), verifiedMax)
		}
	}
}
