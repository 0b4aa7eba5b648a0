package rows

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/dberr"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// LogCellIssues logs to log, once per answer, each cell of rows that could not
// be shown as the database stores it (query.InvalidKey): the row's key,
// the column and the cause, which the client never sees. The page itself
// renders: the cell says so in the row's _invalid.
func LogCellIssues(ctx context.Context, log *slog.Logger, res *Resource, rows []map[string]any) {
	for _, row := range rows {
		issues, _ := row[query.InvalidKey].(query.CellIssues)
		for col, is := range issues {
			log.WarnContext(ctx, "admin: cell cannot be shown as stored",
				slog.String("resource", res.Key), slog.String("id", query.EncodeID(res.Table, row)),
				slog.String("column", col), slog.String("shown", is.Message), slog.Any("err", is.Err))
		}
	}
}

// BlameColumn names the column of a write the database refused as a data
// exception without saying which value (PostgreSQL's class 22: a numeric
// overflow, a value out of range): each written value is cast alone to
// its column's type from the catalog, outside the failed transaction,
// and the ones that fail are the answer's fields. Any other error is
// returned as it is.
func BlameColumn(ctx context.Context, db bun.IDB, res *Resource, vals map[string]any, err error) error {
	var ae *errbody.Error
	if !errors.As(err, &ae) || len(ae.Fields) > 0 || !strings.HasPrefix(dberr.SQLState(err), "22") {
		return err
	}
	fields := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(vals)) {
		c := res.Table.ByName[name]
		if c == nil || c.DBType == "" || vals[name] == nil {
			continue
		}
		switch vals[name].(type) {
		case DocEdit, query.Expr:
			continue // applied to the stored value: not a value of its own
		}
		if db.Dialect().Name() == dialect.MySQL {
			if mysqlDoesNotFit(ctx, db, vals[name], c.DBType) {
				fields[name] = "does not fit the column's type " + c.DBType
			}
			continue
		}
		var out any
		e := db.NewSelect().ColumnExpr("CAST(? AS ?)", vals[name], bun.Safe(c.DBType)).Scan(ctx, &out)
		if strings.HasPrefix(dberr.SQLState(e), "22") {
			fields[name] = "does not fit the column's type " + c.DBType
		}
	}
	if len(fields) == 0 {
		return err
	}
	c := *ae
	c.Fields = fields
	c.Message = "column " + strconv.Quote(slices.Sorted(maps.Keys(fields))[0]) + ": a value does not fit its column"
	return &c
}

// mysqlDoesNotFit reports whether v does not fit a MySQL column whose
// COLUMN_TYPE is typ: MySQL's CAST truncates with a warning where
// PostgreSQL's fails, so the cast and @@warning_count run on one
// connection. A type CAST cannot name is not blamed.
func mysqlDoesNotFit(ctx context.Context, db bun.IDB, v any, typ string) bool {
	cast, ok := mysqlCastType(typ)
	if !ok {
		return false
	}
	type queryRower interface {
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	}
	var conn queryRower
	switch d := db.(type) {
	case *bun.DB:
		c, err := d.Conn(ctx)
		if err != nil {
			return false
		}
		defer c.Close()
		conn = c
	case queryRower:
		conn = d // a transaction: one connection already
	default:
		return false
	}
	// FROM a derived table: a statement that reads no table leaves the
	// last statement's warnings in place.
	var out any
	if conn.QueryRowContext(ctx, "SELECT CAST(? AS "+cast+") FROM (SELECT 1) AS probe", v).Scan(&out) != nil {
		return false
	}
	var warnings int
	return conn.QueryRowContext(ctx, "SELECT @@warning_count").Scan(&warnings) == nil && warnings > 0
}

// mysqlCastType is the CAST type of a MySQL column whose COLUMN_TYPE is
// typ ("int(11) unsigned", "decimal(10,2)", "varchar(32)"), for
// mysqlDoesNotFit; ok is false for a type CAST cannot name.
func mysqlCastType(typ string) (string, bool) {
	t := strings.ToLower(strings.TrimSpace(typ))
	base, args := t, ""
	if i := strings.IndexAny(t, "( "); i >= 0 {
		base = t[:i]
		if j := strings.IndexByte(t, ')'); t[i] == '(' && j > i {
			args = t[i : j+1]
		}
	}
	switch base {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint":
		if strings.Contains(t, "unsigned") {
			return "UNSIGNED", true
		}
		return "SIGNED", true
	case "decimal", "numeric":
		return "DECIMAL" + args, true
	case "float", "double", "real":
		return "DOUBLE", true
	case "date":
		return "DATE", true
	case "datetime", "timestamp":
		return "DATETIME(6)", true
	case "time":
		return "TIME(6)", true
	case "char", "varchar":
		return "CHAR" + args, true
	}
	return "", false
}

// FilterValues are the single values of l's filters by column, for
// BlameColumn: which filter value the database could not compare.
func FilterValues(l *query.List) map[string]any {
	vals := map[string]any{}
	for _, f := range l.Filters {
		switch f.Op {
		case query.Eq, query.Ne, query.Gt, query.Gte, query.Lt, query.Lte:
			vals[f.Column.Name] = f.Value
			if day, ok := f.Value.(query.DayRange); ok {
				vals[f.Column.Name] = day.From
			}
		case query.In:
			if vs := f.Value.([]any); len(vs) > 0 {
				vals[f.Column.Name] = vs[0]
			}
		}
	}
	return vals
}

// KeepMisfits checks an update's JSON values against the model's Go type
// (FitsModel): one that does not fit is refused, unless it is the value
// the row holds already, which the game wrote (a bare string in a column
// the model reads into a map) and the client sent back unchanged; that
// one is no write at all, so a read row PUT back changes nothing.
func KeepMisfits(res *Resource, before, vals map[string]any) error {
	for k, v := range vals {
		raw, ok := v.(json.RawMessage)
		if !ok || FitsModel(res.Table.ByName[k], raw) {
			continue
		}
		if audit.Unchanged(before[k], raw) {
			delete(vals, k)
			continue
		}
		return errbody.Field(http.StatusBadRequest, "invalid_value", k, "column %q: the JSON value does not fit the column's type", k)
	}
	return nil
}

// FitsModel reports whether a JSON value decodes into the column's Go
// type. The database takes any JSON, but rows are read back through the
// model, so an array stored in a map column would fail every later read.
func FitsModel(col *schema.Column, raw json.RawMessage) bool {
	typ := col.Field.IndirectType
	if typ.Kind() == reflect.String || reflect.PointerTo(typ).Implements(scannerType) {
		return true
	}
	return json.Unmarshal(raw, reflect.New(typ).Interface()) == nil
}

var scannerType = reflect.TypeFor[sql.Scanner]()
