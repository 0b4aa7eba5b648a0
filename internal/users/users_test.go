package users

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
)

type builtinUser struct {
	bun.BaseModel `bun:"table:game_users,alias:u"`

	ID           string   `bun:"id,pk"`
	Email        string   `bun:"email,notnull"`
	DisplayName  string   `bun:"display_name,nullzero"`
	PasswordHash string   `bun:"password_hash,nullzero"`
	Ban          *BanInfo `bun:"ban"`
	TokenVersion int64    `bun:"token_version,notnull"`
}

type player struct {
	bun.BaseModel `bun:"table:players"`

	PlayerID int64  `bun:"player_id,pk,autoincrement"`
	Mail     string `bun:"mail,notnull"`
	Secret   string `bun:"secret,notnull"`
}

type twoKeys struct {
	bun.BaseModel `bun:"table:pairs"`

	ID           string `bun:"id,pk"`
	Other        string `bun:"other,pk"`
	Email        string `bun:"email"`
	PasswordHash string `bun:"password_hash"`
}

func TestNewBuiltin(t *testing.T) {
	t.Parallel()
	u, err := New(sqlitedialect.New().Tables(), nil, (*builtinUser)(nil), "x_", Columns{})
	if err != nil {
		t.Fatal(err)
	}
	if !u.Builtin || u.Name != "x_users" || !u.genID {
		t.Fatalf("built-in: Builtin %v, Name %q, genID %v", u.Builtin, u.Name, u.genID)
	}
	want := Columns{ID: "id", Email: "email", PasswordHash: "password_hash", DisplayName: "display_name", TokenVersion: "token_version", Ban: "ban"}
	if u.Cols != want {
		t.Fatalf("Cols = %+v; want %+v (no created_at column)", u.Cols, want)
	}
	if !u.HasBan || !u.HasTokenVersion || !u.HasDisplayName || u.HashNotNull || len(u.Off) != 0 {
		t.Fatalf("optional columns: %+v", u)
	}
}

func TestNewGameTable(t *testing.T) {
	t.Parallel()
	u, err := New(pgdialect.New().Tables(), (*player)(nil), (*builtinUser)(nil), "game_", Columns{ID: "player_id", Email: "mail", PasswordHash: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	if u.Builtin || u.Name != "players" || u.genID || !u.HashNotNull {
		t.Fatalf("game table: %+v", u)
	}
	if u.HasBan || u.HasTokenVersion || u.HasDisplayName || len(u.Off) != 2 {
		t.Fatalf("features off: %+v", u)
	}
	if got := string(u.Col(u.Cols.Email, "u")); got != `"u"."mail"` {
		t.Fatalf("Col = %s", got)
	}
}

func TestNewRefuses(t *testing.T) {
	t.Parallel()
	tables := sqlitedialect.New().Tables()
	for _, tt := range []struct {
		model any
		uc    Columns
		want  string
	}{
		{(*player)(nil), Columns{}, `UserColumns.ID: users table players has no column "id"`},
		{(*builtinUser)(nil), Columns{Ban: "banned"}, `UserColumns.Ban: users table game_users has no column "banned"`},
		{(*twoKeys)(nil), Columns{}, "must be its single primary key"},
		{player{}, Columns{}, "has no column"},
		{42, Columns{}, "must be a Bun model"},
	} {
		_, err := New(tables, tt.model, (*builtinUser)(nil), "game_", tt.uc)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%T, %+v) = %v; want %q", tt.model, tt.uc, err, tt.want)
		}
	}
}

func TestSetHash(t *testing.T) {
	t.Parallel()
	u := &Table{Cols: Columns{PasswordHash: "pw"}}
	vals := map[string]any{"pw": "old"}
	u.SetHash(vals, "")
	if _, ok := vals["pw"]; ok {
		t.Fatalf("no hash, nullable column: %v", vals)
	}
	u.HashNotNull = true
	u.SetHash(vals, "")
	if vals["pw"] != UnusableHash {
		t.Fatalf("no hash, NOT NULL column: %v", vals)
	}
	u.SetHash(vals, "$argon2id$x")
	if vals["pw"] != "$argon2id$x" {
		t.Fatalf("hash: %v", vals)
	}
}

func TestWhereBanned(t *testing.T) {
	t.Parallel()
	for _, d := range []dialect.Name{dialect.SQLite, dialect.PG, dialect.MySQL} {
		u := &Table{Cols: Columns{Ban: "ban"}, Dialect: d}
		on, off := u.WhereBanned(true), u.WhereBanned(false)
		if n := strings.Count(on.Expr, "?TableAlias.?"); n == 0 || n != len(on.Args) {
			t.Fatalf("%v: %d placeholders, %d args", d, n, len(on.Args))
		}
		if off.Expr != "NOT COALESCE(("+on.Expr+"), FALSE)" {
			t.Fatalf("%v: not banned is %q", d, off.Expr)
		}
	}
}

