// Package webhook posts chosen audit events to a Discord or Slack
// incoming webhook, one readable line each: admin.WebhookSink. It is
// handed the webhook's options; it knows nothing else of the panel. The
// webhook's URL is its secret (whoever has it can post to the channel):
// it is never logged, only its host.
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gameadmin/admin/internal/audit"
)

// Kind is the service a webhook URL belongs to, which decides the shape of
// the body posted to it.
type Kind string

// The kinds of webhook.
const (
	Discord Kind = "discord"
	Slack   Kind = "slack"
)

// Options is admin.WebhookOptions, field for field; its documentation is
// there.
type Options struct {
	URL             string
	Kind            Kind
	Actions         []string
	ReportThreshold int
	PanelURL        string
	HTTPClient      *http.Client
	Timeout         time.Duration
	MaxRetryWait    time.Duration
	Logger          *slog.Logger
}

// The defaults of Options, which admin.WebhookOptions states.
const (
	defaultReportThreshold = 5
	defaultTimeout         = 5 * time.Second
	defaultMaxRetryWait    = 10 * time.Second
	attempts               = 3 // a post and two retries
)

// defaultActions is Options.Actions' default, a fresh copy each time.
func defaultActions() []string { return []string{"user.ban", "user.erase", "report.file"} }

// sink is a webhook ready to post.
type sink struct {
	Options
	host string // what the log may say of URL
}

// New returns the receiver of audit events that posts opts' actions to
// opts.URL. A URL that is not absolute http(s), or whose kind is neither
// set nor known from its host, is a mistake at setup: New panics.
func New(opts Options) func(ctx context.Context, e audit.Event) {
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		panic("admin: WebhookSink: URL must be an absolute http(s) URL")
	}
	if opts.Kind == "" {
		opts.Kind = KindOf(u.Hostname())
	}
	if opts.Kind != Discord && opts.Kind != Slack {
		panic(fmt.Sprintf("admin: WebhookSink: Kind %q: want %q or %q (not known from the URL's host %q)", opts.Kind, Discord, Slack, u.Hostname()))
	}
	if opts.Actions == nil {
		opts.Actions = defaultActions()
	}
	if opts.ReportThreshold <= 0 {
		opts.ReportThreshold = defaultReportThreshold
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = http.DefaultClient
	}
	if opts.Timeout <= 0 {
		opts.Timeout = defaultTimeout
	}
	if opts.MaxRetryWait <= 0 {
		opts.MaxRetryWait = defaultMaxRetryWait
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	opts.PanelURL = strings.TrimRight(opts.PanelURL, "/")
	s := &sink{Options: opts, host: u.Host}
	return s.receive
}

// KindOf is the kind of webhook a URL's host serves, or "" when it is not
// known.
func KindOf(host string) Kind {
	switch host = strings.ToLower(host); {
	case host == "discord.com" || host == "discordapp.com" || strings.HasSuffix(host, ".discord.com"):
		return Discord
	case host == "hooks.slack.com":
		return Slack
	}
	return ""
}

// receive posts e when it is one of the chosen actions.
func (s *sink) receive(ctx context.Context, e audit.Event) {
	if !slices.Contains(s.Actions, e.Action) {
		return
	}
	if e.Action == "report.file" && number(e.Payload["openReports"]) != s.ReportThreshold {
		return // once, as the count reaches the threshold: a flood posts one line
	}
	s.post(ctx, e.Action, Line(e, s.Kind, s.PanelURL))
}

// suppressEmbeds is Discord's message flag SUPPRESS_EMBEDS.
const suppressEmbeds = 1 << 2

// body is what is posted, line already escaped for the kind (Line).
// Discord's "content" goes with mentions turned off, so that no text can
// ping (@everyone, <@id>), and embeds suppressed (flags 1<<2), so that no
// preview card of any address is shown. Slack's "text" goes with mrkdwn
// off, so that *, _, ~ and ` in a name are not formatting, and without
// unfurling.
func (s *sink) body(line string) []byte {
	var v any
	if s.Kind == Discord {
		v = map[string]any{"content": line, "allowed_mentions": map[string]any{"parse": []string{}}, "flags": suppressEmbeds}
	} else {
		v = map[string]any{"text": line, "mrkdwn": false, "unfurl_links": false, "unfurl_media": false}
	}
	b, _ := json.Marshal(v)
	return b
}

// post sends line, again after a 429 or a 5xx (waiting what Retry-After
// asks, at most MaxRetryWait), at most attempts times, each within
// Timeout. Failures are logged with the URL's host only.
func (s *sink) post(ctx context.Context, action, line string) {
	body := s.body(line)
	for i := 1; ; i++ {
		status, wait, err := s.try(ctx, body)
		if err == nil && status < 300 {
			return
		}
		retry := err == nil && (status == http.StatusTooManyRequests || status >= 500)
		if !retry || i == attempts {
			s.Logger.WarnContext(ctx, "admin: webhook post failed", "host", s.host, "action", action, "status", status, "err", s.scrub(err))
			return
		}
		if wait <= 0 {
			wait = time.Duration(i) * time.Second
		}
		t := time.NewTimer(min(wait, s.MaxRetryWait))
		select {
		case <-ctx.Done():
			t.Stop()
			s.Logger.WarnContext(ctx, "admin: webhook post given up", "host", s.host, "action", action, "status", status)
			return
		case <-t.C:
		}
	}
}

// try posts body once and returns the answer's status and the wait its
// Retry-After asks for.
func (s *sink) try(ctx context.Context, body []byte) (status int, wait time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, bytes.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.HTTPClient.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, retryAfter(resp.Header.Get("Retry-After"), time.Now()), nil
}

// scrub is err's text without the URL, which a *url.Error carries whole.
func (s *sink) scrub(err error) string {
	if err == nil {
		return ""
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return strings.ReplaceAll(err.Error(), s.URL, s.host)
}

// retryAfter is the wait a Retry-After header asks for: seconds or an
// HTTP date; 0 when it asks for none.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 {
		return time.Duration(n * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return t.Sub(now)
	}
	return 0
}

// number is v as an int: a payload's numbers are float64 after JSON.
func number(v any) int {
	switch n := v.(type) {
	case float64:
		return int(n)
	case int:
		return n
	case int64:
		return int(n)
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	}
	return -1
}
