package moderation

import "time"

// BanPreset is a ban length the UI offers and POST
// /_reports/{playerId}/resolve takes by key.
type BanPreset struct {
	// Key names it in a request ("7d").
	Key string `json:"key"`
	// Label says it in English ("7 days"). The panel's UI no longer
	// shows it: it words each length from Seconds in the operator's
	// language. Kept for the API's other clients.
	Label string `json:"label"`
	// Seconds is its length; 0 is a ban for good.
	Seconds int64 `json:"seconds"`
}

// BanPresets are the ban lengths, shortest first, permanent last: the
// UI's ban form (GET /auth/me banPresets) and the resolve endpoint's
// preset read this one list.
func BanPresets() []BanPreset {
	const day = 24 * 60 * 60
	return []BanPreset{
		{"1h", "1 hour", 60 * 60}, {"1d", "1 day", day}, {"7d", "7 days", 7 * day},
		{"30d", "30 days", 30 * day}, {"permanent", "Permanent", 0},
	}
}

// BanPresetLength is the length of the preset key, 0 for a permanent
// ban; ok is false for a key that names none.
func BanPresetLength(key string) (d time.Duration, ok bool) {
	for _, p := range BanPresets() {
		if p.Key == key {
			return time.Duration(p.Seconds) * time.Second, true
		}
	}
	return 0, false
}
