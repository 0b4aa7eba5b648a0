package query

import "testing"

// TestLoadZone: _tz takes IANA names only, and its error names _tz.
func TestLoadZone(t *testing.T) {
	if _, err := loadZone("Asia/Tokyo"); err != nil {
		t.Errorf("loadZone(Asia/Tokyo) = %v", err)
	}
	for _, bad := range []string{"", "Local", "Mars/Olympus", "../etc/passwd", "/etc/localtime"} {
		if _, err := loadZone(bad); err == nil || err.(*Error).Column != TZParam {
			t.Errorf("loadZone(%q) = %v; want an error naming _tz", bad, err)
		}
	}
}
