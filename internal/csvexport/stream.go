package csvexport

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/gameadmin/admin/internal/panicerr"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

// Batch is how many rows one read of an export holds: a list's CSV
// export and a player's data export read their rows this many at a time.
const Batch = 500

// ErrWrite marks an export stopped because the client did not take what
// was written: its side, logged at debug level only.
var ErrWrite = errors.New("admin: export: writing to the client")

// Walk is a list read a batch at a time, as an export streams it.
type Walk struct {
	// Key names the resource in errors.
	Key string
	// View is the table as the operator sees it: its columns are the
	// CSV's, in order, or those the List's _fields asks for (Sent).
	View *schema.Table
	// List is the keyset walk, First its first batch, already read.
	List  *query.List
	First []map[string]any
	// Next reads the walk's next batch, under the query time limit.
	Next func(ctx context.Context) ([]map[string]any, error)
	// Prepare readies a batch as the list shows it (masked, redacted)
	// before its rows are written.
	Prepare func(batch []map[string]any)
	// Extra are columns written after View's, each computed from its
	// row as prepared (the audit log's action_label).
	Extra []Extra
	// Headers, when set, head the columns instead of their names: one
	// for each of the CSV's columns, then one for each Extra.
	Headers []string
	// Cells, when set for a column's name, says that column's cell of a
	// row in words instead of its value (a users row's ban).
	Cells map[string]func(row map[string]any) string
}

// Extra is a column of an export that is no column of the table: Name
// heads it, Value says a row's cell.
type Extra struct {
	Name  string
	Value func(row map[string]any) string
}

// Stream writes the header and the rows of the walk to w in CSV,
// flushing after each batch, after a byte order mark when bom is set; a
// limit above zero caps the rows, and an export it cuts ends with
// TruncatedLine. Each write has its own deadline (Writer), so the export
// as a whole may outlast the server's WriteTimeout. It returns how many
// rows it wrote, whether the limit cut the export, and why it stopped
// early: a write the client did not take (ErrWrite), a failed batch
// query, or a panic, which is recovered here because the status line is
// gone and a 500 written now would only end a short file cleanly.
func Stream(ctx context.Context, w http.ResponseWriter, wk Walk, limit int64, bom bool) (written int64, truncated bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			err = panicerr.New(p)
		}
	}()
	l, batch := wk.List, wk.First
	cols := l.Sent(wk.View)
	out := NewWriter(ctx, w)
	defer out.Close()
	if bom {
		if _, err := io.WriteString(out, "\ufeff"); err != nil {
			return 0, false, fmt.Errorf("%w: %w", ErrWrite, err)
		}
	}
	cw := csv.NewWriter(out)
	record := make([]string, len(cols)+len(wk.Extra))
	for i, c := range cols {
		record[i] = c.Name
	}
	for i, x := range wk.Extra {
		record[len(cols)+i] = x.Name
	}
	if len(wk.Headers) == len(record) {
		for i, h := range wk.Headers {
			record[i] = Cell(&schema.Column{Name: h}, h)
		}
	}
	cw.Write(record)
	for {
		wk.Prepare(batch)
		page, _ := l.Page(wk.View, batch)
		for _, row := range page {
			if limit > 0 && written == limit {
				truncated = true
				break
			}
			for i, c := range cols {
				if say := wk.Cells[c.Name]; say != nil {
					record[i] = Cell(&schema.Column{Name: c.Name}, say(row))
					continue
				}
				record[i] = Cell(c, row[c.Name])
			}
			for i, x := range wk.Extra {
				record[len(cols)+i] = Cell(&schema.Column{Name: x.Name}, x.Value(row))
			}
			cw.Write(record)
			written++
		}
		if truncated {
			cw.Write([]string{TruncatedLine(limit)})
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return written, truncated, fmt.Errorf("%w: %w", ErrWrite, err)
		}
		if err := out.Flush(); err != nil {
			return written, truncated, fmt.Errorf("%w: %w", ErrWrite, err)
		}
		if truncated || len(batch) <= len(page) || !l.Advance(wk.View, page[len(page)-1]) {
			return written, truncated, nil
		}
		if batch, err = wk.Next(ctx); err != nil {
			return written, truncated, fmt.Errorf("admin: export %s: batch after %d rows: %w", wk.Key, written, err)
		}
	}
}

// TruncatedLine is the last line of an export that the limit cut, one
// cell: a person reading the file in a spreadsheet sees it under the
// rows, and a script's CSV reader finds a record that is no row (a
// strict one refuses its field count). The answer's trailer says the
// same (the engine's X-Export-Truncated).
func TruncatedLine(limit int64) string {
	return fmt.Sprintf("[export truncated: the first %d rows only (ExportMaxRows); narrow the filter to export the rest]", limit)
}
