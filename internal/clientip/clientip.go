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

// Of returns the client IP of r. Headers are read only when the peer
// (r.RemoteAddr) is in trusted, since anyone else can write them: then the
// client is the first untrusted address of X-Forwarded-For read from the
// right, or else X-Real-IP, or else the peer. An address is returned in its
// canonical form; a peer that does not parse (a Unix socket) is returned as
// it is, headers ignored.
func Of(r *http.Request, trusted []netip.Prefix) string {
	peer, ok := ParseHop(r.RemoteAddr)
	if !ok {
		return r.RemoteAddr
	}
	if !Trusted(peer, trusted) {
		return peer.String()
	}
	if ip, ok := forwardedFor(r.Header.Values("X-Forwarded-For"), trusted); ok {
		return ip.String()
	}
	if ip, ok := ParseHop(r.Header.Get("X-Real-IP")); ok {
		return ip.String()
	}
	return peer.String()
}

// forwardedFor walks the X-Forwarded-For chain from the right, the end our
// own proxies wrote, past the hops that are trusted proxies themselves. The
// first untrusted hop is the client. When every hop is trusted, the leftmost
// is. An entry that does not parse ends the walk at the last good hop: what
// lies left of garbage is not worth trusting.
func forwardedFor(lines []string, trusted []netip.Prefix) (netip.Addr, bool) {
	var last netip.Addr
	for i := len(lines) - 1; i >= 0; i-- {
		rest := lines[i]
		for {
			entry := rest
			comma := strings.LastIndexByte(rest, ',')
			if comma >= 0 {
				entry, rest = rest[comma+1:], rest[:comma]
			}
			ip, ok := ParseHop(entry)
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
