package schema

import (
	"slices"
	"testing"
)

func TestMySQLName(t *testing.T) {
	for _, tc := range []struct{ in, sch, table string }{
		{"players", "", "players"},
		{"`players`", "", "players"},
		{"game.players", "game", "players"},
		{"`game`.`players`", "game", "players"},
		{`"game"."players"`, "game", "players"},
		{"`we``ird.name`", "", "we`ird.name"},
		{"`g.x`.`p`", "g.x", "p"},
	} {
		sch, table := mysqlName(tc.in)
		if sch != tc.sch || table != tc.table {
			t.Errorf("mysqlName(%q) = %q, %q; want %q, %q", tc.in, sch, table, tc.sch, tc.table)
		}
	}
}

func TestMySQLLabels(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"enum('a','b')", []string{"a", "b"}},
		{"ENUM('it''s','x,y', '')", []string{"it's", "x,y", ""}},
		{`enum('back\\slash')`, []string{`back\slash`}},
		{"set('fast','strong')", []string{"fast", "strong"}},
		{"varchar(3)", nil},
		{"int", nil},
	} {
		if got := mysqlLabels(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("mysqlLabels(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMySQLKind(t *testing.T) {
	for _, tc := range []struct {
		dataType, columnType string
		want                 ValueKind
	}{
		{"tinyint", "tinyint(1)", KindBool},
		{"tinyint", "tinyint(1) unsigned", KindNumber},
		{"tinyint", "tinyint(4)", KindNumber},
		{"bigint", "bigint(20) unsigned", KindNumber},
		{"datetime", "datetime(6)", KindTimestampLocal},
		{"timestamp", "timestamp", KindTime},
		{"date", "date", KindDate},
		{"decimal", "decimal(12,2)", KindDecimal},
		{"enum", "enum('a')", KindEnum},
		{"set", "set('a')", KindText},
		{"json", "json", KindJSON},
		{"longtext", "longtext", KindText},
		{"uuid", "uuid", KindUUID},
		{"varbinary", "varbinary(16)", KindBytes},
		{"time", "time", KindText},
	} {
		if got := mysqlKind(tc.dataType, tc.columnType); got != tc.want {
			t.Errorf("mysqlKind(%q, %q) = %q, want %q", tc.dataType, tc.columnType, got, tc.want)
		}
	}
}
