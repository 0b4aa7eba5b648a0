package admin

import "testing"

// TestPGForeignKeyMessage: a foreign key violation says which side
// failed, naming the column or the referring table, never the key.
func TestPGForeignKeyMessage(t *testing.T) {
	for detail, want := range map[string]string{
		`Key (owner_id)=(0193aaaa-0000-7000-8000-000000000000) is not present in table "players".`: `column "owner_id": the referenced row does not exist`,
		`Key (id)=(42) is still referenced from table "guilds".`:                                   `rows of "guilds" still refer to this row`,
		`Key (a, b)=(1, 2) is not present in table "t".`:                                           `column "a, b": the referenced row does not exist`,
		``:                      "the referenced row does not exist, or other rows refer to this one",
		`Schlüssel (x)=(1) ...`: "the referenced row does not exist, or other rows refer to this one",
	} {
		if got := pgForeignKeyMessage(detail); got != want {
			t.Errorf("pgForeignKeyMessage(%q) = %q; want %q", detail, got, want)
		}
	}
}
