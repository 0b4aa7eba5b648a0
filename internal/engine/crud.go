package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/clientip"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/history"
	"github.com/gameadmin/admin/internal/moderation"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/rows"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/gameadmin/admin/internal/stmtcache"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// rowsHandler answers a resource's rows: the list, a read, the writes,
// the restore (crud.go), the relation tabs and their counts
// (relations.go) and the actions (actions.go). It reaches the resources,
// the row store and the reads' bounds it is given (newRowsHandler), not
// the panel; a row's history and a player's data requests use its list
// and reads too (newHistory, newUserData).
type rowsHandler struct {
	db        *bun.DB
	resources map[string]*resource                      // by key
	specials  specials                                  // the resources with behaviour of their own (special.go)
	as        func(op Operator, key string) *resource   // resource key as op's role sees it (resourceAs)
	gate      func(op Operator, o Op, res string) error // the policy's answer to op doing o on res (Admin.gate)
	labels    labeler                                   // the labels of the rows One relations point at
	queries   *queryRunner                              // the reads' time limit, slots and prepared statements
	stmts     *stmtcache.Cache                          // the writes' transactions (RunInTx)
	store     rows.Store                                // the row statements
	live      *liveCatalog                              // the tables' enum labels, checks and triggers
	roles     *users.RoleTable                          // who may act on a user row
	sanctions *moderation.Sanctions                     // the end of sessions an email change brings
	audit     *Audit
	ips       clientip.Resolver // the audit entries' client addresses
	log       *slog.Logger

	actionLimit    Limiter // RateLimit.Actions
	playersCanRead bool    // Options.PlayersCanRead
	maxText        int     // Options.MaxTextLength, defaulted

	// A list's count: Options.ExactCountBelow, ExactCountBudget and
	// CountBudget (defaulted), and the row estimates kept for a moment.
	exactBelow  int64
	exactBudget time.Duration
	countBudget time.Duration
	estimates   *query.Estimates

	// readTexts are the texts of reads by id (handleRead), one per
	// resource and set of joined labels: building one cost a fifth of
	// the read.
	readTexts sync.Map
}

// newRowsHandler builds the rows endpoints over a's parts, once its
// resources, row store and audit log are built.
func newRowsHandler(a *Admin) *rowsHandler {
	return &rowsHandler{
		db: a.db, resources: a.resources, specials: a.specials, as: a.resourceAs, gate: a.gate,
		labels:  labeler{db: a.db, as: a.resourceAs, allowed: a.allowed},
		queries: a.queries, stmts: a.stmts, store: a.store, live: a.live,
		roles: a.roles, sanctions: a.sanctions, audit: a.audit, ips: a.clientIPs(), log: a.log,
		actionLimit: a.limits.Actions, playersCanRead: a.opts.PlayersCanRead, maxText: a.opts.MaxTextLength,
		exactBelow: a.opts.ExactCountBelow, exactBudget: a.opts.ExactCountBudget, countBudget: a.countBudget, estimates: a.estimates,
	}
}

// resource finds the {resource} of the path. A Resources entry without a
// Tables entry does not exist.
func (h *rowsHandler) resource(r *http.Request) (*resource, error) {
	key := r.PathValue("resource")
	res, ok := h.resources[key]
	if !ok {
		return nil, errorf(http.StatusNotFound, "unknown_resource", "no resource %q", key).WithParams("resource", key)
	}
	return res, nil
}

// resourceFor finds the {resource} of the path and checks op may do o on it.
func (h *rowsHandler) resourceFor(r *http.Request, op Operator, o Op) (*resource, error) {
	res, err := h.resource(r)
	if err != nil {
		return nil, err
	}
	return h.as(op, res.Key), h.gate(op, o, res.Key)
}

// clientError turns the query language's errors into 400s.
func clientError(err error) error {
	var qe *query.Error
	if errors.As(err, &qe) {
		if qe.Column != "" {
			return withQueryProblem(fieldError(http.StatusBadRequest, qe.Code, qe.Column, "%s", qe.Message), qe)
		}
		return errorf(http.StatusBadRequest, qe.Code, "%s", qe.Message)
	}
	return err
}

// valueError is a value of a create or update body that does not fit
// its column (query.ConvertValue's error), as the operator reads it: the
// column by its label and the rule in plain words ("Treasury: at most 2
// decimal places"), with the same code and field as the query error.
func valueError(res *resource, c *schema.Column, err error) error {
	var qe *query.Error
	if !errors.As(err, &qe) {
		return clientError(err)
	}
	rule := qe.Plain
	if rule == "" {
		rule = strings.TrimPrefix(qe.Message, "column "+strconv.Quote(c.Name)+": ")
	}
	return withQueryProblem(fieldError(http.StatusBadRequest, qe.Code, c.Name, "%s: %s", res.ColumnLabel(c), rule), qe)
}

