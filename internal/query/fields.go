package query

import (
	"slices"
	"strings"

	"github.com/gameadmin/admin/internal/schema"
)

// FieldsParam is the list parameter naming the columns a page reads and
// answers ("id,name,level"): without it, every column the caller's role
// reads. The primary key is always among them, so a row keeps its id.
const FieldsParam = "_fields"

// parseFields reads _fields on t, the table as the caller sees it: a
// column t does not show (unknown, or hidden from the caller's role) is
// unknown_column, the same answer for both, so the refusal tells nothing
// of a column the caller may not read.
func (l *List) parseFields(t *schema.Table, raw string) error {
	if strings.TrimSpace(raw) == "" {
		return &Error{Code: CodeInvalidValue, Message: FieldsParam + " names no column", Column: FieldsParam}
	}
	for _, n := range strings.Split(raw, ",") {
		n = strings.TrimSpace(n)
		if t.ByName[n] == nil {
			return &Error{Code: CodeUnknownColumn, Message: "unknown column " + quote(n) + " in " + FieldsParam, Column: clip(n)}
		}
		if !slices.Contains(l.Fields, n) {
			l.Fields = append(l.Fields, n)
		}
	}
	return nil
}

// quote is a client's name quoted in a message, clipped.
func quote(s string) string { return `"` + clip(s) + `"` }

// Sent are the columns of t a row of the list answers: those _fields
// names and the primary key, in t's order; every column when _fields is
// absent.
func (l *List) Sent(t *schema.Table) []*schema.Column {
	if l.Fields == nil {
		return t.Columns
	}
	return slices.DeleteFunc(slices.Clone(t.Columns), func(c *schema.Column) bool {
		return !c.Primary && !slices.Contains(l.Fields, c.Name)
	})
}

// read are the columns of t the page's statement reads: those it sends
// (Sent), the order's, which the statement around the page and the
// next cursor read, and the caller's Also; every column when _fields is
// absent.
func (l *List) read(t *schema.Table) []*schema.Column {
	if l.Fields == nil {
		return t.Columns
	}
	keys := l.orderKeys(t)
	return slices.DeleteFunc(slices.Clone(t.Columns), func(c *schema.Column) bool {
		return !c.Primary && !slices.Contains(l.Fields, c.Name) && !slices.Contains(l.Also, c.Name) &&
			!slices.ContainsFunc(keys, func(k SortKey) bool { return k.Column == c.Name })
	})
}

// Unasked takes out of rows, read by the list's statement on t, every
// column _fields did not ask for but the key (the order's, Also, one a
// caller's hook set), once the page's cursor and the caller's own
// fields are made from them.
func (l *List) Unasked(t *schema.Table, rows []map[string]any) {
	if l.Fields == nil {
		return
	}
	var drop []string
	for _, c := range t.Columns {
		if !c.Primary && !slices.Contains(l.Fields, c.Name) {
			drop = append(drop, c.Name)
		}
	}
	for _, row := range rows {
		for _, n := range drop {
			delete(row, n)
		}
	}
}
