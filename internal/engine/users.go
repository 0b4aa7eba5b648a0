package engine

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/gameadmin/admin/internal/migrate"
	"github.com/gameadmin/admin/internal/query"

	"github.com/gameadmin/admin/internal/schema"
	"github.com/uptrace/bun"
	bunschema "github.com/uptrace/bun/schema"
)

// UserColumns maps the panel's user fields onto the columns of the users
// table (Options.Tables["users"]), by SQL name. An empty field keeps its
// default, today's built-in name. ID, Email and PasswordHash must exist;
// ID must be the table's single primary key. DisplayName, TokenVersion
// and Ban are optional: without TokenVersion, "sign out everywhere",
// revoke-sessions and single-use reset links are off; without Ban (or
// TokenVersion), ban and unban are off; those endpoints answer 501 and New
// logs which features are off. CreatedAt is optional too. Naming a column
// the model does not have is an error at New.
type UserColumns struct {
	ID           string // default "id"
	Email        string // default "email"
	PasswordHash string // default "password_hash"
	DisplayName  string // default "display_name"
	TokenVersion string // default "token_version"
	Ban          string // default "ban"
	// CreatedAt is when the account was made: the dashboard's sign-ups
	// and the order of its recent users. Optional.
	CreatedAt string // default "created_at"
}

func (c UserColumns) withDefaults() UserColumns {
	c.ID = cmp.Or(c.ID, "id")
	c.Email = cmp.Or(c.Email, "email")
	c.PasswordHash = cmp.Or(c.PasswordHash, "password_hash")
	c.DisplayName = cmp.Or(c.DisplayName, "display_name")
	c.TokenVersion = cmp.Or(c.TokenVersion, "token_version")
	c.Ban = cmp.Or(c.Ban, "ban")
	c.CreatedAt = cmp.Or(c.CreatedAt, "created_at")
	return c
}

// userTable is the table operators sign in from: the built-in users table
// or the game's own users model (Options.Tables["users"]). Every query names
// its columns from here, and the optional ones are left out when absent.
type userTable struct {
	name           string
	cols           UserColumns // resolved; optional ones "" when absent
	builtin        bool        // the built-in User model
	idField        *bunschema.Field
	hasBan         bool
	hasTokenVer    bool
	hasDisplayName bool
	genID          bool // the panel makes new ids (UUIDv7 text); else the database does
	hashNotNull    bool // the password column is NOT NULL without a default
	emailCI        bool // the email column is PostgreSQL's citext: = ignores case
	off            []string
}

func newUserTable(tables *bunschema.Tables, model any, prefix string, uc UserColumns) (*userTable, error) {
	if model == nil {
		model = (*User)(nil)
	}
	typ := reflect.TypeOf(model)
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct {
		return nil, fmt.Errorf("admin: Tables[\"users\"] must be a Bun model (a struct pointer), got %T", model)
	}
	t := tables.Get(typ)
	names := make([]string, 0, len(t.Fields))
	for _, f := range t.Fields {
		names = append(names, f.Name)
	}
	set := uc
	uc = uc.withDefaults()
	u := &userTable{name: t.Name, builtin: typ == reflect.TypeFor[User]()}
	if u.builtin {
		u.name = prefix + "users"
	}
	check := func(field, col string, explicit, required bool) (string, error) {
		if t.HasField(col) {
			return col, nil
		}
		if explicit || required {
			return "", fmt.Errorf("admin: UserColumns.%s: users table %s has no column %q%s", field, t.Name, col, schema.ClosestHint(col, names))
		}
		return "", nil
	}
	for _, c := range []struct {
		field    string
		dst      *string
		col, set string
		required bool
	}{
		{"ID", &u.cols.ID, uc.ID, set.ID, true},
		{"Email", &u.cols.Email, uc.Email, set.Email, true},
		{"PasswordHash", &u.cols.PasswordHash, uc.PasswordHash, set.PasswordHash, true},
		{"DisplayName", &u.cols.DisplayName, uc.DisplayName, set.DisplayName, false},
		{"TokenVersion", &u.cols.TokenVersion, uc.TokenVersion, set.TokenVersion, false},
		{"Ban", &u.cols.Ban, uc.Ban, set.Ban, false},
		{"CreatedAt", &u.cols.CreatedAt, uc.CreatedAt, set.CreatedAt, false},
	} {
		var err error
		if *c.dst, err = check(c.field, c.col, c.set != "", c.required); err != nil {
			return nil, err
		}
	}
	if len(t.PKs) != 1 || t.PKs[0].Name != u.cols.ID {
		return nil, fmt.Errorf("admin: users table %s: UserColumns.ID %q must be its single primary key", t.Name, u.cols.ID)
	}
	u.idField, _ = t.Field(u.cols.ID)
	u.hasDisplayName = u.cols.DisplayName != ""
	u.hasTokenVer = u.cols.TokenVersion != ""
	u.hasBan = u.cols.Ban != ""
	// A text or UUID id without a database default gets a UUIDv7 from the
	// panel, as text: PostgreSQL casts it to uuid, SQLite stores it as is.
	idType := u.idField.IndirectType
	textual := idType.Kind() == reflect.String || idType.Kind() == reflect.Array && idType.Len() == 16 && idType.Elem().Kind() == reflect.Uint8
	u.genID = textual && u.idField.SQLDefault == "" && !u.idField.AutoIncrement && !u.idField.Identity
	if f, ok := t.FieldMap[u.cols.PasswordHash]; ok {
		u.hashNotNull = f.NotNull && f.SQLDefault == ""
	}
	if !u.hasTokenVer {
		u.off = append(u.off, "sign out everywhere, revoke-sessions and single-use reset links (UserColumns.TokenVersion names a BIGINT column)")
	}
	if !u.hasBan || !u.hasTokenVer {
		u.off = append(u.off, "ban and unban (UserColumns.Ban names a JSON column, with TokenVersion)")
	}
	return u, nil
}

