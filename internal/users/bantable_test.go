package users

import (
	"strings"
	"testing"
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
// text column holds a time too.
func TestBanTableTimeTypes(t *testing.T) {
	for _, tc := range []struct {
		typ        string
		pg         bool
		unix, okay bool
	}{
		{"int8", true, true, true},
		{"integer", false, true, true},
		{"timestamptz", true, false, true},
		{"timestamp", true, false, true},
		{"datetime", false, false, true},
		{"text", false, false, true},
		{"text", true, false, false},
		{"bool", true, false, false},
		{"boolean", false, false, false},
	} {
		if unix, ok := timeType(tc.typ, tc.pg); unix != tc.unix || ok != tc.okay {
			t.Errorf("timeType(%q, pg %v) = %v, %v; want %v, %v", tc.typ, tc.pg, unix, ok, tc.unix, tc.okay)
		}
	}
}
