package schema_test

import (
	"testing"

	"github.com/gameadmin/admin/internal/schema"
)

func TestHumanize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"cloudSaves", "Cloud Saves"},
		{"APIKeys", "API Keys"},
		{"leaderboardEntries", "Leaderboard Entries"},
		{"userNotes", "User Notes"},
		{"user_notes", "User Notes"},
		{"adminAudit", "Admin Audit"},
		{"analyticsEvents", "Analytics Events"},
		{"x", "X"},
		{"id", "ID"},
		{"user_id", "User ID"},
		{"display_name", "Display Name"},
		{"HTTPServer", "HTTP Server"},
		{"userIDs", "User IDs"},
		{"slot2", "Slot2"},
		{"already Spaced", "Already Spaced"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := schema.Humanize(tt.in); got != tt.want {
			t.Errorf("Humanize(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestGuessIcon(t *testing.T) {
	tests := []struct{ in, want string }{
		{"game_users", "user"},
		{"game_configs", "setting"},
		{"game_leaderboards", "trophy"},
		{"game_analytics_events", "line-chart"},
		{"game_cloud_saves", "cloud"},
		{"game_leaderboard_entries", "trophy"},
		{"game_roles", "safety"},
		{"game_user_notes", "file-text"},
		{"game_admin_audit", "safety"},
		{"match_scores", "trophy"},
		{"public.guilds", "team"},
		{"players", "user"},
		{"api_keys", "key"},
		{"categories", "tag"},
		{"game_whatever", "database"},
		{"", "database"},
	}
	for _, tt := range tests {
		got := schema.GuessIcon(tt.in)
		if got != tt.want {
			t.Errorf("GuessIcon(%q) = %q; want %q", tt.in, got, tt.want)
		}
		if !schema.IsIcon(got) {
			t.Errorf("GuessIcon(%q) = %q, which is not in IconNames", tt.in, got)
		}
	}
	for _, name := range []string{"user", "team", "safety", "trophy", "file-text", "setting", "line-chart", "database", "thunderbolt"} {
		if !schema.IsIcon(name) {
			t.Errorf("IconNames lacks %q", name)
		}
	}
}
