package engine

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/catalog"
	"github.com/gameadmin/admin/internal/csvexport"
	"github.com/gameadmin/admin/internal/history"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/rows"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
)

// auditResource is the audit log's behaviour of its own (special): an
// admin-only, append-only resource whose entries are redacted per entry
// for their reader (redact), whose targets are named by their rows'
// labels, whose _q also finds a player's entries by the player's email
// or name (history's TargetLabels and SearchUsers), and whose payloads
// are neither filtered nor searched by who may not read all they hold.
type auditResource struct {
	plainResource
	resources map[string]*resource
	order     []string
	rooms     bool // the game has live rooms (Options.Rooms)
	resAs     func(op Operator, key string) *resource
	allowed   func(op Operator, o Op, key string) bool
	limited   func(ctx context.Context, deadline time.Time, fn func(context.Context, bun.IDB) error) error
	// ownParams are the list parameters that are no column's filter,
	// besides the query language's own: an export's recorded query keeps
	// them (exportQuery).
	ownParams []string
	// history names the entries' targets and finds a player's entries;
	// set once it is built.
	history *history.Handler
}

// build is the audit log's look: admin-only to read and append-only
// (auditPolicies), newest first.
func (*auditResource) build(*schema.Table) (ResourceConfig, []string) {
	return ResourceConfig{Label: "Audit log", Icon: "safety", Policies: auditPolicies,
		Columns: map[string]ColumnConfig{
			"created_at":  {Label: "When"},
			"operator_id": {Label: "Operator"},
			"target_id":   {Label: "Target", LinkTo: &LinkTo{ResourceFromColumn: "resource"}},
		},
		List: ListConfig{DefaultSort: Sort{Field: "id", Order: "desc"}}}, nil
}

// built marks the log as naming rows of every game: a mod narrowed to
// some rows never reads it, whatever its policy opens (docs/adopting.md).
func (*auditResource) built(res *resource) { res.AllRows = true }

// catalog gives the UI the actions in words.
func (*auditResource) catalog(e *catalog.Entry, _ *resource) { e.AuditActions = audit.ActionLabels() }

// list refuses a filter or sort on the payloads, and leaves them out of
// _q, for an op from whom they hide values (payloadsHide): filtering or
// searching by them would tell those values (a column of their role's,
// a resource outside their reach).
func (l *auditResource) list(op Operator, res *resource, v url.Values, parse func() (*query.List, error)) (*query.List, error) {
	hide := l.payloadsHide(op)
	if hide && rows.NamedColumn(v, res.Table, map[string]bool{"payload": true}) != "" {
		return nil, errorf(http.StatusForbidden, "forbidden", "audit entries cannot be filtered or sorted by payload for your role: it holds values your role may not read").WithParams("reason", "audit_payload")
	}
	list, err := parse()
	if err != nil {
		return nil, err
	}
	if hide && list.Search != nil { // nil: the text columns, which payload is not
		list.Search = slices.DeleteFunc(slices.Clone(list.Search), func(c *schema.Column) bool { return c.Name == "payload" })
	}
	return list, nil
}

// search makes _q also find the entries about the users (by target or
// operator) whose own search matches it, so an operator finds a
// player's history by email or name (history's SearchUsers).
func (l *auditResource) search(ctx context.Context, deadline time.Time, op Operator, _ *resource, list *query.List) error {
	if list.Q == "" {
		return nil
	}
	return l.limited(ctx, deadline, func(ctx context.Context, db bun.IDB) (err error) {
		list.SearchAlso, err = l.history.SearchUsers(ctx, db, op, list.Q)
		return err
	})
}

// answer names the entries' targets (history's TargetLabels) and
// redacts each for op.
func (l *auditResource) answer(ctx context.Context, op Operator, res *resource, entries []map[string]any) error {
	l.history.TargetLabels(ctx, op, res, entries)
	l.redact(op, entries)
	return nil
}

// reads are the columns answer and redact read: the entry's resource,
// target and action (its payload is redacted only when it is read).
func (*auditResource) reads() []string { return []string{"resource", "target_id", "action"} }

// export redacts the batches as the list shows them and adds the action
// in words beside its key.
func (l *auditResource) export(op Operator, res *resource, walk *csvexport.Walk, _ bool) {
	prepare := walk.Prepare
	walk.Prepare = func(batch []map[string]any) {
		if prepare != nil {
			prepare(batch)
		}
		l.redact(op, batch)
	}
	if res.View.ByName["action"] != nil {
		walk.Extra = []csvexport.Extra{{Name: "action_label", Value: func(row map[string]any) string {
			action, _ := row["action"].(string)
			return audit.ActionLabel(action)
		}}}
	}
}

