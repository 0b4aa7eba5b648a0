package userdata

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/rows"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/gameadmin/admin/internal/sqldialect"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
)

// An erase takes out of the audit log what it takes out of the live
// tables: the log must not keep what the erase removed. What that is, is
// gathered before anything is erased (newEraseScope), from the user's row,
// the rows the erase will delete, unlink or anonymize, and the log's own
// record of the account (the emails and names it had before). Then every
// entry that can hold it is read, a batch at a time, and rewritten with
// those values replaced by "[erased]" (redactAudit). Entries keep their
// ids, actions, targets and operators.

// auditBatch is how many audit entries one read of a redaction holds.
const auditBatch = 500

// eraseScope is what an erase of one user removes, as the audit log may
// hold it.
type eraseScope struct {
	userID string
	// emails are every address the account had (lower-cased), replaced
	// inside any text of any entry, in any case. reused are those another
	// account holds now: they are that account's too, so they go only
	// from the user's own entries.
	emails []string
	reused map[string]bool
	// names are the user's display names and Personal values, now and
	// before (folded: see fold): a text equal to one is replaced in the
	// user's entries and in entries that hold one of the emails.
	names map[string]bool
	// personal are the users table's personal columns, replaced by name
	// in the users entries about the user.
	personal []string
	// targets are the rows the erase deletes, unlinks or anonymizes,
	// by resource and row id, with the columns whose values go from the
	// entries about those rows; values are those rows' texts (not
	// trivial ones), replaced where an entry of those rows holds them
	// elsewhere than under the column's name (a custom action's payload).
	targets map[string]map[string][]string
	values  map[string]bool
}

