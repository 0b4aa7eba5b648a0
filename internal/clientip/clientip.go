// Package clientip finds the client address of a request behind reverse
// proxies: forwarding headers are believed only from trusted peers, read
// from the right, and every address is canonical (IPv4-mapped unmapped,
// zone dropped), so one client has one rate-limit key.
package clientip

import (
	"net/http"
	"net/netip"
	"strings"
)

// Resolver finds client addresses: the peers it trusts, and the one
// header their proxy overwrites, if the integrator named one.
type Resolver struct {
	// Trusted are the peers whose forwarding headers are believed.
	Trusted []netip.Prefix
	// Header, when set ("X-Real-IP", "CF-Connecting-IP"), names a header
	// that a trusted peer's proxy always overwrites with the client's
	// address: it wins over X-Forwarded-For and Forwarded. Empty: only
	// those two are read, since a proxy that passes a client's own
	// X-Real-IP through (Go's ReverseProxy with Rewrite, nginx's default
	// proxy_pass) would let it choose its rate-limit key.
	Header string
}

// Of returns the client IP of r. Headers are read only when the peer
// (r.RemoteAddr) is trusted, since anyone else can write them: then the
// client is the address in the named Header, else the first untrusted
// hop of X-Forwarded-For read from the right, else that of Forwarded
// (RFC 7239), else the peer. An address is returned in its canonical
// form; a peer that does not parse (a Unix socket) is returned as it is,
// headers ignored.
func (rv Resolver) Of(r *http.Request) string {
	peer, ok := ParseHop(r.RemoteAddr)
	if !ok {
		return r.RemoteAddr
	}
	if !Trusted(peer, rv.Trusted) {
		return peer.String()
	}
	if rv.Header != "" {
		if ip, ok := ParseHop(r.Header.Get(rv.Header)); ok {
			return ip.String()
		}
	}
	if ip, ok := walk(r.Header.Values("X-Forwarded-For"), rv.Trusted, ParseHop); ok {
		return ip.String()
	}
	if ip, ok := walk(r.Header.Values("Forwarded"), rv.Trusted, forwardedNode); ok {
		return ip.String()
	}
	return peer.String()
}

// Of is Resolver{Trusted: trusted}.Of(r).
func Of(r *http.Request, trusted []netip.Prefix) string {
	return Resolver{Trusted: trusted}.Of(r)
}

// walk walks a chain of hops (X-Forwarded-For, or Forwarded's elements)
// from the right, the end our own proxies wrote, past the hops that are
// trusted proxies themselves. The first untrusted hop is the client. When
// every hop is trusted, the leftmost is. An entry that does not parse ends
// the walk at the last good hop: what lies left of garbage is not worth
// trusting.
func walk(lines []string, trusted []netip.Prefix, parse func(string) (netip.Addr, bool)) (netip.Addr, bool) {
	var last netip.Addr
	for i := len(lines) - 1; i >= 0; i-- {
		rest := lines[i]
		for {
			entry := rest
			comma := strings.LastIndexByte(rest, ',')
			if comma >= 0 {
				entry, rest = rest[comma+1:], rest[:comma]
			}
			ip, ok := parse(entry)
			if !ok {
				return last, last.IsValid()
			}
			if !Trusted(ip, trusted) {
				return ip, true
			}
			last = ip
			if comma < 0 {
				break
			}
		}
	}
	return last, last.IsValid()
}

// forwardedNode parses the for= node of one Forwarded element
// (`for=192.0.2.60;proto=http`, `for="[2001:db8::17]:4711"`). An element
// without one, or with an obfuscated or "unknown" node, does not parse.
func forwardedNode(element string) (netip.Addr, bool) {
	for pair := range strings.SplitSeq(element, ";") {
		name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok || !strings.EqualFold(name, "for") {
			continue
		}
		return ParseHop(strings.Trim(value, `"`))
	}
	return netip.Addr{}, false
}

// ParseHop parses one address as found in RemoteAddr or a forwarding header:
// "1.2.3.4", "1.2.3.4:80", "::1", "[::1]" or "[::1]:80", surrounded by
// optional spaces. It unmaps IPv4-mapped IPv6 and drops the zone, so that one
// client has one key and matches the IPv4 prefixes.
func ParseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	ip, err := netip.ParseAddr(s)
	if err != nil {
		ap, perr := netip.ParseAddrPort(s)
		if perr == nil {
			ip, err = ap.Addr(), nil
		} else if len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']' {
			ip, err = netip.ParseAddr(s[1 : len(s)-1])
		}
	}
	if err != nil {
		return netip.Addr{}, false
	}
	return ip.Unmap().WithZone(""), true
}

// Trusted reports whether ip is in one of the trusted prefixes.
func Trusted(ip netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}
