package users

import (
	"strings"
	"testing"

	"github.com/uptrace/bun/dialect"
)

// TestBanTableConfig: a BanTable beside a ban column, without its
// required names, or with a name holding Bun's placeholder is refused
// before the database is asked.
func TestBanTableConfig(t *testing.T) {
	good := &BanTable{Name: "bans", Player: "player_id", Until: "expires_at"}
	for _, tc := range []struct {
		c    Columns
		want string
	}{
		{Columns{Ban: "ban", BanTable: good}, "UserColumns.Ban"},
		{Columns{BanUntil: "banned_until", BanTable: good}, "UserColumns.BanUntil"},
		{Columns{BanTable: &BanTable{Player: "p", Until: "u"}}, "Name is required"},
		{Columns{BanTable: &BanTable{Name: "bans", Until: "u"}}, "required"},
		{Columns{BanTable: &BanTable{Name: "bans", Player: "p"}}, "required"},
		{Columns{BanTable: &BanTable{Name: "bans", Player: "p", Until: "u", Author: "a?"}}, "not a name"},
	} {
		if err := checkBanConfig(tc.c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("checkBanConfig(%+v) = %v; want %q", tc.c.BanTable, err, tc.want)
		}
	}
	if err := checkBanConfig(Columns{BanTable: good}); err != nil {
		t.Errorf("checkBanConfig(good) = %v", err)
	}
}

// TestBanTableTimeTypes: Until is a time or unix seconds; on SQLite a
// text column holds a time too; MySQL's BOOLEAN (tinyint) is none.
func TestBanTableTimeTypes(t *testing.T) {
	for _, tc := range []struct {
		typ        string
		d          dialect.Name
		unix, okay bool
	}{
		{"int8", dialect.PG, true, true},
		{"integer", dialect.SQLite, true, true},
		{"timestamptz", dialect.PG, false, true},
		{"timestamp", dialect.PG, false, true},
		{"datetime", dialect.SQLite, false, true},
		{"text", dialect.SQLite, false, true},
		{"text", dialect.PG, false, false},
		{"bool", dialect.PG, false, false},
		{"boolean", dialect.SQLite, false, false},
		{"bigint", dialect.MySQL, true, true},
		{"datetime", dialect.MySQL, false, true},
		{"timestamp", dialect.MySQL, false, true},
		{"tinyint", dialect.MySQL, false, false},
		{"varchar", dialect.MySQL, false, false},
		{"text", dialect.MySQL, false, false},
	} {
		if unix, ok := timeType(tc.typ, tc.d); unix != tc.unix || ok != tc.okay {
			t.Errorf("timeType(%q, %v) = %v, %v; want %v, %v", tc.typ, tc.d, unix, ok, tc.unix, tc.okay)
		}
	}
}
