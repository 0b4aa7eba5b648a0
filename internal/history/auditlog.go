package history

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/rows"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/gameadmin/admin/internal/sqldialect"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// What the audit log's list adds to a generic one: its targets named by
// their rows' labels, and a search that finds a player's entries by the
// player's email or name.

// TargetLabels labels the targets of audit entries (rows of res, the
// audit log), which may name a row of any resource (its
// "resource" column says which; "auth" and "roles" entries name a user):
// one query per resource on the page, keyed by the target's own column
// type so it uses its index, and only for resources op may read. A
// resource whose labels cannot be read leaves its targets as ids,
// logged: the audit log still answers.
func (h *Handler) TargetLabels(ctx context.Context, op authz.Operator, res *rows.Resource, entries []map[string]any) {
	if res.Table.ByName["resource"] == nil || res.Table.ByName["target_id"] == nil || res.Hidden["target_id"] {
		return
	}
	byResource := map[string][]map[string]any{}
	for _, row := range entries {
		key, _ := row["resource"].(string)
		if key == "auth" || key == "roles" {
			key = users.Key // both name a user by its id
		}
		if row["target_id"] != nil {
			byResource[key] = append(byResource[key], row)
		}
	}
	for key, group := range byResource {
		target := h.As(op, key)
		if target == nil || !h.Allowed(op, authz.OpRead, key) {
			continue
		}
		if len(target.Table.PK) > 1 {
			h.compositeLabels(ctx, op, target, group)
			continue
		}
		if len(target.Table.PK) != 1 || len(target.Labels) == 0 {
			continue
		}
		rel := schema.Relation{Kind: schema.One, FK: "target_id", Target: key, Ref: target.Table.PK[0].Name}
		if err := h.Labels(ctx, rel, target, group); err != nil {
			h.Log.WarnContext(ctx, "admin: audit target labels", "resource", key, "err", err)
		}
	}
	h.deletedLabels(ctx, op, entries)
	h.peopleLabels(ctx, op, entries)
	h.categoryLabels(entries)
}

// PeopleFields are the payload fields by which the panel's audit entries
// name a user by id: a kicked player (room.kick's userId, labelled
// "player"), a report's player and reporter (report.file), the operator
// whose claim another took (report.claim's takenFrom). Each is labelled
// under its own name in _labels.
var PeopleFields = []string{"userId", "playerId", "reporterId", "takenFrom"}

// peopleLabels names the users an entry's payload names by id
// (PeopleFields) by their users rows' labels, as _labels[field] (a
// kick's player as _labels.player: the entry's target is the room). Only
// for an op who may read the users, by the users' labels as op's role
// reads them (a masked column names no one); an entry about a resource op
// may not read loses them again (the audit log's redaction). A row-scoped
// mod's are only a kick's player, whose history they read.
func (h *Handler) peopleLabels(ctx context.Context, op authz.Operator, entries []map[string]any) {
	accounts := h.As(op, users.Key)
	if accounts == nil || len(accounts.Table.PK) != 1 || len(accounts.Labels) == 0 || !h.Allowed(op, authz.OpRead, users.Key) {
		return
	}
	type named struct {
		row   map[string]any
		label string
	}
	var who []named
	var people []map[string]any
	for _, row := range entries {
		p, ok := rows.PayloadMap(row["payload"])
		if !ok {
			continue
		}
		for _, f := range PeopleFields {
			id, _ := p[f].(string)
			if id == "" || (f == "userId" && row["action"] != "room.kick") {
				continue
			}
			if op.RowScoped() && f != "userId" {
				// A row-scoped mod reads a player's history (a kick's
				// player is that player), never whom else an entry
				// names: a reporter or an operator may be out of scope.
				continue
			}
			label := f
			if f == "userId" {
				label = "player"
			}
			who, people = append(who, named{row, label}), append(people, map[string]any{"person": id})
		}
	}
	if len(people) == 0 {
		return
	}
	rel := schema.Relation{Kind: schema.One, FK: "person", Target: users.Key, Ref: accounts.Table.PK[0].Name}
	if err := h.Labels(ctx, rel, accounts, people); err != nil {
		h.Log.WarnContext(ctx, "admin: audit payloads' people labels", "err", err)
		return
	}
	for i, w := range who {
		l, _ := people[i]["_labels"].(map[string]string)
		if l["person"] != "" {
			setLabel(w.row, w.label, l["person"])
		}
	}
}

