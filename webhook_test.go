package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gameadmin/admin"
)

// hookServer is a local incoming webhook: it answers the statuses of
// answers in turn (then 204) and keeps every body posted.
type hookServer struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  []map[string]any
	answers []func(w http.ResponseWriter)
}

func newHookServer(t *testing.T, answers ...func(w http.ResponseWriter)) *hookServer {
	h := &hookServer{answers: answers}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("webhook got a body that is not JSON (%v, %q)", err, r.Header.Get("Content-Type"))
		}
		h.mu.Lock()
		h.bodies = append(h.bodies, body)
		var answer func(w http.ResponseWriter)
		if len(h.answers) > 0 {
			answer, h.answers = h.answers[0], h.answers[1:]
		}
		h.mu.Unlock()
		if answer != nil {
			answer(w)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookServer) posts() []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]map[string]any(nil), h.bodies...)
}

func status(code int, header ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
	}
}

// secretPath is the part of a webhook URL that is its secret.
const secretPath = "/api/webhooks/123/s3cr3t-t0ken"

func banEvent() admin.AuditEvent {
	return admin.AuditEvent{ID: 1, Action: "user.ban", ActionLabel: "Banned", Operator: "Ana", OperatorID: "1",
		Resource: "users", TargetID: "7", Target: "Player 07",
		Payload: map[string]any{"reason": "speed hack <!channel> @everyone", "until": "2026-12-04T10:00:00Z"}}
}

// TestWebhookSinkShapes: each kind gets its body, the line escaped for
// its markup (a reason's <!channel> and @everyone are text), with
// Discord's mentions and embeds off and Slack's mrkdwn and unfurling off.
func TestWebhookSinkShapes(t *testing.T) {
	tests := []struct {
		name string
		kind admin.WebhookKind
		want map[string]any
	}{
		{"discord", admin.Discord, map[string]any{
			"content":          `Ana banned Player 07 until 4 Dec 2026 — speed hack \<\!channel\> \@everyone · https://game.example.com/admin/users/7`,
			"allowed_mentions": map[string]any{"parse": []any{}},
			"flags":            float64(4),
		}},
		{"slack", admin.Slack, map[string]any{
			"text":         "Ana banned Player 07 until 4 Dec 2026 — speed hack &lt;!channel&gt; @everyone · https://game.example.com/admin/users/7",
			"mrkdwn":       false,
			"unfurl_links": false,
			"unfurl_media": false,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newHookServer(t)
			sink := admin.WebhookSink(admin.WebhookOptions{URL: srv.URL + secretPath, Kind: tt.kind, PanelURL: "https://game.example.com/admin/"})
			sink(context.Background(), banEvent())
			posts := srv.posts()
			if len(posts) != 1 {
				t.Fatalf("posted %d times; want 1", len(posts))
			}
			if !reflect.DeepEqual(posts[0], tt.want) {
				t.Errorf("posted\n%#v\nwant\n%#v", posts[0], tt.want)
			}
		})
	}
}

