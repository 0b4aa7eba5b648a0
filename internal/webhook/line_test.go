package webhook

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gameadmin/admin/internal/audit"
)

const (
	maskedLink = "Bob [https://game.example/admin/users/1](https://evil.example/login)"
	slackLink  = "<https://evil.example|click>"
)

func ban(operator, target, reason string) audit.Event {
	return audit.Event{Action: "user.ban", OperatorID: "1", Operator: operator, Resource: "users", TargetID: "7", Target: target,
		Payload: map[string]any{"reason": reason, "until": "2026-12-04T10:00:00Z"}}
}

// TestLineHostileText: whatever a name, reason or id holds, it reads as
// written and is never markup: Discord gets every ASCII punctuation
// escaped, Slack gets &, < and > as entities; a newline never starts a
// line; the panel's link is the only link.
func TestLineHostileText(t *testing.T) {
	tests := []struct {
		name           string
		e              audit.Event
		discord, slack string
	}{
		{"masked link as a player's name", ban("Ana", maskedLink, "speed hack"),
			`Ana banned Bob \[https\:\/\/game\.example\/admin\/users\/1\]\(https\:\/\/evil\.example\/login\) until 4 Dec 2026 — speed hack · https://p.example/admin/users/7`,
			`Ana banned Bob [https://game.example/admin/users/1](https://evil.example/login) until 4 Dec 2026 — speed hack · https://p.example/admin/users/7`},
		{"Slack link and mentions", ban("Ana", slackLink, "@everyone <!channel> <@U123> <#C1>"),
			`Ana banned \<https\:\/\/evil\.example\|click\> until 4 Dec 2026 — \@everyone \<\!channel\> \<\@U123\> \<\#C1\> · https://p.example/admin/users/7`,
			`Ana banned &lt;https://evil.example|click&gt; until 4 Dec 2026 — @everyone &lt;!channel&gt; &lt;@U123&gt; &lt;#C1&gt; · https://p.example/admin/users/7`},
		{"formatting in an operator's name", ban("*Ana* `x` ~~y~~ _z_ ||s|| # h > q - l", "Bob", "a & b"),
			"\\*Ana\\* \\`x\\` \\~\\~y\\~\\~ \\_z\\_ \\|\\|s\\|\\| \\# h \\> q \\- l banned Bob until 4 Dec 2026 — a \\& b · https://p.example/admin/users/7",
			"*Ana* `x` ~~y~~ _z_ ||s|| # h &gt; q - l banned Bob until 4 Dec 2026 — a &amp; b · https://p.example/admin/users/7"},
		{"a newline faking another event", ban("Ana", "Bob\nAna banned Eve · https://evil.example", "x\r\n\u2028> y"),
			`Ana banned Bob Ana banned Eve · https\:\/\/evil\.example until 4 Dec 2026 — x \> y · https://p.example/admin/users/7`,
			`Ana banned Bob Ana banned Eve · https://evil.example until 4 Dec 2026 — x &gt; y · https://p.example/admin/users/7`},
		{"backslashes, controls and bidi overrides", ban("Ana", "B\\ob\x00\x1b\u202egnp.exe", `\*`),
			`Ana banned B\\obgnp\.exe until 4 Dec 2026 — \\\* · https://p.example/admin/users/7`,
			`Ana banned B\obgnp.exe until 4 Dec 2026 — \* · https://p.example/admin/users/7`},
		{"a nameless player by id", ban("Ana", "", ""),
			`Ana banned user 7 until 4 Dec 2026 · https://p.example/admin/users/7`,
			`Ana banned user 7 until 4 Dec 2026 · https://p.example/admin/users/7`},
		{"a blank name by id", ban(" \n ", "\t", " "),
			`operator 1 banned user 7 until 4 Dec 2026 · https://p.example/admin/users/7`,
			`operator 1 banned user 7 until 4 Dec 2026 · https://p.example/admin/users/7`},
		{"a hostile id", audit.Event{Action: "user.unban", Resource: "users", TargetID: "7](https://evil.example)&<x>"},
			`The game unbanned user 7\]\(https\:\/\/evil\.example\)\&\<x\> · https://p.example/admin/users/7%5D%28https:%2F%2Fevil.example%29&%3Cx%3E`,
			`The game unbanned user 7](https://evil.example)&amp;&lt;x&gt; · https://p.example/admin/users/7%5D%28https:%2F%2Fevil.example%29&amp;%3Cx%3E`},
		{"a report's player and category", audit.Event{Action: "report.file", Resource: "users", TargetID: "42", Target: "**Eve**",
			Payload: map[string]any{"playerId": "42", "category": "<!here> [c](https://evil.example)", "openReports": float64(5)}},
			`\*\*Eve\*\* has 5 open reports — latest: \<\!here\> \[c\]\(https\:\/\/evil\.example\) · https://p.example/admin/users/42`,
			`**Eve** has 5 open reports — latest: &lt;!here&gt; [c](https://evil.example) · https://p.example/admin/users/42`},
		{"a game's own action", audit.Event{Action: "game.x", ActionLabel: "Gave [gold](https://evil.example)", Operator: "Ana", OperatorID: "1",
			Resource: "players<>", TargetID: "@here"},
			`Ana: Gave \[gold\]\(https\:\/\/evil\.example\) players\<\> \@here · https://p.example/admin/players%3C%3E/@here`,
			`Ana: Gave [gold](https://evil.example) players&lt;&gt; @here · https://p.example/admin/players%3C%3E/@here`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Line(tt.e, Discord, "https://p.example/admin"); got != tt.discord {
				t.Errorf("Line(Discord) =\n%s\nwant\n%s", got, tt.discord)
			}
			if got := Line(tt.e, Slack, "https://p.example/admin"); got != tt.slack {
				t.Errorf("Line(Slack) =\n%s\nwant\n%s", got, tt.slack)
			}
		})
	}
}

