// Package schema reads what the admin panel needs to know about a table
// from its Bun model: columns and their data types, primary key, defaults,
// relations, and human labels. It never talks to the database except in
// ReadDefaults.
package schema

import (
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
	bunschema "github.com/uptrace/bun/schema"
)

// DataType is the kind of value a column holds, as the panel sees it. It
// decides how filter values and request bodies are parsed and how the UI
// renders and edits the column.
type DataType string

// The data types. Every column has exactly one.
const (
	String   DataType = "string"
	Integer  DataType = "integer"
	Number   DataType = "number"
	Boolean  DataType = "boolean"
	Datetime DataType = "datetime"
	JSON     DataType = "json"
	Bytes    DataType = "bytes"
)

// Table is a Bun model seen as an admin resource.
type Table struct {
	Key       string             // canonical resource key, e.g. "cloudSaves"
	Name      string             // SQL table name, e.g. "game_cloud_saves"
	Alias     string             // the model's SQL alias, e.g. "cs"
	Model     reflect.Type       // the struct type of the model
	Columns   []*Column          // in struct order
	PK        []*Column          // primary key columns in table order
	ByName    map[string]*Column // Columns by SQL name
	Relations []Relation         // filled by Link

	// NotWritable says why the panel only reads the table, "" when it
	// writes it too: it has no primary key (Inspect), or the database
	// says it is a view or cannot take writes (ReadCatalog).
	NotWritable string
	// SoftDelete is the model's soft-delete column (bun:",soft_delete"),
	// nil for none: a delete sets it, and reads leave out the rows where
	// it is set unless asked for them.
	SoftDelete *Column
	// KeyOrdered says the database keeps an index in the primary key's
	// order (ReadCatalog): a page in that order reads only its own rows.
	// False until ReadCatalog finds one, and for a model whose key the
	// table does not index.
	KeyOrdered bool
	// UTCDatetime says the table's DATETIME columns hold UTC instants,
	// not wall clocks: the panel's own tables on MySQL, whose DDL says
	// DATETIME (TIMESTAMP would convert by the session's time_zone). A
	// game's DATETIME stays a wall clock.
	UTCDatetime bool

	byGoName map[string]*Column
	tagRels  []tagRelation // rel: tags waiting for Link to resolve their targets
	// live is what the catalog last said of the enum labels, checks and
	// triggers (Live), shared with the table's copies and its columns.
	live *liveHolder
}

// Column is one column of a Table.
type Column struct {
	Name     string   // SQL name, e.g. "display_name"
	GoName   string   // struct field name, e.g. "DisplayName"
	Label    string   // humanized Name, e.g. "Display Name"
	SQLType  string   // SQL type Bun uses for the column, e.g. "TIMESTAMPTZ"
	DataType DataType // how values are parsed and shown

	// Kind is what the column holds as the panel treats it; Elem is the
	// element kind of an array. Set from the Go type and Bun's tags,
	// then from the database catalog by ReadCatalog.
	Kind ValueKind
	Elem ValueKind
	// DBType is the database's own name of the type (PostgreSQL's
	// format_type, SQLite's declared type); "" until ReadCatalog.
	DBType string
	// Generated: the database computes the value (an identity GENERATED
	// ALWAYS, a generated column); never written by the panel.
	Generated bool
	// Unsigned: the database keeps no negative number in it (MySQL's
	// UNSIGNED; ReadCatalog).
	Unsigned bool
	// FoldsCase: the database compares its values without regard to
	// case, Bob equal to bob (MySQL's _ci collations; ReadCatalog), so
	// a unique key refuses bob beside Bob and a filter on bob finds Bob.
	FoldsCase bool
	// MaxLength is the limit of a varchar(n) or char(n); 0 for none.
	MaxLength int
	// Scale is the digits a numeric(p,s) keeps after the point, when
	// HasScale: the panel shows 2500.50 as the column stores it, not as
	// a float would print it. A bare numeric has no scale.
	Scale    int
	HasScale bool
	// Unix, when set, says the integer column holds unix times in that
	// unit (SetUnix): its Kind is KindTime, its values time.Time to the
	// panel and the integer in the database.
	Unix UnixUnit

	NotNull       bool // the bun tag says notnull (primary keys are always)
	Primary       bool // part of the primary key
	HasDefault    bool // the database fills it when an INSERT leaves it out
	AutoIncrement bool // autoincrement or identity

	// Field reads and writes the column's value in a model struct.
	Field *bunschema.Field

	// live is its table's (Labels reads an enum's labels from it).
	live *liveHolder
}

// Inspect reads the Bun model of a table. model is a struct or a pointer to
// one; a typed nil pointer is the usual form, e.g. (*User)(nil). Relations
// declared with rel: tags are kept until Link resolves their targets.
func Inspect(db *bun.DB, key string, model any) (t *Table, err error) {
	typ := reflect.TypeOf(model)
	for typ != nil && typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ == nil || typ.Kind() != reflect.Struct {
		return nil, fmt.Errorf("schema: table %q: model must be a struct or a pointer to one, got %T", key, model)
	}
	// Bun panics on malformed models (a rel: tag naming a missing column);
	// at setup that is a configuration error the caller should see.
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("schema: table %q: %v", key, r)
		}
	}()
	bt := db.Table(typ)
	t = &Table{
		Key:      key,
		Name:     bt.Name,
		Alias:    bt.Alias,
		Model:    typ,
		ByName:   make(map[string]*Column, len(bt.Fields)),
		byGoName: make(map[string]*Column, len(bt.Fields)),
		live:     &liveHolder{},
	}
	for _, f := range bt.Fields {
		c := newColumn(f)
		c.live = t.live
		if u, ok := unixTag(f.StructField.Tag.Get(AdminTag)); ok {
			if err := c.SetUnix(u); err != nil {
				return nil, fmt.Errorf("schema: table %q: %s tag: %w", key, AdminTag, err)
			}
		}
		t.Columns = append(t.Columns, c)
		t.ByName[c.Name] = c
		t.byGoName[c.GoName] = c
	}
	for _, f := range bt.PKs {
		t.PK = append(t.PK, t.ByName[f.Name])
	}
	if f := bt.SoftDeleteField; f != nil {
		t.SoftDelete = t.ByName[f.Name]
	}
	if len(t.PK) == 0 {
		t.NotWritable = "it has no primary key (tag a field with bun:\",pk\"), so no row can be named"
	}
	t.tagRels = tagRelations(bt)
	return t, nil
}

