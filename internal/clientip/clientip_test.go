package clientip

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientIP(t *testing.T) {
	t.Parallel()
	// Loopback, the private ranges and link-local: a deployment that lists
	// its own proxies' ranges.
	trusted := append(loopback(),
		netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("fc00::/7"),
		netip.MustParsePrefix("169.254.0.0/16"), netip.MustParsePrefix("fe80::/10"))
	tests := []struct {
		name   string
		remote string
		xff    []string // one element per header line
		realIP string
		want   string
	}{
		{"untrusted peer", "203.0.113.7:5555", nil, "", "203.0.113.7"},
		{"untrusted peer spoofs XFF", "203.0.113.7:5555", []string{"1.1.1.1"}, "", "203.0.113.7"},
		{"untrusted peer spoofs X-Real-IP", "203.0.113.7:5555", nil, "1.1.1.1", "203.0.113.7"},
		{"trusted peer without headers", "10.0.0.2:80", nil, "", "10.0.0.2"},
		{"trusted peer, one hop", "10.0.0.2:80", []string{"198.51.100.9"}, "", "198.51.100.9"},
		{"client prepends a spoofed hop", "10.0.0.2:80", []string{"1.1.1.1, 198.51.100.9"}, "", "198.51.100.9"},
		{"chain of trusted proxies", "127.0.0.1:80", []string{"6.6.6.6, 198.51.100.9, 10.1.1.1, 192.168.0.3"}, "", "198.51.100.9"},
		{"every hop trusted: leftmost", "127.0.0.1:80", []string{"10.0.0.5, 172.16.3.4, 192.168.0.3"}, "", "10.0.0.5"},
		{"several header lines", "10.0.0.2:80", []string{"6.6.6.6", "198.51.100.9, 10.0.0.3", "10.0.0.4"}, "", "198.51.100.9"},
		{"several lines, client in the last", "10.0.0.2:80", []string{"6.6.6.6", "198.51.100.9"}, "", "198.51.100.9"},
		{"spaces and ports in entries", "10.0.0.2:80", []string{"  198.51.100.9:4711 ,10.0.0.3:80 "}, "", "198.51.100.9"},
		{"X-Real-IP not named: XFF", "10.0.0.2:80", []string{"198.51.100.9"}, "198.51.100.10", "198.51.100.9"},
		{"X-Real-IP not named: ignored", "10.0.0.2:80", nil, "198.51.100.10", "10.0.0.2"},
		{"garbage XFF does not fall to X-Real-IP", "10.0.0.2:80", []string{"nonsense"}, "198.51.100.10", "10.0.0.2"},
		{"garbage XFF falls to peer", "10.0.0.2:80", []string{"nonsense"}, "", "10.0.0.2"},
		{"garbage left of the client is ignored", "10.0.0.2:80", []string{"nonsense, 198.51.100.9"}, "", "198.51.100.9"},
		{"garbage stops at the last good hop", "10.0.0.2:80", []string{"198.51.100.9, nonsense, 10.0.0.3"}, "", "10.0.0.3"},
		{"empty entry is garbage", "10.0.0.2:80", []string{"198.51.100.9,, 10.0.0.3"}, "", "10.0.0.3"},
		{"empty header line", "10.0.0.2:80", []string{""}, "", "10.0.0.2"},
		{"IPv6 peer untrusted", "[2001:db8::1]:443", []string{"1.1.1.1"}, "", "2001:db8::1"},
		{"IPv6 peer non-canonical", "[2001:DB8:0:0::1]:443", nil, "", "2001:db8::1"},
		{"IPv6 loopback peer", "[::1]:443", []string{"2001:db8::7"}, "", "2001:db8::7"},
		{"IPv6 ULA peer, bracketed hop", "[fd00::1]:443", []string{"[2001:db8::7]:5000, fd00::2"}, "", "2001:db8::7"},
		{"IPv6 hop with zone", "[::1]:1", []string{"fe80::1%eth0, ::1"}, "", "fe80::1"},
		{"IPv4-mapped peer is trusted", "[::ffff:10.0.0.2]:80", []string{"198.51.100.9"}, "", "198.51.100.9"},
		{"IPv4-mapped hop is unmapped", "10.0.0.2:80", []string{"::ffff:198.51.100.9"}, "", "198.51.100.9"},
		{"IPv4-mapped untrusted peer", "[::ffff:203.0.113.7]:80", []string{"1.1.1.1"}, "", "203.0.113.7"},
		{"link-local peer trusted", "169.254.1.1:80", []string{"198.51.100.9"}, "", "198.51.100.9"},
		{"peer without port", "203.0.113.7", nil, "", "203.0.113.7"},
		{"unparseable peer kept raw", "@", []string{"1.1.1.1"}, "", "@"},
		{"empty peer kept raw", "", []string{"1.1.1.1"}, "1.1.1.1", ""},
		{"172.32 is not private", "172.32.0.1:80", []string{"1.1.1.1"}, "", "172.32.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			for _, line := range tt.xff {
				r.Header.Add("X-Forwarded-For", line)
			}
			if tt.realIP != "" {
				r.Header.Set("X-Real-IP", tt.realIP)
			}
			if got := Of(r, trusted); got != tt.want {
				t.Errorf("Of(%q, XFF %q, X-Real-IP %q) = %q; want %q", tt.remote, tt.xff, tt.realIP, got, tt.want)
			}
		})
	}
}

