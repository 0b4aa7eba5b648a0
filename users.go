package admin

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// userTable is the table operators sign in from: the built-in game_users or
// the game's own users model (Options.Tables["users"]). Every query names its
// columns from here, and the optional ones are left out when absent.
type userTable struct {
	name           string
	hasBan         bool
	hasTokenVer    bool
	hasDisplayName bool
	textID         bool // the id column holds text, so new ids are UUIDv7 strings
}

func newUserTable(db *bun.DB, model any) (*userTable, error) {
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
	t := db.Table(typ)
	for _, col := range []string{"id", "email", "password_hash"} {
		if !t.HasField(col) {
			return nil, fmt.Errorf("admin: users table %s has no %q column; sign-in needs id, email and password_hash", t.Name, col)
		}
	}
	id, _ := t.Field("id")
	return &userTable{
		name:           t.Name,
		hasBan:         t.HasField("ban"),
		hasTokenVer:    t.HasField("token_version"),
		hasDisplayName: t.HasField("display_name"),
		textID:         id.IndirectType.Kind() == reflect.String,
	}, nil
}

// ident is the quoted table name.
func (u *userTable) ident() bun.Ident { return bun.Ident(u.name) }

// normalizeEmail is how emails are stored and matched.
func normalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

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
		ColumnExpr("CAST(u.id AS TEXT)").ColumnExpr("u.email").
		ColumnExpr("COALESCE(u.password_hash, '')")
	if u.hasDisplayName {
		q = q.ColumnExpr("COALESCE(u.display_name, '')")
	} else {
		q = q.ColumnExpr("''")
	}
	if u.hasTokenVer {
		q = q.ColumnExpr("u.token_version")
	} else {
		q = q.ColumnExpr("0")
	}
	if u.hasBan {
		q = q.ColumnExpr("u.ban")
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
	if len(ban) > 0 && string(ban) != "null" {
		acc.Ban = new(BanInfo)
		if err := json.Unmarshal(ban, acc.Ban); err != nil {
			return nil, fmt.Errorf("admin: user %s: malformed ban: %w", acc.ID, err)
		}
	}
	return &acc, nil
}

// accountByEmail returns the account with that (normalized) email, or
// ErrNotFound.
func (u *userTable) accountByEmail(ctx context.Context, db bun.IDB, email string) (*account, error) {
	q := u.selectAccount(db).Where("u.email = ?", normalizeEmail(email)).Limit(1)
	return u.queryAccount(ctx, q)
}

// accountByID returns the account with that id, or ErrNotFound.
func (u *userTable) accountByID(ctx context.Context, db bun.IDB, id string) (*account, error) {
	return u.queryAccount(ctx, u.selectAccount(db).Where("u.id = ?", id))
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
func (a *Admin) sessionState(ctx context.Context, userID string) (tv int64, op Operator, err error) {
	u := a.users
	q := a.db.NewSelect().TableExpr("? AS u", u.ident()).
		Join("LEFT JOIN game_roles AS r ON r.user_id = CAST(u.id AS TEXT)").
		ColumnExpr("r.role").ColumnExpr("r.scopes").
		Where("u.id = ?", userID)
	if u.hasTokenVer {
		q = q.ColumnExpr("u.token_version")
	} else {
		q = q.ColumnExpr("0")
	}
	var role sql.NullString
	var scopes nullJSON
	if err := q.Scan(ctx, &role, &scopes, &tv); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, op, ErrNotFound
		}
		return 0, op, err
	}
	op = Operator{UserID: userID, Role: RoleUser, Scopes: []string{}}
	if role.Valid && Role(role.String).Valid() {
		op.Role = Role(role.String)
	}
	if len(scopes) > 0 && string(scopes) != "null" {
		if err := json.Unmarshal(scopes, &op.Scopes); err != nil {
			return 0, op, fmt.Errorf("admin: roles of %s: malformed scopes: %w", userID, err)
		}
	}
	return tv, op, nil
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

// createUser inserts a user with a password hash and returns its id.
func (u *userTable) createUser(ctx context.Context, db bun.IDB, email, displayName, hash string) (string, error) {
	cols := []string{"email", "password_hash"}
	vals := []any{normalizeEmail(email), hash}
	var id string
	if u.textID {
		id = newID()
		cols = append(cols, "id")
		vals = append(vals, id)
	}
	if u.hasDisplayName && displayName != "" {
		cols = append(cols, "display_name")
		vals = append(vals, displayName)
	}
	if u.name == "game_users" {
		cols = append(cols, "created_at")
		vals = append(vals, time.Now().UTC())
	}
	idents := make([]any, len(cols))
	for i, c := range cols {
		idents[i] = bun.Ident(c)
	}
	ph := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	stmt := fmt.Sprintf("INSERT INTO ? (%s) VALUES (%s) RETURNING CAST(id AS TEXT)", ph, ph)
	args := append(append([]any{u.ident()}, idents...), vals...)
	if err := db.NewRaw(stmt, args...).Scan(ctx, &id); err != nil {
		return "", err
	}
	return id, nil
}
