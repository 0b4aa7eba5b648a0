package users

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gameadmin/admin/internal/schema"
	"github.com/gameadmin/admin/internal/sqldialect"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// BanTable is admin.BanTable, field for field; its documentation is
// there: the game's own table of bans, one row a ban, read and written
// instead of a ban column on the users table.
type BanTable struct {
	Name      string // the table (required)
	Player    string // the column holding the banned user's id (required)
	Until     string // when the ban ends: a time or unix seconds; NULL for good (required)
	Reason    string // optional text column
	Author    string // optional: the banning operator's id
	CreatedAt string // optional: when the row was written
}

// bans is a BanTable as checked against the database (CheckBanTable).
type bans struct {
	BanTable
	unix    bool // Until holds unix seconds
	pg      bool
	d       dialect.Name
	created bool // CreatedAt holds unix seconds (else a time)
}

// checkBanConfig checks what New can without the database: the table and
// its three required columns named, and no ban column of the users table
// beside it.
func checkBanConfig(set Columns) error {
	bt := set.BanTable
	if bt == nil {
		return nil
	}
	switch {
	case set.Ban != "":
		return fmt.Errorf("admin: UserColumns.Ban (%q, a JSON column) and UserColumns.BanTable (%q) both name the ban: set one", set.Ban, bt.Name)
	case set.BanUntil != "":
		return fmt.Errorf("admin: UserColumns.BanUntil (%q) and UserColumns.BanTable (%q) both name the ban: set one", set.BanUntil, bt.Name)
	case bt.Name == "":
		return fmt.Errorf("admin: UserColumns.BanTable.Name is required: the game's table of bans")
	case bt.Player == "" || bt.Until == "":
		return fmt.Errorf("admin: UserColumns.BanTable (%q): Player (the banned user's id column) and Until (when the ban ends) are required", bt.Name)
	}
	for _, n := range []string{bt.Name, bt.Player, bt.Until, bt.Reason, bt.Author, bt.CreatedAt} {
		// Quoted, a name may hold anything but Bun's placeholder and NUL.
		if strings.ContainsAny(n, "?\x00") {
			return fmt.Errorf("admin: UserColumns.BanTable (%q): %q is not a name the panel takes (no ? or NUL)", bt.Name, n)
		}
	}
	return nil
}

// CheckBanTable checks UserColumns.BanTable against the database's
// catalog (New calls it once the tables are migrated): the table and
// every column it names exist, and Until and CreatedAt hold times (a
// time column, or an integer of unix seconds). Nothing without a
// BanTable.
func (u *Table) CheckBanTable(ctx context.Context, db bun.IDB) error {
	if u.Bans == nil {
		return nil
	}
	b := u.Bans
	b.d = db.Dialect().Name()
	b.pg = b.d == dialect.PG
	types, err := schema.ColumnTypes(ctx, db, b.Name)
	if err != nil {
		return fmt.Errorf("admin: UserColumns.BanTable: %w", err)
	}
	if len(types) == 0 {
		return fmt.Errorf("admin: UserColumns.BanTable: table %q does not exist", b.Name)
	}
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, c := range []struct{ field, col string }{
		{"Player", b.Player}, {"Until", b.Until}, {"Reason", b.Reason}, {"Author", b.Author}, {"CreatedAt", b.CreatedAt},
	} {
		if _, ok := types[c.col]; c.col != "" && !ok {
			return fmt.Errorf("admin: UserColumns.BanTable.%s: table %s has no column %q%s", c.field, b.Name, c.col, schema.ClosestHint(c.col, names))
		}
	}
	var ok bool
	if b.unix, ok = timeType(types[b.Until], b.d); !ok {
		return fmt.Errorf("admin: UserColumns.BanTable.Until: column %q of %s is a %s: it must be a time (timestamptz, timestamp, SQLite DATETIME or TEXT) or an integer of unix seconds", b.Until, b.Name, types[b.Until])
	}
	if b.CreatedAt != "" {
		if b.created, ok = timeType(types[b.CreatedAt], b.d); !ok {
			return fmt.Errorf("admin: UserColumns.BanTable.CreatedAt: column %q of %s is a %s: it must be a time or an integer of unix seconds", b.CreatedAt, b.Name, types[b.CreatedAt])
		}
	}
	return nil
}

// timeType reports whether a column of type typ holds a time, and
// whether as unix seconds (an integer).
func timeType(typ string, d dialect.Name) (unix, ok bool) {
	switch {
	case typ == "tinyint":
		// MySQL's BOOLEAN, and too narrow for seconds anyway.
		return false, false
	case strings.Contains(typ, "int"):
		return true, true
	case strings.HasPrefix(typ, "timestamp"), typ == "datetime", typ == "date":
		return false, true
	case d == dialect.SQLite && (typ == "text" || typ == "" || strings.Contains(typ, "char")):
		// SQLite keeps a time as ISO text, which julianday reads.
		return false, true
	}
	return false, false
}

