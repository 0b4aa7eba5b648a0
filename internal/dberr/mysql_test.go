package dberr

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// myErr has the shape of the Go driver's *mysql.MySQLError, which the
// root module may not import.
type myErr struct {
	Number   uint16
	SQLState [5]byte
	Message  string
}

func (e *myErr) Error() string {
	return fmt.Sprintf("Error %d (%s): %s", e.Number, e.SQLState, e.Message)
}

func my(n uint16, state, msg string) error {
	e := &myErr{Number: n, Message: msg}
	copy(e.SQLState[:], state)
	return fmt.Errorf("insert: %w", e)
}

// TestClassifyMySQL: MariaDB's messages (as the server words them; the
// real server's are checked in internal/dbtest/mysqltest) and MySQL 8's
// read as the same refusals, naming the column or the constraint, never
// the value.
func TestClassifyMySQL(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err        error
		kind       Kind
		cols       []string
		constraint string
	}{
		{my(1062, "23000", "Duplicate entry 'bob' for key 'username'"), Unique, nil, "username"},
		{my(1062, "23000", "Duplicate entry 'bob' for key 'players.username'"), Unique, nil, "username"},
		{my(1062, "23000", "Duplicate entry '1-1' for key 'a'"), Unique, nil, "a"},
		{my(1062, "23000", "Duplicate entry 'x' for key 'PRIMARY'"), Unique, nil, "PRIMARY"},
		{my(1452, "23000", "Cannot add or update a child row: a foreign key constraint fails (`db`.`items`, CONSTRAINT `items_player` FOREIGN KEY (`player_id`) REFERENCES `players` (`id`))"), ForeignKey, []string{"player_id"}, "items_player"},
		{my(1452, "23000", "Cannot add or update a child row: a foreign key constraint fails (`db`.`m`, CONSTRAINT `m_ab` FOREIGN KEY (`a`, `b`) REFERENCES `p` (`x`, `y`))"), ForeignKey, []string{"a", "b"}, "m_ab"},
		{my(1451, "23000", "Cannot delete or update a parent row: a foreign key constraint fails (`db`.`items`, CONSTRAINT `items_player` FOREIGN KEY (`player_id`) REFERENCES `players` (`id`))"), ForeignKey, nil, "items_player"},
		{my(1216, "23000", "Cannot add or update a child row: a foreign key constraint fails"), ForeignKey, nil, ""},
		{my(1048, "23000", "Column 'username' cannot be null"), NotNull, []string{"username"}, ""},
		{my(1364, "HY000", "Field 'note' doesn't have a default value"), NotNull, []string{"note"}, ""},
		{my(1264, "22003", "Out of range value for column 'level' at row 1"), BadValue, []string{"level"}, ""},
		{my(1406, "22001", "Data too long for column 'username' at row 1"), BadValue, []string{"username"}, ""},
		{my(1366, "22007", "Incorrect integer value: 'abc' for column `db`.`players`.`level` at row 1"), BadValue, []string{"level"}, ""},
		{my(1366, "HY000", "Incorrect integer value: 'abc' for column 'level' at row 1"), BadValue, []string{"level"}, ""}, // MySQL 8
		{my(1292, "22007", "Incorrect datetime value: 'x for column `a`.`b`.`id`' for column `db`.`players`.`born` at row 1"), BadValue, []string{"born"}, ""},
		{my(1292, "22007", "Truncated incorrect DOUBLE value: 'abc'"), BadValue, nil, ""},
		{my(1265, "01000", "Data truncated for column 'mood' at row 1"), BadValue, []string{"mood"}, ""},
		{my(4025, "23000", "CONSTRAINT `range_ok` failed for `db`.`players`"), Check, nil, "range_ok"},
		{my(4025, "23000", "CONSTRAINT `players.qty` failed for `db`.`players`"), Check, []string{"qty"}, "qty"},
		{my(3819, "HY000", "Check constraint 'range_ok' is violated."), Check, nil, "range_ok"},
		{my(1906, "HY000", "The value specified for generated column 'g' in table 'players' has been ignored"), Generated, []string{"g"}, ""},
		{my(3105, "HY000", "The value specified for generated column 'g' in table 'players' is not allowed."), Generated, []string{"g"}, ""},
		{my(1288, "HY000", "The target table v of the UPDATE is not updatable"), NotWritable, nil, ""},
		{my(1471, "HY000", "The target table v of the INSERT is not insertable-into"), NotWritable, nil, ""},
		{my(1169, "23000", "Can't write, because of unique constraint, to table 'x'"), Constraint, nil, ""},
		{my(1367, "22007", "Illegal double value found during parsing"), BadValue, nil, ""},
	} {
		r, ok := Classify(tt.err)
		if !ok || r.Kind != tt.kind || !slices.Equal(r.Columns, tt.cols) || r.Constraint != tt.constraint {
			t.Errorf("Classify(%v) = %+v, %v; want kind %d, columns %v, constraint %q", tt.err, r, ok, tt.kind, tt.cols, tt.constraint)
		}
	}
	// The sides of a foreign key's refusal.
	if r, _ := Classify(my(1452, "23000", "Cannot add or update a child row: a foreign key constraint fails (`db`.`items`, CONSTRAINT `fk` FOREIGN KEY (`player_id`) REFERENCES `players` (`id`))")); !r.Sided || !r.Missing || r.ForeignKeyMessage() != `column "player_id": the referenced row does not exist` {
		t.Errorf("1452: %+v", r)
	}
	if r, _ := Classify(my(1451, "23000", "Cannot delete or update a parent row: a foreign key constraint fails (`db`.`items`, CONSTRAINT `fk` FOREIGN KEY (`player_id`) REFERENCES `players` (`id`))")); !r.Sided || r.Missing || r.ForeignKeyMessage() != `rows of "items" still refer to this row` {
		t.Errorf("1451: %+v", r)
	}
	// Not refusals: a fault of the server.
	for _, err := range []error{
		my(1064, "42000", "You have an error in your SQL syntax"),
		my(2013, "HY000", "Lost connection to server during query"),
		my(1969, "70100", "Query execution was interrupted (max_statement_time exceeded)"),
	} {
		if r, ok := Classify(err); ok {
			t.Errorf("Classify(%v) = %+v; want no refusal", err, r)
		}
	}
	if SQLState(my(1062, "23000", "x")) != "23000" || SQLState(errors.Join(errors.New("a"), my(1264, "22003", "x"))) != "22003" {
		t.Error("SQLState of a MySQL error")
	}
	if n, ok := MySQLNumber(errors.Join(errors.New("a"), my(1969, "70100", "x"))); !ok || n != 1969 {
		t.Errorf("MySQLNumber = %d, %v", n, ok)
	}
	for err, want := range map[error]bool{
		my(1969, "70100", "Query execution was interrupted (max_statement_time exceeded)"):              true,
		my(3024, "HY000", "Query execution was interrupted, maximum statement execution time exceeded"): true,
		my(1317, "70100", "Query execution was interrupted"):                                            true,
		my(1062, "23000", "Duplicate entry"):                                                            false,
		errors.New("Error 1969: not a MySQL error, only its words"):                                     false,
	} {
		if IsMySQLTimeout(err) != want {
			t.Errorf("IsMySQLTimeout(%v) != %v", err, want)
		}
	}
	if _, ok := MySQLNumber(nil); ok {
		t.Error("MySQLNumber(nil)")
	}
}

