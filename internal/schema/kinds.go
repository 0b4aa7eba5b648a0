package schema

import (
	"net"
	"net/netip"
	"reflect"
	"strings"
)

// ValueKind is what a column holds as the panel shows, filters and writes
// it: decided by the database's own type where the catalog says it, by
// Bun's tags (array, type:) and the Go type otherwise. Every path that
// turns a value into JSON, CSV or SQL reads it from here.
type ValueKind string

// The value kinds (the catalog's "kind").
const (
	KindText           ValueKind = "text"
	KindNumber         ValueKind = "number"  // integers and floats
	KindDecimal        ValueKind = "decimal" // numeric: exact, with its scale
	KindBool           ValueKind = "bool"
	KindTime           ValueKind = "time"            // an instant: timestamptz
	KindDate           ValueKind = "date"            // a calendar day
	KindTimestampLocal ValueKind = "timestamp-local" // a wall clock without zone
	KindUUID           ValueKind = "uuid"
	KindEnum           ValueKind = "enum" // one of Labels
	KindArray          ValueKind = "array"
	KindJSON           ValueKind = "json"
	KindInet           ValueKind = "inet" // inet, cidr, macaddr: their text form
	KindBytes          ValueKind = "bytes"
)

var (
	netIPType     = reflect.TypeFor[net.IP]()
	netIPNetType  = reflect.TypeFor[net.IPNet]()
	netipAddrType = reflect.TypeFor[netip.Addr]()
	netipPfxType  = reflect.TypeFor[netip.Prefix]()
)

// goKind is a column's kind before the catalog is read: from the type:
// tag (userType; the type Bun picks by itself says nothing the Go type
// does not), the array tag and the Go type.
func goKind(f fieldInfo, dt DataType, userType string) (kind, elem ValueKind) {
	typ := f.typ
	switch typ {
	case netIPType, netIPNetType, netipAddrType, netipPfxType:
		return KindInet, ""
	}
	if f.array {
		elem := sqlKind(strings.TrimSuffix(strings.ToLower(userType), "[]"))
		if elem == "" && typ.Kind() == reflect.Slice {
			elem = goElemKind(typ.Elem())
		}
		return KindArray, elem
	}
	if k := sqlKind(strings.ToLower(userType)); k != "" && k != KindText && k != KindNumber {
		// An explicit type: tag says more than the Go type: numeric,
		// inet, a timestamp without time zone.
		if dt != JSON || k == KindJSON {
			return k, ""
		}
	}
	switch dt {
	case Integer, Number:
		return KindNumber, ""
	case Boolean:
		return KindBool, ""
	case Datetime:
		return KindTime, ""
	case JSON:
		return KindJSON, ""
	case Bytes:
		return KindBytes, ""
	}
	if strings.EqualFold(userType, "uuid") {
		return KindUUID, ""
	}
	return KindText, ""
}

// goElemKind is the kind of an array's Go element type.
func goElemKind(typ reflect.Type) ValueKind {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ == timeType {
		return KindTime
	}
	switch typ.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return KindNumber
	case reflect.Bool:
		return KindBool
	case reflect.Interface, reflect.Map, reflect.Struct, reflect.Slice:
		return KindJSON
	}
	return KindText
}

// fieldInfo is what goKind needs of a Bun field.
type fieldInfo struct {
	typ   reflect.Type
	array bool
}

// sqlKind maps an SQL type name (lower case, as PostgreSQL's format_type
// or a Bun type: tag spells it) to a kind; "" when it says nothing.
func sqlKind(st string) ValueKind {
	if i := strings.IndexByte(st, '('); i >= 0 {
		st = strings.TrimSpace(st[:i]) + st[strings.IndexByte(st, ')')+1:]
	}
	switch st {
	case "smallint", "integer", "int", "int2", "int4", "int8", "bigint", "serial", "bigserial", "smallserial",
		"real", "float4", "float8", "double precision", "double", "float", "oid":
		return KindNumber
	case "numeric", "decimal":
		return KindDecimal
	case "boolean", "bool":
		return KindBool
	case "timestamptz", "timestamp with time zone":
		return KindTime
	case "timestamp", "timestamp without time zone":
		return KindTimestampLocal
	case "date":
		return KindDate
	case "uuid":
		return KindUUID
	case "json", "jsonb":
		return KindJSON
	case "inet", "cidr", "macaddr", "macaddr8":
		return KindInet
	case "bytea", "blob":
		return KindBytes
	case "text", "varchar", "character varying", "char", "character", "bpchar", "citext", "name":
		return KindText
	}
	return ""
}
