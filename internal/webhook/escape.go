package webhook

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// How much of one name, id or label a line holds, and how much of a ban's
// reason: escaped (at most twice as long for Discord, five times for
// Slack's &amp;) and with every field at its bound, a line's words stay
// under maxLine.
const (
	maxNameRunes   = 100
	maxReasonRunes = 500
)

// maxLine is how long a line of kind k may be with its link, in UTF-16
// code units: under Discord's cap of 2,000 characters on a message, and
// the 4,000 Slack asks a message's text to stay under.
func maxLine(k Kind) int {
	if k == Slack {
		return 3900
	}
	return 1900
}

// oneLine is s as words on one line of at most max runes: every run of
// white space (a newline, U+2028) is one space, control characters and
// the bidirectional controls (which reorder what follows them on screen)
// are dropped, and a longer s is cut with "…".
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r):
			return -1
		}
		return r
	}, s)), " ")
	if r := []rune(s); len(r) > max {
		return strings.TrimRight(string(r[:max-1]), " ") + "…"
	}
	return s
}

// escape is s (words from the event: a name, an id, a reason) as text for
// the markup of kind k, so that it reads as written and is never markup.
//
// Discord reads a backslash before any ASCII punctuation as that
// character, so every one is escaped: no formatting, heading, quote,
// list, spoiler or code; no masked link ([text](url)), autolink (<url>),
// mention, emoji or timestamp (<@id>, @everyone, :name:, <t:…>); and no
// bare URL (https\:\/\/… is not one), so the only link in a line is the
// panel's own. Mentions are also off in the body (allowed_mentions).
//
// Slack reads &, < and > as its control characters: escaped as entities,
// no <url|text> link and no <!channel> can be written. Slack's mrkdwn has
// no escape for *, _, ~ and `; the body turns mrkdwn off instead. Slack
// may still make a bare address in a name clickable: it shows the address
// itself, never words pretending to be the panel's link.
func escape(k Kind, s string) string {
	if k == Slack {
		return slackEscape(s)
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	for _, r := range s {
		if r < utf8.RuneSelf && (unicode.IsPunct(r) || unicode.IsSymbol(r)) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// slackEscape escapes the three characters Slack reads as markup.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
