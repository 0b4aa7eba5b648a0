package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gameadmin/admin/internal/account"
	"github.com/gameadmin/admin/internal/catalog"
	"github.com/gameadmin/admin/internal/csvexport"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/gameadmin/admin/internal/userdata"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
)

// usersResource is the users resource's behaviour of its own (special):
// the accounts people sign in with, whoever owns the table. Its list
// shows each user's ban (banField) and, to an operator below admin,
// which rows are operators' (_role), and filters by ban (bannedParam);
// a create takes a password (newPasswordField) and checks the email; a
// row's counts add its live sessions; a CSV for a person says the ban
// in words. It also holds what the users endpoints share (users_http.go,
// users_bulk.go): reading a user id, a ban's body, the audit entry about
// a user.
type usersResource struct {
	plainResource
	users *users.Table
	roles *users.RoleTable
	db    *bun.DB
	log   *slog.Logger
	now   func() time.Time

	// res is the users resource as built (built), nil before.
	res *resource
	// hash hashes a new user's password (Auth.Hash); set once Auth is.
	hash func(ctx context.Context, password string) (string, error)
	// sessions counts a user's live sessions (nil: the game has no
	// rooms), allowed is the permission check.
	sessions func(ctx context.Context, userID string) (int, error)
	allowed  func(op Operator, o Op, key string) bool
}

// newUsersResource is the users resource over the users and roles tables.
func newUsersResource(db *bun.DB, roles *users.RoleTable, allowed func(Operator, Op, string) bool, now func() time.Time, log *slog.Logger) *usersResource {
	return &usersResource{users: roles.Users, roles: roles, db: db, allowed: allowed, now: now, log: log}
}

// build is the users' built-in look: the password hash hidden, the token
// version and ban columns read-only, the list's columns in an order for
// people (userListColumns), the form without the machinery
// (userFormFields), rows named by their display name, else username,
// else email.
func (u *usersResource) build(t *schema.Table) (ResourceConfig, []string) {
	c := u.users.Cols
	cfg := ResourceConfig{Icon: "user", Columns: map[string]ColumnConfig{c.PasswordHash: {Hidden: true}}}
	for _, col := range []string{c.TokenVersion, c.Ban, c.BanUntil, c.BanReason} {
		if col != "" {
			cfg.Columns[col] = ColumnConfig{ReadOnly: true}
		}
	}
	if u.users.BanUnix {
		// An integer until-column holds unix seconds (the ban reads
		// and writes it so): shown and filtered as the time it is.
		cfg.Columns[c.BanUntil] = ColumnConfig{ReadOnly: true, UnixTime: UnixSeconds}
	}
	if u.users.Builtin {
		cfg.List.DefaultSort = Sort{Field: "created_at", Order: "desc"}
	}
	cfg.List.Columns = userListColumns(c, t)
	cfg.Form.Fields = userFormFields(c, t)
	return cfg, []string{c.DisplayName, c.Username, c.Email}
}

// userListColumns orders the users list for the people reading it: the
// email and the username (one is always there, so the row's link never
// is a blank), the display name, the game's own columns, and the id
// last. The password hash and
// the token version (machinery, no word for a person) are left out; a
// game's ResourceConfig for users may list its own columns.
func userListColumns(u users.Columns, t *schema.Table) []string {
	var cols []string
	for _, c := range []string{u.Email, u.Username, u.DisplayName} {
		if c != "" {
			cols = append(cols, c)
		}
	}
	for _, c := range t.Columns {
		if !slices.Contains([]string{u.ID, u.Username, u.Email, u.DisplayName, u.PasswordHash, u.TokenVersion}, c.Name) {
			cols = append(cols, c.Name)
		}
	}
	return append(cols, u.ID)
}

// userFormFields are the users form's fields: every column but the
// password hash and the token version, which no one types (the API still
// answers the token version to whoever may read it).
func userFormFields(u users.Columns, t *schema.Table) []string {
	var cols []string
	for _, c := range t.Columns {
		if c.Name != u.PasswordHash && (u.TokenVersion == "" || c.Name != u.TokenVersion) {
			cols = append(cols, c.Name)
		}
	}
	return cols
}

// built marks the users resource's rows as accounts (rows.Resource:
// the write gate's guards, a revert's, a history's kicks).
func (u *usersResource) built(res *resource) {
	res.Accounts = true
	u.res = res
}