// withQueryProblem is e, an answer about qe's column, with its problem
// when qe says which (query.Error's Problem): the code and params a
// client words the field's message with.
func withQueryProblem(e *APIError, qe *query.Error) *APIError {
	if qe.Problem == "" {
		return e
	}
	params := qe.Params
	if params == nil {
		params = map[string]any{}
	}
	return e.WithProblem(errbody.Problem{Code: qe.Problem, Params: params})
}

// decodeAny reads an optional JSON object body with numbers kept exact.
// An empty body gives a nil map.
func decodeAny(r *http.Request, v *map[string]any) error { return readJSON(r, v, optional|numbers) }

// decodeRow reads a create or update body into typed column values: only
// visible, writable columns, each converted to its column's type. An
// update may also carry what a read of the row returned: the key and
// read-only columns come back in kept, for unchangedCheck to hold against
// the row, and the row's own fields ("_labels", "_invalid") are dropped,
// so a row read and sent back by PUT is an update that changes nothing.
// merge reads the body as a merge patch (RFC 7396): a JSON column's
// object is a rows.MergePatch of its stored document, not its value.
// The resource's own fields and checks are its special's (body).
func (h *rowsHandler) decodeRow(r *http.Request, res *resource, update, merge bool) (map[string]any, map[string]any, rows.FieldProblems, error) {
	var body map[string]any
	if err := decodeAny(r, &body); err != nil {
		return nil, nil, nil, err
	}
	if body == nil {
		return nil, nil, nil, errorf(http.StatusBadRequest, "invalid_body", "a JSON object body is required")
	}
	var kept map[string]any
	vals := make(map[string]any, len(body))
	problems := rows.FieldProblems{}
	own := h.specials.of(res.Key).body(res, body, update)
	for k, v := range body {
		col, ok := res.View.ByName[k]
		switch {
		case !ok && update && strings.HasPrefix(k, "_"):
			continue // the row's own fields, as a read returns them
		case !ok:
			return nil, nil, nil, fieldError(http.StatusBadRequest, "unknown_column", k, "resource %q has no column %q", res.Key, k)
		case col.Primary && v == "":
			// A row keyed "" could be neither opened nor deleted: its URL
			// has no id segment.
			return nil, nil, nil, fieldError(http.StatusBadRequest, "invalid_value", k, "%s: cannot be empty", res.ColumnLabel(col)).WithProblem(errbody.NewProblem("empty", ""))
		case res.Restricted[k]:
			return nil, nil, nil, res.RefuseWrite(k)
		case update && (res.ReadOnly(k) || col.Primary):
			if kept == nil {
				kept = map[string]any{}
			}
			kept[k] = v
			continue
		case res.ReadOnly(k):
			return nil, nil, nil, res.RefuseWrite(k)
		}
		if patch, isObject := v.(map[string]any); merge && isObject && col.DataType == schema.JSON {
			// The keys it changes, merged into the stored document by
			// the UPDATE (rows.DocEdit): what the game wrote to the
			// others since the operator's read stays.
			if err := rows.CheckMergePatch(k, patch); err != nil {
				return nil, nil, nil, err
			}
			vals[k] = rows.MergePatch(patch)
			continue
		}
		// An update holds a value it would refuse for the row (pending):
		// sent back as read, it is what the column holds and passes.
		hold := func(p pendingValue) bool {
			if !update {
				return false
			}
			if kept == nil {
				kept = map[string]any{}
			}
			p.sent = v
			kept[k] = p
			return true
		}
		long := rows.FieldProblems{}
		if !long.CheckLength(res, col, rows.MaxLength(col, h.maxText), v) {
			if !hold(pendingValue{problem: long[k]}) {
				problems[k] = long[k]
			}
			continue
		}
		if v != nil && !h.live.isChoice(r.Context(), res, col, fmt.Sprint(v)) {
			err := fieldError(http.StatusBadRequest, "invalid_value", k, "%s: %q is not one of the choices", res.ColumnLabel(col), errbody.Truncate(fmt.Sprint(v), 80)).
				WithProblem(errbody.NewProblem("not_a_choice", "", "value", errbody.Truncate(fmt.Sprint(v), 80)))
			if hold(pendingValue{err: err}) {
				continue
			}
			return nil, nil, nil, err
		}
		cv, err := query.ConvertValue(col, v)
		if err != nil && h.live.relabel(r.Context(), res, err) {
			cv, err = query.ConvertValue(col, v) // a label the database gained since
		}
		if err != nil {
			err = valueError(res, col, err)
			if hold(pendingValue{err: err}) {
				continue
			}
			return nil, nil, nil, err
		}
		if raw, ok := cv.(json.RawMessage); ok && !update && !rows.FitsModel(col, raw) { // an update checks it against the row: rows.KeepMisfits
			return nil, nil, nil, fieldError(http.StatusBadRequest, "invalid_value", k, "%s: the value does not have the shape this field takes", res.ColumnLabel(col)).WithProblem(errbody.NewProblem("wrong_shape", ""))
		}
		vals[k] = cv
		hold(pendingValue{}) // passed: written, unless the row holds it
	}
	if own != nil {
		if err := own(r.Context(), vals); err != nil {
			return nil, nil, nil, err
		}
	}
	if update {
		problems.CheckRequired(res, vals, true)
		for k, msg := range problems { // held too: a blank the row holds passes
			kept[k] = pendingValue{sent: kept[k].(pendingValue).sent, problem: msg}
			delete(vals, k)
			delete(problems, k)
		}
	}
	return vals, kept, problems, nil
}

