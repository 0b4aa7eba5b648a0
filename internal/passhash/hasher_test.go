package passhash

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/bcrypt"
)

// fastArgon2id keeps tests quick under -race.
var fastArgon2id = Argon2id{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

func mustHash(t testing.TB, h Hasher, password string) string {
	t.Helper()
	enc, err := h.Hash(password)
	if err != nil {
		t.Fatalf("Hash(%q): %v", password, err)
	}
	return enc
}

func TestArgon2idRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		password string
	}{
		{"ascii", "correct horse battery staple"},
		{"empty", ""},
		{"unicode", "pässwörd 🔑"},
		{"long", strings.Repeat("x", 10_000)},
		{"dollar and comma", "$argon2id$,m=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := mustHash(t, fastArgon2id, tt.password)
			if !strings.HasPrefix(enc, "$argon2id$v=19$m=64,t=1,p=1$") {
				t.Errorf("Hash(%q) = %q; want the PHC prefix $argon2id$v=19$m=64,t=1,p=1$", tt.password, enc)
			}
			if strings.Contains(enc, "=") && strings.Count(enc, "=") != 4 {
				t.Errorf("Hash(%q) = %q; want base64 without padding", tt.password, enc)
			}
			if ok, err := fastArgon2id.Verify(tt.password, enc); !ok || err != nil {
				t.Errorf("Verify(%q, %q) = %v, %v; want true, nil", tt.password, enc, ok, err)
			}
			if ok, err := fastArgon2id.Verify(tt.password+"!", enc); ok || err != nil {
				t.Errorf("Verify(wrong, %q) = %v, %v; want false, nil", enc, ok, err)
			}
			if again := mustHash(t, fastArgon2id, tt.password); again == enc {
				t.Errorf("Hash(%q) twice gave %q; want a fresh salt each time", tt.password, enc)
			}
		})
	}
}

func TestArgon2idDefault(t *testing.T) {
	t.Parallel()
	var zero Argon2id // zero fields fall back to DefaultArgon2id
	enc := mustHash(t, zero, "hunter22")
	if want := "$argon2id$v=19$m=9216,t=4,p=1$"; !strings.HasPrefix(enc, want) {
		t.Errorf("Argon2id{}.Hash = %q; want prefix %q", enc, want)
	}
	if ok, err := DefaultArgon2id().Verify("hunter22", enc); !ok || err != nil {
		t.Errorf("DefaultArgon2id().Verify = %v, %v; want true, nil", ok, err)
	}
	if DefaultArgon2id().NeedsRehash(enc) {
		t.Errorf("DefaultArgon2id().NeedsRehash(%q) = true; want false", enc)
	}
}

// TestDefaultArgon2idNotShared: a caller changing the returned hasher
// changes nobody else's defaults.
func TestDefaultArgon2idNotShared(t *testing.T) {
	t.Parallel()
	h := DefaultArgon2id()
	h.Memory = 8
	if DefaultArgon2id().Memory != 9216 {
		t.Error("DefaultArgon2id returned shared state")
	}
}

func TestArgon2idHonoursStoredParameters(t *testing.T) {
	t.Parallel()
	old := Argon2id{Memory: 32, Time: 3, Threads: 2, SaltLen: 8, KeyLen: 16}
	enc := mustHash(t, old, "pw")
	if want := "$argon2id$v=19$m=32,t=3,p=2$"; !strings.HasPrefix(enc, want) {
		t.Fatalf("Hash = %q; want prefix %q", enc, want)
	}
	// A hasher with other parameters still verifies it, with the stored ones.
	if ok, err := fastArgon2id.Verify("pw", enc); !ok || err != nil {
		t.Errorf("Verify(pw, %q) = %v, %v; want true, nil", enc, ok, err)
	}
	// Independent check against the x/crypto primitive.
	parts := strings.Split(enc, "$")
	salt, _ := base64.RawStdEncoding.DecodeString(parts[4])
	want := base64.RawStdEncoding.EncodeToString(argon2.IDKey([]byte("pw"), salt, 3, 32, 2, 16))
	if parts[5] != want {
		t.Errorf("key = %q; want argon2.IDKey(t=3, m=32, p=2, 16) = %q", parts[5], want)
	}
}

