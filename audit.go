package admin

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/gameadmin/admin/internal/engine"
	"github.com/gameadmin/admin/internal/webhook"
	"github.com/uptrace/bun"
)

// Audit records and prunes entries of the append-only audit log
// (game_admin_audit, resource adminAudit).
type Audit struct{ e *engine.Audit }

// Record appends one entry. CreatedAt defaults to now; Action and Resource
// are required. A payload past Options.AuditMaxPayloadBytes is cut down
// (see capPayload) and marked "_truncated". It returns any failure to
// write.
func (au *Audit) Record(ctx context.Context, e AuditEntry) error {
	return au.e.Record(ctx, e)
}

// RecordTx appends one entry through tx, the transaction of the change it
// records: the change and its entry commit together or not at all. Use it
// for the game's own writes that should be as reliable as the panel's.
// Options.OnAudit hears of the entry once tx commits when tx is one of
// RunInTx's and ctx the context it passes its function (or one made from
// it); the entry of a transaction begun on the game's own *bun.DB is not
// sent (its commit cannot be seen), and a warning says so once.
func (au *Audit) RecordTx(ctx context.Context, tx bun.Tx, e AuditEntry) error {
	return au.e.RecordTx(ctx, tx, e)
}

// RunInTx runs fn in a transaction of the panel's database (the *bun.DB
// given to New, which is committed when fn returns nil and rolled back
// otherwise), like bun.DB.RunInTx: the entries fn writes with RecordTx
// reach Options.OnAudit once it commits, never if it rolls back. Use it
// for the game's own writes whose entries OnAudit should hear of.
func (au *Audit) RunInTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	return au.e.RunInTx(ctx, fn)
}

// UpdateRecord describes one update for RecordUpdate. Before and After are
// maps of column to value or Bun models of the same table.
type UpdateRecord = engine.UpdateRecord

// RecordUpdate appends an "update" entry whose payload holds only the
// columns that changed: {changes: {<column>: {before, after}}}. Nothing is
// written when nothing changed.
func (au *Audit) RecordUpdate(ctx context.Context, u UpdateRecord) error {
	return au.e.RecordUpdate(ctx, u)
}

// Prune deletes the entries created before the given time and reports how
// many it deleted. Run it out of band (a daily job); the panel never does.
func (au *Audit) Prune(ctx context.Context, before time.Time) (int64, error) {
	return au.e.Prune(ctx, before)
}

// AuditEntry is a row of the append-only game_admin_audit table.
type AuditEntry = engine.AuditEntry

// AuditEvent is a committed audit entry as Options.OnAudit receives it:
// the entry as the log stores it, with the operator's and the target
// user's labels and the action's words.
type AuditEvent = engine.AuditEvent

// WebhookKind is the service an incoming webhook belongs to: it decides
// the shape of what WebhookSink posts.
type WebhookKind = webhook.Kind

// The kinds of incoming webhook WebhookSink posts to.
const (
	// Discord posts {"content": line} with every ASCII punctuation
	// character of a name, id or reason backslash-escaped (no markdown,
	// masked link, bare URL, mention or emoji), mentions turned off and
	// link previews suppressed.
	Discord WebhookKind = webhook.Discord
	// Slack posts {"text": line} with &, < and > of a name, id or reason
	// escaped (no <url|text> link or <!channel>), mrkdwn turned off (no
	// *bold* or `code`) and no link previews.
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
//	Ana banned Player 07 until 4 Dec 2026 — speed hack · https://game.example.com/admin/users/7
//
// A player is named by display name or id, never by email; an operator
// by display name, or their email when they have none. What players and
// operators typed (names, a ban's reason) is text, never the service's
// markup: one line, bounded, escaped for the kind, so that no name can
// pose as the panel's link (on Discord none is a link at all).
//
// A URL that is not absolute http(s), or a Kind neither set nor known from
// the URL's host, is a mistake at setup: WebhookSink panics.
func WebhookSink(opts WebhookOptions) func(ctx context.Context, e AuditEvent) {
	return webhook.New(webhook.Options(opts))
}
