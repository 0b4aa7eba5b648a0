package webhook

import (
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"2", 2 * time.Second},
		{"0.5", 500 * time.Millisecond},
		{"-1", 0},
		{"soon", 0},
		{"Fri, 27 Nov 2026 12:00:30 GMT", 30 * time.Second},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.in, now); got != tt.want {
			t.Errorf("retryAfter(%q) = %v; want %v", tt.in, got, tt.want)
		}
	}
}

func TestKindOf(t *testing.T) {
	tests := []struct {
		host string
		want Kind
	}{
		{"discord.com", Discord},
		{"Discord.com", Discord},
		{"ptb.discord.com", Discord},
		{"discordapp.com", Discord},
		{"hooks.slack.com", Slack},
		{"slack.com", ""},
		{"discord.com.example.org", ""},
	}
	for _, tt := range tests {
		if got := KindOf(tt.host); got != tt.want {
			t.Errorf("KindOf(%q) = %q; want %q", tt.host, got, tt.want)
		}
	}
}