// pendingValue is a value of an update body that waits for the row: a
// value sent as the row holds it (compared as JSON, as a revert compares:
// history.SameValue) is neither written nor checked, so a row read and
// sent back by PUT changes nothing whatever its cells hold (text in a
// SQLite INTEGER column, a value no longer among the Choices, a blank in
// a NOT NULL column). A changed one stands: written when it passed
// decodeRow, else refused with err, or problem (400 validation).
type pendingValue struct {
	sent    any
	err     error           // why it was refused, when it was
	problem errbody.Problem // or the validation problem it has
}

// unchangedCheck is UpdateRow's check of what an update sent against the
// row (before): every key and read-only column (kept) holds what the row
// holds, compared as JSON as a revert compares (history.SameValue), else
// 400 read_only; the version column (ResourceConfig.VersionColumn) sent
// as another than the row's is a stale read, 409 conflict with the row
// as it is now (store's Conflict); a value sent as the row holds it is
// dropped from vals (pendingValue), and a changed one decodeRow refused
// is refused now.
func unchangedCheck(store rows.Store, res *resource, kept, vals map[string]any) func(before map[string]any) error {
	if len(kept) == 0 {
		return nil
	}
	return func(before map[string]any) error {
		problems := rows.FieldProblems{}
		for _, k := range slices.Sorted(maps.Keys(kept)) {
			p, pending := kept[k].(pendingValue)
			v := kept[k]
			if pending {
				v = p.sent
			}
			sent, err := json.Marshal(v)
			same := err == nil && history.SameValue(before[k], sent)
			switch {
			case !pending && !same && res.VersionColumn() != nil && k == res.VersionColumn().Name:
				return store.Conflict(res, before)
			case !pending && !same:
				return fieldError(http.StatusBadRequest, "read_only", k, "%s is read-only: send it as the row holds it, or leave it out", res.ColumnLabel(res.View.ByName[k])).WithProblem(errbody.NewProblem("read_only", ""))
			case !pending:
			case same:
				delete(vals, k) // as stored: not written
			case p.err != nil:
				return p.err
			case p.problem.Code != "":
				problems[k] = p.problem
			}
		}
		return problems.Err()
	}
}

// rowID decodes the {id} of the path, a row of res.
func rowID(r *http.Request, res *resource) (map[string]any, error) {
	if len(res.Table.PK) == 0 {
		return nil, errorf(http.StatusNotFound, "not_found", "%q has no primary key: its rows have no page of their own", res.Key).WithParams("resource", res.Key)
	}
	id, err := query.DecodeID(res.View, r.PathValue("id"))
	return id, clientError(err)
}

// rowIDFromBody decodes an id sent in a JSON body: a string or a number.
func rowIDFromBody(res *resource, raw any) (map[string]any, error) {
	var s string
	switch v := raw.(type) {
	case string:
		s = v
	case json.Number:
		s = v.String()
	default:
		return nil, errorf(http.StatusBadRequest, "invalid_value", "id must be a string or a number")
	}
	id, err := query.DecodeID(res.View, s)
	return id, clientError(err)
}

func encodeRowID(res *resource, row map[string]any) string { return query.EncodeID(res.Table, row) }

// pathRow loads the row the {id} of the path names, as op may see it:
// one outside op's row scope is missing.
func (h *rowsHandler) pathRow(r *http.Request, op Operator, res *resource) (map[string]any, error) {
	id, err := rowID(r, res)
	if err != nil {
		return nil, err
	}
	return h.store.ReadScoped(r.Context(), h.db, op, res, id, false)
}

// GET /admin-api/{resource}
func (h *rowsHandler) handleList(w http.ResponseWriter, r *http.Request, op Operator) error {
	res, err := h.resourceFor(r, op, OpList)
	if err != nil {
		return err
	}
	return h.writeList(w, r, op, res, nil)
}

