package engine

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/query"
)

// The search box (the UI's command palette): GET /_search?q=night&limit=5
// finds rows of every resource the operator may list and read by the
// start of their label (query.Find), and, where those are fewer than
// limit, by the start of a later word of it (query.FindWords: "23" finds
// "Player 23"), ranked after them, each resource as the operator's
// role sees it (resourceAs: a column the role may not read, or reads
// masked, is neither searched nor shown).
//
// It is bounded: limit rows a resource, searchMaxTotal in all (the
// resources after that are not searched, and the answer says so). It is
// an expensive request (one of the operator's QueryConcurrency slots,
// as a list's _q is); its statements run one resource after another,
// each under a share of QueryTimeout (searchShare of it, and no longer
// than what is left of QueryTimeout for the whole answer). A resource
// whose statement runs out of time, or fails, is skipped and named in
// the answer's skipped: the others are answered all the same.

const (
	searchDefaultLimit = 5
	searchMaxLimit     = 20
	searchMaxTotal     = 50
	searchShare        = 4 // a resource's statement gets QueryTimeout/searchShare
)

// searchHit is one row found: its resource (key and label), its id as
// the row's path takes it, and its label.
type searchHit struct {
	Resource string `json:"resource"`
	Label    string `json:"label"`
	ID       string `json:"id"`
	Title    string `json:"title"`
}

// searchSkip is a resource the search did not answer for, and why:
// "timeout" (its statement ran out of its share of QueryTimeout),
// "error" (it failed; the log has the cause) or "limit" (the answer had
// searchMaxTotal rows before its turn).
type searchSkip struct {
	Resource string `json:"resource"`
	Label    string `json:"label"`
	Reason   string `json:"reason"`
}

type searchAnswer struct {
	Results []searchHit  `json:"results"`
	Skipped []searchSkip `json:"skipped"`
}

// searchHandler answers the search box (routes.go builds it): the
// resources in the sidebar's order, each as an operator's role sees it
// and gated by what the role may list and read, read under the query
// bounds.
type searchHandler struct {
	order   []string                                 // the resource keys in the sidebar's order
	as      func(op Operator, key string) *resource  // resource key as op's role sees it (resourceAs)
	allowed func(op Operator, o Op, key string) bool // may op do o on key
	queries *queryRunner
	log     *slog.Logger
}

// newSearchHandler is the search box over the resources of order.
func newSearchHandler(order []string, as func(Operator, string) *resource, allowed func(Operator, Op, string) bool, queries *queryRunner, log *slog.Logger) *searchHandler {
	return &searchHandler{order: order, as: as, allowed: allowed, queries: queries, log: log}
}

// parseSearch reads q and limit, in words when they do not fit.
func parseSearch(r *http.Request) (string, int, error) {
	v := r.URL.Query()
	q := strings.TrimSpace(v.Get("q"))
	switch {
	case q == "":
		return "", 0, errorf(http.StatusBadRequest, query.CodeInvalidValue, "q is required: the text a row's label starts with")
	case utf8.RuneCountInString(q) > query.MaxQLen:
		return "", 0, errorf(http.StatusBadRequest, query.CodeInvalidValue, "q is longer than %d characters", query.MaxQLen)
	case !utf8.ValidString(q) || strings.IndexByte(q, 0) >= 0:
		return "", 0, errorf(http.StatusBadRequest, query.CodeInvalidValue, "q is not valid UTF-8 text")
	}
	limit := searchDefaultLimit
	if s, ok := v["limit"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(s[0]))
		if err != nil || n < 1 || n > searchMaxLimit || len(s) != 1 {
			return "", 0, errorf(http.StatusBadRequest, query.CodeInvalidValue, "limit takes a whole number from 1 to %d: the rows a resource may give", searchMaxLimit)
		}
		limit = n
	}
	return q, limit, nil
}

