// Package users is the users table as the panel reads it, whoever owns
// it (the built-in users table or a game's own model): which columns are
// which (Columns), the account sign-in reads (Account), the panel's
// writes to users rows, the roles table with the last-admin rule
// (RoleTable), and the one statement of the session check. It is handed
// Bun's tables, the models and the table names; it knows nothing else of
// the panel.
package users

import (
	"cmp"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/gameadmin/admin/internal/sqldialect"
	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/schema"
	"github.com/google/uuid"
	"github.com/uptrace/bun"
	bunschema "github.com/uptrace/bun/schema"
)

// Key is the users table's key in Options.Tables, the key of its
// resource, and the Resource of the audit entries about an account (a
// ban, an erase, a report). The panel's behaviour for its rows is the
// engine's users resource (internal/engine/users_resource.go); a package
// that meets its rows is told so by rows.Resource.Accounts.
const Key = "users"

var (
	// ErrNotFound reports that a user does not exist (admin.ErrNotFound,
	// which the panel answers for rows and rooms too).
	ErrNotFound = errors.New("admin: not found")
	// ErrUnsupported reports that the users table lacks a column a feature
	// needs (ban or token_version); admin.ErrUnsupported, which the panel
	// also answers when no Rooms implementation is configured.
	ErrUnsupported = errors.New("admin: unsupported")
)

// Columns is admin.UserColumns, field for field (the root converts one to the
// other); its documentation is there.
type Columns struct {
	ID           string // default "id"
	Email        string // default "email"
	PasswordHash string // default "password_hash"
	DisplayName  string // default "display_name"
	TokenVersion string // default "token_version"
	Ban          string // default "ban"
	CreatedAt    string // default "created_at"
	BanUntil     string // no default: the game's own until-column, instead of Ban
	BanReason    string // no default: with BanUntil, the ban's reason
	BanTable     *BanTable
	Username     string // no default: the login name column
}

func (c Columns) withDefaults() Columns {
	c.ID = cmp.Or(c.ID, "id")
	c.Email = cmp.Or(c.Email, "email")
	c.PasswordHash = cmp.Or(c.PasswordHash, "password_hash")
	c.DisplayName = cmp.Or(c.DisplayName, "display_name")
	c.TokenVersion = cmp.Or(c.TokenVersion, "token_version")
	if c.BanUntil == "" && c.BanTable == nil {
		c.Ban = cmp.Or(c.Ban, "ban")
	}
	c.CreatedAt = cmp.Or(c.CreatedAt, "created_at")
	return c
}

// Table is the table operators sign in from: the built-in users table or
// the game's own users model (Options.Tables["users"]). Every query names
// its columns from here, and the optional ones are left out when absent.
// New fills it and FromCatalog corrects it; the panel reads it only.
type Table struct {
	// Name is the table's SQL name.
	Name string
	// Dialect is the database's: the statements written by hand quote
	// and cast with it (sqldialect).
	Dialect dialect.Name
	// Cols are the columns, resolved: an optional one is "" when absent.
	Cols Columns
	// Builtin is true for the built-in User model.
	Builtin bool
	// IDField is the model's id field.
	IDField *bunschema.Field
	// Bans is UserColumns.BanTable, nil without: the ban is the rows
	// of the game's own bans table.
	Bans *bans
	// HasBan (the JSON ban, an until-column or a bans table),
	// HasTokenVersion, HasDisplayName, HasEmail and HasUsername say which
	// optional columns the table has. Without an email column (HasEmail
	// false, Cols.Email ""), reset links and invites are off.
	HasBan          bool
	HasTokenVersion bool
	HasDisplayName  bool
	HasEmail        bool
	HasUsername     bool
	// BanUnix is true when the ban is an until-column (Cols.BanUntil) of
	// unix seconds, false when it is a time column; it means nothing
	// with the JSON ban column (Cols.Ban).
	BanUnix bool
	// HashNotNull is true when the password column is NOT NULL without a
	// default: a user created without a password gets UnusableHash.
	HashNotNull bool
	// Off names the features off for want of optional columns, for New's
	// log line.
	Off []string
	// Scope is the users resource's ScopeColumn ("" when it names none):
	// a mod with a row scope sees and moderates only the users whose
	// Scope column holds one of its values (rowscope.go).
	Scope string

	// createdAt is the CreatedAt column when it is NOT NULL without a
	// default (a game that sets it in code): CreateUser fills it.
	createdAt *schema.Column

	genID   bool // the panel makes new ids (UUIDv7 text); else the database does
	emailCI bool // the email column is PostgreSQL's citext or of a MySQL _ci collation: = ignores case
}