// TestArgon2idReferenceVector verifies a hash made by another implementation:
// the example of the argon2-cffi documentation (m=65536, t=3, p=4).
func TestArgon2idReferenceVector(t *testing.T) {
	t.Parallel()
	const enc = "$argon2id$v=19$m=65536,t=3,p=4$MIIRqgvgQbgj220jfp0MPA$YfwJSVjtjSU0zzV/P3S9nnQ/USre2wvJMjfCIjrTQbg"
	if ok, err := fastArgon2id.Verify("correct horse battery staple", enc); !ok || err != nil {
		t.Errorf("Verify(right, %q) = %v, %v; want true, nil", enc, ok, err)
	}
}

func TestArgon2idVerifiesBcrypt(t *testing.T) {
	t.Parallel()
	raw, err := bcrypt.GenerateFromPassword([]byte("legacy pw"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	b := string(raw) // $2a$04$...
	for _, prefix := range []string{"$2a$", "$2b$", "$2y$"} {
		enc := prefix + b[4:]
		t.Run(prefix, func(t *testing.T) {
			if ok, err := fastArgon2id.Verify("legacy pw", enc); !ok || err != nil {
				t.Errorf("Verify(right, %q) = %v, %v; want true, nil", enc, ok, err)
			}
			if ok, err := fastArgon2id.Verify("wrong", enc); ok || err != nil {
				t.Errorf("Verify(wrong, %q) = %v, %v; want false, nil", enc, ok, err)
			}
			// A game's bcrypt hash stays bcrypt unless the integrator asks.
			if fastArgon2id.NeedsRehash(enc) {
				t.Errorf("NeedsRehash(%q) = true; want false: the scheme is kept by default", enc)
			}
			upgrade := fastArgon2id
			upgrade.UpgradeBcrypt = true
			if !upgrade.NeedsRehash(enc) {
				t.Errorf("UpgradeBcrypt: NeedsRehash(%q) = false; want true", enc)
			}
		})
	}
}

func TestArgon2idNeedsRehash(t *testing.T) {
	t.Parallel()
	enc := mustHash(t, fastArgon2id, "pw")
	tests := []struct {
		name    string
		hasher  Argon2id
		encoded string
		want    bool
	}{
		{"same parameters", fastArgon2id, enc, false},
		{"more memory", Argon2id{Memory: 128, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}, enc, true},
		{"more time", Argon2id{Memory: 64, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}, enc, true},
		{"more threads", Argon2id{Memory: 64, Time: 1, Threads: 2, SaltLen: 16, KeyLen: 32}, enc, true},
		{"longer salt", Argon2id{Memory: 64, Time: 1, Threads: 1, SaltLen: 32, KeyLen: 32}, enc, true},
		{"longer key", Argon2id{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 64}, enc, true},
		{"defaults vs small", Argon2id{}, enc, true},
		{"zero fields are defaults", Argon2id{Memory: 64, Time: 1}, enc, false},
		{"bcrypt kept", fastArgon2id, "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy", false},
		{"bcrypt upgraded on request", Argon2id{Memory: 64, Time: 1, UpgradeBcrypt: true}, "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy", true},
		{"upgrade flag is not a parameter", Argon2id{Memory: 64, Time: 1, UpgradeBcrypt: true}, enc, false},
		// Not a hash: nothing to rewrite (no password matches it anyway).
		{"malformed", fastArgon2id, "nonsense", false},
		// A hash made under the former default (m=19 MiB t=2) is rewritten
		// once at the next sign-in: the dummy hash verified for unknown
		// emails is at today's default, and an account whose hash takes
		// longer to verify would stand out by its timing.
		{"former default rewritten", Argon2id{}, paramHash(19456, 2), true},
		{"today's default kept", Argon2id{}, paramHash(9216, 4), false},
		{"empty", fastArgon2id, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.hasher.NeedsRehash(tt.encoded); got != tt.want {
				t.Errorf("%+v.NeedsRehash(%q) = %v; want %v", tt.hasher, tt.encoded, got, tt.want)
			}
		})
	}
}

// paramHash is a well-formed argon2id hash string with memory m KiB and
// time t (p=1, 16-byte salt, 32-byte key), for NeedsRehash, which reads
// only the parameters: no hashing at 19 MiB in a test.
func paramHash(m, t uint32) string {
	return fmt.Sprintf("$argon2id$v=19$m=%d,t=%d,p=1$%s$%s", m, t,
		base64.RawStdEncoding.EncodeToString(make([]byte, 16)), base64.RawStdEncoding.EncodeToString(make([]byte, 32)))
}

func TestArgon2idVerifyMalformed(t *testing.T) {
	t.Parallel()
	enc := mustHash(t, fastArgon2id, "pw")
	parts := strings.Split(enc, "$") // "", argon2id, v=19, m=64,t=1,p=1, salt, key
	with := func(i int, s string) string {
		p := append([]string(nil), parts...)
		p[i] = s
		return strings.Join(p, "$")
	}
	tests := []struct {
		name    string
		encoded string
	}{
		{"empty", ""},
		{"plain text", "pw"},
		{"argon2i", with(1, "argon2i")},
		{"argon2d", with(1, "argon2d")},
		{"missing part", strings.Join(parts[:5], "$")},
		{"extra part", enc + "$x"},
		{"no leading dollar", strings.TrimPrefix(enc, "$")},
		{"old version", with(2, "v=16")},
		{"no version", with(2, "")},
		{"version not a number", with(2, "v=x")},
		{"params out of order", with(3, "t=1,m=64,p=1")},
		{"params missing", with(3, "m=64,t=1")},
		{"params extra", with(3, "m=64,t=1,p=1,k=2")},
		{"param not a number", with(3, "m=sixty,t=1,p=1")},
		{"param negative", with(3, "m=-64,t=1,p=1")},
		{"param overflow", with(3, "m=99999999999,t=1,p=1")},
		{"huge memory", with(3, "m=4294967295,t=1,p=1")},
		{"memory just over 1 GiB", with(3, "m=1048577,t=1,p=1")},
		{"memory under 8p", with(3, "m=8,t=1,p=2")},
		{"zero time", with(3, "m=64,t=0,p=1")},
		{"huge time", with(3, "m=64,t=101,p=1")},
		{"zero threads", with(3, "m=64,t=1,p=0")},
		{"threads over 255", with(3, "m=65536,t=1,p=256")},
		{"bad salt base64", with(4, "!!!!")},
		{"padded salt", with(4, parts[4]+"==")},
		{"short salt", with(4, "c2FsdA")},
		{"huge salt", with(4, strings.Repeat("A", 1<<20))},
		{"empty key", with(5, "")},
		{"bad key base64", with(5, "*"+parts[5][1:])},
		{"short key", with(5, "c2hvcnRrZXk")},
		{"huge key", with(5, strings.Repeat("A", 1<<20))},
		{"bcrypt too short", "$2a$10$abc"},
		{"bcrypt bad cost", "$2a$xx$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"},
		{"bcrypt huge cost", "$2a$31$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"},
		{"bcrypt cost 17", "$2b$17$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"},
		{"unknown scheme", "$1$abc$def"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			ok, err := fastArgon2id.Verify("pw", tt.encoded)
			if ok || err == nil {
				t.Errorf("Verify(pw, %.80q) = %v, %v; want false and an error", tt.encoded, ok, err)
			} else if !strings.HasPrefix(err.Error(), "admin: ") {
				t.Errorf("Verify(pw, %.80q) error %q; want the admin: prefix", tt.encoded, err)
			}
			// A guard against hashing with the bad parameters (a bcrypt
			// cost of 31, a memory of 4 TiB): generous enough for any
			// machine's load, far short of that work.
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("Verify(pw, %.80q) took %v; a bad hash must be refused before any work", tt.encoded, d)
			}
		})
	}
}