// writeList answers a list query on res, optionally narrowed by where
// (listRows): as PostgreSQL rendered the page when it could, else as
// the rows read in Go.
func (h *rowsHandler) writeList(w http.ResponseWriter, r *http.Request, op Operator, res *resource, where func(*bun.SelectQuery) *bun.SelectQuery) error {
	buf := jsonBufs.Get().(*[]byte)
	defer putJSONBuf(buf)
	rows, body, err := h.listPage(w, r, op, res, where, (*buf)[:0])
	if err != nil {
		return err
	}
	if body == nil {
		writeJSON(w, http.StatusOK, rows)
		return nil
	}
	body = append(body, '\n')
	*buf = body
	writeJSONBytes(w, http.StatusOK, body)
	return nil
}

// listRows answers a list query on res, optionally narrowed by where, and
// sets the total and cursor headers. Its statements run within
// QueryTimeout together; an expensive list (a search, an exact count)
// holds one of op's QueryConcurrency slots while they do.
func (h *rowsHandler) listRows(w http.ResponseWriter, r *http.Request, op Operator, res *resource, where func(*bun.SelectQuery) *bun.SelectQuery) ([]map[string]any, error) {
	rows, _, err := h.listPage(w, r, op, res, where, nil)
	return rows, err
}

// listPage is listRows that, given a buffer, lets PostgreSQL render the
// page when it can (renders): the page's JSON is then appended to buf
// and returned as body, rows being nil. Whichever way it is read, the
// page is the same query (the role's view, its row scope, the hidden
// columns left out), and its JSON the same bytes.
func (h *rowsHandler) listPage(w http.ResponseWriter, r *http.Request, op Operator, res *resource, where func(*bun.SelectQuery) *bun.SelectQuery, buf []byte) (_ []map[string]any, body []byte, _ error) {
	ctx := r.Context()
	l, err := h.parseList(r, op, res)
	if err != nil {
		return nil, nil, err
	}
	if l.Expensive() {
		release, err := h.queries.holdQuery(op)
		if err != nil {
			return nil, nil, err
		}
		defer release()
	}
	deadline := h.queries.queryDeadline()
	if err := h.specials.of(res.Key).search(ctx, deadline, op, res, l); err != nil {
		return nil, nil, err
	}
	narrow := func(q *bun.SelectQuery) *bun.SelectQuery {
		if where != nil {
			q = where(q)
		}
		return q
	}
	sp := h.specials.of(res.Key)
	joins, rest := h.labels.labelJoins(op, res)
	if l.Fields != nil {
		// The labels of the keys asked for; the special's own fields
		// as without _fields.
		joins = slices.DeleteFunc(joins, func(lb query.Label) bool { return !slices.Contains(l.Fields, lb.FK) })
		rest = slices.DeleteFunc(rest, func(lr labelRel) bool { return !slices.Contains(l.Fields, lr.rel.FK) })
		l.Also = sp.reads()
	}
	page := l.Query(h.db, res.Table, res.View, joins, where)
	// The page's text repeats for a first or filtered page, and for every
	// page of a keyset walk once the cursor is a parameter: prepared
	// after its first run, it is planned once per connection.
	var (
		text string
		args []any
	)
	if pl, cargs, ok := l.CursorParams(h.db); ok {
		text = pl.Query(h.db, res.Table, res.View, joins, where).String()
		if args, ok = query.CursorArgs(h.db, text, cargs); !ok {
			text = page.String()
		}
	} else {
		text = page.String()
	}
	var (
		listed []map[string]any
		next   string
	)
	var rd *query.Rendered
	if buf != nil && renders(res, sp, rest) {
		rd = l.Render(h.db, res.Table, res.View, res.Hidden, joins)
	}
	if rd != nil {
		h.queries.warm(ctx, deadline, rd.Text(text))
	} else {
		h.queries.warm(ctx, deadline, text)
	}
	run := h.queries.limited
	if where == nil && l.Bounded(res.Table, joins) {
		run = h.queries.cheap // as cheap as a read by id, which runs unlimited too
	}
	err = run(ctx, deadline, func(ctx context.Context, db bun.IDB) (err error) {
		if rd != nil {
			rs, err := h.queries.queryPrepared(ctx, db, rd.Text(text), func() *bun.SelectQuery { return rd.Query(h.db, page) }, args...)
			if err != nil {
				return err
			}
			out, cursor, ok, err := rd.AppendPage(rs, buf)
			if err != nil || ok {
				body, next = out, cursor
				return err
			}
			// A value only the Go path shows (a year RFC 3339 cannot
			// write): the page is read again, in Go.
		}
		listed, err = h.queries.scanPrepared(ctx, db, res, res.Hidden, joins, text, func() *bun.SelectQuery { return page }, args...)
		return err
	})
	res.Mask(listed)
	if err != nil {
		// A filter value the database could not compare (an enum
		// label it lacks) is the client's; the rest stays a 500.
		return nil, nil, rows.BlameColumn(ctx, h.db, res, rows.FilterValues(l), rows.ColumnFields(res, clientError(rows.DBError(err))))
	}
	switch {
	case l.Limit > 0:
		if body == nil {
			listed, next = l.Page(res.View, listed)
		}
		w.Header().Set("X-Next-Cursor", next)
	case body == nil:
		next = l.OffsetCursor(res.View, listed)
	}
	if l.Limit == 0 && next != "" {
		w.Header().Set("X-Next-Cursor", next) // the way on past MaxOffset
	}
	// Keyset pages count only when asked: a cursor walk has no use for
	// the total, and on a large table it costs more than the page.
	if l.Count != query.CountNone && (l.Limit == 0 || l.Count != query.CountAuto) {
		filtered := where != nil || len(l.Filters) > 0 || len(l.Where) > 0 || l.Q != "" || res.Table.SoftDelete != nil
		var (
			total     int64
			estimated bool
		)
		err := h.queries.gated(ctx, deadline, func(ctx context.Context) (err error) {
			total, estimated, err = query.Count(ctx, h.db, res.View, l.ApplyFilters(narrow(query.Select(h.db, res.Table)), res.View), filtered, query.CountOptions{
				Mode: l.Count, ExactBelow: h.exactBelow, Budget: h.countBudget, ExactBudget: h.exactBudget, Estimates: h.estimates, Limit: timeLeft(deadline),
				// The statistics are the whole table's: a row-scoped mod's
				// total is counted, or not answered.
				NoEstimate: res.Scoped(op),
			})
			return err
		})
		switch {
		case err != nil && res.Scoped(op) && l.Count != query.CountExact && errors.Is(err, query.ErrTimeout):
			// No total: the page says nothing of the rows it cannot count.
		case err != nil:
			return nil, nil, err
		default:
			w.Header().Set("X-Total-Count", strconv.FormatInt(total, 10))
			if estimated {
				w.Header().Set("X-Total-Count-Estimated", "true")
			}
		}
	}
	w.Header().Set("Access-Control-Expose-Headers", "X-Total-Count, X-Total-Count-Estimated, X-Next-Cursor")
	if body != nil {
		return nil, body, nil // rendered as the steps below leave it (renders)
	}
	if err := h.labels.addLabels(ctx, rest, listed); err != nil {
		return nil, nil, err
	}
	if err := sp.answer(ctx, op, res, listed); err != nil {
		return nil, nil, err
	}
	l.Unasked(res.Table, listed)
	rows.LogCellIssues(ctx, h.log, res, listed)
	return listed, nil, nil
}