// categoryLabels says a filed report's category (report.file's category,
// a key of the game's ReportCategories) by its label, as
// _labels.category.
func (h *Handler) categoryLabels(entries []map[string]any) {
	if len(h.Categories) == 0 {
		return
	}
	for _, row := range entries {
		if row["action"] != "report.file" {
			continue
		}
		p, _ := rows.PayloadMap(row["payload"])
		if key, _ := p["category"].(string); h.Categories[key] != "" {
			setLabel(row, "category", h.Categories[key])
		}
	}
}

// deletedLabels names a deleted row, which no query finds any more, as
// it was: by its resource's label columns (as op's role reads them) in
// the row the entry kept (its payload's row), as _labels.target_id; and
// the rows its foreign keys named, by their labels, as
// _labels["row.<column>"] (rowLinks).
func (h *Handler) deletedLabels(ctx context.Context, op authz.Operator, entries []map[string]any) {
	byResource := map[string][]map[string]any{}
	for _, row := range entries {
		if row["action"] != "delete" || row["target_id"] == nil {
			continue
		}
		key, _ := row["resource"].(string)
		target := h.As(op, key)
		if target == nil || !h.Allowed(op, authz.OpRead, key) {
			continue
		}
		p, _ := rows.PayloadMap(row["payload"])
		was, _ := p["row"].(map[string]any)
		if was == nil {
			continue
		}
		byResource[key] = append(byResource[key], row)
		if l, _ := row["_labels"].(map[string]string); l["target_id"] != "" {
			continue
		}
		for _, c := range target.Labels {
			if s, ok := was[c].(string); ok && s != "" {
				setLabel(row, "target_id", s)
				break
			}
		}
	}
	if op.RowScoped() {
		return // the rows a deleted row named may be outside the mod's scope
	}
	for key, group := range byResource {
		h.rowLinks(ctx, op, h.As(op, key), group)
	}
}

// rowLinks labels the foreign keys of the rows that delete entries of
// res kept, by the rows they name, for the columns op's role reads and
// the resources op may read: _labels["row.<column>"].
func (h *Handler) rowLinks(ctx context.Context, op authz.Operator, res *rows.Resource, entries []map[string]any) {
	for _, rel := range res.Table.Relations {
		if rel.Kind != schema.One || res.Hidden[rel.FK] || res.Restricted[rel.FK] || res.View.ByName[rel.FK] == nil {
			continue
		}
		to := h.As(op, rel.Target)
		if to == nil || len(to.Labels) == 0 || !h.Allowed(op, authz.OpRead, rel.Target) {
			continue
		}
		var kept, fks []map[string]any
		for _, row := range entries {
			p, _ := rows.PayloadMap(row["payload"])
			was, _ := p["row"].(map[string]any)
			if v := was[rel.FK]; v != nil {
				kept, fks = append(kept, row), append(fks, map[string]any{"fk": v})
			}
		}
		if len(fks) == 0 {
			continue
		}
		if err := h.Labels(ctx, schema.Relation{Kind: schema.One, FK: "fk", Target: rel.Target, Ref: rel.Ref}, to, fks); err != nil {
			h.Log.WarnContext(ctx, "admin: audit deleted rows' links", "resource", res.Key, "relation", rel.Name, "err", err)
			continue
		}
		for i, row := range kept {
			if l, _ := fks[i]["_labels"].(map[string]string); l["fk"] != "" {
				setLabel(row, "row."+rel.FK, l["fk"])
			}
		}
	}
}

