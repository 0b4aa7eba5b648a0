package users

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/sqldialect"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// BanInfo is the JSON held in game_users.ban while a user is banned. With
// an until-column (Columns.BanUntil) it is read from that column and the
// reason column: BannedAt and BannedBy are then unknown (zero).
type BanInfo struct {
	Reason   string     `json:"reason,omitempty"`
	Until    *time.Time `json:"until,omitempty"`
	BannedAt time.Time  `json:"bannedAt"`
	BannedBy string     `json:"bannedBy,omitempty"`
}

// Active reports whether the ban is in force at now: it has no end, or its
// end is still ahead.
func (b *BanInfo) Active(now time.Time) bool {
	return b != nil && (b.Until == nil || now.Before(*b.Until))
}

// Account is what sign-in needs of a user row.
type Account struct {
	ID string
	// Email is "" when the column is NULL (a guest player's account) or
	// the table has none (Table.HasEmail).
	Email string
	// Username is the login name (Columns.Username), "" without one.
	Username     string
	DisplayName  string
	PasswordHash string
	TokenVersion int64
	Ban          *BanInfo
}

func (u *Table) selectAccount(db bun.IDB) *bun.SelectQuery {
	q := db.NewSelect().TableExpr("? AS u", u.Ident()).ColumnExpr("?", sqldialect.AsText(u.Col(u.Cols.ID, "u")))
	for _, c := range []string{u.Cols.Email, u.Cols.Username} {
		if c == "" {
			q = q.ColumnExpr("''")
		} else {
			q = q.ColumnExpr("COALESCE(?, '')", sqldialect.AsText(u.Col(c, "u")))
		}
	}
	q = q.ColumnExpr("COALESCE(?, '')", u.Col(u.Cols.PasswordHash, "u"))
	if u.HasDisplayName {
		q = q.ColumnExpr("COALESCE(?, '')", u.Col(u.Cols.DisplayName, "u"))
	} else {
		q = q.ColumnExpr("''")
	}
	return u.StateColumns(q)
}

// StateColumns adds the token version (0 without the column) and the ban
// (two columns: the JSON ban and NULL, or the until-column and the
// reason; NULL without a ban) of users "u" to q. BanState scans the two.
func (u *Table) StateColumns(q *bun.SelectQuery) *bun.SelectQuery {
	if u.HasTokenVersion {
		q = q.ColumnExpr("?", u.Col(u.Cols.TokenVersion, "u"))
	} else {
		q = q.ColumnExpr("0")
	}
	switch {
	case u.Bans != nil:
		return u.Bans.stateColumns(q, u.Col(u.Cols.ID, "u"))
	case u.Cols.BanUntil != "":
		q = q.ColumnExpr("?", u.Col(u.Cols.BanUntil, "u"))
	case u.HasBan:
		q = q.ColumnExpr("?", u.Col(u.Cols.Ban, "u"))
	default:
		q = q.ColumnExpr("NULL")
	}
	if u.Cols.BanReason != "" {
		return q.ColumnExpr("?", sqldialect.AsText(u.Col(u.Cols.BanReason, "u")))
	}
	return q.ColumnExpr("NULL")
}

// BanState scans the two ban columns StateColumns selects; Ban reads
// them.
type BanState struct {
	Raw    RawValue
	Reason sql.NullString
}

// Dest is what to hand Scan for the two columns.
func (b *BanState) Dest() []any { return []any{&b.Raw, &b.Reason} }

func scanAccount(u *Table, row interface{ Scan(...any) error }) (*Account, error) {
	var acc Account
	var ban BanState
	if err := row.Scan(append([]any{&acc.ID, &acc.Email, &acc.Username, &acc.PasswordHash, &acc.DisplayName, &acc.TokenVersion}, ban.Dest()...)...); err != nil {
		return nil, err
	}
	var err error
	if acc.Ban, err = u.Ban(acc.ID, ban); err != nil {
		return &acc, fmt.Errorf("%w: %w", ErrMalformedBan, err)
	}
	return &acc, nil
}

// ErrMalformedBan wraps the error of a ban column that does not read as a
// ban; the account comes back with it, its Ban nil.
var ErrMalformedBan = errors.New("admin: malformed ban")