// renders reports whether PostgreSQL may render res's list page as its
// role sees it (query.List.Render): nothing is added to its rows or
// changed in them after they are read (no mask, no label read apart,
// no fields of a special resource's own).
func renders(res *resource, sp special, rest []labelRel) bool {
	_, plain := sp.(plainResource)
	return plain && len(rest) == 0 && len(res.Masks) == 0
}

// parseList reads the list parameters of r on res (query.Parse) with the
// resource's search columns, and its special's own (list: _banned on
// users). A parameter of another resource's own is refused. It runs no
// statement (the special's search adds what its _q needs). A row-scoped
// mod's list is narrowed to the rows of their scope.
func (h *rowsHandler) parseList(r *http.Request, op Operator, res *resource) (*query.List, error) {
	var def *query.SortKey
	if s := res.Config.List.DefaultSort; s.Field != "" && res.View.ByName[s.Field] != nil && !res.Restricted[s.Field] { // not one op's role may not read or sort
		def = &query.SortKey{Column: s.Field, Desc: s.Order == "desc"}
	}
	v := r.URL.Query()
	pg := h.db.Dialect().Name() == dialect.PG
	if err := res.RefuseRestricted(v); err != nil {
		return nil, err
	}
	sp := h.specials.of(res.Key)
	params, own := h.specials.params(), sp.params()
	ignore := slices.Sorted(maps.Keys(params))
	l, err := sp.list(op, res, v, func() (*query.List, error) {
		l, err := query.Parse(res.View, v, def, ignore...)
		if err != nil && h.live.relabel(r.Context(), res, err) {
			l, err = query.Parse(res.View, v, def, ignore...) // a label the database gained since
		}
		if err == nil {
			err = l.CheckDialect(pg)
		}
		if err != nil {
			return nil, clientError(err)
		}
		l.Search = res.SearchColumns()
		for _, p := range ignore {
			if _, ok := v[p]; ok && own[p] == "" {
				return nil, errorf(http.StatusBadRequest, query.CodeInvalidQuery, "%s %s", p, params[p])
			}
		}
		return l, nil
	})
	if err != nil {
		return nil, err
	}
	// A row-scoped mod's rows only: the page, its count, a relation tab
	// and an export all read the list's conditions (rows.ScopeCond).
	if c, ok := res.ScopeCond(op); ok {
		l.Where = append(l.Where, c)
	}
	return l, nil
}