// quoteName quotes a table name, optionally schema-qualified.
func (b *bans) quoteName(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = sqldialect.Quote(b.d, p)
	}
	return strings.Join(parts, ".")
}

// col is the quoted column of the bans table, under alias b.
func (b *bans) col(name string) string { return "b." + sqldialect.Quote(b.d, name) }

// from is the bans table under alias b.
func (b *bans) from() string { return b.quoteName(b.Name) + " AS b" }

// active is the condition that ban row b is in force now, by the
// database's clock: Until NULL (for good) or ahead.
func (b *bans) active() string { return b.activeAt(b.col(b.Until)) }

// activeAt is active of the until column c, quoted (and qualified).
func (b *bans) activeAt(c string) string {
	if !b.unix && b.d == dialect.SQLite {
		// SQLite holds a time as text: julianday reads the ISO forms
		// with or without an offset.
		return "(" + c + " IS NULL OR julianday(" + c + ") > julianday('now'))"
	}
	return "(" + c + " IS NULL OR " + c + " > " + b.now() + ")"
}

// now is the database's clock as the Until column holds it: what an
// unban writes there, so that the row has ended by the clock active
// reads (the panel's Options.Clock, which tests move, does not).
func (b *bans) now() string {
	switch {
	case b.unix && b.pg:
		return "CAST(EXTRACT(EPOCH FROM now()) AS BIGINT)"
	case b.unix && b.d == dialect.MySQL:
		return "UNIX_TIMESTAMP()"
	case b.d == dialect.MySQL:
		// DATETIME holds no zone: the panel writes UTC, so the clock is read in UTC.
		return "UTC_TIMESTAMP(6)"
	case b.unix:
		return "CAST(strftime('%s', 'now') AS INTEGER)"
	case b.pg:
		return "now()"
	}
	return "strftime('%Y-%m-%d %H:%M:%f+00:00', 'now')"
}

// activeOf is the subquery's condition "row b is an active ban of the
// user whose id is idExpr".
func (b *bans) activeOf(idExpr string) string {
	return b.col(b.Player) + " = " + idExpr + " AND " + b.active()
}

// stateColumns are StateColumns' two columns with a BanTable: the end
// of the user's active ban that ends last (PermanentUntil's value for
// one without an end), and its reason; NULL without an active ban.
func (b *bans) stateColumns(q *bun.SelectQuery, id bun.Safe) *bun.SelectQuery {
	forever := "'" + PermanentUntil.Format("2006-01-02 15:04:05") + "'"
	switch {
	case b.unix:
		forever = fmt.Sprint(PermanentUntil.Unix())
	case b.pg:
		forever = "CAST(" + forever + " AS timestamptz)"
	}
	where := " FROM " + b.from() + " WHERE " + b.activeOf(string(id))
	until := "COALESCE(" + b.col(b.Until) + ", " + forever + ")"
	order := " ORDER BY CASE WHEN " + b.col(b.Until) + " IS NULL THEN 0 ELSE 1 END, " + b.col(b.Until) + " DESC LIMIT 1"
	q = q.ColumnExpr("(SELECT " + until + where + order + ")")
	if b.Reason == "" {
		return q.ColumnExpr("NULL")
	}
	return q.ColumnExpr("(SELECT " + sqldialect.CastText(b.d, b.col(b.Reason)) + where + order + ")")
}

// whereBanned is WhereBanned with a BanTable: an active row exists.
func (b *bans) whereBanned(banned bool) string {
	exists := "EXISTS (SELECT 1 FROM " + b.from() + " WHERE " + b.activeOf("?TableAlias.?") + ")"
	if banned {
		return exists
	}
	return "NOT " + exists
}

// value is what a time column of the bans table stores for t: unix
// seconds (unix) or the time in UTC.
func (b *bans) value(t time.Time, unix bool) any {
	if unix {
		return t.Unix()
	}
	return t.UTC()
}