// TestClientIPHeaders: X-Real-IP (or any header) counts only when the
// integrator names it, and then wins; Forwarded (RFC 7239) is read as
// X-Forwarded-For is, after it.
func TestClientIPHeaders(t *testing.T) {
	t.Parallel()
	trusted := append(loopback(), netip.MustParsePrefix("10.0.0.0/8"))
	tests := []struct {
		name    string
		named   string
		remote  string
		headers map[string][]string
		want    string
	}{
		{"named header wins", "X-Real-IP", "10.0.0.2:80", map[string][]string{"X-Real-Ip": {"198.51.100.10"}, "X-Forwarded-For": {"198.51.100.9"}}, "198.51.100.10"},
		{"named header with spaces", "X-Real-IP", "10.0.0.2:80", map[string][]string{"X-Real-Ip": {" 198.51.100.10 "}}, "198.51.100.10"},
		{"named header garbage: XFF", "X-Real-IP", "10.0.0.2:80", map[string][]string{"X-Real-Ip": {"nonsense"}, "X-Forwarded-For": {"198.51.100.9"}}, "198.51.100.9"},
		{"another named header", "CF-Connecting-IP", "10.0.0.2:80", map[string][]string{"Cf-Connecting-Ip": {"2001:db8::9"}, "X-Real-Ip": {"198.51.100.10"}}, "2001:db8::9"},
		{"named header from an untrusted peer", "X-Real-IP", "203.0.113.7:80", map[string][]string{"X-Real-Ip": {"198.51.100.10"}}, "203.0.113.7"},
		{"not named: X-Real-IP from loopback ignored", "", "127.0.0.1:80", map[string][]string{"X-Real-Ip": {"198.51.100.10"}}, "127.0.0.1"},
		{"Forwarded", "", "127.0.0.1:80", map[string][]string{"Forwarded": {"for=198.51.100.9;proto=https"}}, "198.51.100.9"},
		{"Forwarded, quoted IPv6 with port", "", "127.0.0.1:80", map[string][]string{"Forwarded": {`for="[2001:db8:cafe::17]:4711"`}}, "2001:db8:cafe::17"},
		{"Forwarded chain from the right", "", "127.0.0.1:80", map[string][]string{"Forwarded": {"for=6.6.6.6, For=198.51.100.9;by=10.0.0.1", "for=10.0.0.3"}}, "198.51.100.9"},
		{"Forwarded unknown node stops", "", "127.0.0.1:80", map[string][]string{"Forwarded": {"for=198.51.100.9, for=unknown, for=10.0.0.3"}}, "10.0.0.3"},
		{"Forwarded obfuscated node stops", "", "127.0.0.1:80", map[string][]string{"Forwarded": {"for=_hidden"}}, "127.0.0.1"},
		{"XFF before Forwarded", "", "127.0.0.1:80", map[string][]string{"Forwarded": {"for=198.51.100.9"}, "X-Forwarded-For": {"198.51.100.8"}}, "198.51.100.8"},
		{"Forwarded from an untrusted peer", "", "203.0.113.7:80", map[string][]string{"Forwarded": {"for=198.51.100.9"}}, "203.0.113.7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			for k, v := range tt.headers {
				r.Header[k] = v
			}
			if got := (Resolver{Trusted: trusted, Header: tt.named}).Of(r); got != tt.want {
				t.Errorf("Of(%q, %v, named %q) = %q; want %q", tt.remote, tt.headers, tt.named, got, tt.want)
			}
		})
	}
}