func TestWebhookSinkChoosesActions(t *testing.T) {
	srv := newHookServer(t)
	ctx := context.Background()
	sink := admin.WebhookSink(admin.WebhookOptions{URL: srv.URL + secretPath, Kind: admin.Discord, PanelURL: "https://p.example/admin", ReportThreshold: 3})
	sink(ctx, admin.AuditEvent{Action: "update", Resource: "users", TargetID: "7"})
	sink(ctx, admin.AuditEvent{Action: "user.unban", Resource: "users", TargetID: "7"})
	for n := 1; n <= 6; n++ { // a flood of reports posts once, at the threshold
		sink(ctx, admin.AuditEvent{Action: "report.file", Resource: "reports", TargetID: "r", Payload: map[string]any{"playerId": "42", "category": "cheating", "openReports": float64(n)}})
	}
	sink(ctx, admin.AuditEvent{Action: "user.erase", Operator: "Ana", Resource: "users", TargetID: "8"})
	var lines []string
	for _, p := range srv.posts() {
		lines = append(lines, p["content"].(string))
	}
	want := []string{
		"user 42 has 3 open reports — latest: cheating · https://p.example/admin/users/42",
		"Ana erased user 8 · https://p.example/admin/users/8",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("posted\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}

	// Chosen actions replace the default ones.
	srv2 := newHookServer(t)
	sink = admin.WebhookSink(admin.WebhookOptions{URL: srv2.URL + secretPath, Kind: admin.Slack, Actions: []string{"update"}})
	sink(ctx, banEvent())
	sink(ctx, admin.AuditEvent{Action: "update", ActionLabel: "Updated", Operator: "Ana", Resource: "players", TargetID: "9"})
	if p := srv2.posts(); len(p) != 1 || p[0]["text"] != "Ana: Updated players 9" {
		t.Errorf("posted %v; want only the update, without a link (no PanelURL)", p)
	}
}

func TestWebhookSinkRetries(t *testing.T) {
	tests := []struct {
		name     string
		answers  []func(w http.ResponseWriter)
		maxWait  time.Duration
		posts    int
		atLeast  time.Duration // the wait the answers asked for, capped
		warnings int
	}{
		{"500 then success", []func(http.ResponseWriter){status(500)}, 20 * time.Millisecond, 2, 20 * time.Millisecond, 0},
		{"429 with Retry-After", []func(http.ResponseWriter){status(429, "Retry-After", "1")}, 5 * time.Second, 2, time.Second, 0},
		{"Retry-After past the cap", []func(http.ResponseWriter){status(429, "Retry-After", "3600")}, 30 * time.Millisecond, 2, 30 * time.Millisecond, 0},
		{"always 503", []func(http.ResponseWriter){status(503), status(503), status(503), status(503)}, 10 * time.Millisecond, 3, 0, 1},
		{"400 is not retried", []func(http.ResponseWriter){status(400)}, 10 * time.Millisecond, 1, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newHookServer(t, tt.answers...)
			var logs bytes.Buffer
			sink := admin.WebhookSink(admin.WebhookOptions{URL: srv.URL + secretPath, Kind: admin.Discord, MaxRetryWait: tt.maxWait,
				Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			start := time.Now()
			sink(context.Background(), banEvent())
			d := time.Since(start)
			if n := len(srv.posts()); n != tt.posts {
				t.Errorf("posted %d times; want %d", n, tt.posts)
			}
			// At least the wait asked for; at most far less than an
			// uncapped Retry-After (an hour), however slow the machine.
			if d < tt.atLeast || d > tt.atLeast+20*time.Second {
				t.Errorf("took %v; want at least %v, and not 20 s more", d, tt.atLeast)
			}
			if n := strings.Count(logs.String(), "webhook post failed"); n != tt.warnings {
				t.Errorf("logged %d failures; want %d\n%s", n, tt.warnings, logs.String())
			}
			if strings.Contains(logs.String(), "s3cr3t") {
				t.Errorf("the log holds the webhook's secret:\n%s", logs.String())
			}
		})
	}
}

// TestWebhookSinkKeepsURLSecret: a post that fails before any answer (no
// server, a timeout) logs the host, never the URL's secret path.
func TestWebhookSinkKeepsURLSecret(t *testing.T) {
	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-hang }))
	defer slow.Close()
	defer close(hang)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	for _, base := range []string{slow.URL, gone.URL} {
		var logs bytes.Buffer
		sink := admin.WebhookSink(admin.WebhookOptions{URL: base + secretPath, Kind: admin.Slack, Timeout: 100 * time.Millisecond,
			Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		start := time.Now()
		sink(context.Background(), banEvent())
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("a post to %s took %v; want it bounded by Timeout (100 ms), not waiting for the server", base, d)
		}
		out := logs.String()
		if !strings.Contains(out, "webhook post failed") || !strings.Contains(out, strings.TrimPrefix(base, "http://")) {
			t.Errorf("log = %q; want the failure and the host", out)
		}
		if strings.Contains(out, "s3cr3t") || strings.Contains(out, "/api/webhooks") {
			t.Errorf("the log holds the webhook's URL:\n%s", out)
		}
	}
}

func TestWebhookSinkSetupMistakes(t *testing.T) {
	tests := []struct {
		name string
		opts admin.WebhookOptions
	}{
		{"no URL", admin.WebhookOptions{}},
		{"relative URL", admin.WebhookOptions{URL: "/api/webhooks/1/x", Kind: admin.Discord}},
		{"unknown host", admin.WebhookOptions{URL: "https://chat.example.com/hook/x"}},
		{"unknown kind", admin.WebhookOptions{URL: "https://hooks.slack.com/services/x", Kind: "teams"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				v := recover()
				if v == nil {
					t.Fatal("WebhookSink did not panic")
				}
				if msg := v.(string); !strings.HasPrefix(msg, "admin: WebhookSink") || strings.Contains(msg, "/x") {
					t.Errorf("panic %q; want an admin: message without the URL's path", msg)
				}
			}()
			admin.WebhookSink(tt.opts)
		})
	}
	// The kind is known from the hosts of the two services.
	admin.WebhookSink(admin.WebhookOptions{URL: "https://discord.com/api/webhooks/1/x"})
	admin.WebhookSink(admin.WebhookOptions{URL: "https://hooks.slack.com/services/x"})
}