// TestLineBounded: a line whose every field is 10,000 characters long
// (each an escape's worst case) stays under Discord's 2,000 characters,
// counted as code points and as UTF-16, with each field cut with "…" and
// the link whole at its end; a row whose key is that long goes unlinked.
func TestLineBounded(t *testing.T) {
	for _, unit := range []string{"[", "😀", "a", "&"} {
		long := strings.Repeat(unit, 10000)
		events := []audit.Event{
			ban(long, long, long),
			{Action: "report.file", Resource: "users", TargetID: "42", Target: long, Payload: map[string]any{"playerId": "42", "category": long, "openReports": float64(5)}},
			{Action: "game.x", ActionLabel: long, Operator: long, OperatorID: long, Resource: "players", TargetID: "9", Target: long},
			{Action: "game.x", ActionLabel: long, OperatorID: long, Resource: long, TargetID: long},
		}
		for i, e := range events {
			linked := i < 3
			for _, k := range []Kind{Discord, Slack} {
				got := Line(e, k, "https://p.example/admin")
				n, n16 := utf8.RuneCountInString(got), len(utf16.Encode([]rune(got)))
				if max := map[Kind]int{Discord: 2000, Slack: 4000}[k]; n > max || n16 > max {
					t.Errorf("Line(%s of %q, %s) is %d code points, %d UTF-16 units; want at most %d", e.Action, unit, k, n, n16, max)
				}
				if !strings.Contains(got, "…") {
					t.Errorf("Line(%s of %q, %s) = %.200q…; want its fields cut with …", e.Action, unit, k, got)
				}
				if strings.Contains(got, " · https://p.example/admin/") != linked {
					t.Errorf("Line(%s of %q, %s) = …%q; want the link %v", e.Action, unit, k, got[max(0, len(got)-200):], linked)
				}
			}
		}
	}
}

// FuzzEscape: for any s, escape(oneLine(s)) is one line, bounded, reads
// back as oneLine(s), and leaves no markup character unescaped.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{maskedLink, slackLink, "@everyone\n`x` *b* _i_ ~s~", "a\\", "&amp;", "\u202e\x00\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text := oneLine(s, maxNameRunes)
		if n := utf8.RuneCountInString(text); n > maxNameRunes {
			t.Fatalf("oneLine(%q) has %d runes; want at most %d", s, n, maxNameRunes)
		}
		if strings.IndexFunc(text, func(r rune) bool {
			return r != ' ' && (unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r))
		}) >= 0 {
			t.Fatalf("oneLine(%q) = %q; want no line break, control or bidi character", s, text)
		}
		d := escape(Discord, text)
		var back strings.Builder
		for i := 0; i < len(d); i++ {
			c := d[i]
			if c == '\\' {
				if i+1 == len(d) || !isASCIIPunct(d[i+1]) {
					t.Fatalf("escape(Discord, %q) = %q: a backslash escapes nothing", text, d)
				}
				i++
				back.WriteByte(d[i])
				continue
			}
			if isASCIIPunct(c) {
				t.Fatalf("escape(Discord, %q) = %q: %q is not escaped", text, d, c)
			}
			back.WriteByte(c)
		}
		if back.String() != text {
			t.Fatalf("escape(Discord, %q) reads as %q", text, back.String())
		}
		sl := escape(Slack, text)
		if strings.ContainsAny(sl, "<>") {
			t.Fatalf("escape(Slack, %q) = %q holds < or >", text, sl)
		}
		if strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(sl) != text {
			t.Fatalf("escape(Slack, %q) = %q does not read back", text, sl)
		}
	})
}

func isASCIIPunct(c byte) bool {
	return c < utf8.RuneSelf && (unicode.IsPunct(rune(c)) || unicode.IsSymbol(rune(c)))
}