// fromCatalog corrects what the model's tags say of the id and password
// columns with what the database says (t is the users resource's table,
// read from the catalog at New): a game's migrations may declare NOT NULL
// or a default its Bun model does not tag. A database default of the id
// column wins over the panel's UUIDv7; a NOT NULL password column without
// a default gets unusableHash when a user is created without a password.
func (u *userTable) fromCatalog(t *schema.Table) {
	if c := t.ByName[u.cols.ID]; c != nil && c.HasDefault && !u.builtin { // the built-in id is the model hook's
		u.genID = false
	}
	if c := t.ByName[u.cols.PasswordHash]; c != nil {
		u.hashNotNull = c.NotNull && !c.HasDefault
	}
	if c := t.ByName[u.cols.Email]; c != nil {
		// format_type qualifies it when its schema is not on the path.
		u.emailCI = c.DBType == "citext" || strings.HasSuffix(c.DBType, ".citext")
	}
}

// emailIs is the condition "the email column is email without regard to
// case": lower() on both sides, which an index on lower(<email column>)
// serves, or on a citext column plain equality, which its own unique
// index serves (lower() there would read the whole table).
func (u *userTable) emailIs(email string) (string, []any) {
	col := u.col(u.cols.Email, "u")
	if u.emailCI {
		return "? = ?", []any{col, email}
	}
	return "lower(?) = lower(?)", []any{col, email}
}

// warnPlayersCanRead logs, once at start, that the users table holds
// accounts without a panel role (players, most likely) while
// PlayersCanRead is on: each of them can sign in to the panel and list
// and read every resource, which an integrator who opted in for a table
// of operators alone may not have meant. The query stops at the first
// such row.
func (a *compiler) warnPlayersCanRead(ctx context.Context) {
	u := a.users
	exists, err := a.db.NewSelect().TableExpr("? AS u", u.ident()).ColumnExpr("1").
		Where("NOT EXISTS (SELECT 1 FROM ? AS r WHERE r.user_id = ? AND r.role IN ('admin', 'mod'))", a.tbl("roles"), u.col(u.cols.ID, "u")).
		Limit(1).Exists(ctx)
	if err != nil || !exists {
		return
	}
	a.log.Warn("admin: PlayersCanRead is on and the users table " + u.name + " holds accounts without a panel role (players?): each can sign in to the panel and list and read every resource, other players' emails included; leave Options.PlayersCanRead off unless that is meant (docs/security.md)")
}

// ident is the quoted table name.
func (u *userTable) ident() bun.Ident { return bun.Ident(u.name) }

// col is the quoted name of a mapped column, qualified with alias when
// given.
func (u *userTable) col(name string, alias ...string) bun.Safe {
	s := migrate.Quote(name)
	if len(alias) > 0 {
		s = migrate.Quote(alias[0]) + "." + s
	}
	return bun.Safe(s)
}

