package webhook

import (
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/users"
)

// Line is e as one line a moderator reads in a channel of kind k, ending
// with the link to its row in the panel when panelURL is set:
//
//	Ana banned Player 07 until 4 Dec 2026 — speed hack · https://…/admin/users/7
//
// A person is named by e's labels (a display name; an operator's email
// when they have none) or by id, never otherwise. Every word taken from e
// (names, ids, a ban's reason, a report's category, a game's action label
// and resource) is text, whatever it holds: one line, bounded, and
// escaped for k (escape), so that none can pose as the panel's link.
func Line(e audit.Event, k Kind, panelURL string) string {
	l := &line{kind: k}
	resource, id := e.Resource, e.TargetID
	switch e.Action {
	case "user.ban":
		l.operator(e).word(" banned ").target(e)
		if until, ok := e.Payload["until"].(string); ok {
			if t, err := time.Parse(time.RFC3339Nano, until); err == nil {
				l.word(" until " + t.UTC().Format("2 Jan 2006"))
			}
		}
		if reason, _ := e.Payload["reason"].(string); oneLine(reason, maxReasonRunes) != "" {
			l.word(" — ").text(reason, maxReasonRunes)
		}
	case "user.unban":
		l.operator(e).word(" unbanned ").target(e)
	case "user.erase":
		l.operator(e).word(" erased ").target(e)
	case "report.file":
		player := e.TargetID
		if p, ok := e.Payload["playerId"]; ok && p != nil {
			player = fmt.Sprint(p)
		}
		name := e.Target
		if e.Resource != users.Key || e.TargetID != player {
			name = ""
		}
		resource, id = users.Key, player
		l.person(name, "user ", player).word(fmt.Sprintf(" has %d open reports", number(e.Payload["openReports"])))
		if c, _ := e.Payload["category"].(string); oneLine(c, maxNameRunes) != "" {
			l.word(" — latest: ").text(c, maxNameRunes)
		}
	default:
		l.operator(e).word(": ").text(e.ActionLabel, maxNameRunes)
		if oneLine(e.Resource, maxNameRunes) != "" {
			l.word(" ").text(e.Resource, maxNameRunes)
		}
		if oneLine(e.Target, maxNameRunes) != "" || e.TargetID != "" {
			l.word(" ").target(e)
		}
	}
	text := l.b.String()
	if panelURL == "" || resource == "" {
		return text
	}
	link := panelURL + "/" + url.PathEscape(resource)
	if id != "" {
		link += "/" + url.PathEscape(id)
	}
	if k == Slack {
		link = slackEscape(link)
	}
	if utf16Len(text)+len(" · ")+len(link) > maxLine(k) {
		return text // a row whose key is thousands of characters long goes unlinked
	}
	return text + " · " + link
}

// utf16Len is how long s is in UTF-16 code units, the longest way a
// service may count its characters.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// line is a line being written: the panel's own words as they are, the
// event's as text.
type line struct {
	kind Kind
	b    strings.Builder
}

// word adds the panel's own words, markup-free, as they are.
func (l *line) word(s string) *line {
	l.b.WriteString(s)
	return l
}

// text adds words of the event as text: on one line, at most max runes,
// escaped for the line's kind.
func (l *line) text(s string, max int) *line {
	l.b.WriteString(escape(l.kind, oneLine(s, max)))
	return l
}

// person names someone by name, else as kind and id ("user 7").
func (l *line) person(name, kind, id string) *line {
	if oneLine(name, maxNameRunes) != "" {
		return l.text(name, maxNameRunes)
	}
	return l.word(kind).text(id, maxNameRunes)
}

// operator names who acted: by name, by id, or as the game's own code.
func (l *line) operator(e audit.Event) *line {
	if e.OperatorID == "" && oneLine(e.Operator, maxNameRunes) == "" {
		return l.word("The game")
	}
	return l.person(e.Operator, "operator ", e.OperatorID)
}

// target names the row acted on: a user by name or as "user <id>", any
// other row by its label or id.
func (l *line) target(e audit.Event) *line {
	if e.Resource == users.Key {
		return l.person(e.Target, "user ", e.TargetID)
	}
	return l.person(e.Target, "", e.TargetID)
}
