package rows

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/schema"
)

// Checks a create or an update passes before the database sees it, so
// that the operator reads which fields to fix and why, all at once: a
// value a NOT NULL column without a default needs ("Owner is required",
// where the database would have said that a referenced row does not
// exist, or stored an empty text), and text longer than its column takes
// ("at most 32 characters"). They answer 400 validation, naming each field
// in Fields.

// FieldProblems collects the problems of one body, by column: each its
// English message and its code and params (errbody.Problem), which the
// answer gives as fields and problems.
type FieldProblems map[string]errbody.Problem

// Err is the answer for the problems found, or nil.
func (p FieldProblems) Err() error {
	if len(p) == 0 {
		return nil
	}
	cols := slices.Sorted(maps.Keys(p))
	msgs := make([]string, len(cols))
	fields := make(map[string]string, len(cols))
	problems := make(map[string]errbody.Problem, len(cols))
	for i, c := range cols {
		msgs[i] = p[c].Message
		fields[c] = p[c].Message
		problems[c] = p[c]
		if problems[c].Params == nil {
			problems[c] = errbody.Problem{Code: p[c].Code, Params: map[string]any{}, Message: p[c].Message}
		}
	}
	e := errbody.New(http.StatusBadRequest, "validation", "%s", strings.Join(msgs, "; "))
	if len(cols) > 1 {
		e.Message = fmt.Sprintf("%d fields need attention: %s", len(cols), e.Message)
	}
	e.Params = map[string]any{"count": len(cols)}
	e.Fields = fields
	e.Problems = problems
	return e
}

// required reports a column a create must give a value: NOT NULL, no
// default, not made by the database. Keys are left to the key rule
// (handleCreate).
func required(c *schema.Column) bool {
	return c.NotNull && !c.HasDefault && !c.Generated && !c.Primary
}

// blank is a value a required column cannot take: none, null, or text of
// spaces only in a text column.
func blank(c *schema.Column, v any, given bool) bool {
	if !given || v == nil {
		return true
	}
	s, ok := v.(string)
	return ok && c.DataType == schema.String && strings.TrimSpace(s) == ""
}

// DefaultMaxTextLength is Options.MaxTextLength's default.
const DefaultMaxTextLength = 10_000

// MaxLength is the most characters c takes from the panel: its own limit
// (varchar(n)), else for a text column maxText (Options.MaxTextLength),
// so that a paste of a megabyte into a name is refused, not stored; 0
// for none.
func MaxLength(c *schema.Column, maxText int) int {
	if c.MaxLength > 0 {
		return c.MaxLength
	}
	if c.Kind == schema.KindText && maxText > 0 {
		return maxText
	}
	return 0
}

// CheckLength records text longer than limit (0: none).
func (p FieldProblems) CheckLength(res *Resource, c *schema.Column, limit int, v any) bool {
	s, ok := v.(string)
	if !ok || limit <= 0 || utf8.RuneCountInString(s) <= limit {
		return true
	}
	p[c.Name] = errbody.NewProblem("too_long", fmt.Sprintf("%s: at most %d characters", res.ColumnLabel(c), limit), "max", limit)
	return false
}

// CheckRequired records the required columns vals leaves blank: on a
// create every visible one, on an update those it sets.
func (p FieldProblems) CheckRequired(res *Resource, vals map[string]any, update bool) {
	for _, c := range res.View.Columns {
		v, given := vals[c.Name]
		_, found := p[c.Name]
		if !required(c) || c == res.version || (update && !given) || found { // the version: the panel sets it
			continue
		}
		if blank(c, v, given) {
			p[c.Name] = errbody.NewProblem("required", res.ColumnLabel(c)+" is required")
		}
	}
}
