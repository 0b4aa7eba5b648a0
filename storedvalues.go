package admin

import (
	"context"
	"log/slog"

	"github.com/gameadmin/admin/internal/query"
)

// logCellIssues logs, once per answer, each cell of rows that could not
// be shown as the database stores it (query.InvalidKey): the row's key,
// the column and the cause, which the client never sees. The page itself
// renders: the cell says so in the row's _invalid.
func (a *Admin) logCellIssues(ctx context.Context, res *resource, rows []map[string]any) {
	for _, row := range rows {
		issues, _ := row[query.InvalidKey].(query.CellIssues)
		for col, is := range issues {
			a.log.WarnContext(ctx, "admin: cell cannot be shown as stored",
				slog.String("resource", res.key), slog.String("id", encodeRowID(res, row)),
				slog.String("column", col), slog.String("shown", is.Message), slog.Any("err", is.Err))
		}
	}
}
