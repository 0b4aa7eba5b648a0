package query

import "testing"

// TestInetText: each address type takes what its database stores and
// refuses the rest in words that say what it takes.
func TestInetText(t *testing.T) {
	for _, tt := range []struct {
		dbType, s string
		ok        bool
	}{
		{"inet", "10.0.0.3", true},
		{"inet", "10.0.0.0/8", true},
		{"cidr", "10.0.0.0/8", true},
		{"cidr", "10.0.0.1/8", false},
		{"macaddr", "08:00:2b:01:02:03", true},
		{"macaddr", "10.0.0.3", false},
		{"inet6", "::1", true},
		{"inet6", "::ffff:10.0.0.3", true},
		{"inet6", "10.0.0.3", false}, // MariaDB 10.11 refuses it
		{"inet6", "fe80::1%eth0", false},
		{"inet6", "::/0", false},
		{"INET4", "10.0.0.3", true},
		{"inet4", "::1", false},
		{"varchar(45)", "::1", true},
	} {
		got, err := inetText(tt.dbType, tt.s)
		if (err == nil) != tt.ok || err == nil && got != tt.s {
			t.Errorf("inetText(%q, %q) = %q, %v; want ok %v", tt.dbType, tt.s, got, err, tt.ok)
		}
	}
	if _, err := inetText("inet6", "10.0.0.3"); err == nil || message(err) != `"10.0.0.3" is not an IPv6 address such as ::1 (an IPv4 one as ::ffff:10.0.0.3)` {
		t.Errorf("inetText(inet6, 10.0.0.3) = %v; want the IPv6 form named", err)
	}
}
