package netkey

import "testing"

func TestKeys(t *testing.T) {
	for _, tt := range []struct{ ip, network, address string }{
		{"198.51.100.7", "198.51.100.0/24", "198.51.100.7"},
		{"::ffff:198.51.100.7", "198.51.100.0/24", "198.51.100.7"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1::/48", "2001:db8:1:2::/64"},
		{"2001:db8:1:2::ffff", "2001:db8:1::/48", "2001:db8:1:2::/64"},
		{"", "", ""},
		{"@unix", "@unix", "@unix"},
	} {
		if got := Network(tt.ip); got != tt.network {
			t.Errorf("Network(%q) = %q; want %q", tt.ip, got, tt.network)
		}
		if got := Address(tt.ip); got != tt.address {
			t.Errorf("Address(%q) = %q; want %q", tt.ip, got, tt.address)
		}
	}
}