// WriteBan writes userID's ban into the bans table through db (the
// caller's transaction): every active row of theirs ends now (Until set
// to the database's now), then, for a ban (ban not nil), a row is inserted: the user,
// its end (NULL without one), reason, author and time where the table
// has those columns. So one row is active afterwards, or none for an
// unban (nil). Rows are never deleted: the table keeps the history.
func (u *Table) WriteBan(ctx context.Context, db bun.IDB, userID string, ban *BanInfo, now time.Time) error {
	b := u.Bans
	if b == nil {
		return fmt.Errorf("admin: WriteBan without a BanTable")
	}
	now = now.UTC()
	end := "UPDATE " + b.quoteName(b.Name) + " SET " + sqldialect.Quote(b.d, b.Until) + " = " + b.now() + " WHERE " + sqldialect.Quote(b.d, b.Player) + " = ? AND " +
		b.activeAt(sqldialect.Quote(b.d, b.Until))
	if _, err := db.NewRaw(end, userID).Exec(ctx); err != nil {
		return fmt.Errorf("admin: end the bans of %s in %s: %w", userID, b.Name, err)
	}
	if ban == nil {
		return nil
	}
	cols := []string{b.Player, b.Until}
	var until any
	if ban.Until != nil {
		until = b.value(*ban.Until, b.unix)
	}
	vals := []any{userID, until}
	add := func(col string, v any) {
		if col != "" {
			cols, vals = append(cols, col), append(vals, v)
		}
	}
	if ban.Reason != "" {
		add(b.Reason, ban.Reason)
	}
	if ban.BannedBy != "" {
		add(b.Author, ban.BannedBy)
	}
	at := ban.BannedAt
	if at.IsZero() {
		at = now
	}
	add(b.CreatedAt, b.value(at, b.created))
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = sqldialect.Quote(b.d, c)
	}
	ins := "INSERT INTO " + b.quoteName(b.Name) + " (" + strings.Join(quoted, ", ") + ") VALUES (" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	if _, err := db.NewRaw(ins, vals...).Exec(ctx); err != nil {
		return fmt.Errorf("admin: insert the ban of %s into %s: %w", userID, b.Name, err)
	}
	return nil
}

// BanRow is one row of the bans table as the panel shows it: the users
// list's _ban, a player's export.
type BanRow struct {
	Player    string     `json:"-"`
	Until     *time.Time `json:"until,omitempty"` // nil: for good
	Reason    string     `json:"reason,omitempty"`
	Author    string     `json:"author,omitempty"`
	CreatedAt *time.Time `json:"createdAt,omitempty"`
	Active    bool       `json:"active"`
}

// BanRows reads the bans table's rows of the users ids: only the active
// ones (activeOnly), the one ending last first for each user, or every
// row, newest first. Nil without a BanTable.
func (u *Table) BanRows(ctx context.Context, db bun.IDB, ids []string, activeOnly bool) ([]BanRow, error) {
	b := u.Bans
	if b == nil || len(ids) == 0 {
		return nil, nil
	}
	sel := []string{sqldialect.CastText(b.d, b.col(b.Player)), b.col(b.Until), "CASE WHEN " + b.active() + " THEN 1 ELSE 0 END"}
	for _, c := range []string{b.Reason, b.Author} {
		if c != "" {
			sel = append(sel, sqldialect.CastText(b.d, b.col(c)))
		} else {
			sel = append(sel, "NULL")
		}
	}
	if b.CreatedAt != "" {
		sel = append(sel, b.col(b.CreatedAt))
	} else {
		sel = append(sel, "NULL")
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	stmt := "SELECT " + strings.Join(sel, ", ") + " FROM " + b.from() + " WHERE " + b.col(b.Player) + " IN (?)"
	if activeOnly {
		stmt += " AND " + b.active()
	}
	stmt += " ORDER BY CASE WHEN " + b.col(b.Until) + " IS NULL THEN 0 ELSE 1 END, " + b.col(b.Until) + " DESC"
	rows, err := db.QueryContext(ctx, stmt, bun.List(args))
	if err != nil {
		return nil, fmt.Errorf("admin: read the bans table %s: %w", b.Name, err)
	}
	defer rows.Close()
	var out []BanRow
	for rows.Next() {
		var r BanRow
		var until, created RawValue
		var reason, author sql.NullString
		var active int
		if err := rows.Scan(&r.Player, &until, &active, &reason, &author, &created); err != nil {
			return nil, err
		}
		r.Active, r.Reason, r.Author = active == 1, reason.String, author.String
		for _, p := range []struct {
			raw RawValue
			dst **time.Time
		}{{until, &r.Until}, {created, &r.CreatedAt}} {
			if p.raw.V == nil {
				continue
			}
			t, err := UntilValue(p.raw.V)
			if err != nil {
				return nil, fmt.Errorf("admin: bans table %s: %w", b.Name, err)
			}
			t = t.UTC()
			*p.dst = &t
		}
		if r.Until != nil && r.Until.Year() >= PermanentAfter {
			r.Until = nil
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
