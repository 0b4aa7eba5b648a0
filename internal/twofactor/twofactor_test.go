package twofactor

import (
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

func TestSealBindsTheSecretToItsUser(t *testing.T) {
	s, err := NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	sealed := s.Seal("u1", "JBSWY3DPEHPK3PXP")
	if strings.Contains(sealed, "JBSWY3DPEHPK3PXP") || !strings.HasPrefix(sealed, sealPrefix) {
		t.Fatalf("sealed = %q", sealed)
	}
	if got, err := s.Open("u1", sealed); err != nil || got != "JBSWY3DPEHPK3PXP" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if s.Seal("u1", "JBSWY3DPEHPK3PXP") == sealed {
		t.Fatal("two seals of one secret are equal: the nonce is not fresh")
	}
	if _, err := s.Open("u2", sealed); err == nil {
		t.Fatal("a secret sealed for u1 opened for u2")
	}
	other, _ := NewSealer([]byte("another secret, another key......"))
	if _, err := other.Open("u1", sealed); err == nil {
		t.Fatal("opened with another panel secret")
	}
	for _, bad := range []string{"", "v1:", "v1:!!!", "JBSWY3DPEHPK3PXP", "v2:" + sealed[3:], sealed[:len(sealed)-4]} {
		if _, err := s.Open("u1", bad); err == nil {
			t.Errorf("Open(%q) succeeded", bad)
		}
	}
}

func TestMatchStepAllowsOneStepOfDrift(t *testing.T) {
	key, qr, err := NewKey("Game Admin", "op@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(qr, "data:image/png;base64,") || key.Issuer() != "Game Admin" || key.AccountName() != "op@example.com" {
		t.Fatalf("key %v, qr %.40s", key, qr)
	}
	const secret = "JBSWY3DPEHPK3PXP" // fixed, so the codes below are too
	now := time.Unix(1_700_000_000, 0)
	code := func(at time.Time) string {
		c, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: Period, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	step := now.Unix() / Period
	for d := -Skew; d <= Skew; d++ {
		at := now.Add(time.Duration(d*Period) * time.Second)
		got, ok := MatchStep(secret, " "+code(at)+" ", now)
		if !ok || got != step+int64(d) {
			t.Errorf("drift %d: step %d, %v; want %d", d, got, ok, step+int64(d))
		}
	}
	far := code(now.Add(time.Duration((Skew+1)*Period) * time.Second))
	if _, ok := MatchStep(secret, far, now); ok {
		t.Errorf("the code %d steps away matched", Skew+1)
	}
	for _, bad := range []string{"", "12345", "1234567", "abcdef"} {
		if _, ok := MatchStep(secret, bad, now); ok {
			t.Errorf("MatchStep(%q) matched", bad)
		}
	}
}

func TestRecoveryCodes(t *testing.T) {
	shown, hash := NewRecoveryCode()
	if len(shown) != 19 || strings.Count(shown, "-") != 3 {
		t.Fatalf("shown = %q", shown)
	}
	for _, typed := range []string{shown, strings.ToLower(shown), strings.ReplaceAll(shown, "-", " "), strings.ReplaceAll(shown, "-", "")} {
		n := NormalizeRecoveryCode(typed)
		if n == "" || HashRecoveryCode(n) != hash {
			t.Errorf("typed %q: normalized %q does not hash to the stored hash", typed, n)
		}
	}
	for _, bad := range []string{"", "AAAA-AAAA-AAAA-AAA", "AAAA-AAAA-AAAA-AAA1", "AAAA-AAAA-AAAA-AAAAA"} {
		if n := NormalizeRecoveryCode(bad); n != "" {
			t.Errorf("NormalizeRecoveryCode(%q) = %q", bad, n)
		}
	}
	if other, _ := NewRecoveryCode(); other == shown {
		t.Error("two recovery codes are equal")
	}
}