// newEraseScope gathers what erasing userID (its users row row, its
// parts) removes, before anything is removed; known are addresses an
// earlier look found (the search before the transaction), kept even when
// the row has changed since.
func (a *Service) newEraseScope(ctx context.Context, tx bun.IDB, users *rows.Resource, userID string, row map[string]any, parts []userPart, known ...string) (*eraseScope, error) {
	s := &eraseScope{userID: userID, reused: map[string]bool{}, names: map[string]bool{}, personal: a.personalColumns(users),
		targets: map[string]map[string][]string{}, values: map[string]bool{}}
	emails := map[string]bool{}
	addEmail := func(v any) {
		if e, ok := v.(string); ok {
			if e = strings.ToLower(strings.TrimSpace(e)); e != "" && e != erased && !emails[e] {
				emails[e] = true
				s.emails = append(s.emails, e)
			}
		}
	}
	addName := func(v any) {
		if n, ok := v.(string); ok {
			// An earlier erase's own value ("erased-<id>") is no name.
			if n = fold(n); n != "" && n != erased && n != fold("erased-"+userID) {
				s.names[n] = true
			}
		}
	}
	emailCol := a.Users.Cols.Email
	addEmail(row[emailCol])
	for _, e := range known {
		addEmail(e)
	}
	for _, c := range s.personal {
		if c != emailCol {
			addName(row[c])
		}
	}
	// The log's own record of the account: the users entries' values of
	// its personal columns, the emails its sign-ins named.
	err := a.walkAudit(ctx, tx, func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.Where("resource IN ('users', 'auth') AND target_id = ?", userID)
	}, func(e auditRow, p any) error {
		m, _ := p.(map[string]any)
		if e.Resource == "auth" {
			addEmail(m["email"])
			return nil
		}
		ch, _ := m["changes"].(map[string]any)
		rw, _ := m["row"].(map[string]any)
		for _, c := range s.personal {
			add := addName
			if c == emailCol {
				add = addEmail
			}
			if d, ok := ch[c].(map[string]any); ok {
				add(d["before"])
				add(d["after"])
			}
			add(rw[c])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, e := range s.emails {
		taken, err := a.Users.EmailTaken(ctx, tx, e, userID)
		if err != nil {
			return nil, fmt.Errorf("admin: erase: %w", err)
		}
		s.reused[e] = taken
	}
	for _, p := range parts {
		if err := s.addRows(ctx, tx, p); err != nil {
			return nil, erasePartError(p, err)
		}
	}
	return s, nil
}

// addRows adds the rows the erase will change of part p (none for
// EraseKeep: they stay as they are) to the targets, read a batch at a
// time.
func (s *eraseScope) addRows(ctx context.Context, tx bun.IDB, p userPart) error {
	cols := erasedColumns(p)
	if len(cols) == 0 {
		return nil
	}
	res := p.target
	ids := s.targets[res.Key]
	if ids == nil {
		ids = map[string][]string{}
		s.targets[res.Key] = ids
	}
	l := &query.List{Where: []query.Cond{p.where()}}
	l.Walk(res.View, auditBatch)
	for {
		rows, err := query.ScanRows(ctx, l.Query(tx, res.Table, res.View, nil, nil), res.Table, nil)
		if err != nil {
			return err
		}
		page, _ := l.Page(res.View, rows)
		for _, row := range page {
			id := query.EncodeID(res.Table, row)
			if ids[id] == nil {
				ids[id] = cols // shared, never changed
			} else {
				ids[id] = slices.Concat(ids[id], cols) // a second relation to the same row
			}
			for _, c := range cols {
				if v, ok := row[c].(string); ok && notTrivial(v) {
					s.values[fold(v)] = true
				}
			}
		}
		if len(rows) <= len(page) || !l.Advance(res.View, page[len(page)-1]) {
			return nil
		}
	}
}

// erasedColumns are the columns of p's rows whose values the erase takes
// away with the rows: an anonymization's columns; for a delete or an
// unlink (after which nothing ties the row to the user but the audit
// log), every column that can hold personal text, that is neither a key
// nor a reference (ids stay, as everywhere in the log).
func erasedColumns(p userPart) []string {
	if p.rule == rows.EraseKeep {
		return nil
	}
	if anon, ok := p.rule.(rows.EraseAnonymize); ok {
		return anon.Columns
	}
	t := p.target.Table
	refs := map[string]bool{p.rel.FK: true}
	for _, r := range t.Relations {
		if r.Kind == schema.One {
			refs[r.FK] = true
		}
	}
	var cols []string
	for _, c := range t.Columns {
		if c.Primary || refs[c.Name] {
			continue
		}
		switch c.Kind {
		case schema.KindText, schema.KindJSON, schema.KindArray, schema.KindInet, schema.KindBytes:
			cols = append(cols, c.Name)
		}
	}
	return cols
}

// notTrivial reports a text worth looking for outside its column: not a
// short word, a number or a boolean, which other entries hold for other
// reasons.
func notTrivial(v string) bool {
	v = strings.TrimSpace(v)
	if utf8.RuneCountInString(v) < 4 || v == erased {
		return false
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return false
	}
	_, err := strconv.ParseBool(v)
	return err != nil
}

// fold is how names and values are compared: trimmed, in any case.
func fold(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// auditRow is an audit entry as a redaction reads it.
type auditRow struct {
	ID         int64          `bun:"id"`
	Resource   string         `bun:"resource"`
	TargetID   *string        `bun:"target_id"`
	OperatorID *string        `bun:"operator_id"`
	Payload    users.NullJSON `bun:"payload"`
}

// walkAudit calls fn with each audit entry that where selects and its
// decoded payload (entries without one are skipped), in id order, read
// auditBatch at a time so that a large log is never held in memory.
func (a *Service) walkAudit(ctx context.Context, tx bun.IDB, where func(*bun.SelectQuery) *bun.SelectQuery, fn func(e auditRow, payload any) error) error {
	var last int64
	for {
		var batch []auditRow
		q := tx.NewSelect().TableExpr("? AS aa", a.Table("admin_audit")).
			ColumnExpr("id, resource, target_id, "+sqldialect.CastText(tx.Dialect().Name(), "operator_id")+" AS operator_id, payload").
			WhereGroup(" AND ", where).Where("id > ?", last).Order("id").Limit(auditBatch)
		if err := q.Scan(ctx, &batch); err != nil {
			return fmt.Errorf("admin: erase: read the audit log: %w", err)
		}
		for _, e := range batch {
			last = e.ID
			if len(e.Payload) == 0 {
				continue
			}
			d := json.NewDecoder(bytes.NewReader(e.Payload))
			d.UseNumber()
			var p any
			if d.Decode(&p) != nil {
				continue
			}
			if err := fn(e, p); err != nil {
				return err
			}
		}
		if len(batch) < auditBatch {
			return nil
		}
	}
}

// redactAudit replaces, in every audit entry, what the erase of s.userID
// takes away (see eraseScope and redactEntry), and reports how many
// entries it changed. The entries are found in SQL: those about or by
// the user, those whose text holds one of the emails in any case, and
// those of the rows the erase changes. When found (the search before the
// transaction) covers s, the entries that mention the user are read
// again by id, with those written since; else the whole log is searched.
func (a *Service) redactAudit(ctx context.Context, tx bun.Tx, s *eraseScope, found *auditFound) (int64, error) {
	seen := map[int64]bool{}
	var n int64
	redact := func(e auditRow, p any) error {
		if seen[e.ID] {
			return nil
		}
		seen[e.ID] = true
		out, changed := s.redactEntry(e, p)
		if !changed {
			return nil
		}
		b, err := json.Marshal(out)
		if err != nil {
			return fmt.Errorf("admin: erase: redact audit entry %d: %w", e.ID, err)
		}
		if _, err := tx.NewUpdate().TableExpr("?", a.Table("admin_audit")).Set("payload = ?", string(query.StoredJSON(b))).Where("id = ?", e.ID).Exec(ctx); err != nil {
			return fmt.Errorf("admin: erase: redact audit entry %d: %w", e.ID, err)
		}
		n++
		return nil
	}
	mentions := s.mentions(tx.Dialect().Name())
	if !found.covers(s) {
		if err := a.walkAudit(ctx, tx, mentions, redact); err != nil {
			return 0, err
		}
	} else {
		for ids := found.ids; len(ids) > 0; {
			chunk := ids[:min(len(ids), auditBatch)]
			ids = ids[len(chunk):]
			err := a.walkAudit(ctx, tx, func(q *bun.SelectQuery) *bun.SelectQuery {
				return q.Where("id IN (?)", bun.List(chunk)).WhereGroup(" AND ", mentions)
			}, redact)
			if err != nil {
				return 0, err
			}
		}
		err := a.walkAudit(ctx, tx, func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("id > ?", found.top).WhereGroup(" AND ", mentions)
		}, redact)
		if err != nil {
			return 0, err
		}
	}
	for res, rows := range s.targets {
		ids := make([]string, 0, len(rows))
		for id := range rows {
			ids = append(ids, id)
		}
		for len(ids) > 0 {
			chunk := ids[:min(len(ids), auditBatch)]
			ids = ids[len(chunk):]
			err := a.walkAudit(ctx, tx, func(q *bun.SelectQuery) *bun.SelectQuery {
				return q.Where("resource = ? AND target_id IN (?)", res, bun.List(chunk))
			}, redact)
			if err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// likeText is a LIKE pattern (for lower(text)) of the texts that may
// hold s, lower-cased, in any case: each character that the database's
// lower() may not fold, or that its JSON text may escape, or that LIKE
// reads as a pattern, matches anything. Entries it lets through that do
// not hold s are left as they are.
func likeText(s string) string {
	var b strings.Builder
	b.WriteByte('%')
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', strings.ContainsRune(".-+@!#$*/=?^`{|}~ ',:;()[]", r):
			b.WriteRune(r)
		case !strings.HasSuffix(b.String(), "%"):
			b.WriteByte('%')
		}
	}
	if !strings.HasSuffix(b.String(), "%") {
		b.WriteByte('%')
	}
	return b.String()
}

// redactEntry is e's payload p with what s takes away replaced, and
// whether anything was:
//   - in the user's own entries (about the account, its role and
//     sign-ins, or by it) and the entries of the rows the erase changes:
//     every email, inside any text; a text equal to a name; in a users
//     entry about the user, its personal columns; in an entry of an
//     erased row, that row's erased columns and the erased rows' texts;
//   - in any other entry that holds one of the emails (but one another
//     account holds now): the emails and the names.
func (s *eraseScope) redactEntry(e auditRow, p any) (any, bool) {
	about := e.TargetID != nil && *e.TargetID == s.userID && (e.Resource == users.Key || e.Resource == "roles" || e.Resource == "auth")
	own := about || e.OperatorID != nil && *e.OperatorID == s.userID
	var cols []string
	if e.TargetID != nil {
		cols = s.targets[e.Resource][*e.TargetID]
	}
	target := cols != nil
	r := redaction{names: s.names}
	for _, em := range s.emails {
		if own || target || !s.reused[em] {
			r.emails = append(r.emails, em)
		}
	}
	if target {
		r.values = s.values
	}
	if !own && !target && !r.mentions(p) {
		return p, false
	}
	p = r.redact(p)
	if about && e.Resource == users.Key {
		p = r.columns(p, s.personal)
	}
	if target {
		p = r.columns(p, cols)
	}
	return p, r.changed
}

// redaction replaces values in one decoded payload and notes whether it
// did.
type redaction struct {
	emails  []string        // lower-cased: replaced inside any text
	names   map[string]bool // folded: a text equal to one is replaced
	values  map[string]bool // folded: a text equal to one is replaced
	changed bool
}

// mentions reports whether any text of v holds one of the emails.
func (r *redaction) mentions(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if r.mentions(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if r.mentions(e) {
				return true
			}
		}
	case string:
		l := strings.ToLower(x)
		for _, em := range r.emails {
			if strings.Contains(l, em) {
				return true
			}
		}
	}
	return false
}

// redact replaces, in a decoded JSON value, the emails inside any text
// and any text equal to a name or value.
func (r *redaction) redact(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = r.redact(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = r.redact(e)
		}
		return x
	case string:
		if x == erased {
			return x
		}
		if f := fold(x); r.names[f] || r.values[f] {
			r.changed = true
			return erased
		}
		out := x
		for _, em := range r.emails {
			out = replaceFold(out, em, erased)
		}
		if out != x {
			r.changed = true
		}
		return out
	}
	return v
}

// columns replaces the values of cols in an entry's changes (before and
// after) and row; null values stay null.
func (r *redaction) columns(v any, cols []string) any {
	p, ok := v.(map[string]any)
	if !ok {
		return v
	}
	replace := func(m map[string]any, k string) {
		if x, ok := m[k]; ok && x != nil && x != erased {
			m[k] = erased
			r.changed = true
		}
	}
	ch, _ := p["changes"].(map[string]any)
	row, _ := p["row"].(map[string]any)
	for _, c := range cols {
		if d, ok := ch[c].(map[string]any); ok {
			replace(d, "before")
			replace(d, "after")
			paths, _ := d[audit.PathsKey].([]any)
			for _, p := range paths {
				if pc, ok := p.(map[string]any); ok {
					replace(pc, "before")
					replace(pc, "after")
				}
			}
		}
		if row != nil {
			replace(row, c)
		}
	}
	return p
}

// replaceFold replaces every occurrence of lower (lower-cased) in s, in
// any case. Offsets are mapped rune by rune, since lower-casing may
// change a rune's length in bytes.
func replaceFold(s, lower, repl string) string {
	if lower == "" {
		return s
	}
	var ls strings.Builder
	at := make([]int, 0, len(s)+1) // at[i]: the offset in s of ls's byte i
	for i, r := range s {
		n := ls.Len()
		ls.WriteRune(unicode.ToLower(r))
		for range ls.Len() - n {
			at = append(at, i)
		}
	}
	at = append(at, len(s))
	l := ls.String()
	if !strings.Contains(l, lower) {
		return s
	}
	var b strings.Builder
	prev := 0 // in l
	for {
		i := strings.Index(l[prev:], lower)
		if i < 0 {
			b.WriteString(s[at[prev]:])
			return b.String()
		}
		i += prev
		b.WriteString(s[at[prev]:at[i]])
		b.WriteString(repl)
		prev = i + len(lower)
	}
}
