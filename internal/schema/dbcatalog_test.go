package schema

import "testing"

func TestDeclaredLength(t *testing.T) {
	for typ, want := range map[string]int{
		"VARCHAR(32)": 32, "varchar( 4 )": 4, "CHARACTER VARYING(255)": 255, "nchar(2)": 2,
		"NATIONAL CHARACTER(10)": 10, "char(1)": 1, "NVARCHAR(8)": 8,
		"TEXT": 0, "VARCHAR": 0, "INTEGER(4)": 0, "DECIMAL(10,2)": 0, "varchar(99999999999)": 0,
	} {
		if got := declaredLength(typ); got != want {
			t.Errorf("declaredLength(%q) = %d; want %d", typ, got, want)
		}
	}
}

func TestDeclaredScale(t *testing.T) {
	for typ, want := range map[string]int{
		"NUMERIC(12,2)": 2, "numeric(12, 2)": 2, "DECIMAL( 10 , 4 )": 4, "decimal(10)": 0,
		"NUMERIC": -1, "REAL": -1, "VARCHAR(12)": -1, "numeric(12,2)[]": -1,
	} {
		if got := DeclaredScale(typ); got != want {
			t.Errorf("DeclaredScale(%q) = %d; want %d", typ, got, want)
		}
	}
}