// GET /admin-api/{resource}/{id}
func (h *rowsHandler) handleRead(w http.ResponseWriter, r *http.Request, op Operator) error {
	res, err := h.resourceFor(r, op, OpRead)
	if err != nil {
		return err
	}
	id, err := rowID(r, res)
	if err != nil {
		return err
	}
	// The row and the labels its keys can join, in one statement, as a
	// list page reads them.
	joins, rest := h.labels.labelJoins(op, res)
	row := func(id map[string]any) *bun.SelectQuery {
		q := query.Select(h.db, res.Table)
		if res.Table.SoftDelete != nil {
			q = q.WhereAllWithDeleted() // a deleted row has its page, to be restored from
		}
		return query.JoinLabels(h.db, query.WherePK(q, res.Table, id), joins, nil)
	}
	// The same text for every id of the resource, the id a parameter:
	// prepared after its first run (h.stmts), and built once per
	// resource and set of joined labels.
	params, args := query.PKParams(h.db, res.Table, id, 1)
	var key strings.Builder
	key.WriteString(res.Key)
	for _, j := range joins {
		fmt.Fprintf(&key, "\x00%s\x00%s\x00%s\x00%q", j.FK, j.Table, j.Ref, j.Columns)
		if j.Scope != nil {
			fmt.Fprintf(&key, "\x00%s\x00%q", j.Scope.Column, j.Scope.Values)
		}
	}
	text, ok := h.readTexts.Load(key.String())
	if !ok {
		text, _ = h.readTexts.LoadOrStore(key.String(), row(params).String())
	}
	// Read as stored, whatever op's role may read: its version is the
	// same for every role (rows.Versions).
	found, err := h.queries.scanPrepared(r.Context(), h.db, res, res.StoredHidden(), joins, text.(string), func() *bun.SelectQuery { return row(id) }, args...)
	if err != nil {
		return err
	}
	if len(found) == 0 || !res.InScope(found[0], op) {
		return res.Missing() // a row outside a mod's row scope is missing
	}
	rows.SetETag(w.Header(), h.store.ETag(res, found[0]))
	res.Answer(found[0])
	if err := h.labels.addLabels(r.Context(), rest, found[:1]); err != nil {
		return err
	}
	if err := h.specials.of(res.Key).answer(r.Context(), op, res, found[:1]); err != nil {
		return err
	}
	rows.LogCellIssues(r.Context(), h.log, res, found[:1])
	writeJSON(w, http.StatusOK, found[0])
	return nil
}

// POST /admin-api/{resource}
func (h *rowsHandler) handleCreate(w http.ResponseWriter, r *http.Request, op Operator) error {
	res, err := h.resourceFor(r, op, OpCreate)
	if err != nil {
		return err
	}
	vals, _, problems, err := h.decodeRow(r, res, false, false)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if err := applyDefaults(ctx, h.db, op, res, vals); err != nil {
		return err
	}
	if err := res.CheckCreate(vals, op); err != nil {
		return err // a row-scoped mod creates rows of their scope only
	}
	if err := h.refsInScope(ctx, h.db, op, res, vals, nil); err != nil {
		return err // and links them to rows of their scope only
	}
	problems.CheckRequired(res, vals, false)
	if err := problems.Err(); err != nil {
		return err
	}
	if len(vals) == 0 {
		return errorf(http.StatusBadRequest, "invalid_body", "no columns to insert")
	}
	t := res.Table
	// One rule for new ids: the body, Create.Defaults (both in vals by
	// now), the database's default, else a UUIDv7 for a single text or
	// uuid key left out (a key sent as null is refused below).
	if pk := t.PK; len(pk) == 1 && !pk[0].HasDefault && pk[0].DataType == schema.String {
		if _, given := vals[pk[0].Name]; !given {
			vals[pk[0].Name] = users.NewID()
		}
	}
	// SQLite lets a non-integer primary key be NULL, and the row could then
	// never be addressed; refuse it as PostgreSQL does.
	for _, c := range t.PK {
		if vals[c.Name] == nil && !c.HasDefault {
			return fieldError(http.StatusBadRequest, "missing_value", c.Name, "%s is required", res.ColumnLabel(c))
		}
	}
	var row map[string]any
	err = h.stmts.RunInTx(ctx, h.db, func(ctx context.Context, tx bun.Tx) error {
		if row, err = h.store.InsertRow(ctx, tx, res, vals); err != nil {
			return err
		}
		return h.audit.RecordTx(ctx, tx, AuditEntry{OperatorID: op.UserID, Action: "create", Resource: res.Key, TargetID: encodeRowID(res, row), Payload: audit.Payload(requestMeta(r, h.ips), "row", row)})
	})
	if err != nil {
		return h.live.writeRefused(ctx, res, vals, err)
	}
	rows.SetETag(w.Header(), h.store.ETag(res, row))
	writeJSON(w, http.StatusCreated, res.Answer(row))
	return nil
}