// fromCatalog completes the users table from its resource's columns as
// the database has them (New calls it after reading the catalog).
func (u *usersResource) fromCatalog() error {
	if u.res == nil {
		return nil
	}
	u.users.FromCatalog(u.res.Table)
	if c := u.res.ScopeColumn(); c != nil {
		u.users.Scope = c.Name // moderation's and the reports' row scope (users.Table.InScope)
	}
	if c := u.res.Table.ByName[u.users.Cols.BanUntil]; c != nil && c.Unix == UnixMillis {
		return fmt.Errorf("admin: UserColumns.BanUntil: column %q is declared a unix time in milliseconds; a ban's until-column holds unix seconds (or is a timestamp)", c.Name)
	}
	return nil
}

// catalog tells the UI that this is the users resource and how an
// erased account reads (userdata.ErasedPattern), the users' email
// column, the ban column its ban state reads (banColumn), and that the
// token version is machinery.
func (u *usersResource) catalog(e *catalog.Entry, res *resource) {
	c := u.users.Cols
	e.Users, e.ErasedPattern = true, userdata.ErasedPattern
	if res.View.ByName[c.Email] != nil {
		e.EmailColumn = c.Email
	}
	if res.View.ByName[c.Username] != nil {
		e.UsernameColumn = c.Username
	}
	e.BanColumn = u.banColumn(res.View.ByName)
	for i := range e.Columns {
		if c.TokenVersion != "" && e.Columns[i].Name == c.TokenVersion {
			e.Columns[i].Technical = true
		}
	}
}

// newPasswordField is the write-only field of POST /users that gives the
// new user's password; the password column itself stays hidden.
const newPasswordField = "password"

// body checks a users body's email (account.CheckEmail, which also
// normalizes it) and, on a create, takes newPasswordField, unless the
// users have a visible column of that name, for the new user's password
// hash (setNewPassword). The hash comes after every other check of the
// body, so a refused body costs no hashing.
func (u *usersResource) body(res *resource, body map[string]any, update bool) func(context.Context, map[string]any) error {
	_, isColumn := res.View.ByName[newPasswordField]
	password, given := body[newPasswordField]
	if !update && !isColumn {
		delete(body, newPasswordField)
	}
	return func(ctx context.Context, vals map[string]any) error {
		if e, ok := vals[u.users.Cols.Email]; ok {
			s, _ := e.(string)
			cv, err := account.CheckEmail(s)
			if err != nil {
				return err
			}
			vals[u.users.Cols.Email] = cv
		}
		if update {
			return nil
		}
		return u.setNewPassword(ctx, vals, password, given && !isColumn)
	}
}

// setNewPassword puts a new user's password hash into vals: password
// (when given, a string of at least 8 characters) hashed with
// Options.PasswordHasher, else, when the column is NOT NULL without a
// default, the unusable marker no password verifies (an invite gives the
// user one).
func (u *usersResource) setNewPassword(ctx context.Context, vals map[string]any, password any, given bool) error {
	if !given || password == nil {
		u.users.SetHash(vals, "")
		return nil
	}
	p, ok := password.(string)
	if !ok {
		return errorf(http.StatusBadRequest, "invalid_value", "password must be a string")
	}
	if err := account.CheckNewPassword(p); err != nil {
		return err
	}
	h, err := u.hash(ctx, p)
	if err != nil {
		return err
	}
	u.users.SetHash(vals, h)
	return nil
}

// bannedParam narrows the users list to the users whose ban is in force
// (true) or is not (false).
const bannedParam = "_banned"

func (u *usersResource) params() map[string]string {
	return map[string]string{bannedParam: "filters the users list, when the users table has a ban column"}
}

// list reads bannedParam.
func (u *usersResource) list(_ Operator, _ *resource, v url.Values, parse func() (*query.List, error)) (*query.List, error) {
	l, err := parse()
	if err != nil {
		return nil, err
	}
	if vals, ok := v[bannedParam]; ok {
		banned, perr := strconv.ParseBool(vals[0])
		switch {
		case !u.users.HasBan:
			return nil, errorf(http.StatusBadRequest, query.CodeInvalidQuery, "%s %s", bannedParam, u.params()[bannedParam])
		case len(vals) != 1 || perr != nil:
			return nil, errorf(http.StatusBadRequest, query.CodeInvalidValue, "%s takes true or false", bannedParam)
		}
		l.Where = append(l.Where, u.users.WhereBanned(banned))
	}
	return l, nil
}

// answer adds the operators' roles (addOperatorRoles) and the bans
// (addBans) to users rows.
func (u *usersResource) answer(ctx context.Context, op Operator, _ *resource, rows []map[string]any) error {
	if err := u.addOperatorRoles(ctx, op, rows); err != nil {
		return err
	}
	if u.users.Bans != nil {
		return u.addTableBans(ctx, rows)
	}
	u.addBans(ctx, rows)
	return nil
}