// emailKey is an email as the rate limiters and failure counters key it:
// trimmed and lower-cased, so that "Alice@x" and "alice@x" share their
// buckets. It is never what is stored or looked up: accounts are matched
// without regard to case (accountByEmail) and stored as typed.
func emailKey(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// account is what sign-in needs of a user row.
type account struct {
	ID           string
	Email        string
	DisplayName  string
	PasswordHash string
	TokenVersion int64
	Ban          *BanInfo
}

func (u *userTable) selectAccount(db bun.IDB) *bun.SelectQuery {
	q := db.NewSelect().TableExpr("? AS u", u.ident()).
		ColumnExpr("CAST(? AS TEXT)", u.col(u.cols.ID, "u")).ColumnExpr("?", u.col(u.cols.Email, "u")).
		ColumnExpr("COALESCE(?, '')", u.col(u.cols.PasswordHash, "u"))
	if u.hasDisplayName {
		q = q.ColumnExpr("COALESCE(?, '')", u.col(u.cols.DisplayName, "u"))
	} else {
		q = q.ColumnExpr("''")
	}
	return u.stateColumns(q)
}

// stateColumns adds the token version (0 without the column) and the ban
// (NULL without it) of users "u" to q.
func (u *userTable) stateColumns(q *bun.SelectQuery) *bun.SelectQuery {
	if u.hasTokenVer {
		q = q.ColumnExpr("?", u.col(u.cols.TokenVersion, "u"))
	} else {
		q = q.ColumnExpr("0")
	}
	if u.hasBan {
		q = q.ColumnExpr("?", u.col(u.cols.Ban, "u"))
	} else {
		q = q.ColumnExpr("NULL")
	}
	return q
}

func scanAccount(row interface{ Scan(...any) error }) (*account, error) {
	var acc account
	var ban nullJSON
	if err := row.Scan(&acc.ID, &acc.Email, &acc.PasswordHash, &acc.DisplayName, &acc.TokenVersion, &ban); err != nil {
		return nil, err
	}
	var err error
	acc.Ban, err = parseBan(acc.ID, ban)
	return &acc, err
}

// parseBan reads the ban column of userID: nil when NULL.
func parseBan(userID string, raw nullJSON) (*BanInfo, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	ban := new(BanInfo)
	if err := json.Unmarshal(raw, ban); err != nil {
		return nil, fmt.Errorf("admin: user %s: malformed ban: %w", userID, err)
	}
	return ban, nil
}

// errAmbiguousEmail reports an email that matches several accounts only
// without regard to case ("Alice@x" and "alice@x" typed as "ALICE@x"):
// which one is meant cannot be told, so none is.
type errAmbiguousEmail struct{ ids []string }

func (e *errAmbiguousEmail) Error() string {
	return fmt.Sprintf("admin: the email matches accounts %s without regard to case and none exactly", strings.Join(e.ids, ", "))
}

// accountByEmail returns the account with that email, matched without
// regard to case (emailIs), an exact match first. It returns
// ErrNotFound, or *errAmbiguousEmail when several accounts match only
// without regard to case.
func (u *userTable) accountByEmail(ctx context.Context, db bun.IDB, email string) (*account, error) {
	email = strings.TrimSpace(email)
	col := u.col(u.cols.Email, "u")
	cond, args := u.emailIs(email)
	q := u.selectAccount(db).Where(cond, args...).
		OrderExpr("CASE WHEN CAST(? AS TEXT) = ? THEN 0 ELSE 1 END", col, email).Limit(2)
	rows, err := q.Rows(ctx)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var accs []*account
	for rows.Next() {
		acc, err := scanAccount(rows)
		if err != nil {
			return nil, err
		}
		accs = append(accs, acc)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	switch {
	case len(accs) == 0:
		return nil, ErrNotFound
	case len(accs) == 1 || accs[0].Email == email:
		return accs[0], nil
	}
	return nil, &errAmbiguousEmail{ids: []string{accs[0].ID, accs[1].ID}}
}

// emailTaken reports whether an account other than exceptID (when not
// "") has email, without regard to case: the users resource refuses a
// second account that sign-in could not tell from the first.
func (u *userTable) emailTaken(ctx context.Context, db bun.IDB, email, exceptID string) (bool, error) {
	cond, args := u.emailIs(strings.TrimSpace(email))
	q := db.NewSelect().TableExpr("? AS u", u.ident()).ColumnExpr("1").Where(cond, args...)
	if exceptID != "" {
		q = q.Where("CAST(? AS TEXT) <> ?", u.col(u.cols.ID, "u"), exceptID)
	}
	return q.Limit(1).Exists(ctx)
}

// accountByID returns the account with that id, or ErrNotFound.
func (u *userTable) accountByID(ctx context.Context, db bun.IDB, id string) (*account, error) {
	return u.queryAccount(ctx, u.selectAccount(db).Where("? = ?", u.col(u.cols.ID, "u"), id))
}

func (u *userTable) queryAccount(ctx context.Context, q *bun.SelectQuery) (*account, error) {
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
	acc, err := scanAccount(rows)
	if err != nil {
		return nil, err
	}
	return acc, rows.Close()
}

// sessionState is what verifying a session reads: the token version and the
// live role and scopes, in one query.
func (a *Admin) sessionState(ctx context.Context, userID string) (int64, Operator, error) {
	var row sessionRow
	if err := a.sessionQuery(userID).Scan(ctx, row.dest()...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, Operator{}, ErrNotFound
		}
		return 0, Operator{}, err
	}
	return row.state(userID)
}

// sessionQuery is the session check's one statement: the role, scopes and
// token version (0 without that column) of the user whose id is id, a
// value or a placeholder (the prepared statement's).
func (a *Admin) sessionQuery(id any) *bun.SelectQuery {
	u := a.users
	q := a.db.NewSelect().TableExpr("? AS u", u.ident()).
		Join("LEFT JOIN ? AS r ON r.user_id = ?", a.tbl("roles"), u.col(u.cols.ID, "u")).
		ColumnExpr("r.role").ColumnExpr("r.scopes").
		Where("? = ?", u.col(u.cols.ID, "u"), id)
	if u.hasTokenVer {
		return q.ColumnExpr("?", u.col(u.cols.TokenVersion, "u"))
	}
	return q.ColumnExpr("0")
}

// sessionRow is the session check's row (sessionQuery's columns): scan
// into dest, then read it with state.
type sessionRow struct {
	role   sql.NullString
	scopes nullJSON
	tv     int64
}

func (r *sessionRow) dest() []any { return []any{&r.role, &r.scopes, &r.tv} }

// state is the row's token version and Operator: a plain user without a
// roles row or with a role this version does not know.
func (r *sessionRow) state(userID string) (int64, Operator, error) {
	op := Operator{UserID: userID, Role: RoleUser, Scopes: []string{}}
	if r.role.Valid && Role(r.role.String).Valid() {
		op.Role = Role(r.role.String)
	}
	if len(r.scopes) > 0 && string(r.scopes) != "null" {
		if err := json.Unmarshal(r.scopes, &op.Scopes); err != nil {
			return r.tv, op, fmt.Errorf("admin: roles of %s: malformed scopes: %w", userID, err)
		}
	}
	return r.tv, op, nil
}

// nullJSON scans a JSON column that may be NULL: jsonb arrives as []byte on
// PostgreSQL, TEXT as string on SQLite.
type nullJSON []byte

func (j *nullJSON) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*j = nil
	case []byte:
		*j = append((*j)[:0], v...)
	case string:
		*j = nullJSON(v)
	default:
		return fmt.Errorf("admin: cannot scan %T as JSON", src)
	}
	return nil
}