// Ban reads userID's ban from what StateColumns selected: nil when the
// column is NULL. An until-column gives a BanInfo with Until (nil when
// permanent: the sentinel, or any time past PermanentAfter) and the
// reason; one in the past is a ban no longer in force (Active is false).
func (u *Table) Ban(userID string, b BanState) (*BanInfo, error) {
	if u.Cols.BanUntil == "" && u.Bans == nil {
		return ParseBan(userID, NullJSON(b.Raw.bytes()))
	}
	if b.Raw.V == nil {
		return nil, nil
	}
	until, err := UntilValue(b.Raw.V)
	if err != nil {
		return nil, fmt.Errorf("admin: user %s: ban column %s: %w", userID, cmp.Or(u.Cols.BanUntil, "bans table"), err)
	}
	ban := &BanInfo{Reason: b.Reason.String}
	if until.Year() < PermanentAfter {
		t := until.UTC()
		ban.Until = &t
	}
	return ban, nil
}

// Words says the ban as an operator reads it, in UTC: "Banned until
// 2026-12-04 00:00 UTC — speed hack", "Banned for good", "Ban ended
// 2026-11-01 12:00 UTC"; "" for none.
func (b *BanInfo) Words(now time.Time) string {
	if b == nil {
		return ""
	}
	s := "Banned for good"
	switch {
	case b.Until != nil && !now.Before(*b.Until):
		s = "Ban ended " + b.Until.UTC().Format("2006-01-02 15:04") + " UTC"
	case b.Until != nil:
		s = "Banned until " + b.Until.UTC().Format("2006-01-02 15:04") + " UTC"
	}
	if b.Reason != "" {
		s += " — " + b.Reason
	}
	return s
}

// PermanentAfter is the year past which an until-column's time means a
// permanent ban: the panel writes PermanentUntil, and a game's own
// "forever" (year 9999, 3000-01-01 is still a date) reads the same.
const PermanentAfter = 9000

// PermanentUntil is what the panel writes into an until-column for a ban
// without an end: 9999-12-31T23:59:59Z, unix 253402300799.
var PermanentUntil = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)

// UntilValue reads a value of an until-column as a time: an integer is
// unix seconds; a time is itself; text is unix seconds in digits, RFC
// 3339, or SQLite's "YYYY-MM-DD HH:MM:SS[.fff][±hh:mm]" (UTC without an
// offset).
func UntilValue(v any) (time.Time, error) {
	switch v := v.(type) {
	case int64:
		return time.Unix(v, 0).UTC(), nil
	case int:
		return time.Unix(int64(v), 0).UTC(), nil
	case float64:
		return time.Unix(int64(v), 0).UTC(), nil
	case json.Number:
		n, err := v.Int64()
		if err != nil {
			return time.Time{}, fmt.Errorf("%q is not unix seconds", v)
		}
		return time.Unix(n, 0).UTC(), nil
	case time.Time:
		return v, nil
	case []byte:
		return UntilValue(string(v))
	case string:
		s := strings.TrimSpace(v)
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(n, 0).UTC(), nil
		}
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02"} {
			if t, err := time.Parse(layout, s); err == nil {
				return t, nil
			}
		}
		return time.Time{}, fmt.Errorf("%q is not a time", s)
	}
	return time.Time{}, fmt.Errorf("cannot read %T as a time", v)
}

// RawValue scans any column as the driver gives it (a []byte copied).
type RawValue struct{ V any }

// Scan implements sql.Scanner.
func (r *RawValue) Scan(src any) error {
	if b, ok := src.([]byte); ok {
		src = slices.Clone(b)
	}
	r.V = src
	return nil
}

func (r RawValue) bytes() []byte {
	switch v := r.V.(type) {
	case []byte:
		return v
	case string:
		return []byte(v)
	}
	return nil
}