// TestKeyColumns: the catalog's columns of a duplicate's key complete a
// refusal that names only the key, and nothing else.
func TestKeyColumns(t *testing.T) {
	t.Parallel()
	keys := func(key string) []string {
		return map[string][]string{"a": {"a", "b"}, "PRIMARY": {"id"}}[key]
	}
	r, _ := Classify(my(1062, "23000", "Duplicate entry '1-1' for key 'a'"))
	if got := r.KeyColumns(keys); !slices.Equal(got.Columns, []string{"a", "b"}) || got.Constraint != "a" {
		t.Errorf("composite key: %+v", got)
	}
	r, _ = Classify(my(1062, "23000", "Duplicate entry 'x' for key 'gone'"))
	if got := r.KeyColumns(keys); got.Columns != nil {
		t.Errorf("unknown key: %+v", got)
	}
	pg, _ := Classify(pgErr{'C': "23505", 'n': "a", 'D': "Key (name)=(x) already exists."})
	if got := pg.KeyColumns(keys); !slices.Equal(got.Columns, []string{"name"}) {
		t.Errorf("columns the database named are kept: %+v", got)
	}
	nn, _ := Classify(my(1048, "23000", "Column 'a' cannot be null"))
	if got := nn.KeyColumns(keys); !slices.Equal(got.Columns, []string{"a"}) {
		t.Errorf("not a duplicate: %+v", got)
	}
	if got := r.KeyColumns(nil); got.Columns != nil {
		t.Errorf("no lookup: %+v", got)
	}
}