// compositeLabels names the targets of res, a resource whose key has
// several columns (a player's save slot), by their key's parts: a part
// that is a foreign key by the row it names, where op may read that
// resource and the column, else its value ("Player 07 · 2"). A target
// none of whose parts is so named keeps its id.
func (h *Handler) compositeLabels(ctx context.Context, op authz.Operator, res *rows.Resource, entries []map[string]any) {
	ids := make([]map[string]any, len(entries))
	for i, row := range entries {
		if raw, ok := row["target_id"].(string); ok {
			ids[i], _ = query.DecodeID(res.Table, raw)
		}
	}
	named := make([]map[string]string, len(entries))
	for _, c := range res.Table.PK {
		i := slices.IndexFunc(res.Table.Relations, func(r schema.Relation) bool { return r.Kind == schema.One && r.FK == c.Name })
		if i < 0 || res.Hidden[c.Name] || res.Restricted[c.Name] || op.RowScoped() {
			continue
		}
		rel := res.Table.Relations[i]
		to := h.As(op, rel.Target)
		if to == nil || len(to.Labels) == 0 || !h.Allowed(op, authz.OpRead, rel.Target) {
			continue
		}
		var at []int
		var fks []map[string]any
		for j, id := range ids {
			if id[c.Name] != nil {
				at, fks = append(at, j), append(fks, map[string]any{"fk": id[c.Name]})
			}
		}
		if len(fks) == 0 {
			continue
		}
		if err := h.Labels(ctx, schema.Relation{Kind: schema.One, FK: "fk", Target: rel.Target, Ref: rel.Ref}, to, fks); err != nil {
			h.Log.WarnContext(ctx, "admin: audit composite targets' labels", "resource", res.Key, "column", c.Name, "err", err)
			continue
		}
		for k, j := range at {
			if l, _ := fks[k]["_labels"].(map[string]string); l["fk"] != "" {
				if named[j] == nil {
					named[j] = map[string]string{}
				}
				named[j][c.Name] = l["fk"]
			}
		}
	}
	for j, row := range entries {
		if named[j] == nil {
			continue
		}
		parts := make([]string, len(res.Table.PK))
		for k, c := range res.Table.PK {
			if parts[k] = named[j][c.Name]; parts[k] == "" {
				parts[k] = fmt.Sprint(ids[j][c.Name])
			}
		}
		setLabel(row, "target_id", strings.Join(parts, " · "))
	}
}

// setLabel sets row's _labels[key].
func setLabel(row map[string]any, key, label string) {
	m, _ := row["_labels"].(map[string]string)
	if m == nil {
		m = map[string]string{}
		row["_labels"] = m
	}
	m[key] = label
}

// auditSearchLimit bounds the users an audit search looks for: a _q that
// matches more names a player too vaguely to list their history.
const auditSearchLimit = 100

// KickedUser is the SQL of the player a room.kick entry names: its
// payload's userId, as text (NULL for a payload that is not JSON, on
// SQLite and MySQL, where the column is text).
func KickedUser(d dialect.Name) string {
	switch d {
	case dialect.PG:
		return "(CAST(?TableAlias.payload AS jsonb) ->> 'userId')"
	case dialect.MySQL:
		return "(CASE WHEN JSON_VALID(?TableAlias.payload) THEN JSON_VALUE(?TableAlias.payload, '$.userId') END)"
	}
	return "(CASE WHEN json_valid(?TableAlias.payload) THEN json_extract(?TableAlias.payload, '$.userId') END)"
}

// SearchUsers are the conditions that make the audit log's _q also
// find the entries about the users whose own search (the users list's _q:
// email, name) matches q: as target (of users, roles or auth entries), as
// the player a room.kick entry names (its payload's userId) or as
// operator. None when op may not list users.
func (h *Handler) SearchUsers(ctx context.Context, db bun.IDB, op authz.Operator, q string) ([]query.Cond, error) {
	accounts := h.As(op, users.Key)
	if accounts == nil || !h.Allowed(op, authz.OpList, users.Key) || len(accounts.Table.PK) != 1 || accounts.Hidden[accounts.Table.PK[0].Name] {
		return nil, nil
	}
	// The users list's own search as op's role has it: a column it may
	// not read is no way to find anyone by it.
	l := &query.List{Q: q, Search: accounts.SearchColumns()}
	var ids []string
	pk := bun.Ident(accounts.Table.PK[0].Name)
	t := accounts.Table
	sel := l.ApplyFilters(query.From(db, t).ColumnExpr(sqldialect.CastText(db.Dialect().Name(), "?TableAlias.?"), pk), accounts.View).Limit(auditSearchLimit)
	err := query.Whole(db, sel, nil).Conn(db).Scan(ctx, &ids)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	// A kick's entry is the room's, naming the player in its payload.
	kicked := KickedUser(db.Dialect().Name())
	return []query.Cond{
		{Expr: "(?TableAlias.resource IN ('" + users.Key + "', 'roles', 'auth') AND ?TableAlias.target_id IN (?))", Args: []any{bun.List(ids)}},
		{Expr: "?TableAlias.operator_id IN (?)", Args: []any{bun.List(ids)}},
		{Expr: "(?TableAlias.resource = 'rooms' AND ?TableAlias.action = 'room.kick' AND " + kicked + " IN (?))", Args: []any{bun.List(ids)}},
	}, nil
}
