package query

import (
	"testing"

	"github.com/gameadmin/admin/internal/schema"
)

// TestFitsNumeric: a value a numeric(p,s) column would round or overflow
// is refused, on PostgreSQL's type names and SQLite's declared ones; a
// numeric without a scale takes anything.
func TestFitsNumeric(t *testing.T) {
	for _, tt := range []struct {
		dbType, value string
		ok            bool
	}{
		{"numeric(12,2)", "12.34", true},
		{"numeric(12,2)", "12.30", true},
		{"numeric(12,2)", "12.3400", true}, // zeros lose nothing
		{"numeric(12,2)", "12.345", false},
		{"numeric(12,2)", "-0.001", false},
		{"numeric(12,2)", "1.5e-3", false},
		{"numeric(12,2)", "1.5e1", true},
		{"numeric(12,2)", "9999999999.99", true},
		{"numeric(12,2)", "10000000000", false},
		{"numeric(12,2)", "-10000000000", false},
		{"NUMERIC(12, 2)", "0.125", false},
		{"DECIMAL(5,2)", "999.99", true},
		{"DECIMAL(5,2)", "1000", false},
		{"numeric(5)", "12345", true},
		{"numeric(5)", "1.5", false},
		{"numeric(5)", "123456", false},
		{"numeric", "1.23456789", true},
		{"NUMERIC", "1e30", true},
		{"numeric(12,2)", "NaN", true}, // the database's to refuse
	} {
		err := fitsNumeric(&schema.Column{Name: "price", Kind: schema.KindDecimal, DBType: tt.dbType}, tt.value)
		if (err == nil) != tt.ok {
			t.Errorf("%s into %s: err = %v; want ok %v", tt.value, tt.dbType, err, tt.ok)
		}
		// A table the catalog lacked: the model's type tag.
		err = fitsNumeric(&schema.Column{Name: "price", Kind: schema.KindDecimal, SQLType: tt.dbType}, tt.value)
		if (err == nil) != tt.ok {
			t.Errorf("%s into a model's %s: err = %v; want ok %v", tt.value, tt.dbType, err, tt.ok)
		}
	}
}