// addTableBans sets banField on users rows from the bans table
// (UserColumns.BanTable), in one query for the page: the active ban that
// ends last (until absent for good; reason and author, the banning
// operator's id, when the table has them and the row says), null when
// none is active.
func (u *usersResource) addTableBans(ctx context.Context, rows []map[string]any) error {
	t := u.users
	if !t.HasTokenVersion || len(rows) == 0 {
		return nil
	}
	ids := make([]string, 0, len(rows))
	for _, row := range rows {
		if id, ok := row[t.Cols.ID]; ok && id != nil {
			ids = append(ids, fmt.Sprint(id))
		}
	}
	bans, err := t.BanRows(ctx, u.db, ids, true)
	if err != nil {
		return err
	}
	first := map[string]users.BanRow{}
	for _, b := range bans {
		if _, seen := first[b.Player]; !seen {
			first[b.Player] = b
		}
	}
	for _, row := range rows {
		id, ok := row[t.Cols.ID]
		if !ok || id == nil {
			continue
		}
		b, banned := first[fmt.Sprint(id)]
		if !banned {
			row[banField] = nil
			continue
		}
		m := map[string]any{}
		if b.Reason != "" {
			m["reason"] = b.Reason
		}
		if b.Until != nil {
			m["until"] = b.Until
		}
		if b.Author != "" {
			m["bannedBy"] = b.Author
		}
		if b.CreatedAt != nil {
			m["bannedAt"] = b.CreatedAt
		}
		row[banField] = m
	}
	return nil
}

// reads are the columns answer and export read: the id (the roles), the
// ban's until-column and reason (_ban, the ban in words).
func (u *usersResource) reads() []string {
	return []string{u.users.Cols.ID, u.users.Cols.BanUntil, u.users.Cols.BanReason}
}

// addOperatorRoles sets row["_role"] ("admin" or "mod") on the users rows
// of operators, for an operator below admin: the UI hides the edits and
// moderation the hierarchy (RoleTable.CanWriteUser) would refuse them,
// instead of offering a form that ends in a 403. Players' rows get none;
// an admin, who may change every account, is spared the query. The
// roles table and the last-admin rule are package users' (RoleTable).
func (u *usersResource) addOperatorRoles(ctx context.Context, op Operator, rows []map[string]any) error {
	if op.Role == RoleAdmin || len(rows) == 0 {
		return nil
	}
	ids := make([]string, 0, len(rows))
	for _, row := range rows {
		if id, ok := row[u.users.Cols.ID]; ok && id != nil {
			ids = append(ids, fmt.Sprint(id))
		}
	}
	if len(ids) == 0 {
		return nil
	}
	roles, err := u.roles.OperatorRoles(ctx, u.db, ids)
	if err != nil {
		return fmt.Errorf("admin: operators' roles: %w", err)
	}
	for _, row := range rows {
		if role, ok := roles[fmt.Sprint(row[u.users.Cols.ID])]; ok {
			row["_role"] = role
		}
	}
	return nil
}

// banField is the field a users row carries, with UserColumns.BanUntil,
// holding its ban as the JSON ban column would (reason and until of a
// BanInfo, until absent for good; null when not banned): the
// catalog's banColumn names it, so the UI's ban state, badge and
// buttons read an until-column as they read the JSON one.
const banField = "_ban"

// addBans sets banField on users rows read from a table whose ban is an
// until-column (and reason column): what users.Table.Ban reads from
// them, null when not banned, absent when op's role cannot read the
// until-column. A value that is no time is logged and left out.
func (u *usersResource) addBans(ctx context.Context, rows []map[string]any) {
	t := u.users
	if t.Cols.BanUntil == "" || !t.HasTokenVersion {
		return
	}
	for _, row := range rows {
		raw, ok := row[t.Cols.BanUntil]
		if !ok {
			continue
		}
		st := users.BanState{Raw: users.RawValue{V: raw}}
		if r, ok := row[t.Cols.BanReason].(string); ok {
			st.Reason.String, st.Reason.Valid = r, true
		}
		ban, err := t.Ban(fmt.Sprint(row[t.Cols.ID]), st)
		if err != nil {
			u.log.WarnContext(ctx, "admin: users row's ban column", "err", err)
			continue
		}
		if ban == nil || !ban.Active(u.now()) {
			row[banField] = nil
			continue
		}
		// Who banned and when are the audit log's: left out, not zero.
		b := map[string]any{}
		if ban.Reason != "" {
			b["reason"] = ban.Reason
		}
		if ban.Until != nil {
			b["until"] = ban.Until
		}
		row[banField] = b
	}
}

