package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"log/slog"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/csvexport"
	"github.com/gameadmin/admin/internal/rows"
	"github.com/gameadmin/admin/internal/slots"

	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/query"
)

// GET /admin-api/{resource}/_export.csv streams the rows of a list query
// (the same filters, _q, sort and _fields as GET /{resource}; the window
// is ignored) as CSV. It is gated like the list and audited as "export" with
// the number of rows written. The rows are read in keyset batches, each
// its own short query, so a slow download holds no database connection
// and the memory used stays one batch. Each batch is given
// Options.QueryTimeout (the download's length is the client's, not the
// database's); one that runs out ends the export: a 503 query_timeout
// before the first row, a cut download after. Each write to the client
// gets the server's WriteTimeout afresh (csvexport.Writer): a long export
// outlasts it, a client that stops reading does not. An export that
// ExportMaxRows cuts says so in its last line and its trailer, never as a
// short file that looks whole. An export holds one of the operator's
// QueryConcurrency slots. The rows are written by
// csvexport.Stream; the gate, the list's parsing, the first batch, the
// headers and the audit entry stay here, on crud.go's list machinery.

const (
	exportPath           = "_export.csv"
	defaultExportMaxRows = 100_000
	exportMaxRowsHeader  = "X-Export-Max-Rows"
	// exportTruncated is the trailer that says whether ExportMaxRows cut
	// the file: declared with the headers, known only after the rows.
	exportTruncated = "X-Export-Truncated"
)

// exportHandler answers the CSV export. It reads as the list does,
// through the rows handler's gate and parsing (resourceFor, parseList),
// and reaches nothing else of the panel than it is given
// (newExportHandler).
type exportHandler struct {
	db          *bun.DB
	resourceFor func(r *http.Request, op Operator, o Op) (*resource, error)            // the rows handler's
	parseList   func(r *http.Request, op Operator, res *resource) (*query.List, error) // the rows handler's
	specials    specials                                                               // the resources' own search and cells
	queries     *queryRunner                                                           // each batch's time limit, the operator's slot
	exports     *slots.Slots                                                           // one export at a time per operator
	limit       Limiter                                                                // RateLimit.Exports
	maxRows     int64                                                                  // Options.ExportMaxRows: 0 the default, negative none
	noBOM       bool                                                                   // Options.ExportNoBOM
	audit       *Audit
	log         *slog.Logger
}

// newExportHandler builds the export over a's parts and the rows
// handler's list machinery.
func newExportHandler(a *Admin, rows *rowsHandler) *exportHandler {
	return &exportHandler{db: a.db, resourceFor: rows.resourceFor, parseList: rows.parseList, specials: a.specials,
		queries: a.queries, exports: &a.exports, limit: a.limits.Exports, maxRows: a.opts.ExportMaxRows, noBOM: a.opts.ExportNoBOM,
		audit: a.audit, log: a.log}
}

