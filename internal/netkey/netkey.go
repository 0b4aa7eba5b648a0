// Package netkey names client addresses as the rate limits count them.
package netkey

import "net/netip"

// Address is the key of a client address for per-address limits: an IPv4
// address as it is, an IPv6 one as its /64 (one subscriber's, which can
// rotate through 2^64 addresses at will). A string that is no address
// stands for itself.
func Address(ip string) string { return prefix(ip, 32, 64) }

// Network is a failure limit's notion of "one place": the /24 of an IPv4
// address, the /48 of an IPv6 one (what one site is usually given, so an
// attacker holding a /48 counts as one network, not 65,536).
func Network(ip string) string { return prefix(ip, 24, 48) }

func prefix(ip string, v4, v6 int) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	addr = addr.Unmap() // ::ffff:1.2.3.4 is the IPv4 client it carries
	bits := v6
	if addr.Is4() {
		bits = v4
	}
	p, err := addr.Prefix(bits)
	if err != nil {
		return ip
	}
	if bits == 32 {
		return p.Addr().String()
	}
	return p.String()
}