// banColumn is the catalog's banColumn of the users resource seen
// through view: the JSON ban column, or banField for an until-column;
// "" when bans are off or op's role does not see the column.
func (u *usersResource) banColumn(view map[string]*schema.Column) string {
	t := u.users
	switch {
	case !t.HasBan || !t.HasTokenVersion:
		return ""
	case t.Bans != nil:
		return banField
	case t.Cols.BanUntil != "" && view[t.Cols.BanUntil] != nil:
		return banField
	case t.Cols.Ban != "" && view[t.Cols.Ban] != nil:
		return t.Cols.Ban
	}
	return ""
}

// counts adds a user's live sessions. They are moderation data: only
// for who may moderate users (an admin, a mod with users in its
// scopes). Rooms that cannot say (a runtime past RoomTimeout, a node
// away) leave the count out, logged: the row's other counts are the
// database's and stand.
func (u *usersResource) counts(ctx context.Context, op Operator, res *resource, row map[string]any, counts map[string]any) error {
	if u.sessions == nil || !op.Role.IsOperator() || !u.allowed(op, OpUpdate, res.Key) {
		return nil
	}
	id := fmt.Sprint(row[u.users.Cols.ID])
	n, err := u.sessions(ctx, id)
	switch {
	case err == nil:
		counts["activeSessions"] = n
	case errors.Is(err, context.Canceled):
		return err
	default:
		u.log.WarnContext(ctx, "admin: a user's live sessions left out of _counts", append([]any{"userId", id}, errAttrs(err)...)...)
	}
	return nil
}

// export says a users row's ban in words ("Banned until 2026-12-04
// 00:00 UTC — speed hack") where the column holds JSON or a time, in an
// export for a person.
func (u *usersResource) export(_ Operator, res *resource, walk *csvexport.Walk, forPerson bool) {
	t := u.users
	col := cmp.Or(t.Cols.BanUntil, t.Cols.Ban)
	if !forPerson || !t.HasBan || col == "" || res.View.ByName[col] == nil {
		return
	}
	now := u.now()
	walk.Cells = map[string]func(map[string]any) string{col: func(row map[string]any) string {
		v := row[col]
		if m, ok := v.(json.RawMessage); ok {
			v = []byte(m)
		}
		st := users.BanState{Raw: users.RawValue{V: v}}
		if r, ok := row[t.Cols.BanReason].(string); ok && t.Cols.BanReason != "" {
			st.Reason.String, st.Reason.Valid = r, true
		}
		ban, err := t.Ban(fmt.Sprint(row[t.Cols.ID]), st)
		if err != nil {
			return csvexport.Cell(res.View.ByName[col], row[col]) // as stored: not a ban the panel reads
		}
		return ban.Words(now)
	}}
}

// newUserDefaults are the values the users resource's Create.Defaults
// (and its model's insert hook) give a new user, for users the panel
// creates outside the users resource (bootstrap): a users table with NOT
// NULL columns of the game's own takes them from there, as POST /users
// does.
func (u *usersResource) newUserDefaults(ctx context.Context) (map[string]any, error) {
	if u.res == nil {
		return nil, nil
	}
	// CreateUser's own values win.
	vals := map[string]any{}
	if err := applyDefaults(ctx, u.db, Operator{}, u.res, vals); err != nil {
		return nil, err
	}
	return vals, nil
}

// bootstrapDefaults are the columns the first admin's users row needs
// beyond email and password, for a game's users table with NOT NULL
// columns of its own: the users resource's Create.Defaults, and a display
// name from the email's local part when that column is required and the
// body gives none. A column still missing answers 400 naming it.
func (u *usersResource) bootstrapDefaults(ctx context.Context, c account.Credentials) (map[string]any, error) {
	vals, err := u.newUserDefaults(ctx)
	if err != nil || vals == nil {
		return vals, err
	}
	if dn := u.users.Cols.DisplayName; dn != "" && c.DisplayName == "" && vals[dn] == nil {
		if col, ok := u.res.Table.ByName[dn]; ok && col.NotNull && !col.HasDefault {
			local, _, _ := strings.Cut(strings.TrimSpace(c.Email), "@")
			vals[dn] = cmp.Or(local, c.Username)
		}
	}
	return vals, nil
}
