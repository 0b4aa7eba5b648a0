package schema

import (
	"slices"
	"strings"
	"unicode"
)

// initialisms are words Humanize writes in capitals.
var initialisms = map[string]bool{
	"id": true, "api": true, "url": true, "uri": true, "ip": true,
	"json": true, "uuid": true, "http": true, "html": true, "sql": true, "xp": true,
}

// Humanize turns a resource key or column name into a label: words split at
// underscores, hyphens, spaces and camel-case humps, each capitalized, runs
// of capitals and common initialisms kept upper-case.
//
//	Humanize("cloudSaves")   == "Cloud Saves"
//	Humanize("APIKeys")      == "API Keys"
//	Humanize("user_notes")   == "User Notes"
//	Humanize("user_id")      == "User ID"
func Humanize(key string) string {
	words := splitWords(key)
	for i, w := range words {
		lw := strings.ToLower(w)
		switch {
		case initialisms[lw]:
			words[i] = strings.ToUpper(w)
		case lw == "ids":
			words[i] = "IDs"
		default:
			words[i] = capitalize(w)
		}
	}
	return strings.Join(words, " ")
}

// capitalize upper-cases the first letter of a word.
func capitalize(w string) string {
	rs := []rune(w)
	if len(rs) > 0 {
		rs[0] = unicode.ToUpper(rs[0])
	}
	return string(rs)
}

// splitWords splits an identifier at separators and camel-case humps:
// "APIKeys" -> ["API", "Keys"], "leaderboardEntries" -> ["leaderboard",
// "Entries"], "slot2Data" -> ["slot2", "Data"].
func splitWords(s string) []string {
	var words []string
	rs := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, string(rs[start:end]))
		}
		start = -1
	}
	for i, r := range rs {
		if r == '_' || r == '-' || r == ' ' || r == '.' {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		if unicode.IsUpper(r) {
			// lower->Upper ("cloudSaves") or the last capital of a run
			// that starts a new word ("APIKeys": the K).
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if nextLower && rs[i+1] == 's' && (i+2 == len(rs) || !unicode.IsLower(rs[i+2])) {
				nextLower = false // a plural initialism: "userIDs"
			}
			if !unicode.IsUpper(prev) || nextLower {
				flush(i)
				start = i
			}
		}
	}
	flush(len(rs))
	return words
}

// IconNames returns the built-in icon set, a new slice each call. The UI
// maps each name to an icon; a resource's Icon must be one of them.
func IconNames() []string { return slices.Clone(iconNames) }

// IsIcon reports whether name is in the built-in icon set.
func IsIcon(name string) bool { return slices.Contains(iconNames, name) }

var iconNames = []string{
	"user", "team", "safety", "trophy", "file-text", "setting", "line-chart",
	"database", "thunderbolt", "message", "cloud", "key", "shop", "gift",
	"flag", "global", "lock", "notification", "calendar", "mail", "tag", "star",
}

// iconWords maps a singular word of a table name to an icon.
var iconWords = map[string]string{
	"user": "user", "player": "user", "account": "user", "member": "user", "profile": "user", "friend": "user",
	"team": "team", "guild": "team", "clan": "team", "group": "team", "party": "team", "squad": "team",
	"role": "safety", "permission": "safety", "ban": "safety", "audit": "safety", "moderation": "safety", "report": "safety",
	"score": "trophy", "leaderboard": "trophy", "achievement": "trophy", "ranking": "trophy", "rank": "trophy", "trophy": "trophy", "highscore": "trophy",
	"note": "file-text", "post": "file-text", "article": "file-text", "document": "file-text", "log": "file-text", "page": "file-text",
	"config": "setting", "setting": "setting", "option": "setting", "preference": "setting",
	"analytic": "line-chart", "analytics": "line-chart", "event": "line-chart", "metric": "line-chart", "stat": "line-chart", "stats": "line-chart",
	"job": "thunderbolt", "task": "thunderbolt", "queue": "thunderbolt", "webhook": "thunderbolt", "trigger": "thunderbolt",
	"message": "message", "chat": "message", "comment": "message", "conversation": "message",
	"save": "cloud", "cloud": "cloud", "file": "cloud", "upload": "cloud", "asset": "cloud",
	"key": "key", "token": "key", "secret": "key", "credential": "key",
	"shop": "shop", "store": "shop", "product": "shop", "item": "shop", "purchase": "shop", "order": "shop", "inventory": "shop", "transaction": "shop",
	"gift": "gift", "reward": "gift", "coupon": "gift", "code": "gift", "promo": "gift",
	"flag": "flag", "feature": "flag", "experiment": "flag",
	"region": "global", "server": "global", "locale": "global", "country": "global", "translation": "global",
	"session": "lock", "password": "lock", "lock": "lock",
	"notification": "notification", "alert": "notification", "announcement": "notification",
	"schedule": "calendar", "season": "calendar", "calendar": "calendar", "tournament": "calendar",
	"mail": "mail", "email": "mail", "invite": "mail", "invitation": "mail",
	"tag": "tag", "category": "tag", "label": "tag",
	"favorite": "star", "rating": "star", "review": "star",
}

// GuessIcon picks an icon for a table from its SQL name, looking at its
// words from the last one back ("game_user_notes" -> "file-text",
// "game_leaderboard_entries" -> "trophy"), and falls back to "database".
func GuessIcon(tableName string) string {
	if i := strings.LastIndexByte(tableName, '.'); i >= 0 {
		tableName = tableName[i+1:]
	}
	words := splitWords(tableName)
	for i := len(words) - 1; i >= 0; i-- {
		w := strings.ToLower(words[i])
		for _, s := range []string{w, singular(w)} {
			if icon, ok := iconWords[s]; ok {
				return icon
			}
		}
	}
	return "database"
}

// singular undoes the common English plural endings well enough for
// table names.
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 3:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "xes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}