func TestClientIPCustomTrusted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		trusted []netip.Prefix
		remote  string
		xff     string
		want    string
	}{
		{"none trusted: loopback ignored", nil, "127.0.0.1:80", "198.51.100.9", "127.0.0.1"},
		{"public proxy trusted", []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}, "203.0.113.7:80", "198.51.100.9, 203.0.113.8", "198.51.100.9"},
		{"private not trusted by custom list", []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}, "10.0.0.1:80", "198.51.100.9", "10.0.0.1"},
		{"private hop is the client when untrusted", []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}, "203.0.113.7:80", "198.51.100.9, 10.0.0.1", "10.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			r.Header.Set("X-Forwarded-For", tt.xff)
			if got := Of(r, tt.trusted); got != tt.want {
				t.Errorf("Of(%q, XFF %q) = %q; want %q", tt.remote, tt.xff, got, tt.want)
			}
		})
	}
}

func FuzzClientIP(f *testing.F) {
	f.Add("10.0.0.2:80", "1.1.1.1, 198.51.100.9", "10.0.0.3", "198.51.100.10")
	f.Add("[::1]:443", "[2001:db8::7]:5000, fd00::2", "", "")
	f.Add("203.0.113.7:1", "1.1.1.1", "", "x")
	f.Add("@", ",,,", "", "")
	f.Add("[::ffff:10.0.0.2]:80", "fe80::1%eth0", "::ffff:1.2.3.4", "[::1]")
	f.Fuzz(func(t *testing.T, remote, xff1, xff2, realIP string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		r.Header["X-Forwarded-For"] = []string{xff1, xff2}
		r.Header.Set("X-Real-IP", realIP)
		r.Header.Set("Forwarded", realIP)
		got := Resolver{Trusted: loopback(), Header: "X-Real-IP"}.Of(r)
		if got == remote {
			return
		}
		ip, err := netip.ParseAddr(got)
		if err != nil {
			t.Fatalf("Of(%q, XFF %q %q, X-Real-IP %q) = %q; want a parseable address or the raw peer", remote, xff1, xff2, realIP, got)
		}
		if ip.String() != got || ip.Is4In6() || ip.Zone() != "" {
			t.Fatalf("Of(%q, ...) = %q; want the canonical form %q, unmapped, without zone", remote, got, ip.Unmap().WithZone(""))
		}
		if peer, ok := ParseHop(remote); ok && !Trusted(peer, loopback()) && got != peer.String() {
			t.Fatalf("Of(%q, XFF %q %q) = %q; want the untrusted peer %q", remote, xff1, xff2, got, peer)
		}
	})
}

// loopback is admin.DefaultTrustedProxies: a reverse proxy on the same host.
func loopback() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
}
