package csvexport

import (
	"context"
	"database/sql"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"

	"github.com/gameadmin/admin/internal/panicerr"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

type streamRow struct {
	bun.BaseModel `bun:"table:notes"`
	ID            int64  `bun:"id,pk,autoincrement"`
	Name          string `bun:"name,notnull"`
}

// walk is a walk of three rows in batches of two: the first batch holds
// the row past the page, as a keyset query reads it.
func walk(t *testing.T, prepare func([]map[string]any)) (Walk, *int) {
	t.Helper()
	// No connection: Inspect reads the model through the dialect only.
	tbl, err := schema.Inspect(bun.NewDB(&sql.DB{}, sqlitedialect.New()), "notes", (*streamRow)(nil))
	if err != nil {
		t.Fatal(err)
	}
	l := &query.List{}
	l.Walk(tbl, 2)
	rows := func(ids ...int64) []map[string]any {
		var out []map[string]any
		for _, id := range ids {
			out = append(out, map[string]any{"id": id, "name": string(rune('a' + id - 1))})
		}
		return out
	}
	reads := 0
	if prepare == nil {
		prepare = func([]map[string]any) {}
	}
	return Walk{Key: "notes", View: tbl, List: l, First: rows(1, 2, 3),
		Next: func(context.Context) ([]map[string]any, error) {
			reads++
			return rows(3), nil
		},
		Prepare: prepare}, &reads
}

func TestStream(t *testing.T) {
	t.Parallel()
	wk, reads := walk(t, nil)
	rec := httptest.NewRecorder()
	n, truncated, err := Stream(context.Background(), rec, wk, 0, true)
	if err != nil || n != 3 || truncated || *reads != 1 {
		t.Fatalf("Stream = %d, %v, %v after %d reads; want 3 rows, whole, in two batches", n, truncated, err, *reads)
	}
	if got, want := rec.Body.String(), "\ufeffid,name\n1,a\n2,b\n3,c\n"; got != want {
		t.Errorf("body = %q; want %q", got, want)
	}
}

func TestStreamLimit(t *testing.T) {
	t.Parallel()
	wk, reads := walk(t, nil)
	rec := httptest.NewRecorder()
	n, truncated, err := Stream(context.Background(), rec, wk, 1, false)
	if err != nil || n != 1 || !truncated || *reads != 0 {
		t.Fatalf("Stream = %d, %v, %v after %d reads; want 1 row, truncated, no second batch", n, truncated, err, *reads)
	}
	if got, want := rec.Body.String(), "id,name\n1,a\n"+TruncatedLine(1)+"\n"; got != want {
		t.Errorf("body = %q; want %q", got, want)
	}
}

func TestStreamFailures(t *testing.T) {
	t.Parallel()
	wk, _ := walk(t, func([]map[string]any) { panic("boom") })
	_, _, err := Stream(context.Background(), httptest.NewRecorder(), wk, 0, false)
	if pe := (*panicerr.Error)(nil); !errors.As(err, &pe) {
		t.Errorf("a panic while streaming: err = %v; want a recovered panic", err)
	}
	failed := errors.New("read failed")
	wk, _ = walk(t, nil)
	wk.Next = func(context.Context) ([]map[string]any, error) { return nil, failed }
	if n, _, err := Stream(context.Background(), httptest.NewRecorder(), wk, 0, false); n != 2 || !errors.Is(err, failed) {
		t.Errorf("a failed batch: %d rows, err = %v; want 2 rows and the read's error", n, err)
	}
}
