package token

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestParseTakesOnlyItsOwnKindAudienceAndSecret(t *testing.T) {
	s := &Signer{Secret: []byte("0123456789abcdef0123456789abcdef"), Audience: "/admin-api"}
	tok, err := s.Sign(Claims{UserID: "u1", Role: "admin", TV: 3, Kind: KindSession}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Parse(tok, KindSession)
	if err != nil || c.UserID != "u1" || c.Role != "admin" || c.TV != 3 {
		t.Fatalf("Parse = %+v, %v", c, err)
	}
	refused := map[string]func() (*Claims, error){
		"another kind": func() (*Claims, error) { return s.Parse(tok, KindReset) },
		"another audience": func() (*Claims, error) {
			return (&Signer{Secret: s.Secret, Audience: "/ops-api"}).Parse(tok, KindSession)
		},
		"another secret": func() (*Claims, error) {
			return (&Signer{Secret: []byte("x"), Audience: "/admin-api"}).Parse(tok, KindSession)
		},
		"empty":    func() (*Claims, error) { return s.Parse("", KindSession) },
		"too long": func() (*Claims, error) { return s.Parse(tok+strings.Repeat("a", maxLen), KindSession) },
		"expired": func() (*Claims, error) {
			old, _ := s.Sign(Claims{UserID: "u1", Kind: KindSession}, -time.Second)
			return s.Parse(old, KindSession)
		},
		"no user": func() (*Claims, error) {
			anon, _ := s.Sign(Claims{Kind: KindSession}, time.Hour)
			return s.Parse(anon, KindSession)
		},
		"alg none": func() (*Claims, error) {
			none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, Claims{UserID: "u1", Kind: KindSession,
				RegisteredClaims: jwt.RegisteredClaims{ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour)), Audience: jwt.ClaimStrings{"/admin-api"}}}).
				SignedString(jwt.UnsafeAllowNoneSignatureType)
			return s.Parse(none, KindSession)
		},
		"no audience": func() (*Claims, error) {
			raw, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, Claims{UserID: "u1", Kind: KindSession,
				RegisteredClaims: jwt.RegisteredClaims{ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour))}}).SignedString(s.Secret)
			return s.Parse(raw, KindSession)
		},
	}
	for name, parse := range refused {
		if c, err := parse(); !errors.Is(err, ErrInvalid) || c != nil {
			t.Errorf("%s: Parse = %+v, %v; want ErrInvalid", name, c, err)
		}
	}
	// A panel at the default path still takes a token signed before
	// tokens carried an audience.
	legacy, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, Claims{UserID: "u1", Kind: KindSession,
		RegisteredClaims: jwt.RegisteredClaims{ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour))}}).SignedString(s.Secret)
	if _, err := (&Signer{Secret: s.Secret, Audience: "/admin-api", AcceptNoAudience: true}).Parse(legacy, KindSession); err != nil {
		t.Errorf("a token without audience at the default path: %v", err)
	}
}

func TestPasswordFingerprint(t *testing.T) {
	s := &Signer{Secret: []byte("a secret")}
	a, b := s.PasswordFingerprint("$argon2id$one"), s.PasswordFingerprint("$argon2id$two")
	if a == b || a != s.PasswordFingerprint("$argon2id$one") || strings.Contains(a, "argon2id") {
		t.Errorf("fingerprints %q, %q", a, b)
	}
	if (&Signer{Secret: []byte("another")}).PasswordFingerprint("$argon2id$one") == a {
		t.Error("the fingerprint does not depend on the secret")
	}
}