// applyDefaults merges Create.Defaults under the body, then the values a
// model hook fills (the users id), so a create through the panel matches
// one through the game's own code.
func applyDefaults(ctx context.Context, db *bun.DB, op Operator, res *resource, vals map[string]any) error {
	if fn := res.Config.Create.Defaults; fn != nil {
		defs, err := fn(ctx, DefaultsContext{OperatorID: op.UserID, Resource: res.Key})
		if err != nil {
			var ae *APIError
			if errors.As(err, &ae) {
				return err
			}
			return fmt.Errorf("admin: %s: Create.Defaults: %w", res.Key, err)
		}
		for k, v := range defs {
			col, ok := res.Table.Lookup(k)
			if !ok {
				return fmt.Errorf("admin: %s: Create.Defaults names no column %q", res.Key, k)
			}
			if _, set := vals[col.Name]; set {
				continue
			}
			cv, err := query.ConvertValue(col, v)
			if err != nil {
				return fmt.Errorf("admin: %s: Create.Defaults: %w", res.Key, err)
			}
			vals[col.Name] = cv
		}
	}
	model := res.Table.NewModel()
	if h, ok := model.(bun.BeforeAppendModelHook); ok {
		if err := h.BeforeAppendModel(ctx, db.NewInsert()); err != nil {
			return err
		}
		row, err := query.RowMap(res.Table, model, nil)
		if err != nil {
			return fmt.Errorf("admin: %s: the model's BeforeAppendModel defaults: %w", res.Key, err)
		}
		for _, c := range res.Table.Columns {
			if _, set := vals[c.Name]; set || c.Field.HasZeroValue(reflectValue(model)) {
				continue
			}
			vals[c.Name] = row[c.Name]
		}
	}
	return nil
}

// scanPrepared reads res's rows without the hidden columns (with the
// labels of joins) from text run with args on db (the panel's, or a
// transaction of it) through the panel's statement cache: prepared when
// the text has run before, else plain, the same statement with its
// values inline (built only then), through Bun.
func (a *queryRunner) scanPrepared(ctx context.Context, db bun.IDB, res *resource, hidden map[string]bool, joins []query.Label, text string, plain func() *bun.SelectQuery, args ...any) ([]map[string]any, error) {
	rs, err := a.queryPrepared(ctx, db, text, plain, args...)
	if err != nil {
		return nil, err
	}
	return query.ScanFrom(rs, res.Table, hidden, joins)
}

// queryPrepared runs text with args on db (the panel's, or a transaction
// of it) through the panel's statement cache, as scanPrepared does, and
// returns its rows: prepared when the text has run before, else plain's
// statement through Bun.
func (a *queryRunner) queryPrepared(ctx context.Context, db bun.IDB, text string, plain func() *bun.SelectQuery, args ...any) (*sql.Rows, error) {
	run := func() (*sql.Rows, error) { return plain().Conn(db).Rows(ctx) }
	if tx, ok := db.(bun.Tx); ok {
		return a.stmts.QueryTx(ctx, tx.Tx, text, run, args...)
	}
	return a.stmts.Query(ctx, text, run, args...)
}