// SetBan adds to q, an update of the users table, the SETs that store
// ban: the JSON ban column, or the until-column (the sentinel
// PermanentUntil without an end; unix seconds for an integer column) and
// the reason column (NULL when empty). A nil ban clears them (NULL).
//
// With a BanTable it adds nothing: the ban is a row of that table
// (WriteBan).
func (u *Table) SetBan(q *bun.UpdateQuery, ban *BanInfo) *bun.UpdateQuery {
	if u.Bans != nil {
		return q
	}
	if u.Cols.BanUntil == "" {
		if ban == nil {
			return q.Set("? = NULL", u.Col(u.Cols.Ban))
		}
		js, err := json.Marshal(ban)
		if err != nil {
			return q.Err(err)
		}
		return q.Set("? = ?", u.Col(u.Cols.Ban), string(query.StoredJSON(js)))
	}
	var until, reason any
	if ban != nil {
		t := PermanentUntil
		if ban.Until != nil {
			t = ban.Until.UTC()
		}
		until = t
		if u.BanUnix {
			until = t.Unix()
		}
		if ban.Reason != "" {
			reason = ban.Reason
		}
	}
	q = q.Set("? = ?", u.Col(u.Cols.BanUntil), until)
	if u.Cols.BanReason != "" {
		q = q.Set("? = ?", u.Col(u.Cols.BanReason), reason)
	}
	return q
}

// ParseBan reads the JSON ban column of userID: nil when NULL.
func ParseBan(userID string, raw NullJSON) (*BanInfo, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	ban := new(BanInfo)
	if err := json.Unmarshal(raw, ban); err != nil {
		return nil, fmt.Errorf("admin: user %s: malformed ban: %w", userID, err)
	}
	return ban, nil
}

// AmbiguousEmailError reports an email that matches several accounts only
// without regard to case ("Alice@x" and "alice@x" typed as "ALICE@x"):
// which one is meant cannot be told, so none is. IDs are two of them.
type AmbiguousEmailError struct{ IDs []string }

// Error names the accounts.
func (e *AmbiguousEmailError) Error() string {
	return fmt.Sprintf("admin: the email matches accounts %s without regard to case and none exactly", strings.Join(e.IDs, ", "))
}

// AccountByEmail returns the account with that email, matched without
// regard to case (emailIs), an exact match first. It returns
// ErrNotFound, or *AmbiguousEmailError when several accounts match only
// without regard to case.
func (u *Table) AccountByEmail(ctx context.Context, db bun.IDB, email string) (*Account, error) {
	email = strings.TrimSpace(email)
	if !u.HasEmail {
		return nil, ErrNotFound
	}
	col := u.Col(u.Cols.Email, "u")
	cond, args := u.emailIs(email)
	exact := u.selectAccount(db).Where(cond, args...)
	if u.Dialect == dialect.MySQL {
		// A _ci collation's = ignores case: bytes tell the exact match.
		exact = exact.OrderExpr("CASE WHEN CAST(? AS BINARY) = CAST(? AS BINARY) THEN 0 ELSE 1 END", col, email)
	} else {
		exact = exact.OrderExpr("CASE WHEN ? = ? THEN 0 ELSE 1 END", sqldialect.AsText(col), email)
	}
	q := exact.Limit(2)
	accs, err := u.scanAccounts(ctx, q)
	if err != nil {
		return nil, err
	}
	switch {
	case len(accs) == 0:
		return nil, ErrNotFound
	case len(accs) == 1 || accs[0].Email == email:
		return accs[0], nil
	}
	return nil, &AmbiguousEmailError{IDs: []string{accs[0].ID, accs[1].ID}}
}

// scanAccounts runs q, a selectAccount query, and reads its accounts.
func (u *Table) scanAccounts(ctx context.Context, q *bun.SelectQuery) ([]*Account, error) {
	rows, err := q.Rows(ctx)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var accs []*Account
	for rows.Next() {
		acc, err := scanAccount(u, rows)
		if err != nil {
			return nil, err
		}
		accs = append(accs, acc)
	}
	return accs, rows.Err()
}

// AmbiguousUsernameError reports a username that several accounts have
// (a username column without a unique index): which one is meant cannot
// be told, so none is. IDs are two of them.
type AmbiguousUsernameError struct{ IDs []string }

// Error names the accounts.
func (e *AmbiguousUsernameError) Error() string {
	return fmt.Sprintf("admin: the username matches accounts %s", strings.Join(e.IDs, ", "))
}

// AccountByUsername returns the account whose username column
// (Columns.Username) is name, compared by plain = under the column's
// own collation: case-sensitive on PostgreSQL's text and SQLite's
// default BINARY, not on citext or a NOCASE column. It returns
// ErrNotFound (also without a username column), or
// *AmbiguousUsernameError when several accounts have it.
func (u *Table) AccountByUsername(ctx context.Context, db bun.IDB, name string) (*Account, error) {
	name = strings.TrimSpace(name)
	if !u.HasUsername || name == "" {
		return nil, ErrNotFound
	}
	accs, err := u.scanAccounts(ctx, u.selectAccount(db).Where("? = ?", u.Col(u.Cols.Username, "u"), name).Limit(2))
	if err != nil {
		return nil, err
	}
	switch len(accs) {
	case 0:
		return nil, ErrNotFound
	case 1:
		return accs[0], nil
	}
	return nil, &AmbiguousUsernameError{IDs: []string{accs[0].ID, accs[1].ID}}
}

