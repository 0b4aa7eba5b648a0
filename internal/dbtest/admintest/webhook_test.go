package admintest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// hookSink is a loopback incoming webhook that keeps every body posted.
type hookSink struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
}

func newHookSink(t *testing.T) *hookSink {
	h := &hookSink{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("webhook body: %v", err)
		}
		h.mu.Lock()
		h.bodies = append(h.bodies, body)
		h.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(h.Close)
	return h
}

// lines is the field key of every body posted so far.
func (h *hookSink) lines(key string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, b := range h.bodies {
		s, _ := b[key].(string)
		out = append(out, s)
	}
	return out
}

// discordID is an id as Discord text: its ASCII punctuation (a UUID's
// dashes) backslash-escaped, as every word of an event is.
func discordID(id string) string {
	var b strings.Builder
	for _, r := range id {
		if r < utf8.RuneSelf && (unicode.IsPunct(r) || unicode.IsSymbol(r)) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TestWebhookLinesAreText: what players (and operators) type reaches
// Discord and Slack as text. Through the panel on each database: an
// operator named with markup bans a player named with a masked link that
// looks like the panel's and a player whose name holds a newline, a
// Slack link, mentions and formatting; a player with no display name
// (email only) is reported past the threshold and signs in; a player
// named with 5,000 characters is banned. Every line names a player by
// display name or id, never by email; every name and reason is escaped
// for the sink (Discord: every ASCII punctuation; Slack: & < >), on one
// line and bounded; the only link is the panel's; mentions, embeds,
// Slack's mrkdwn and unfurling are off.
func TestWebhookLinesAreText(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		discord, slack := newHookSink(t), newHookSink(t)
		hook := WebhookOptions{ReportThreshold: 3, PanelURL: "https://game.example/admin", Actions: []string{"user.ban", "report.file", "auth.login"}}
		hook.URL, hook.Kind = discord.URL+"/api/webhooks/1/secret", Discord
		toDiscord := WebhookSink(hook)
		hook.URL, hook.Kind = slack.URL+"/services/T/B/secret", Slack
		toSlack := WebhookSink(hook)
		h := &heard{}
		e := newEnv(t, db, Options{ReportCategories: reportCategories, OnAudit: func(ctx context.Context, ev AuditEvent) {
			toDiscord(ctx, ev) // before it is heard: once the last is heard, every post is sent
			toSlack(ctx, ev)
			h.add(ctx, ev)
		}})
		ctx := context.Background()
		name := func(id, name string) {
			t.Helper()
			if _, err := db.NewUpdate().Model((*User)(nil)).Set("display_name = ?", name).Where("id = ?", id).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		root, rootID := e.bootstrap()
		name(rootID, "*Root* <@here>")
		bob := e.user("bob@example.com", "pw password")
		name(bob, "Bob [https://game.example/admin/users/1](https://evil.example/login)")
		eve := e.user("eve@example.com", "pw password")
		name(eve, "Eve\n*Root* banned `Ann` @everyone <https://evil.example|click>")
		long := e.user("long@example.com", "pw password")
		name(long, strings.Repeat("[x](https://evil.example)", 200))
		cheat := e.user("cheat@example.com", "pw password")

		root.do("POST", "/admin-api/users/"+bob+"/ban", map[string]any{"reason": "[appeal](https://evil.example/appeal) @everyone & <!channel>"}).want(t, 200)
		root.do("POST", "/admin-api/users/"+eve+"/ban", map[string]any{"reason": "line one\nline two ~~x~~ _y_"}).want(t, 200)
		root.do("POST", "/admin-api/users/"+long+"/ban", map[string]any{}).want(t, 200)
		for i := range 3 {
			reporter := e.user(fmt.Sprintf("r%d@example.com", i), "pw password")
			must(e.admin.FileReport(ctx, Report{ReporterID: reporter, PlayerID: cheat, Category: "name"}))
		}
		e.login("cheat@example.com", "pw password")
		waitFor(t, func() bool {
			return len(h.of("user.ban")) == 3 && len(h.of("report.file")) == 3 && len(h.of("auth.login")) == 1
		})

		const by = `\*Root\* \<\@here\>`
		wantDiscord := []string{
			by + ` banned Bob \[https\:\/\/game\.example\/admin\/users\/1\]\(https\:\/\/evil\.example\/login\) — \[appeal\]\(https\:\/\/evil\.example\/appeal\) \@everyone \& \<\!channel\> · https://game.example/admin/users/` + bob,
			by + " banned Eve \\*Root\\* banned \\`Ann\\` \\@everyone \\<https\\:\\/\\/evil\\.example\\|click\\> — line one line two \\~\\~x\\~\\~ \\_y\\_ · https://game.example/admin/users/" + eve,
			by + " banned " + strings.Repeat(`\[x\]\(https\:\/\/evil\.example\)`, 3) + `\[x\]\(https\:\/\/evil\.example… · https://game.example/admin/users/` + long,
			"user " + discordID(cheat) + " has 3 open reports — latest: name · https://game.example/admin/users/" + cheat,
			"operator " + discordID(cheat) + ": Signed in auth " + discordID(cheat) + " · https://game.example/admin/auth/" + cheat,
		}
		wantSlack := []string{
			"*Root* &lt;@here&gt; banned Bob [https://game.example/admin/users/1](https://evil.example/login) — [appeal](https://evil.example/appeal) @everyone &amp; &lt;!channel&gt; · https://game.example/admin/users/" + bob,
			"*Root* &lt;@here&gt; banned Eve *Root* banned `Ann` @everyone &lt;https://evil.example|click&gt; — line one line two ~~x~~ _y_ · https://game.example/admin/users/" + eve,
			"*Root* &lt;@here&gt; banned " + strings.Repeat("[x](https://evil.example)", 3) + "[x](https://evil.example… · https://game.example/admin/users/" + long,
			"user " + cheat + " has 3 open reports — latest: name · https://game.example/admin/users/" + cheat,
			"operator " + cheat + ": Signed in auth " + cheat + " · https://game.example/admin/auth/" + cheat,
		}
		for _, sink := range []struct {
			name string
			got  []string
			want []string
		}{
			{"Discord", discord.lines("content"), wantDiscord},
			{"Slack", slack.lines("text"), wantSlack},
		} {
			if strings.Join(sink.got, "\n") != strings.Join(sink.want, "\n") {
				t.Errorf("%s received\n%s\nwant\n%s", sink.name, strings.Join(sink.got, "\n"), strings.Join(sink.want, "\n"))
			}
			for _, line := range sink.got {
				if strings.Contains(line, "@example") || strings.Contains(line, `\@example`) {
					t.Errorf("%s line names someone by email: %q", sink.name, line)
				}
			}
		}
		for _, b := range discord.bodies {
			if am, _ := b["allowed_mentions"].(map[string]any); am == nil || len(am["parse"].([]any)) != 0 || b["flags"] != float64(4) {
				t.Errorf("Discord body %v: want mentions off (allowed_mentions.parse []) and embeds suppressed (flags 4)", b)
			}
		}
		for _, b := range slack.bodies {
			if b["mrkdwn"] != false || b["unfurl_links"] != false || b["unfurl_media"] != false {
				t.Errorf("Slack body %v: want mrkdwn, unfurl_links and unfurl_media false", b)
			}
		}
		// The event itself names the nameless player by no one's email.
		if ev := h.of("report.file")[2]; ev.Target != "" {
			t.Errorf("report.file Target = %q; want \"\" (a player without a display name is named by id)", ev.Target)
		}
		if ev := h.of("auth.login")[0]; ev.Operator != "" || ev.OperatorID != cheat {
			t.Errorf("auth.login Operator, OperatorID = %q, %q; want \"\", %q", ev.Operator, ev.OperatorID, cheat)
		}
	})
}