// New reads the users table of model, a Bun model (a struct pointer), or
// of builtin, the built-in users model, when model is nil. The built-in
// table is named prefix + "users". uc names the columns (Columns).
func New(tables *bunschema.Tables, model, builtin any, prefix string, uc Columns) (*Table, error) {
	if model == nil {
		model = builtin
	}
	typ := structType(model)
	if typ == nil || typ.Kind() != reflect.Struct {
		return nil, fmt.Errorf("admin: Tables[\"users\"] must be a Bun model (a struct pointer), got %T", model)
	}
	t := tables.Get(typ)
	d := t.Dialect().Name()
	names := make([]string, 0, len(t.Fields))
	for _, f := range t.Fields {
		names = append(names, f.Name)
	}
	set := uc
	if set.Ban != "" && set.BanUntil != "" {
		return nil, fmt.Errorf("admin: UserColumns.Ban (%q, a JSON column) and UserColumns.BanUntil (%q) both name the ban: set one", set.Ban, set.BanUntil)
	}
	if err := checkBanConfig(set); err != nil {
		return nil, err
	}
	if set.BanReason != "" && set.BanUntil == "" {
		return nil, fmt.Errorf("admin: UserColumns.BanReason (%q) goes with UserColumns.BanUntil, which is not set", set.BanReason)
	}
	uc = uc.withDefaults()
	u := &Table{Name: t.Name, Dialect: d, Builtin: typ == structType(builtin)}
	if u.Builtin {
		u.Name = prefix + "users"
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
		{"ID", &u.Cols.ID, uc.ID, set.ID, true},
		// Email is required when named; left unnamed, a table without
		// an "email" column has none (sign-in by Username).
		{"Email", &u.Cols.Email, uc.Email, set.Email, false},
		{"PasswordHash", &u.Cols.PasswordHash, uc.PasswordHash, set.PasswordHash, true},
		{"DisplayName", &u.Cols.DisplayName, uc.DisplayName, set.DisplayName, false},
		{"TokenVersion", &u.Cols.TokenVersion, uc.TokenVersion, set.TokenVersion, false},
		{"Ban", &u.Cols.Ban, uc.Ban, set.Ban, false},
		{"CreatedAt", &u.Cols.CreatedAt, uc.CreatedAt, set.CreatedAt, false},
		{"BanUntil", &u.Cols.BanUntil, uc.BanUntil, set.BanUntil, false},
		{"BanReason", &u.Cols.BanReason, uc.BanReason, set.BanReason, false},
		{"Username", &u.Cols.Username, uc.Username, set.Username, false},
	} {
		if c.col == "" {
			continue
		}
		var err error
		if *c.dst, err = check(c.field, c.col, c.set != "", c.required); err != nil {
			return nil, err
		}
	}
	if len(t.PKs) != 1 || t.PKs[0].Name != u.Cols.ID {
		return nil, fmt.Errorf("admin: users table %s: UserColumns.ID %q must be its single primary key", t.Name, u.Cols.ID)
	}
	u.IDField, _ = t.Field(u.Cols.ID)
	u.HasDisplayName = u.Cols.DisplayName != ""
	u.HasEmail = u.Cols.Email != ""
	u.HasUsername = u.Cols.Username != ""
	if !u.HasEmail && !u.HasUsername {
		return nil, fmt.Errorf("admin: users table %s has no column %q and UserColumns names no Email nor Username: operators sign in by one of them%s", t.Name, uc.Email, schema.ClosestHint(uc.Email, names))
	}
	u.HasTokenVersion = u.Cols.TokenVersion != ""
	if bt := set.BanTable; bt != nil {
		u.Bans = &bans{BanTable: *bt}
	}
	u.HasBan = u.Cols.Ban != "" || u.Cols.BanUntil != "" || u.Bans != nil
	if u.Cols.BanUntil != "" {
		f := t.FieldMap[u.Cols.BanUntil]
		switch typ := f.IndirectType; {
		case typ.Kind() >= reflect.Int && typ.Kind() <= reflect.Int64, typ == reflect.TypeFor[sql.NullInt64]():
			u.BanUnix = true
		case typ == reflect.TypeFor[time.Time]() || typ == reflect.TypeFor[sql.NullTime]() || typ == reflect.TypeFor[bun.NullTime]():
		default:
			return nil, fmt.Errorf("admin: UserColumns.BanUntil: column %q of users table %s is a %s: it must be an integer (unix seconds: int64, sql.NullInt64) or a time (time.Time, sql.NullTime, bun.NullTime)", u.Cols.BanUntil, t.Name, typ)
		}
	}
	// A text or UUID id without a database default gets a UUIDv7 from the
	// panel, as text: PostgreSQL casts it to uuid, SQLite stores it as is.
	idType := u.IDField.IndirectType
	textual := idType.Kind() == reflect.String || idType.Kind() == reflect.Array && idType.Len() == 16 && idType.Elem().Kind() == reflect.Uint8
	u.genID = textual && u.IDField.SQLDefault == "" && !u.IDField.AutoIncrement && !u.IDField.Identity
	if f, ok := t.FieldMap[u.Cols.PasswordHash]; ok {
		u.HashNotNull = f.NotNull && f.SQLDefault == ""
	}
	if !u.HasTokenVersion {
		u.Off = append(u.Off, "sign out everywhere, revoke-sessions and single-use reset links (UserColumns.TokenVersion names a BIGINT column)")
	}
	if !u.HasEmail {
		u.Off = append(u.Off, "password reset links and invites, which are sent by email (UserColumns.Email names an email column)")
	}
	if !u.HasBan || !u.HasTokenVersion {
		u.Off = append(u.Off, "ban and unban (UserColumns.Ban names a JSON column, UserColumns.BanUntil an until-column, or UserColumns.BanTable a table of bans, with TokenVersion)")
	}
	return u, nil
}