func TestBan(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	later, earlier := now.Add(time.Hour), now.Add(-time.Hour)
	var none *BanInfo
	switch {
	case none.Active(now):
		t.Fatal("nil ban active")
	case !(&BanInfo{}).Active(now), !(&BanInfo{Until: &later}).Active(now):
		t.Fatal("ban in force not active")
	case (&BanInfo{Until: &earlier}).Active(now):
		t.Fatal("ended ban active")
	}
	for _, raw := range []NullJSON{nil, NullJSON("null")} {
		if b, err := ParseBan("u1", raw); b != nil || err != nil {
			t.Fatalf("ParseBan(%q) = %v, %v", raw, b, err)
		}
	}
	b, err := ParseBan("u1", NullJSON(`{"reason":"spam","bannedAt":"2030-01-02T03:04:05Z"}`))
	if err != nil || b.Reason != "spam" || !b.BannedAt.Equal(now) {
		t.Fatalf("ParseBan = %+v, %v", b, err)
	}
	if _, err := ParseBan("u1", NullJSON(`[`)); err == nil || !strings.Contains(err.Error(), "user u1: malformed ban") {
		t.Fatalf("malformed ban: %v", err)
	}
}

func TestNullJSON(t *testing.T) {
	t.Parallel()
	var j NullJSON
	for _, src := range []any{[]byte(`{"a":1}`), `{"a":1}`} {
		if err := j.Scan(src); err != nil || string(j) != `{"a":1}` {
			t.Fatalf("Scan(%T) = %q, %v", src, j, err)
		}
	}
	if err := j.Scan(nil); err != nil || j != nil {
		t.Fatalf("Scan(nil) = %q, %v", j, err)
	}
	if err := j.Scan(42); err == nil {
		t.Fatal("Scan(int) took it")
	}
}

func TestSessionRowState(t *testing.T) {
	t.Parallel()
	var r SessionRow
	dest := r.Dest()
	if err := dest[0].(interface{ Scan(any) error }).Scan("mod"); err != nil {
		t.Fatal(err)
	}
	if err := dest[1].(*NullJSON).Scan(`["guilds"]`); err != nil {
		t.Fatal(err)
	}
	*dest[3].(*int64) = 7
	tv, op, err := r.State("u1")
	if err != nil || tv != 7 || op.UserID != "u1" || op.Role != authz.RoleMod || len(op.Scopes) != 1 || op.Scopes[0] != "guilds" {
		t.Fatalf("State = %d, %+v, %v", tv, op, err)
	}

	var plain SessionRow
	if err := plain.Dest()[0].(interface{ Scan(any) error }).Scan("superuser"); err != nil {
		t.Fatal(err)
	}
	if _, op, err := plain.State("u2"); err != nil || op.Role != authz.RoleUser || op.Scopes == nil {
		t.Fatalf("unknown role: %+v, %v", op, err)
	}
	bad := SessionRow{scopes: NullJSON(`{`)}
	if _, _, err := bad.State("u3"); err == nil || !strings.Contains(err.Error(), "roles of u3: malformed scopes") {
		t.Fatalf("malformed scopes: %v", err)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	if !errors.Is(ErrLastAdmin.Because(errors.New("x")), ErrLastAdmin) || ErrLastAdmin.Status != 409 {
		t.Fatalf("ErrLastAdmin: %v", ErrLastAdmin)
	}
	e := &AmbiguousEmailError{IDs: []string{"a", "b"}}
	if !strings.Contains(e.Error(), "accounts a, b") {
		t.Fatal(e.Error())
	}
}

// TestUntilValue: an until-column's value reads as a time whatever form
// the driver hands it in, and a time past PermanentAfter is a ban for
// good.
func TestUntilValue(t *testing.T) {
	want := time.Date(2030, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, v := range []any{want.Unix(), int(want.Unix()), json.Number("1898596800"), want, []byte("1898596800"),
		"2030-03-01T12:00:00Z", "2030-03-01 12:00:00+00:00", "2030-03-01 12:00:00.000000000+00:00", "2030-03-01 12:00:00", "2030-03-01 14:00:00+02:00"} {
		got, err := UntilValue(v)
		if err != nil || !got.Equal(want) {
			t.Errorf("UntilValue(%T %v) = %v, %v; want %v", v, v, got, err, want)
		}
	}
	for _, v := range []any{"tomorrow", true, json.Number("1.5")} {
		if _, err := UntilValue(v); err == nil {
			t.Errorf("UntilValue(%T %v) = nil error; want one", v, v)
		}
	}
	u := &Table{Cols: Columns{BanUntil: "banned_until"}, BanUnix: true}
	for v, permanent := range map[int64]bool{PermanentUntil.Unix(): true, 300000000000: true, want.Unix(): false} {
		b, err := u.Ban("1", BanState{Raw: RawValue{V: v}})
		if err != nil || b == nil || (b.Until == nil) != permanent {
			t.Errorf("Ban(%d) = %+v, %v; want permanent %v", v, b, err, permanent)
		}
	}
	if b, err := u.Ban("1", BanState{}); b != nil || err != nil {
		t.Errorf("Ban(NULL) = %+v, %v; want nil", b, err)
	}
}