// handleExport answers GET /admin-api/{resource}/_export.csv.
func (h *exportHandler) handleExport(w http.ResponseWriter, r *http.Request, op Operator) error {
	res, err := h.resourceFor(r, op, OpList)
	if err != nil {
		return err
	}
	// A whole table in one answer is an operator's tool, whatever
	// PlayersCanRead says of lists: one at a time each, rate limited.
	if !op.Role.IsOperator() {
		return errorf(http.StatusForbidden, "forbidden", "exports are for admins and mods").WithParams("reason", "operator_only")
	}
	release, ok := h.exports.Hold(op.UserID, 1)
	if !ok {
		e := errorf(http.StatusTooManyRequests, "export_in_progress", "an export of yours is still running; wait for it to finish")
		e.RetryAfterSec = 5
		return e
	}
	defer release()
	releaseQuery, err := h.queries.holdQuery(op)
	if err != nil {
		return err
	}
	defer releaseQuery()
	if err := limit(r.Context(), h.limit, op.UserID); err != nil {
		return err
	}
	raw := r.URL.RawQuery
	labels, r, err := exportHeaders(r)
	if err != nil {
		return err
	}
	l, err := h.parseList(r, op, res)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if err := h.specials.of(res.Key).search(ctx, h.queries.queryDeadline(), op, res, l); err != nil {
		return err
	}
	limit := h.maxRows
	if limit == 0 {
		limit = defaultExportMaxRows
	}
	batch := csvexport.Batch
	if limit > 0 && limit < int64(batch) {
		batch = int(limit)
	}
	l.Walk(res.View, batch)
	if l.Fields != nil {
		l.Also = h.specials.of(res.Key).reads() // its cells in words read them
	}

	// The first batch is read before anything is written, so a failing
	// query is still an error body and not a truncated file.
	first, err := h.queries.scanBatch(ctx, res, l.Query(h.db, res.Table, res.View, nil, nil))
	if err != nil {
		return clientError(err)
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/csv; charset=utf-8")
	hdr.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s.csv"`, csvexport.FileName(res.Key), time.Now().UTC().Format("20060102-150405")))
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Content-Type-Options", "nosniff")
	if limit > 0 {
		hdr.Set(exportMaxRowsHeader, strconv.FormatInt(limit, 10))
		hdr.Set("Trailer", exportTruncated)
	}
	if r.Method == http.MethodHead {
		return nil // nothing left the server: no rows, no audit entry
	}
	walk := csvexport.Walk{Key: res.Key, View: res.View, List: l, First: first,
		Next: func(ctx context.Context) ([]map[string]any, error) {
			return h.queries.scanBatch(ctx, res, l.Query(h.db, res.Table, res.View, nil, nil))
		},
		Prepare: func(batch []map[string]any) {
			rows.LogCellIssues(ctx, h.log, res, batch)
			res.Mask(batch)
		}}
	// The resource's own: the audit log's redaction and action in words,
	// a users row's ban in words.
	h.specials.of(res.Key).export(op, res, &walk, labels)
	if labels {
		sayExport(res, &walk)
	}
	written, truncated, streamErr := csvexport.Stream(ctx, w, walk, limit, !h.noBOM)
	if limit > 0 {
		hdr.Set(exportTruncated, strconv.FormatBool(truncated))
	}
	// The entry is written whatever happened to the download: the rows
	// that left the server are what it records, and a failure is named.
	payload := map[string]any{"rows": written, "query": raw}
	if truncated {
		payload["truncated"] = true
	}
	failed := streamErr != nil && !clientGone(r, streamErr) && !errors.Is(streamErr, csvexport.ErrWrite) && ctx.Err() == nil
	timedOut := failed && errors.Is(streamErr, query.ErrTimeout)
	requestID := ""
	if streamErr != nil {
		payload["incomplete"] = true
		payload["error"] = "the client went away"
		switch {
		case timedOut:
			payload["error"] = "a batch ran past QueryTimeout; a narrower filter exports"
		case failed:
			requestID = errbody.RequestID(r)
			payload["error"] = "the export failed on the server; the log has the cause"
			payload["requestId"] = requestID
		}
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := h.audit.Record(actx, AuditEntry{OperatorID: op.UserID, Action: "export", Resource: res.Key, Payload: payload}); err != nil {
		h.log.Error("admin: export audit entry not written", "resource", res.Key, "rows", written, "err", err)
	}
	if streamErr == nil {
		return nil
	}
	switch {
	case timedOut:
		h.log.WarnContext(ctx, "admin: export stopped: a batch ran past QueryTimeout", "resource", res.Key, "rows", written, "err", streamErr)
	case failed:
		h.log.ErrorContext(ctx, "admin: export stopped", append([]any{"requestId", requestID, "resource", res.Key, "rows", written}, errAttrs(streamErr)...)...)
	default:
		h.log.DebugContext(ctx, "admin: export stopped, client went away", "resource", res.Key, "rows", written, "err", streamErr)
	}
	// The status line is gone: end the response abruptly, so the client
	// sees a failed download rather than a short file. The slot is free
	// before: the client may ask again the moment it sees the cut.
	release()
	releaseQuery()
	csvexport.Abort(w)
	return nil
}

// headersParam picks the export's header row: "names", the default, heads
// each column with its name, for scripts; "labels" with its label, as the
// list shows it, and says a users row's ban in words, for a person with
// a spreadsheet (the panel's Export CSV asks for it).
const headersParam = "_headers"

// exportHeaders reads headersParam off r: whether the export is for a
// person, and r without the parameter, which is no filter of the list.
func exportHeaders(r *http.Request) (bool, *http.Request, error) {
	q := r.URL.Query()
	vals, ok := q[headersParam]
	if !ok {
		return false, r, nil
	}
	labels := false
	switch vals[0] {
	case "labels":
		labels = true
	case "names":
	default:
		return false, nil, fieldError(http.StatusBadRequest, "invalid_value", headersParam, "%s must be names or labels", headersParam)
	}
	q.Del(headersParam)
	r2 := *r
	u := *r.URL
	u.RawQuery = q.Encode()
	r2.URL = &u
	return labels, &r2, nil
}

// sayExport makes walk an export for a person: the columns headed by their
// labels (the resource's special says its own cells in words: export).
func sayExport(res *resource, walk *csvexport.Walk) {
	for _, c := range walk.List.Sent(walk.View) {
		walk.Headers = append(walk.Headers, res.ColumnLabel(c))
	}
	for _, x := range walk.Extra {
		name := x.Name
		if name == "action_label" {
			name = "Action (in words)"
		}
		walk.Headers = append(walk.Headers, name)
	}
}
