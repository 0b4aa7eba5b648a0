package admin

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/gameadmin/admin/internal/webhook"
)

// WebhookKind is the service an incoming webhook belongs to: it decides
// the shape of what WebhookSink posts.
type WebhookKind = webhook.Kind

// The kinds of incoming webhook WebhookSink posts to.
const (
	// Discord posts {"content": line} with mentions turned off.
	Discord WebhookKind = webhook.Discord
	// Slack posts {"text": line} with Slack's markup characters escaped.
	Slack WebhookKind = webhook.Slack
)

// WebhookOptions configure WebhookSink.
type WebhookOptions struct {
	// URL is the incoming webhook's URL. It is a secret (whoever has it
	// posts to the channel): it is never logged, only its host. Required.
	URL string
	// Kind is Discord or Slack. Default: known from the URL's host
	// (discord.com, hooks.slack.com).
	Kind WebhookKind
	// Actions are the audit actions posted. Default "user.ban",
	// "user.erase" and "report.file" (see ReportThreshold).
	Actions []string
	// ReportThreshold is the number of open reports at which a player's
	// "report.file" entry is posted: exactly at it, so a flood of reports
	// posts one line, and again only once the count falls and climbs
	// back. Default 5.
	ReportThreshold int
	// PanelURL is the panel UI's absolute URL
	// ("https://game.example.com/admin"): each line ends with a link to
	// the row, <PanelURL>/users/<id>. Default "": no link.
	PanelURL string
	// HTTPClient posts. Default http.DefaultClient.
	HTTPClient *http.Client
	// Timeout bounds each post. Default 5 seconds.
	Timeout time.Duration
	// MaxRetryWait caps the wait before a retry, whatever a 429's
	// Retry-After asks: a post is tried at most three times, again only
	// after a 429 or a 5xx. Default 10 seconds.
	MaxRetryWait time.Duration
	// Logger receives the posts that failed, with the URL's host only.
	// Default slog.Default().
	Logger *slog.Logger
}

// WebhookSink returns an Options.OnAudit that posts the chosen audit
// events to a Discord or Slack incoming webhook, one readable line each
// with a link to the panel:
//
//	me@example.com banned Player 07 until 4 Dec 2026 — speed hack · https://game.example.com/admin/users/7
//
// A URL that is not absolute http(s), or a Kind neither set nor known from
// the URL's host, is a mistake at setup: WebhookSink panics.
func WebhookSink(opts WebhookOptions) func(ctx context.Context, e AuditEvent) {
	return webhook.New(webhook.Options(opts))
}