func newColumn(f *bunschema.Field) *Column {
	sqlType := f.UserSQLType
	if sqlType == "" {
		sqlType = f.DiscoveredSQLType
	}
	c := &Column{
		Name:          f.Name,
		GoName:        f.GoName,
		Label:         Humanize(f.Name),
		SQLType:       sqlType,
		DataType:      dataTypeOf(f.IndirectType, sqlType),
		NotNull:       f.NotNull,
		Primary:       f.IsPK,
		AutoIncrement: f.AutoIncrement || f.Identity,
		Field:         f,
	}
	c.HasDefault = f.SQLDefault != "" || c.AutoIncrement
	// Bun fills UserSQLType with its own pick when there is no type:
	// tag; only the tag says more than the Go type.
	userType, _ := f.Tag.Option("type")
	c.Kind, c.Elem = goKind(fieldInfo{typ: f.IndirectType, array: f.Tag.HasOption("array")}, c.DataType, userType)
	if s := DeclaredScale(userType); s >= 0 && c.Kind == KindDecimal {
		// Until the catalog is read (or when the table is not there yet)
		// the model's type: tag is the best word on the scale.
		c.Scale, c.HasScale = s, true
	}
	return c
}

var (
	timeType       = reflect.TypeFor[time.Time]()
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	bytesType      = reflect.TypeFor[[]byte]()
	valuerType     = reflect.TypeFor[driver.Valuer]()
)

// nullTypes maps the database/sql wrappers to the type of value they hold.
var nullTypes = map[reflect.Type]DataType{
	reflect.TypeFor[sql.NullString]():  String,
	reflect.TypeFor[sql.NullInt64]():   Integer,
	reflect.TypeFor[sql.NullInt32]():   Integer,
	reflect.TypeFor[sql.NullInt16]():   Integer,
	reflect.TypeFor[sql.NullByte]():    Integer,
	reflect.TypeFor[sql.NullFloat64](): Number,
	reflect.TypeFor[sql.NullBool]():    Boolean,
	reflect.TypeFor[sql.NullTime]():    Datetime,
}

// dataTypeOf decides a column's DataType from its Go type, with an explicit
// json or jsonb SQL type taking precedence.
func dataTypeOf(typ reflect.Type, sqlType string) DataType {
	st := strings.ToLower(sqlType)
	if st == "json" || st == "jsonb" {
		return JSON
	}
	if dt, ok := nullTypes[typ]; ok {
		return dt
	}
	switch {
	case typ == timeType:
		return Datetime
	case typ == rawMessageType:
		return JSON
	case typ == bytesType:
		return Bytes
	}
	switch typ.Kind() {
	case reflect.Bool:
		return Boolean
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return Integer
	case reflect.Float32, reflect.Float64:
		return Number
	case reflect.String:
		return String
	case reflect.Slice:
		if typ.Elem().Kind() == reflect.Uint8 {
			return Bytes
		}
		return JSON
	case reflect.Map:
		return JSON
	case reflect.Struct:
		// A struct that maps itself to a scalar (a UUID, a decimal) is
		// stored as that scalar, which the panel treats as text.
		if typ.Implements(valuerType) || reflect.PointerTo(typ).Implements(valuerType) {
			return String
		}
		return JSON
	}
	// Arrays ([16]byte UUIDs) and anything else: shown and filtered as text.
	return String
}

// Lookup finds a column by SQL name or, failing that, by Go field name. It
// is for create defaults and other Go-side inputs where either is
// accepted; names coming from resource configuration or requests are SQL
// names only and use ByName.
func (t *Table) Lookup(name string) (*Column, bool) {
	if c, ok := t.ByName[name]; ok {
		return c, true
	}
	c, ok := t.byGoName[name]
	return c, ok
}

// MarkDefault records that the database (or a model hook) fills the named
// SQL column when an INSERT leaves it out, for defaults the bun tags do not
// show, such as an id set by BeforeAppendModel.
func (t *Table) MarkDefault(name string) error {
	c, ok := t.ByName[name]
	if !ok {
		return fmt.Errorf("schema: table %q: unknown column %q", t.Key, name)
	}
	c.HasDefault = true
	return nil
}

// PKNames returns the SQL names of the primary key columns in table order.
func (t *Table) PKNames() []string {
	names := make([]string, len(t.PK))
	for i, c := range t.PK {
		names[i] = c.Name
	}
	return names
}

// IsPK reports whether name is the SQL name of a primary key column.
func (t *Table) IsPK(name string) bool {
	return slices.ContainsFunc(t.PK, func(c *Column) bool { return c.Name == name })
}

// NewModel returns a pointer to a new zero value of the model struct.
func (t *Table) NewModel() any { return reflect.New(t.Model).Interface() }

// Zoned reports whether an SQL type is a timestamp with time zone
// (timestamptz), as against a wall-clock timestamp or a date.
func Zoned(sqlType string) bool {
	st := strings.ToLower(sqlType)
	return strings.Contains(st, "timestamptz") || strings.Contains(st, "with time zone")
}
