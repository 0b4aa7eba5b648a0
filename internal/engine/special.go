package engine

import (
	"context"
	"net/url"
	"time"

	"github.com/gameadmin/admin/internal/catalog"
	"github.com/gameadmin/admin/internal/csvexport"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

// special is the behaviour of its own that a resource may have beyond its
// declaration, as hooks the generic paths call on every resource they
// serve (the build at New, the catalog, a body's decoding, the list, a
// read, a row's counts, the CSV export), so that none of them asks which
// resource it serves. The users resource (users_resource.go) and the
// audit log (audit_resource.go) are the two; every other resource is
// plainResource. A third is one more file: a type that embeds
// plainResource and overrides the hooks it needs, registered under its
// key in Admin.specials (admin.go).
type special interface {
	// build is its built-in look, which the game's ResourceConfig is
	// laid over, and the columns that name its rows first (nil for none);
	// t is its table.
	build(t *schema.Table) (cfg ResourceConfig, nameColumns []string)
	// built sees res as rows.New made it, before its role variants are
	// copied from it.
	built(res *resource)
	// catalog completes e, the catalog entry of res (as the operator's
	// role sees it).
	catalog(e *catalog.Entry, res *resource)
	// body takes the fields of its own (no columns) out of a create's or
	// update's body before the columns are read, and returns what sees
	// the values once every column has been read (nil for nothing): its
	// checks of them and, on a create, the values it adds.
	body(res *resource, body map[string]any, update bool) func(ctx context.Context, vals map[string]any) error
	// params are its list's parameters of its own (no column filters),
	// each with what it does: another resource's list refuses it so.
	params() map[string]string
	// list parses op's list query v on res: parse reads the columns'
	// filters, sorts and window (query.Parse, every resource's params
	// left alone); list adds its own parameters and refuses what op may
	// not ask of it.
	list(op Operator, res *resource, v url.Values, parse func() (*query.List, error)) (*query.List, error)
	// search is what l's _q finds beyond res's own columns: its
	// statements run within deadline.
	search(ctx context.Context, deadline time.Time, op Operator, res *resource, l *query.List) error
	// answer completes the rows of res answered to op (a list page, a
	// row read): the fields of its own, what op may not read of them.
	answer(ctx context.Context, op Operator, res *resource, rows []map[string]any) error
	// reads are the columns answer and export read, which a list's page
	// reads whatever its _fields asks (query.List.Also), so the fields
	// of its own are there as without _fields; sent only when asked.
	reads() []string
	// counts adds to a row's _counts (its relation tabs') its own.
	counts(ctx context.Context, op Operator, res *resource, row map[string]any, counts map[string]any) error
	// export completes the CSV export of res to op; forPerson is an
	// export headed by labels, for a spreadsheet.
	export(op Operator, res *resource, walk *csvexport.Walk, forPerson bool)
}

// plainResource is a resource without behaviour of its own: each hook
// does nothing. The special resources embed it.
type plainResource struct{}

func (plainResource) build(*schema.Table) (ResourceConfig, []string) { return ResourceConfig{}, nil }
func (plainResource) built(*resource)                                {}
func (plainResource) catalog(*catalog.Entry, *resource)              {}
func (plainResource) body(*resource, map[string]any, bool) func(context.Context, map[string]any) error {
	return nil
}
func (plainResource) params() map[string]string { return nil }
func (plainResource) list(_ Operator, _ *resource, _ url.Values, parse func() (*query.List, error)) (*query.List, error) {
	return parse()
}
func (plainResource) search(context.Context, time.Time, Operator, *resource, *query.List) error {
	return nil
}
func (plainResource) answer(context.Context, Operator, *resource, []map[string]any) error {
	return nil
}
func (plainResource) reads() []string { return nil }
func (plainResource) counts(context.Context, Operator, *resource, map[string]any, map[string]any) error {
	return nil
}
func (plainResource) export(Operator, *resource, *csvexport.Walk, bool) {}

// specials are the special resources by key.
type specials map[string]special

// of is the behaviour of the resource key: its special, else
// plainResource.
func (s specials) of(key string) special {
	if sp, ok := s[key]; ok {
		return sp
	}
	return plainResource{}
}

// params are every special resource's list parameters of its own, with
// what each does.
func (s specials) params() map[string]string {
	out := map[string]string{}
	for _, sp := range s {
		for p, what := range sp.params() {
			out[p] = what
		}
	}
	return out
}
