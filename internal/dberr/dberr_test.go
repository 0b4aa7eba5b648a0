package dberr

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// pgErr is a PostgreSQL error response as drivers expose it.
type pgErr map[byte]string

func (e pgErr) Field(k byte) string { return e[k] }
func (e pgErr) Error() string       { return e['M'] }

// TestForeignKeySide: a foreign key violation says which side failed,
// naming the column or the referring table, never the key.
func TestForeignKeySide(t *testing.T) {
	t.Parallel()
	for detail, want := range map[string]string{
		`Key (owner_id)=(0193aaaa-0000-7000-8000-000000000000) is not present in table "players".`: `column "owner_id": the referenced row does not exist`,
		`Key (id)=(42) is still referenced from table "guilds".`:                                   `rows of "guilds" still refer to this row`,
		`Key (a, b)=(1, 2) is not present in table "t".`:                                           `column "a, b": the referenced row does not exist`,
		``:                      "", // another wording: no side
		`Schlüssel (x)=(1) ...`: "",
	} {
		r, ok := Classify(fmt.Errorf("insert: %w", pgErr{'C': "23503", 'D': detail}))
		if !ok || r.Kind != ForeignKey || r.Sided != (want != "") {
			t.Fatalf("Classify(%q) = %+v, %v", detail, r, ok)
		}
		if r.Sided && r.ForeignKeyMessage() != want {
			t.Errorf("detail %q: %q; want %q", detail, r.ForeignKeyMessage(), want)
		}
	}
}

// TestSQLiteNotNullColumn: "NOT NULL constraint failed: t.c (1299)" names
// c, not "c (1299"; a wording it does not match names no column.
func TestSQLiteNotNullColumn(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]string{
		"NOT NULL constraint failed: game_roles.scopes (1299)":         "scopes",
		"NOT NULL constraint failed: game_roles.scopes":                "scopes",
		"constraint failed: NOT NULL constraint failed: t.name (1299)": "name",
		"NOT NULL constraint failed: name":                             "name",
		"sqlite: NOT NULL constraint failed":                           "",
		"NOT NULL constraint failed: (1299)":                           "",
	} {
		r, ok := Classify(errors.New(msg))
		if !ok || r.Kind != NotNull || (want == "") != (len(r.Columns) == 0) || (want != "" && r.Columns[0] != want) {
			t.Errorf("Classify(%q) = %+v, %v; want NotNull naming %q", msg, r, ok, want)
		}
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		kind Kind
		cols []string
	}{
		{pgErr{'C': "23505", 'D': "Key (guild, name)=(1, x) already exists."}, Unique, []string{"guild", "name"}},
		{pgErr{'C': "23502", 'c': "qty"}, NotNull, []string{"qty"}},
		{pgErr{'C': "23514", 'c': "qty"}, Check, []string{"qty"}},
		{pgErr{'C': "428C9", 'M': `cannot insert a non-DEFAULT value into column "total"`}, Generated, []string{"total"}},
		{pgErr{'C': "23P01"}, Constraint, nil},
		{pgErr{'C': "22P02", 'c': "id"}, BadValue, []string{"id"}},
		{errors.New("UNIQUE constraint failed: t.a, t.b"), Unique, []string{"a", "b"}},
		{errors.New("PRIMARY KEY constraint failed: t.id"), Unique, []string{"id"}},
		{errors.New("FOREIGN KEY constraint failed"), ForeignKey, nil},
		{errors.New("CHECK constraint failed: qty > 0"), Check, nil},
	} {
		r, ok := Classify(tt.err)
		if !ok || r.Kind != tt.kind || !slices.Equal(r.Columns, tt.cols) {
			t.Errorf("Classify(%v) = %+v, %v; want kind %d, columns %v", tt.err, r, ok, tt.kind, tt.cols)
		}
	}
	for _, err := range []error{nil, errors.New("connection reset by peer"), pgErr{'C': "42601"}, pgErr{'C': "57P01"}} {
		if r, ok := Classify(err); ok {
			t.Errorf("Classify(%v) = %+v; want no refusal: a fault of the server", err, r)
		}
	}
	if SQLState(fmt.Errorf("x: %w", pgErr{'C': "23505"})) != "23505" || SQLState(errors.New("x")) != "" {
		t.Error("SQLState")
	}
}

// TestClassifyCheckNamesConstraint: a check's refusal names the check as
// the database did: PostgreSQL's constraint name, SQLite's name or (for
// a check without one) its expression, without the driver's result code.
func TestClassifyCheckNamesConstraint(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want string
	}{
		{pgErr{'C': "23514", 'n': "qty_positive"}, "qty_positive"},
		{pgErr{'C': "23514"}, ""},
		{errors.New("constraint failed: CHECK constraint failed: range_ok (275)"), "range_ok"},
		{errors.New("CHECK constraint failed: range_ok"), "range_ok"},
		{errors.New("constraint failed: CHECK constraint failed: qty  >  0 (275)"), "qty  >  0"},
		{errors.New("constraint failed: CHECK constraint failed: mood IN ('a', 'b') (275)"), "mood IN ('a', 'b')"},
		{errors.New("sqlite: CHECK constraint failed"), ""},
	} {
		r, ok := Classify(tt.err)
		if !ok || r.Kind != Check || r.Constraint != tt.want {
			t.Errorf("Classify(%v) = %+v, %v; want a check naming %q", tt.err, r, ok, tt.want)
		}
	}
}
