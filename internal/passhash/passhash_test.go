package passhash

import (
	"strings"
	"testing"
)

func TestArgon2idRoundTripAndParse(t *testing.T) {
	p := Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}
	h, err := HashArgon2id(p, "hunter2")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("hash = %q", h)
	}
	got, salt, key, err := ParseArgon2id(h)
	if err != nil || got != p || len(salt) != 16 || len(key) != 32 {
		t.Fatalf("ParseArgon2id = %+v, %d, %d, %v; want %+v", got, len(salt), len(key), err, p)
	}
	for pw, want := range map[string]bool{"hunter2": true, "hunter3": false, "": false} {
		if ok, err := Verify(pw, h); ok != want || err != nil {
			t.Errorf("Verify(%q) = %v, %v; want %v", pw, ok, err, want)
		}
	}
}

func TestBoundsRefuseWorkBeforeDoingIt(t *testing.T) {
	for _, p := range []Params{
		{Memory: MaxArgonMemory + 1, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32},
		{Memory: 64, Time: MaxArgonTime + 1, Threads: 1, SaltLen: 16, KeyLen: 32},
		{Memory: 64, Time: 1, Threads: 0, SaltLen: 16, KeyLen: 32},
		{Memory: 64, Time: 1, Threads: 1, SaltLen: MinArgonSalt - 1, KeyLen: 32},
		{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: MaxArgonKey + 1},
	} {
		if _, err := HashArgon2id(p, "x"); err == nil {
			t.Errorf("HashArgon2id(%+v) hashed", p)
		}
	}
	for _, enc := range []string{
		"$argon2id$v=19$m=4294967295,t=1,p=1$c29tZXNhbHQ$YfwJSVjtjSU0zzV/P3S9nnQ/USre2wvJMjfCIjrTQbg",
		"$argon2id$v=18$m=64,t=1,p=1$c29tZXNhbHQ$YfwJSVjtjSU0zzV/P3S9nnQ/USre2wvJMjfCIjrTQbg",
		"$argon2id$v=19$t=1,m=64,p=1$c29tZXNhbHQ$YfwJSVjtjSU0zzV/P3S9nnQ/USre2wvJMjfCIjrTQbg",
		"$argon2i$v=19$m=64,t=1,p=1$c29tZXNhbHQ$YfwJSVjtjSU0zzV/P3S9nnQ/USre2wvJMjfCIjrTQbg",
		"$2a$31$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy",
		"$2b$",
		"!",
	} {
		if ok, err := Verify("pw", enc); ok || err == nil || !strings.HasPrefix(err.Error(), "admin: ") {
			t.Errorf("Verify(%q) = %v, %v; want an admin: error", enc, ok, err)
		}
	}
}