func TestArgon2idHashRejectsParameters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		h    Argon2id
	}{
		{"memory over 1 GiB", Argon2id{Memory: 1<<20 + 1}},
		{"time over 100", Argon2id{Time: 101}},
		{"salt too short", Argon2id{SaltLen: 4}},
		{"salt too long", Argon2id{SaltLen: 65}},
		{"key too short", Argon2id{KeyLen: 8}},
		{"key too long", Argon2id{KeyLen: 129}},
		{"memory under 8p", Argon2id{Memory: 64, Threads: 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if enc, err := tt.h.Hash("pw"); err == nil {
				t.Errorf("%+v.Hash = %q, nil; want an error (Verify would refuse the hash)", tt.h, enc)
			}
		})
	}
}

func FuzzArgon2idVerify(f *testing.F) {
	f.Add("pw", mustHash(f, fastArgon2id, "pw"))
	f.Add("pw", "$argon2id$v=19$m=64,t=2,p=1$c29tZXNhbHQ$YfwJSVjtjSU0zzV/P3S9nnQ/USre2wvJMjfCIjrTQbg")
	f.Add("pw", "$argon2id$v=19$m=4294967295,t=4294967295,p=255$c29tZXNhbHQ$YfwJSVjtjSU0zzV/P3S9nnQ/USre2wvJMjfCIjrTQbg")
	f.Add("pw", "$2a$04$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy")
	f.Add("", "")
	f.Add("x", "$$$$$")
	f.Fuzz(func(t *testing.T, password, encoded string) {
		// Keep each run fast: the bounds allow up to 1 GiB, which is right for
		// a server but not for a fuzzer doing thousands of runs.
		if p, _, _, err := ParseArgon2id(encoded); err == nil && uint64(p.Memory)*uint64(p.Time) > 1<<12 {
			t.Skip()
		}
		if IsBcrypt(encoded) {
			if c, err := bcrypt.Cost([]byte(encoded)); err == nil && c > 6 {
				t.Skip()
			}
		}
		ok, err := fastArgon2id.Verify(password, encoded)
		if ok && err != nil {
			t.Fatalf("Verify(%q, %q) = true, %v; want no error with true", password, encoded, err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "admin: ") {
			t.Fatalf("Verify(%q, %q) error %q; want the admin: prefix", password, encoded, err)
		}
		_ = fastArgon2id.NeedsRehash(encoded)
	})
}

func BenchmarkArgon2idVerifyDefault(b *testing.B) {
	enc := mustHash(b, DefaultArgon2id(), "pw")
	for b.Loop() {
		if ok, err := DefaultArgon2id().Verify("pw", enc); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// TestBcryptHasher: Bcrypt writes bcrypt, verifies bcrypt and argon2id,
// and never asks to change a hash's scheme, only to raise a bcrypt cost.
func TestBcryptHasher(t *testing.T) {
	t.Parallel()
	h := Bcrypt{Cost: bcrypt.MinCost}
	enc := mustHash(t, h, "game password")
	if !strings.HasPrefix(enc, "$2a$04$") {
		t.Fatalf("Hash = %q; want a cost-4 bcrypt hash", enc)
	}
	if err := bcrypt.CompareHashAndPassword([]byte(enc), []byte("game password")); err != nil {
		t.Fatalf("golang.org/x/crypto/bcrypt rejects Bcrypt's hash: %v", err)
	}
	argon := mustHash(t, fastArgon2id, "old panel password")
	for _, c := range []struct {
		password, encoded string
		want              bool
	}{
		{"game password", enc, true}, {"wrong", enc, false},
		{"old panel password", argon, true}, {"wrong", argon, false},
	} {
		if ok, err := h.Verify(c.password, c.encoded); ok != c.want || err != nil {
			t.Errorf("Verify(%q, %.12s…) = %v, %v; want %v", c.password, c.encoded, ok, err, c.want)
		}
	}
	if _, err := h.Verify("x", "!"); err == nil {
		t.Error(`Verify("!") = nil error; want malformed`)
	}
	for _, c := range []struct {
		hasher  Bcrypt
		encoded string
		want    bool
	}{
		{h, enc, false},
		{Bcrypt{Cost: 5}, enc, true},    // a higher cost, same scheme
		{Bcrypt{Cost: 4}, argon, false}, // never argon2id -> bcrypt
		{h, "!", false},
	} {
		if got := c.hasher.NeedsRehash(c.encoded); got != c.want {
			t.Errorf("%+v.NeedsRehash(%.12s…) = %v; want %v", c.hasher, c.encoded, got, c.want)
		}
	}
	for _, bad := range []int{3, 17} {
		if _, err := (Bcrypt{Cost: bad}).Hash("pw"); err == nil {
			t.Errorf("Bcrypt{Cost: %d}.Hash = nil error; want out of range", bad)
		}
	}
	if _, err := h.Hash(strings.Repeat("x", 73)); err == nil {
		t.Error("Hash of 73 bytes = nil error; bcrypt reads only 72")
	}
}