// PATCH or PUT /admin-api/{resource}/{id}. With If-Match, the row must
// still be the version its client read (else 409 conflict with the row);
// a PATCH of Content-Type application/merge-patch+json merges a JSON
// column's object into the stored document, in the database.
func (h *rowsHandler) handleUpdate(w http.ResponseWriter, r *http.Request, op Operator) error {
	res, err := h.resourceFor(r, op, OpUpdate)
	if err != nil {
		return err
	}
	id, err := rowID(r, res)
	if err != nil {
		return err
	}
	match, err := rows.ParseIfMatch(r.Header)
	if err != nil {
		return err
	}
	merge := mergePatch(r)
	if merge && r.Method == http.MethodPut {
		return errorf(http.StatusBadRequest, "invalid_body", "a merge patch (%s) is sent with PATCH: a PUT sends the row", mergePatchType)
	}
	vals, kept, problems, err := h.decodeRow(r, res, true, merge)
	if err != nil {
		return err
	}
	if err := problems.Err(); err != nil {
		return err
	}
	ctx := r.Context()
	store := h.store
	var after map[string]any
	var ended string
	err = h.stmts.RunInTx(ctx, h.db, func(ctx context.Context, tx bun.Tx) error {
		var changes map[string]any
		vals := maps.Clone(vals) // a second run (stmtcache.ErrRetry) starts from the body
		// A datetime column named updated_at says when the row last
		// changed: an edit that writes and does not set it bumps it, as
		// the game's own code would (Touch).
		unchanged := unchangedCheck(store, res, kept, vals)
		check := func(before map[string]any) error {
			if unchanged != nil {
				if err := unchanged(before); err != nil {
					return err
				}
			}
			return h.refsInScope(ctx, tx, op, res, vals, before) // a row-scoped mod's links stay in their scope
		}
		if _, after, changes, ended, err = store.UpdateRow(ctx, tx, op, res, id, vals, rows.Write{IfMatch: match, Check: check, Touch: true}); err != nil || len(changes) == 0 {
			return err
		}
		return h.audit.RecordTx(ctx, tx, AuditEntry{OperatorID: op.UserID, Action: "update", Resource: res.Key, TargetID: encodeRowID(res, after), Payload: audit.Payload(requestMeta(r, h.ips), "changes", changes)})
	})
	if err != nil {
		return h.live.writeRefused(ctx, res, vals, err)
	}
	if ended != "" {
		h.sanctions.SessionsEnded(ctx, ended, "email changed")
	}
	rows.SetETag(w.Header(), store.ETag(res, after))
	writeJSON(w, http.StatusOK, res.Answer(after))
	return nil
}

// mergePatchType is the Content-Type of an RFC 7396 merge patch.
const mergePatchType = "application/merge-patch+json"

// mergePatch reports whether r's body is a merge patch (its Content-Type).
func mergePatch(r *http.Request) bool {
	t, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && t == mergePatchType
}

// DELETE /admin-api/{resource}/{id}
func (h *rowsHandler) handleDelete(w http.ResponseWriter, r *http.Request, op Operator) error {
	res, err := h.resourceFor(r, op, OpDelete)
	if err != nil {
		return err
	}
	id, err := rowID(r, res)
	if err != nil {
		return err
	}
	match, err := rows.ParseIfMatch(r.Header)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var row map[string]any
	err = h.stmts.RunInTx(ctx, h.db, func(ctx context.Context, tx bun.Tx) error {
		if row, err = h.store.DeleteRow(ctx, tx, op, res, id, rows.Write{IfMatch: match}); err != nil {
			return err
		}
		payload := audit.Payload(requestMeta(r, h.ips), "row", row)
		if res.Table.SoftDelete != nil {
			payload["soft"] = true // the row is kept, its soft-delete column set
		}
		return h.audit.RecordTx(ctx, tx, AuditEntry{OperatorID: op.UserID, Action: "delete", Resource: res.Key, TargetID: encodeRowID(res, row), Payload: payload})
	})
	if err != nil {
		return err
	}
	if res.Table.SoftDelete != nil {
		rows.SetETag(w.Header(), h.store.ETag(res, row)) // the row is still there, to be restored
	}
	writeJSON(w, http.StatusOK, res.Answer(row))
	return nil
}

// POST /admin-api/{resource}/{id}/_restore: a soft-deleted row back, its
// soft-delete column cleared; needs update on the resource, audited as
// "restore" with the row.
func (h *rowsHandler) handleRestore(w http.ResponseWriter, r *http.Request, op Operator) error {
	res, err := h.resourceFor(r, op, OpUpdate)
	if err != nil {
		return err
	}
	id, err := rowID(r, res)
	if err != nil {
		return err
	}
	match, err := rows.ParseIfMatch(r.Header)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var row map[string]any
	err = h.stmts.RunInTx(ctx, h.db, func(ctx context.Context, tx bun.Tx) error {
		if row, err = h.store.RestoreRow(ctx, tx, op, res, id, rows.Write{IfMatch: match}); err != nil {
			return err
		}
		return h.audit.RecordTx(ctx, tx, AuditEntry{OperatorID: op.UserID, Action: "restore", Resource: res.Key, TargetID: encodeRowID(res, row), Payload: audit.Payload(requestMeta(r, h.ips), "row", row)})
	})
	if err != nil {
		return err
	}
	rows.SetETag(w.Header(), h.store.ETag(res, row))
	writeJSON(w, http.StatusOK, res.Answer(row))
	return nil
}
