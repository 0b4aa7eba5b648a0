package engine

import (
	"encoding/json"
	"testing"

	"github.com/gameadmin/admin/internal/catalog"
	"github.com/gameadmin/admin/internal/schema"
)

// TestColumnSchema: a column's JSON Schema names each type once (JSON
// Schema 2020-12 wants type's items unique), describes a database array
// as an array of its elements (or the stored text of one that is not
// one-dimensional), and is readOnly exactly when the catalog
// says so (a key with a default may still be given on create).
func TestColumnSchema(t *testing.T) {
	for _, tt := range []struct {
		name string
		col  catalog.Column
		want string
	}{
		{"nullable json", catalog.Column{DataType: schema.JSON, Kind: schema.KindJSON},
			`{"type":["object","array","string","number","boolean","null"]}`},
		{"nullable text[]", catalog.Column{DataType: schema.String, Kind: schema.KindArray, Elem: schema.KindText},
			`{"items":{"type":["string","null"]},"type":["array","string","null"]}`},
		{"int[] not null", catalog.Column{DataType: schema.String, Kind: schema.KindArray, Elem: schema.KindNumber, NotNull: true},
			`{"items":{"type":["number","string","null"]},"type":["array","string"]}`},
		{"uuid key with a default", catalog.Column{DataType: schema.String, Kind: schema.KindUUID, Primary: true, HasDefault: true, NotNull: true},
			`{"type":"string"}`},
		{"identity key", catalog.Column{DataType: schema.Integer, Kind: schema.KindNumber, Primary: true, HasDefault: true, NotNull: true, ReadOnly: true},
			`{"readOnly":true,"type":["integer","string"]}`},
	} {
		got, err := json.Marshal(columnSchema(tt.col))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("%s: %s; want %s", tt.name, got, tt.want)
		}
	}
}
