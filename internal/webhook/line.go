package webhook

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/gameadmin/admin/internal/audit"
)

// Line is e as one line a moderator reads in a channel, ending with the
// link to its row in the panel when panelURL is set:
//
//	me@example.com banned Player 07 until 4 Dec 2026 — speed hack · https://…/admin/users/7
func Line(e audit.Event, panelURL string) string {
	who := e.Operator
	if who == "" && e.OperatorID != "" {
		who = "operator " + e.OperatorID
	}
	if who == "" {
		who = "The game"
	}
	target := e.Target
	switch {
	case target != "":
	case e.Resource == "users" && e.TargetID != "":
		target = "user " + e.TargetID
	default:
		target = e.TargetID
	}
	resource, id := e.Resource, e.TargetID
	var line string
	switch e.Action {
	case "user.ban":
		line = who + " banned " + target
		if until, ok := e.Payload["until"].(string); ok {
			if t, err := time.Parse(time.RFC3339Nano, until); err == nil {
				line += " until " + t.UTC().Format("2 Jan 2006")
			}
		}
		if reason, _ := e.Payload["reason"].(string); reason != "" {
			line += " — " + reason
		}
	case "user.unban":
		line = who + " unbanned " + target
	case "user.erase":
		line = who + " erased " + target
	case "report.file":
		player := fmt.Sprint(e.Payload["playerId"])
		resource, id = "users", player
		if e.Resource != "users" || e.TargetID != player || target == "" {
			target = "user " + player
		}
		line = fmt.Sprintf("%s has %d open reports", target, number(e.Payload["openReports"]))
		if c, _ := e.Payload["category"].(string); c != "" {
			line += " — latest: " + c
		}
	default:
		line = who + ": " + e.ActionLabel + " " + strings.TrimSpace(e.Resource+" "+target)
	}
	line = cut(line)
	if panelURL != "" && resource != "" {
		link := panelURL + "/" + url.PathEscape(resource)
		if id != "" {
			link += "/" + url.PathEscape(id)
		}
		line += " · " + link
	}
	return line
}

// cut bounds line (a ban's reason may be long) so that it and its link
// fit one message.
func cut(line string) string {
	r := []rune(strings.Join(strings.Fields(line), " "))
	if len(r) <= maxLineRunes {
		return string(r)
	}
	return string(r[:maxLineRunes]) + "…"
}