// newUserDefaults are the values the users resource's Create.Defaults
// (and its model's insert hook) give a new user, for users the panel
// creates outside the users resource (bootstrap): a users table with NOT
// NULL columns of the game's own takes them from there, as POST /users
// does.
func (a usersAPI) newUserDefaults(ctx context.Context) (map[string]any, error) {
	res := a.resources["users"]
	if res == nil {
		return nil, nil
	}
	// createUser's own values win.
	vals := map[string]any{}
	if err := rowsAPI(a).applyDefaults(ctx, Operator{}, res, vals); err != nil {
		return nil, err
	}
	return vals, nil
}

// createUser inserts a user with a password hash and returns its id.
// extra are more columns to set, by SQL name (the users resource's
// Create.Defaults, for tables with NOT NULL columns of the game's own);
// they win over the panel's own choice of id, so the id follows one rule
// (newIDs): Create.Defaults, else the database's default, else a UUIDv7
// for a text or uuid key. The email is stored as given (trimmed), never
// lower-cased. An empty hash leaves the column NULL, or, when the column
// is NOT NULL without a default, stores unusableHash. Columns neither
// given nor in extra are left to the database: NULL or their default.
func (u *userTable) createUser(ctx context.Context, db bun.IDB, email, displayName, hash string, extra ...map[string]any) (string, error) {
	vals := map[string]any{}
	for _, m := range extra {
		for k, v := range m {
			vals[k] = v
		}
	}
	vals[u.cols.Email] = strings.TrimSpace(email)
	u.setHash(vals, hash)
	if _, given := vals[u.cols.ID]; !given && u.genID {
		vals[u.cols.ID] = newID()
	}
	if u.hasDisplayName && displayName != "" {
		vals[u.cols.DisplayName] = displayName
	}
	cols := slices.Sorted(maps.Keys(vals))
	idents := make([]any, len(cols))
	args := make([]any, 0, 2*len(cols)+2)
	args = append(args, u.ident())
	for i, c := range cols {
		idents[i] = bun.Ident(c)
	}
	args = append(args, idents...)
	for _, c := range cols {
		args = append(args, vals[c])
	}
	args = append(args, bun.Ident(u.cols.ID))
	ph := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	stmt := fmt.Sprintf("INSERT INTO ? (%s) VALUES (%s) RETURNING CAST(? AS TEXT)", ph, ph)
	var id string
	if err := db.NewRaw(stmt, args...).Scan(ctx, &id); err != nil {
		return "", err
	}
	return id, nil
}