// GET /admin-api/_search (operators only).
func (h *searchHandler) handleSearch(w http.ResponseWriter, r *http.Request, op Operator) error {
	if !op.Role.IsOperator() {
		return errOperatorOnly
	}
	q, limit, err := parseSearch(r)
	if err != nil {
		return err
	}
	release, err := h.queries.holdQuery(op)
	if err != nil {
		return err
	}
	defer release()
	ctx := r.Context()
	deadline := h.queries.queryDeadline()
	out := searchAnswer{Results: []searchHit{}, Skipped: []searchSkip{}}
	for _, key := range h.order {
		res := h.searchable(op, key)
		if res == nil {
			continue
		}
		if len(out.Results) >= searchMaxTotal {
			out.Skipped = append(out.Skipped, searchSkip{res.Key, res.Label, "limit"})
			continue
		}
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			out.Skipped = append(out.Skipped, searchSkip{res.Key, res.Label, "timeout"})
			continue
		}
		own := deadline
		if share := time.Now().Add(h.queries.timeout / searchShare); !own.IsZero() && share.Before(own) {
			own = share
		}
		n := min(limit, searchMaxTotal-len(out.Results))
		var found []map[string]any
		starts := -1 // how many of found matched by the label's start; -1: all
		err := h.queries.limited(ctx, own, func(ctx context.Context, db bun.IDB) (err error) {
			scope := func(q *bun.SelectQuery) *bun.SelectQuery { return res.Scope(q, op) } // a row-scoped mod's rows only
			rs, err := query.Find(db, res.Table, res.Labels, q, n, scope).Rows(ctx)
			if err != nil {
				return err
			}
			if found, err = query.ScanFrom(rs, res.Table, nil, query.FindLabel); err != nil || len(found) >= n {
				return err
			}
			// Too few by the label's start: then by a later word's
			// ("23" finds "Player 23"), ranked after them.
			rs, err = query.FindWords(db, res.Table, res.Labels, q, n, scope).Rows(ctx)
			if err != nil {
				return err
			}
			words, err := query.ScanFrom(rs, res.Table, nil, query.FindLabel)
			starts = len(found)
			seen := map[string]bool{}
			for _, row := range found {
				seen[encodeRowID(res, row)] = true
			}
			for _, row := range words {
				if len(found) < n && !seen[encodeRowID(res, row)] {
					found = append(found, row)
				}
			}
			return err
		})
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, query.ErrTimeout):
			h.log.Warn("admin: search: a resource ran out of time; skipped", "resource", key, "err", err)
			out.Skipped = append(out.Skipped, searchSkip{res.Key, res.Label, "timeout"})
			continue
		case err != nil:
			h.log.Error("admin: search: a resource failed; skipped", "resource", key, "err", err)
			out.Skipped = append(out.Skipped, searchSkip{res.Key, res.Label, "error"})
			continue
		}
		hits := make([]searchHit, 0, len(found))
		for _, row := range found {
			labels, _ := row["_labels"].(map[string]string)
			hits = append(hits, searchHit{Resource: res.Key, Label: res.Label, ID: encodeRowID(res, row), Title: labels[query.FindTitle]})
		}
		// A match by the label's start first, then by a later word's;
		// each in the order of their labels.
		byTitle := func(x, y searchHit) int { return strings.Compare(strings.ToLower(x.Title), strings.ToLower(y.Title)) }
		if starts < 0 || starts > len(hits) {
			starts = len(hits)
		}
		slices.SortFunc(hits[:starts], byTitle)
		slices.SortFunc(hits[starts:], byTitle)
		out.Results = append(out.Results, hits...)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// searchable is the resource key as op sees it when the search box may
// look in it: op may list and read its rows, it has label columns op may
// read, and a key op may read (the id a hit opens); else nil.
func (h *searchHandler) searchable(op Operator, key string) *resource {
	res := h.as(op, key)
	if res == nil || len(res.Labels) == 0 || len(res.Table.PK) == 0 || !h.allowed(op, OpList, key) || !h.allowed(op, OpRead, key) {
		return nil
	}
	for _, c := range res.Table.PK {
		if res.Hidden[c.Name] || res.Restricted[c.Name] {
			return nil
		}
	}
	return res
}
