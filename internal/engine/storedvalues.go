package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/dberr"

	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// readCatalog refines every resource's columns from the database catalog
// (schema.ReadCatalog): the SQL type decides each column's kind. A table
// the database does not have yet keeps what its model says, with a
// warning. On PostgreSQL it also warns when DateStyle does not write ISO
// dates, the text query.Select reads timestamps as.
func (a *compiler) readCatalog(ctx context.Context, db *bun.DB) error {
	if db.Dialect().Name() == dialect.PG {
		var style string
		if err := db.QueryRowContext(ctx, "SELECT current_setting('DateStyle')").Scan(&style); err != nil {
			return fmt.Errorf("admin: reading DateStyle: %w", err)
		}
		if !strings.HasPrefix(style, "ISO") {
			a.log.Warn("admin: PostgreSQL's DateStyle is not ISO; the panel shows timestamps as stored text (set DateStyle to 'ISO, MDY', the default)", "DateStyle", style)
		}
	}
	for _, key := range a.order {
		res := a.resources[key]
		found, err := schema.ReadCatalog(ctx, db, res.Table)
		if err != nil {
			return fmt.Errorf("admin: resource %q: %w", key, err)
		}
		if !found {
			a.log.Warn("admin: table not found in the database; column kinds from the model only", "resource", key, "table", res.Table.Name)
		}
	}
	return nil
}

// logCellIssues logs, once per answer, each cell of rows that could not
// be shown as the database stores it (query.InvalidKey): the row's key,
// the column and the cause, which the client never sees. The page itself
// renders: the cell says so in the row's _invalid.
func (a rowsAPI) logCellIssues(ctx context.Context, res *resource, rows []map[string]any) {
	for _, row := range rows {
		issues, _ := row[query.InvalidKey].(query.CellIssues)
		for col, is := range issues {
			a.log.WarnContext(ctx, "admin: cell cannot be shown as stored",
				slog.String("resource", res.Key), slog.String("id", encodeRowID(res, row)),
				slog.String("column", col), slog.String("shown", is.Message), slog.Any("err", is.Err))
		}
	}
}

// blameColumn names the column of a write the database refused as a data
// exception without saying which value (PostgreSQL's class 22: a numeric
// overflow, a value out of range): each written value is cast alone to
// its column's type from the catalog, outside the failed transaction,
// and the ones that fail are the answer's fields. Any other error is
// returned as it is.
func (a rowsAPI) blameColumn(ctx context.Context, res *resource, vals map[string]any, err error) error {
	var ae *APIError
	if !errors.As(err, &ae) || len(ae.Fields) > 0 || !strings.HasPrefix(dberr.SQLState(err), "22") {
		return err
	}
	fields := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(vals)) {
		c := res.Table.ByName[name]
		if c == nil || c.DBType == "" || vals[name] == nil {
			continue
		}
		var out any
		e := a.db.NewSelect().ColumnExpr("CAST(? AS ?)", vals[name], bun.Safe(c.DBType)).Scan(ctx, &out)
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

// filterValues are the single values of l's filters by column, for
// blameColumn: which filter value the database could not compare.
func filterValues(l *query.List) map[string]any {
	vals := map[string]any{}
	for _, f := range l.Filters {
		switch f.Op {
		case query.Eq, query.Ne, query.Gt, query.Gte, query.Lt, query.Lte:
			vals[f.Column.Name] = f.Value
		case query.In:
			if vs := f.Value.([]any); len(vs) > 0 {
				vals[f.Column.Name] = vs[0]
			}
		}
	}
	return vals
}

// keepMisfits checks an update's JSON values against the model's Go type
// (fitsModel): one that does not fit is refused, unless it is the value
// the row holds already, which the game wrote (a bare string in a column
// the model reads into a map) and the client sent back unchanged; that
// one is no write at all, so a read row PUT back changes nothing.
func keepMisfits(res *resource, before, vals map[string]any) error {
	for k, v := range vals {
		raw, ok := v.(json.RawMessage)
		if !ok || fitsModel(res.Table.ByName[k], raw) {
			continue
		}
		if audit.Unchanged(before[k], raw) {
			delete(vals, k)
			continue
		}
		return fieldError(http.StatusBadRequest, "invalid_value", k, "column %q: the JSON value does not fit the column's type", k)
	}
	return nil
}