// AccountByLogin returns the account a sign-in's login names: an email
// or a username. With a username column, a login without '@' is looked
// up as a username first and as an email only when no username matches;
// a login with '@' as an email first, then as a username. So when the
// value is one account's username and another's email, the username
// wins unless the value has an '@'. Errors are those of AccountByEmail
// and AccountByUsername (an ambiguity is not passed over).
func (u *Table) AccountByLogin(ctx context.Context, db bun.IDB, login string) (*Account, error) {
	login = strings.TrimSpace(login)
	first, second := u.AccountByEmail, u.AccountByUsername
	if !strings.Contains(login, "@") {
		first, second = second, first
	}
	acc, err := first(ctx, db, login)
	if errors.Is(err, ErrNotFound) {
		return second(ctx, db, login)
	}
	return acc, err
}

// EmailTaken reports whether an account other than exceptID (when not
// "") has email, without regard to case: the users resource refuses a
// second account that sign-in could not tell from the first.
func (u *Table) EmailTaken(ctx context.Context, db bun.IDB, email, exceptID string) (bool, error) {
	if !u.HasEmail {
		return false, nil
	}
	cond, args := u.emailIs(strings.TrimSpace(email))
	q := db.NewSelect().TableExpr("? AS u", u.Ident()).ColumnExpr("1").Where(cond, args...)
	if exceptID != "" {
		q = q.Where("? <> ?", sqldialect.AsText(u.Col(u.Cols.ID, "u")), exceptID)
	}
	return q.Limit(1).Exists(ctx)
}

// AccountByID returns the account with that id, or ErrNotFound.
func (u *Table) AccountByID(ctx context.Context, db bun.IDB, id string) (*Account, error) {
	return u.queryAccount(ctx, u.selectAccount(db).Where("? = ?", u.Col(u.Cols.ID, "u"), id))
}

func (u *Table) queryAccount(ctx context.Context, q *bun.SelectQuery) (*Account, error) {
	rows, err := q.Rows(ctx)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, err
		}
		return nil, ErrNotFound
	}
	acc, err := scanAccount(u, rows)
	if errors.Is(err, ErrMalformedBan) {
		return acc, errors.Join(err, rows.Close())
	}
	if err != nil {
		return nil, err
	}
	return acc, rows.Close()
}

// NullJSON scans a JSON column that may be NULL: jsonb arrives as []byte
// on PostgreSQL, TEXT as string on SQLite.
type NullJSON []byte

// Scan implements sql.Scanner.
func (j *NullJSON) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*j = nil
	case []byte:
		*j = append((*j)[:0], v...)
	case string:
		*j = NullJSON(v)
	default:
		return fmt.Errorf("admin: cannot scan %T as JSON", src)
	}
	return nil
}