// structType is the type of a model, its pointers taken off.
func structType(model any) reflect.Type {
	typ := reflect.TypeOf(model)
	for typ != nil && typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	return typ
}

// FromCatalog corrects what the model's tags say of the id and password
// columns with what the database says (t is the users resource's table,
// read from the catalog at New): a game's migrations may declare NOT NULL
// or a default its Bun model does not tag. A database default of the id
// column wins over the panel's UUIDv7; a NOT NULL password column without
// a default gets UnusableHash when a user is created without a password;
// a NOT NULL CreatedAt time (or unix time) column without a default gets
// the time of the creation, as the game's own sign-up would set it.
func (u *Table) FromCatalog(t *schema.Table) {
	if c := t.ByName[u.Cols.ID]; c != nil && c.HasDefault && !u.Builtin { // the built-in id is the model hook's
		u.genID = false
	}
	if c := t.ByName[u.Cols.PasswordHash]; c != nil {
		u.HashNotNull = c.NotNull && !c.HasDefault
	}
	if c := t.ByName[u.Cols.CreatedAt]; c != nil && c.NotNull && !c.HasDefault && (c.Kind == schema.KindTime || c.Kind == schema.KindTimestampLocal) {
		u.createdAt = c
	}
	if c := t.ByName[u.Cols.Email]; c != nil {
		// format_type qualifies it when its schema is not on the path.
		// A MySQL _ci collation folds case itself (FoldsCase).
		u.emailCI = c.DBType == "citext" || strings.HasSuffix(c.DBType, ".citext") || c.FoldsCase
	}
}

// emailIs is the condition "the email column is email without regard to
// case": lower() on both sides, which an index on lower(<email column>)
// serves, or on a citext column (or a MySQL one of a _ci collation) plain
// equality, which its own unique index serves (lower() there would read
// the whole table).
func (u *Table) emailIs(email string) (string, []any) {
	if !u.HasEmail {
		return "FALSE", nil
	}
	col := u.Col(u.Cols.Email, "u")
	if u.emailCI {
		return "? = ?", []any{col, email}
	}
	return "lower(?) = lower(?)", []any{col, email}
}

// Ident is the quoted table name.
func (u *Table) Ident() bun.Ident { return bun.Ident(u.Name) }

// Col is the quoted name of a mapped column, qualified with alias when
// given.
func (u *Table) Col(name string, alias ...string) bun.Safe {
	s := sqldialect.Quote(u.Dialect, name)
	if len(alias) > 0 {
		s = sqldialect.Quote(u.Dialect, alias[0]) + "." + s
	}
	return bun.Safe(s)
}

// NewID returns a UUIDv7: unique across nodes and ordered by time, so new
// rows land at the end of the primary-key index. It is the id the panel
// gives a new row with a text or uuid key and no default of its own.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }
