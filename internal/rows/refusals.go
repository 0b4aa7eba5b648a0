package rows

// The write gate's refusal of a column a write names: one the role may
// not read (403) and a read-only one (400 read_only). A value the column
// cannot hold is validate.go's; the database's own refusals are
// dberrors.go's.

import (
	"net/http"

	"github.com/gameadmin/admin/internal/errbody"
)

// RefuseWrite is the write gate's refusal of a value for col, for every
// write that names one (a create or update body, a revert): 403 for a
// column the role may not read, 400 read_only for a read-only one; nil
// when it may be written.
func (r *Resource) RefuseWrite(col string) error {
	switch {
	case r.Restricted[col]:
		return errbody.Field(http.StatusForbidden, "forbidden", col, "column %q is not writable for your role", col).
			WithParams("reason", "column_not_writable", "column", col).WithProblem(errbody.NewProblem("not_writable", ""))
	case r.ReadOnly(col):
		if c := r.View.ByName[col]; c != nil {
			return errbody.Field(http.StatusBadRequest, "read_only", col, "%s is read-only", r.ColumnLabel(c)).WithProblem(errbody.NewProblem("read_only", ""))
		}
		return errbody.Field(http.StatusBadRequest, "read_only", col, "column %q is read-only", col).WithProblem(errbody.NewProblem("read_only", ""))
	}
	return nil
}

// ReadOnly reports whether col is never written by a create or update
// body: ColumnConfig.ReadOnly, a column the database computes, and the
// version column, which the panel bumps itself.
func (r *Resource) ReadOnly(col string) bool {
	if c := r.Table.ByName[col]; c != nil && c.Generated {
		return true // the database computes it and refuses a value
	}
	if r.version != nil && r.version.Name == col {
		return true
	}
	return r.Config.Columns[col].ReadOnly
}