// redact is the audit log's redaction per entry: each entry as op may
// read it, by the resource it is about (auditScope).
//   - About a resource op may neither list nor read (outside a mod's
//     scopes, or denied by its policies), the payload holds nothing of
//     it (rows.OutOfScope), as the catalog, the OpenAPI document and the
//     search show nothing of it; the entry's who, what, when, resource
//     key and row id stay, and its target keeps no label (history's
//     TargetLabels names only rows op may read), nor a kick its player, nor
//     the people, category and linked rows its payload names.
//   - About one op reads, the payload loses the columns op's role may
//     not read, by the resource's variant (RedactPayload), and an
//     export's recorded query their values (exportQuery).
//
// Entries about no resource of the panel (a game's own keys) are as the
// game wrote them.
func (l *auditResource) redact(op Operator, entries []map[string]any) {
	for _, row := range entries {
		key, _ := row["resource"].(string)
		scope := auditScope(key)
		if l.scoped(scope) && !l.readsRows(op, scope) {
			row["payload"] = rows.OutOfScope(row["payload"])
			if lb, ok := row["_labels"].(map[string]string); ok {
				delete(lb, "player")
				delete(lb, "category")
				for _, f := range history.PeopleFields {
					delete(lb, f)
				}
				for k := range lb {
					if strings.HasPrefix(k, "row.") {
						delete(lb, k)
					}
				}
			}
			continue
		}
		v := l.resAs(op, key)
		export := row["action"] == "export"
		if v == nil || (len(v.Restricted) == 0 && !export) {
			continue
		}
		p, ok := rows.PayloadMap(row["payload"])
		if !ok {
			continue
		}
		if q, ok := p["query"].(string); ok && export {
			p["query"] = l.exportQuery(op, v, q)
		}
		if len(v.Restricted) > 0 {
			v.RedactPayload(p)
		}
		row["payload"] = p
	}
}

// exportQuery is q, the list query an export of v recorded, as op reads
// it (rows.RedactQuery). The audit log's own export holds more that op
// may not read: its payload column, when payloads hide values from op,
// and its _q, which also finds users by the users' search (SearchUsers)
// and so may be an email op's role does not read.
func (l *auditResource) exportQuery(op Operator, v *resource, q string) string {
	var secret map[string]bool
	searched := false
	if v.Key == audit.Key {
		if l.payloadsHide(op) {
			secret = map[string]bool{"payload": true}
		}
		u := l.resAs(op, users.Key)
		searched = u != nil && (!l.readsRows(op, users.Key) || u.SearchesRestricted())
	}
	return v.RedactQuery(q, secret, searched, l.ownParams...)
}

// auditScope is the resource whose scope decides who reads an audit
// entry about key: a sign-in's (auth) and a role's entries are about a
// user, as their targets are (history's TargetLabels).
func auditScope(key string) string {
	if key == "auth" || key == "roles" {
		return users.Key
	}
	return key
}

// scoped reports whether key is a resource of the panel, or its live
// rooms: what a role, a mod's scopes and the policies decide who reads.
func (l *auditResource) scoped(key string) bool {
	return l.resources[key] != nil || (key == "rooms" && l.rooms)
}

// readsRows reports whether op may list or read the rows of resource
// key: whether the catalog shows it to op.
func (l *auditResource) readsRows(op Operator, key string) bool {
	return l.allowed(op, OpList, key) || l.allowed(op, OpRead, key)
}

// payloadsHide reports whether the audit log's payloads hold values op
// may not read: op's role may not read some column of some resource, or
// some resource (or the live rooms) is outside op's reach. Filtering or
// searching the payloads would then tell those values. The audit log's
// own entries (its exports) count only for who may read the log: a
// row's history, the one way to entries without that, never lists them.
func (l *auditResource) payloadsHide(op Operator) bool {
	for _, key := range l.order {
		if v := l.resAs(op, key); v != nil && len(v.Restricted) > 0 {
			return true
		}
		if scope := auditScope(key); scope != audit.Key && !l.readsRows(op, scope) {
			return true
		}
	}
	return l.scoped("rooms") && !l.readsRows(op, "rooms")
}

// listParams are the list parameters of every special resource's own
// and of the export (headersParam): an export's recorded query keeps
// them.
func listParams(s specials) []string {
	return append(slices.Sorted(maps.Keys(s.params())), headersParam)
}