// CreateUser inserts a user with a password hash and returns its id.
// extra are more columns to set, by SQL name (the users resource's
// Create.Defaults, for tables with NOT NULL columns of the game's own);
// they win over the panel's own choice of id, so the id follows one rule:
// Create.Defaults, else the database's default, else a UUIDv7 for a text
// or uuid key. The email is stored as given (trimmed), never lower-cased.
// An empty hash leaves the column NULL, or, when the column is NOT NULL
// without a default, stores UnusableHash. Columns neither given nor in
// extra are left to the database (NULL or their default), but for a NOT
// NULL CreatedAt time column without a default, which gets the time now.
func (u *Table) CreateUser(ctx context.Context, db bun.IDB, email, displayName, hash string, extra ...map[string]any) (string, error) {
	vals := map[string]any{}
	for _, m := range extra {
		for k, v := range m {
			vals[k] = v
		}
	}
	if u.HasEmail && email != "" {
		vals[u.Cols.Email] = strings.TrimSpace(email)
	}
	u.SetHash(vals, hash)
	if _, given := vals[u.Cols.ID]; !given && u.genID {
		vals[u.Cols.ID] = NewID()
	}
	if u.HasDisplayName && displayName != "" {
		vals[u.Cols.DisplayName] = displayName
	}
	if c := u.createdAt; c != nil && vals[c.Name] == nil {
		vals[c.Name] = c.UnixValue(time.Now().UTC())
	}
	cols := slices.Sorted(maps.Keys(vals))
	idents := make([]any, len(cols))
	args := make([]any, 0, 2*len(cols)+2)
	args = append(args, u.Ident())
	for i, c := range cols {
		idents[i] = bun.Ident(c)
	}
	args = append(args, idents...)
	for _, c := range cols {
		args = append(args, vals[c])
	}
	args = append(args, bun.Ident(u.Cols.ID))
	ph := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	stmt := fmt.Sprintf("INSERT INTO ? (%s) VALUES (%s) RETURNING ?", ph, ph)
	if u.Dialect != dialect.MySQL {
		// The id comes back as text; MariaDB's RETURNING takes no CAST
		// and its driver reads any id as text.
		args[len(args)-1] = sqldialect.AsText(bun.Ident(u.Cols.ID))
	}
	var id string
	if err := db.NewRaw(stmt, args...).Scan(ctx, &id); err != nil {
		return "", err
	}
	return id, nil
}

// SetHash puts a new user's password column into vals: hash, or, with
// none, UnusableHash when the column is NOT NULL without a default, else
// nothing (NULL).
func (u *Table) SetHash(vals map[string]any, hash string) {
	switch {
	case hash != "":
		vals[u.Cols.PasswordHash] = hash
	case u.HashNotNull:
		vals[u.Cols.PasswordHash] = UnusableHash
	default:
		delete(vals, u.Cols.PasswordHash)
	}
}

// UnusableHash is what a new user's password column holds when it is NOT
// NULL and the user was given no password (an invite follows): the
// marker shadow(5) uses for a locked password, which no hasher verifies.
const UnusableHash = "!"

// WhereBanned is the condition, on a select of the users table, that
// the user's ban is in force now (banned) or is not (!banned): a ban object without
// "until", or with "until" still ahead, as BanInfo.Active. The leading
// "ban IS NOT NULL" lets PostgreSQL use a partial index
// (docs/performance.md), so the dashboard's "Banned now" needs no scan.
//
// With an until-column, a ban is in force while the column is ahead of
// now: unix seconds against the database's clock, or a time.
//
// With a BanTable, a user is banned while an active row of theirs exists
// (an EXISTS subquery, which an index on the player column serves).
func (u *Table) WhereBanned(banned bool) query.Cond {
	pg, my := u.Dialect == dialect.PG, u.Dialect == dialect.MySQL
	if u.Bans != nil {
		return query.Cond{Expr: u.Bans.whereBanned(banned), Args: []any{bun.Ident(u.Cols.ID)}}
	}
	if u.Cols.BanUntil != "" {
		var active string
		switch {
		case u.BanUnix && pg:
			// Cast to bigint so an index on the column serves it.
			active = "?TableAlias.? IS NOT NULL AND ?TableAlias.? > CAST(EXTRACT(EPOCH FROM now()) AS BIGINT)"
		case u.BanUnix && my:
			active = "?TableAlias.? IS NOT NULL AND ?TableAlias.? > UNIX_TIMESTAMP()"
		case u.BanUnix:
			active = "?TableAlias.? IS NOT NULL AND ?TableAlias.? > CAST(strftime('%s', 'now') AS INTEGER)"
		case pg:
			active = "?TableAlias.? IS NOT NULL AND ?TableAlias.? > now()"
		case my:
			// DATETIME holds no zone: the panel writes UTC.
			active = "?TableAlias.? IS NOT NULL AND ?TableAlias.? > UTC_TIMESTAMP(6)"
		default:
			// SQLite holds a time as text (or a number of the game's):
			// julianday reads both ISO forms with or without an offset.
			active = "?TableAlias.? IS NOT NULL AND julianday(?TableAlias.?) > julianday('now')"
		}
		col := bun.Ident(u.Cols.BanUntil)
		if banned {
			return query.Cond{Expr: active, Args: []any{col, col}}
		}
		return query.Cond{Expr: "NOT COALESCE((" + active + "), FALSE)", Args: []any{col, col}}
	}
	// {b} is the ban column.
	active := "{b} IS NOT NULL AND json_valid({b}) AND json_type({b}) = 'object' AND " +
		"(json_extract({b}, '$.until') IS NULL OR julianday(json_extract({b}, '$.until')) > julianday('now'))"
	if pg {
		// jsonb takes a json, jsonb or text column alike; a JSON null
		// is no object, and an "until" always parses (the panel writes it).
		active = "{b} IS NOT NULL AND jsonb_typeof(CAST({b} AS jsonb)) = 'object' AND " +
			"(CAST({b} AS jsonb) ->> 'until' IS NULL OR CAST(CAST({b} AS jsonb) ->> 'until' AS timestamptz) > now())"
	}
	if my {
		// JSON_VALUE reads a JSON null as NULL; the until is ISO text,
		// in UTC ("Z") or with an offset, which CAST would drop.
		active = "{b} IS NOT NULL AND JSON_VALID({b}) AND JSON_TYPE({b}) = 'OBJECT' AND " +
			"(JSON_VALUE({b}, '$.until') IS NULL OR " + mysqlISOTime("JSON_VALUE({b}, '$.until')") + " > UTC_TIMESTAMP(6))"
	}
	args := make([]any, strings.Count(active, "{b}"))
	for i := range args {
		args[i] = bun.Ident(u.Cols.Ban)
	}
	active = strings.ReplaceAll(active, "{b}", "?TableAlias.?")
	if banned {
		return query.Cond{Expr: active, Args: args}
	}
	return query.Cond{Expr: "NOT COALESCE((" + active + "), FALSE)", Args: args}
}