// setHash puts a new user's password column into vals: hash, or, with
// none, unusableHash when the column is NOT NULL without a default, else
// nothing (NULL).
func (u *userTable) setHash(vals map[string]any, hash string) {
	switch {
	case hash != "":
		vals[u.cols.PasswordHash] = hash
	case u.hashNotNull:
		vals[u.cols.PasswordHash] = unusableHash
	default:
		delete(vals, u.cols.PasswordHash)
	}
}

// unusableHash is what a new user's password column holds when it is NOT
// NULL and the user was given no password (an invite follows): the
// marker shadow(5) uses for a locked password, which no hasher verifies.
const unusableHash = "!"

// bootstrapDefaults are the columns the first admin's users row needs
// beyond email and password, for a game's users table with NOT NULL
// columns of its own: the users resource's Create.Defaults, and a display
// name from the email's local part when that column is required and the
// body gives none. A column still missing answers 400 naming it.
func (a usersAPI) bootstrapDefaults(ctx context.Context, c credentials) (map[string]any, error) {
	vals, err := a.newUserDefaults(ctx)
	if err != nil || vals == nil {
		return vals, err
	}
	if dn := a.users.cols.DisplayName; dn != "" && c.DisplayName == "" && vals[dn] == nil {
		if col, ok := a.resources["users"].table.ByName[dn]; ok && col.NotNull && !col.HasDefault {
			vals[dn], _, _ = strings.Cut(strings.TrimSpace(c.Email), "@")
		}
	}
	return vals, nil
}

// whereBanned is the condition, on a select of the users table, that
// the user's ban is in force now (banned) or is not (!banned): a ban object without
// "until", or with "until" still ahead, as BanInfo.Active. The leading
// "ban IS NOT NULL" lets PostgreSQL use a partial index
// (docs/performance.md), so the dashboard's "Banned now" needs no scan.
func (u *userTable) whereBanned(pg, banned bool) query.Cond {
	// {b} is the ban column.
	active := "{b} IS NOT NULL AND json_valid({b}) AND json_type({b}) = 'object' AND " +
		"(json_extract({b}, '$.until') IS NULL OR julianday(json_extract({b}, '$.until')) > julianday('now'))"
	if pg {
		// jsonb takes a json, jsonb or text column alike; a JSON null
		// is no object, and an "until" always parses (the panel writes it).
		active = "{b} IS NOT NULL AND jsonb_typeof(CAST({b} AS jsonb)) = 'object' AND " +
			"(CAST({b} AS jsonb) ->> 'until' IS NULL OR CAST(CAST({b} AS jsonb) ->> 'until' AS timestamptz) > now())"
	}
	args := make([]any, strings.Count(active, "{b}"))
	for i := range args {
		args[i] = bun.Ident(u.cols.Ban)
	}
	active = strings.ReplaceAll(active, "{b}", "?TableAlias.?")
	if banned {
		return query.Cond{Expr: active, Args: args}
	}
	return query.Cond{Expr: "NOT COALESCE((" + active + "), FALSE)", Args: args}
}