// mysqlISOTime is the ISO time text expr as a DATETIME in UTC on MySQL:
// an offset ("+02:00") converted, a "Z" dropped.
func mysqlISOTime(expr string) string {
	return "CASE WHEN " + expr + " REGEXP '[+-][0-9]{2}:[0-9]{2}$' THEN CONVERT_TZ(CAST(LEFT(" + expr + ", LENGTH(" + expr + ") - 6) AS DATETIME(6)), RIGHT(" + expr + ", 6), '+00:00') " +
		"ELSE CAST(TRIM(TRAILING 'Z' FROM " + expr + ") AS DATETIME(6)) END"
}

// Update runs q (its SETs) through db (the transaction q was built on,
// or the panel's) against the users row of userID; ErrNotFound when there
// is none.
func (u *Table) Update(ctx context.Context, db bun.IDB, q *bun.UpdateQuery, userID string) error {
	res, err := q.Conn(db).TableExpr("?", u.Ident()).Where("? = ?", u.Col(u.Cols.ID), userID).Exec(ctx)
	if err != nil {
		return err
	}
	return u.affectedOne(ctx, db, res, userID)
}

// SetPasswordHash stores hash as userID's password through db;
// ErrNotFound when there is no such user.
func (u *Table) SetPasswordHash(ctx context.Context, db bun.IDB, userID, hash string) error {
	res, err := db.NewUpdate().TableExpr("?", u.Ident()).Set("? = ?", u.Col(u.Cols.PasswordHash), hash).Where("? = ?", u.Col(u.Cols.ID), userID).Exec(ctx)
	if err != nil {
		return err
	}
	return u.affectedOne(ctx, db, res, userID)
}

// affectedOne is nil when res, an UPDATE of userID's row run through db,
// found the row, ErrNotFound when it found none, and the driver's error
// when it cannot say. MySQL counts the rows an UPDATE changed, not those
// it found (a row whose values were already there counts 0): there a 0
// is asked of the table, through db (the statement's transaction).
func (u *Table) affectedOne(ctx context.Context, db bun.IDB, res sql.Result, userID string) error {
	n, err := res.RowsAffected()
	switch {
	case err != nil:
		return fmt.Errorf("admin: user %q: rows affected: %w", userID, err)
	case n == 0 && db.Dialect().Name() == dialect.MySQL:
		found, err := db.NewSelect().TableExpr("?", u.Ident()).Where("? = ?", u.Col(u.Cols.ID), userID).Exists(ctx)
		if err != nil {
			return fmt.Errorf("admin: user %q: %w", userID, err)
		}
		if !found {
			return fmt.Errorf("admin: user %q: %w", userID, ErrNotFound)
		}
	case n == 0:
		return fmt.Errorf("admin: user %q: %w", userID, ErrNotFound)
	}
	return nil
}
