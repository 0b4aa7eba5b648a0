// Package userdata answers a player's data requests, under GDPR and its
// kin: export (access, GET /users/{id}/_export) and erase (POST
// /users/{id}/_erase, with its dry run). A user's data is their users row
// and the rows of every resource that refers to it through a relation of
// the users table (one level: saves, entries, notes about them, the game's
// own tables), plus the audit log's entries about them. Both are for
// admins only. An erase applies each resource's erase rule
// (rows.EraseRule) and takes out of the audit log what it takes out of the
// live tables (erase_audit.go).
//
// The package sees the database, the compiled resources, the users and
// roles tables, the audit log and the end of sessions; what only the
// engine knows (its time-limited reads, its request decoding and JSON
// answers) comes in as funcs of Config.
package userdata

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/csvexport"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/moderation"
	"github.com/gameadmin/admin/internal/panicerr"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/reports"
	"github.com/gameadmin/admin/internal/rows"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/gameadmin/admin/internal/slots"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Config is what a Service works with.
type Config struct {
	// DB is the panel's database.
	DB *bun.DB
	// Resources are the compiled resources by key, as admins see them;
	// users.Key is the users table's, audit.Key the audit log's.
	Resources map[string]*rows.Resource
	// PanelKeys are the keys of the panel's own tables (the audit log,
	// the roles), related to the users table but not a player's rows: the
	// audit log is redacted instead, a role removed with the account's.
	PanelKeys []string
	// Users is the users table, Roles the panel's roles.
	Users *users.Table
	Roles *users.RoleTable
	// Store reads the row a request names.
	Store rows.Store
	// Audit writes the audit log, whose table Table("admin_audit") names;
	// Table names the panel's own tables, prefixed.
	Audit *audit.Log
	Table func(base string) bun.Ident
	// Reports are the players' reports: an export holds the player's, an
	// erase takes their words away (reports.Store.Erase).
	Reports *reports.Store
	// Sanctions ban the erased user inside the erase's transaction
	// (BanTx, the ban moderation writes) and end their sessions once it
	// is committed (SessionsEnded).
	Sanctions *moderation.Sanctions
	// Log gets a cut export's failure.
	Log *slog.Logger

	// Gate bounds the panel's database work at once (Options.
	// DatabaseConcurrency): each range of an erase's search of the audit
	// log runs inside it, then pauses (erase_search.go). nil: no bound.
	Gate *slots.Gate
	// ScanBatch reads the rows of q, a page of res, under the query time
	// limit.
	ScanBatch func(ctx context.Context, res *rows.Resource, q *bun.SelectQuery) ([]map[string]any, error)
	// RowID decodes the {id} of the path as a row id of res (a 400 when
	// malformed); UserID checks it as a users id.
	RowID  func(r *http.Request, res *rows.Resource) (map[string]any, error)
	UserID func(r *http.Request) (string, error)
	// RequestMeta is the audit payload's part about the request: the
	// client's address and browser.
	RequestMeta func(r *http.Request) map[string]any
	// WithoutRequestMeta is an audit payload without that part.
	WithoutRequestMeta func(payload any) any
	// DecodeOptional reads an optional JSON body into v.
	DecodeOptional func(r *http.Request, v any) error
	// WriteJSON answers v as JSON with status.
	WriteJSON func(w http.ResponseWriter, status int, v any)
	// NotFound is the answer to a path that names no endpoint.
	NotFound error
}

// Service serves a player's data requests. Its handlers take the signed-in
// operator and return the error the engine answers with.
type Service struct {
	Config
}

// New returns the Service of c.
func New(c Config) *Service { return &Service{Config: c} }

// errLastAdmin is the users table's refusal to lose its last admin.
var errLastAdmin = users.ErrLastAdmin

// erased stands in for a personal value that was erased.
const erased = "[erased]"

// userPart is one resource's rows of a user: through relation rel of the
// users table, with what erasing does to them.
type userPart struct {
	rel    schema.Relation
	target *rows.Resource
	key    any // the user's key as rel.FK holds it
	rule   rows.EraseRule
}

// userParts are the resources holding rows of the user row: the users
// table's Many relations into resources, but the panel's own (PanelKeys).
func (a *Service) userParts(users *rows.Resource, row map[string]any) []userPart {
	var parts []userPart
	for _, rel := range users.Table.Relations {
		target := a.Resources[rel.Target]
		if rel.Kind != schema.Many || target == nil || slices.Contains(a.PanelKeys, rel.Target) {
			continue
		}
		fk := target.Table.ByName[rel.FK]
		key, ok := query.ReferenceKey(fk, row[rel.Ref])
		if fk == nil || !ok {
			continue
		}
		rule := target.Config.Erase
		if rule == nil {
			rule = rows.EraseDelete
			if !fk.NotNull {
				rule = rows.EraseUnlink
			}
		}
		parts = append(parts, userPart{rel: rel, target: target, key: key, rule: rule})
	}
	return parts
}

// where narrows a select of the part's table to the user's rows.
func (p userPart) where() query.Cond {
	return query.Cond{Expr: "?TableAlias.? = ?", Args: []any{bun.Ident(p.rel.FK), p.key}}
}

// name is how the part is keyed in an export or an erase report: the
// relation's name (a resource may refer to users twice).
func (p userPart) name() string { return p.rel.Name }

// userSubject narrows an audit select to the entries about userID: of
// the users row, its role, its sign-ins.
func userSubject(userID string) query.Cond {
	return query.Cond{Expr: "?TableAlias.resource IN ('users', 'roles', 'auth') AND ?TableAlias.target_id = ?", Args: []any{userID}}
}

// Export answers GET /admin-api/users/{id}/_export: the user's data as one JSON document,
// streamed: {exportedAt, user, resources: {relation: [rows]}, bans:
// [their rows of UserColumns.BanTable, when set and not a declared
// resource], audit: [entries about them]}, hidden columns left out.
// Audited as user.export with the counts.
func (a *Service) Export(w http.ResponseWriter, r *http.Request, op authz.Operator) error {
	account, userID, row, err := a.dataRequest(r, op)
	if err != nil {
		return err
	}
	ctx := r.Context()
	parts := a.userParts(account, row)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="user-%s-data.json"`, safeFileName(userID)))
	w.Header().Set("Cache-Control", "no-store")
	counts := map[string]int64{}
	var buf bytes.Buffer
	started := false // bytes went out: an error can no longer be an error body
	// Each write has its own deadline: a long export outlasts the
	// server's WriteTimeout.
	out := csvexport.NewWriter(ctx, w)
	defer out.Close()
	flush := func() error {
		if buf.Len() == 0 {
			return nil
		}
		started = true
		_, err := out.Write(buf.Bytes())
		buf.Reset()
		if err != nil {
			return fmt.Errorf("%w: %w", csvexport.ErrWrite, err)
		}
		return nil
	}
	putJSON := func(v any) error {
		b, err := json.Marshal(v)
		buf.Write(b)
		return err
	}
	// stream writes the rows of res meeting cond as a JSON array, read and
	// sent a batch at a time.
	stream := func(res *rows.Resource, cond query.Cond, clean func(map[string]any)) (int64, error) {
		l := &query.List{Where: []query.Cond{cond}}
		l.Walk(res.View, csvexport.Batch)
		buf.WriteString("[")
		var n int64
		for {
			rows, err := a.ScanBatch(ctx, res, l.Query(a.DB, res.Table, res.View, nil, nil))
			if err != nil {
				return n, err
			}
			page, _ := l.Page(res.View, rows)
			for _, row := range page {
				if n > 0 {
					buf.WriteString(",")
				}
				if clean != nil {
					clean(row)
				}
				if err := putJSON(row); err != nil {
					return n, err
				}
				n++
			}
			if len(rows) <= len(page) || !l.Advance(res.View, page[len(page)-1]) {
				buf.WriteString("]")
				return n, nil
			}
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	err = func() error {
		buf.WriteString(`{"exportedAt":`)
		if err := putJSON(time.Now().UTC()); err != nil {
			return err
		}
		buf.WriteString(`,"user":`)
		if err := putJSON(row); err != nil {
			return err
		}
		buf.WriteString(`,"resources":{`)
		for i, p := range parts {
			if i > 0 {
				buf.WriteString(",")
			}
			if err := putJSON(p.name()); err != nil {
				return err
			}
			buf.WriteString(":")
			n, err := stream(p.target, p.where(), nil)
			if err != nil {
				return err
			}
			counts[p.name()] = n
		}
		buf.WriteString(`}`)
		if a.Users.Bans != nil && !slices.ContainsFunc(parts, func(p userPart) bool { return p.target.Table.Name == a.Users.Bans.Name }) {
			// The bans table, unless a declared resource has its rows.
			bans, err := a.Users.BanRows(ctx, a.DB, []string{userID}, false)
			if err != nil {
				return err
			}
			if bans == nil {
				bans = []users.BanRow{}
			}
			buf.WriteString(`,"bans":`)
			if err := putJSON(bans); err != nil {
				return err
			}
			counts["bans"] = int64(len(bans))
		}
		buf.WriteString(`,"audit":`)
		if log := a.Resources[audit.Key]; log != nil {
			// An operator's address and browser are the operator's data,
			// not the player's: only the player's own requests keep theirs.
			// Who reported them is the reporter's, never theirs.
			n, err := stream(log, userSubject(userID), func(e map[string]any) {
				if fmt.Sprint(e["operator_id"]) != userID {
					e["payload"] = a.WithoutRequestMeta(e["payload"])
				}
				if p, ok := rows.PayloadMap(e["payload"]); ok {
					reports.WithoutReporter(fmt.Sprint(e["action"]), p)
					e["payload"] = p
				}
			})
			if err != nil {
				return err
			}
			counts["audit"] = n
		} else {
			buf.WriteString("[]")
		}
		if a.Reports != nil && a.Reports.On() {
			received, filed, err := a.Reports.ForPlayer(ctx, a.DB, userID, reports.MaxExport, nil)
			if err != nil {
				return err
			}
			out := map[string][]map[string]any{"received": {}, "filed": {}}
			for _, r := range received {
				out["received"] = append(out["received"], r.Export(false))
			}
			for _, r := range filed {
				out["filed"] = append(out["filed"], r.Export(true))
			}
			buf.WriteString(`,"reports":`)
			if err := putJSON(out); err != nil {
				return err
			}
			counts["reports"] = int64(len(received) + len(filed))
		}
		buf.WriteString("}\n")
		return flush()
	}()
	switch {
	case err == nil:
		a.Audit.Event(ctx, audit.Entry{OperatorID: op.UserID, Action: "user.export", Resource: users.Key, TargetID: userID, Payload: audit.Payload(a.RequestMeta(r), "counts", counts)})
		return nil
	case !started:
		return err
	case errors.Is(err, csvexport.ErrWrite), errors.Is(ctx.Err(), context.Canceled):
		a.Log.DebugContext(ctx, "admin: user export stopped, client went away", "user", userID, "err", err)
		return nil
	}
	// The status line is gone: the transfer is cut, so the file is
	// visibly broken rather than ending as a short valid document.
	a.Log.ErrorContext(ctx, "admin: user export cut short", append([]any{"user", userID}, panicerr.Attrs(err)...)...)
	csvexport.Abort(w)
	return nil
}

// safeFileName keeps the letters, digits, dashes and dots of s.
func safeFileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '.' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// dataRequest checks an export or erase of the user the path names: an
// admin's, of an existing user row.
func (a *Service) dataRequest(r *http.Request, op authz.Operator) (*rows.Resource, string, map[string]any, error) {
	account := a.Resources[users.Key]
	if account == nil || r.PathValue("resource") != users.Key {
		return nil, "", nil, a.NotFound
	}
	if op.Role != authz.RoleAdmin {
		return nil, "", nil, errbody.New(http.StatusForbidden, "forbidden", "a player's data requests are for admins").WithParams("reason", "admin_only")
	}
	userID, err := a.UserID(r)
	if err != nil {
		return nil, "", nil, err
	}
	id, err := a.RowID(r, account)
	if err != nil {
		return nil, "", nil, err
	}
	row, err := a.Store.ReadRow(r.Context(), a.DB, account, id, false)
	if err != nil {
		return nil, "", nil, err
	}
	return account, userID, row, nil
}

// eraseReport is what an erase did, or (a dry run) would do.
type eraseReport struct {
	DryRun bool `json:"dryRun"`
	// Resources are per relation of the users table: its resource, what
	// happens to its rows (delete, unlink, anonymize, keep) and how many.
	Resources []erasePart `json:"resources"`
	// AuditEntries are how many audit entries had values the erase
	// takes away, and so are (or would be) changed.
	AuditEntries int64 `json:"auditEntries"`
}

type erasePart struct {
	Relation string `json:"relation"`
	Resource string `json:"resource"`
	Label    string `json:"label"`
	Rule     string `json:"rule"`
	Rows     int64  `json:"rows"`
}

// Erase answers POST /admin-api/users/{id}/_erase {confirm: "<the user's email>"}, or
// ?dryRun=true (the same erase, rolled back, so it fails where the erase
// would): erases the user's personal data in one transaction. Their
// rows elsewhere go as each resource's Erase rule says; the users row
// stays (its id may be referred to by kept rows and by the audit log) with
// its email replaced by a unique address that cannot receive mail, the
// display name and Personal columns cleared, the password unusable, a
// permanent ban and every session ended; the panel role and second factor
// go. What the erase takes away goes from the audit log too (every email
// the account had, its names, the values of the rows it deletes, unlinks
// or anonymizes: erase_audit.go): the entries keep their ids, with those
// values replaced by "[erased]", the one change the panel ever makes to
// the audit log; the erase itself is audited as user.erase with the
// counts. Refused for oneself and for the last admin.
func (a *Service) Erase(w http.ResponseWriter, r *http.Request, op authz.Operator) error {
	account, userID, row, err := a.dataRequest(r, op)
	if err != nil {
		return err
	}
	if userID == op.UserID {
		return errbody.New(http.StatusBadRequest, "self_moderation", "you cannot erase your own account").WithParams("reason", "erase")
	}
	dryRun := r.URL.Query().Get("dryRun") == "true"
	var body struct {
		Confirm string `json:"confirm"`
	}
	if err := a.DecodeOptional(r, &body); err != nil {
		return err
	}
	// A guest without an email confirms with its id.
	email, what := fmt.Sprint(row[a.Users.Cols.Email]), "email"
	switch {
	case !a.Users.HasEmail && a.Users.HasUsername && row[a.Users.Cols.Username] != nil:
		email, what = fmt.Sprint(row[a.Users.Cols.Username]), "username"
	case !a.Users.HasEmail || row[a.Users.Cols.Email] == nil:
		email, what = userID, "id"
	}
	if !dryRun && !strings.EqualFold(strings.TrimSpace(body.Confirm), email) {
		return errbody.Field(http.StatusBadRequest, "confirmation_required", "confirm", "type the user's %s to confirm the erase", what)
	}
	ctx := r.Context()
	report := eraseReport{DryRun: dryRun, Resources: []erasePart{}}
	// The audit log's search, before the transaction (erase_search.go).
	before, err := a.newEraseScope(ctx, a.DB, account, userID, row, nil)
	if err != nil {
		return err
	}
	found, err := a.searchAudit(ctx, before)
	if err != nil {
		return err
	}
	err = a.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		keepsAdmin, err := a.Roles.GuardAdmins(ctx, tx)
		if err != nil {
			return err
		}
		id, err := a.RowID(r, account)
		if err != nil {
			return err
		}
		if row, err = a.Store.ReadRow(ctx, tx, account, id, true); err != nil {
			return err
		}
		parts := a.userParts(account, row)
		scope, err := a.newEraseScope(ctx, tx, account, userID, row, parts, before.emails...)
		if err != nil {
			return err
		}
		for _, p := range parts {
			n, err := a.erasePart(ctx, tx, p)
			if err != nil {
				return erasePartError(p, err)
			}
			report.Resources = append(report.Resources, erasePart{Relation: p.name(), Resource: p.target.Key, Label: p.target.Label, Rule: rows.RuleName(p.rule), Rows: n})
		}
		if a.Reports != nil && a.Reports.On() {
			n, err := a.Reports.Erase(ctx, tx, userID, op.UserID)
			if err != nil {
				return err
			}
			report.Resources = append(report.Resources, erasePart{Relation: "reports", Resource: "_reports", Label: "Reports", Rule: "anonymize", Rows: n})
		}
		if report.AuditEntries, err = a.redactAudit(ctx, tx, scope, found); err != nil {
			return err
		}
		if err := a.eraseAccount(ctx, tx, account, userID, op); err != nil {
			return err
		}
		if err := keepsAdmin(); err != nil {
			return err
		}
		err = a.Audit.RecordTx(ctx, tx, audit.Entry{OperatorID: op.UserID, Action: "user.erase", Resource: users.Key, TargetID: userID,
			Payload: audit.Payload(a.RequestMeta(r), "resources", report.Resources, "auditEntries", report.AuditEntries)})
		if err == nil && dryRun {
			return errDryRun
		}
		return err
	})
	if errors.Is(err, errDryRun) {
		err = nil
	}
	if err != nil {
		if err == errLastAdmin {
			return errbody.New(http.StatusConflict, "last_admin", "this is the last admin: make another admin first")
		}
		return err
	}
	if !dryRun {
		a.Sanctions.SessionsEnded(ctx, userID, "erased")
	}
	a.WriteJSON(w, http.StatusOK, report)
	return nil
}

// errDryRun rolls back a dry run's transaction: a dry run is the erase
// itself, undone, so whatever would stop the erase (a row further down
// that still refers to one it deletes, a NOT NULL reference it would
// unlink, the last admin) stops the dry run with the same answer.
var errDryRun = errors.New("admin: erase: dry run")

// erasePartError says which part of the erase the database refused, and
// how a game lets it through: the message alone would name a table the
// operator never asked about.
func erasePartError(p userPart, err error) error {
	var ae *errbody.Error
	if !errors.As(err, &ae) || ae.Status >= 500 {
		return err
	}
	c := *ae
	c.Message = fmt.Sprintf("the erase stops at %s (rule %s): %s. Nothing was erased. The game's developers can give that resource another Erase rule, or make the references to it ON DELETE CASCADE or SET NULL (docs/adopting.md)",
		p.target.Label, rows.RuleName(p.rule), ae.Message)
	return &c
}

// erasePart applies p's rule to the user's rows of p's resource and
// says how many it changed (kept, for EraseKeep).
func (a *Service) erasePart(ctx context.Context, tx bun.Tx, p userPart) (int64, error) {
	t := p.target.Table
	if p.rule == rows.EraseKeep {
		l := &query.List{Where: []query.Cond{p.where()}}
		return l.ApplyFilters(query.From(tx, t), p.target.View).Count(ctx)
	}
	where := "? = ?"
	args := []any{bun.Ident(p.rel.FK), p.key}
	var n int64
	var err error
	switch rows.RuleName(p.rule) {
	case "delete":
		n, err = affected(tx.NewDelete().TableExpr("?", bun.Ident(t.Name)).Where(where, args...).Exec(ctx))
		if err != nil {
			return 0, rows.ColumnFields(p.target, rows.DeleteError(err))
		}
	case "unlink":
		n, err = affected(tx.NewUpdate().TableExpr("?", bun.Ident(t.Name)).Set("? = NULL", bun.Ident(p.rel.FK)).Where(where, args...).Exec(ctx))
	case "anonymize":
		q := tx.NewUpdate().TableExpr("?", bun.Ident(t.Name))
		for _, name := range p.rule.(rows.EraseAnonymize).Columns {
			q = q.Set("? = ?", bun.Ident(name), erasedValue(t.ByName[name]))
		}
		n, err = affected(q.Where(where, args...).Exec(ctx))
	}
	if err != nil {
		return 0, rows.ColumnFields(p.target, rows.DBErrorIn(ctx, tx, t.Name, err))
	}
	return n, nil
}

func affected(res interface{ RowsAffected() (int64, error) }, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// erasedValue is what an erased column holds: NULL, or "[erased]" where
// the column takes no NULL (New refuses Anonymize of a NOT NULL column
// that is not text).
func erasedValue(c *schema.Column) any {
	if c != nil && c.NotNull {
		return erased
	}
	return nil
}

// erasedUserValue is what an erased column of the users row holds: NULL,
// or in a NOT NULL text column a value of this row's own, "erased-<id>",
// so that a UNIQUE column (a handle) takes the erase of every player, not
// only the first. A value longer than the column's varchar(n) gives way
// to a digest of the id cut to fit.
func erasedUserValue(c *schema.Column, userID string) any {
	if c == nil || !c.NotNull {
		return nil
	}
	if c.DataType != schema.String {
		return erased
	}
	return fitErased("erased-"+userID, userID, c.MaxLength)
}

// fitErased is v, or when it is longer than max characters (0: no limit)
// a digest of id as long as max allows.
func fitErased(v, id string, max int) string {
	if max <= 0 || utf8.RuneCountInString(v) <= max {
		return v
	}
	sum := sha256.Sum256([]byte(id))
	h := "erased-" + hex.EncodeToString(sum[:])
	if max < 16 {
		h = hex.EncodeToString(sum[:])
	}
	return h[:min(max, len(h))]
}

// personalColumns are the users table's columns an erase clears and the
// audit log's redaction replaces: the email, the display name, the
// username, and those marked Personal.
func (a *Service) personalColumns(users *rows.Resource) []string {
	var cols []string
	for _, c := range []string{a.Users.Cols.Email, a.Users.Cols.DisplayName, a.Users.Cols.Username} {
		if c != "" {
			cols = append(cols, c)
		}
	}
	for name, cc := range users.Config.Columns {
		if cc.Personal && !slices.Contains(cols, name) {
			cols = append(cols, name)
		}
	}
	return cols
}

// erasedAlready reports whether err, the erase's update of userID's
// row, says only that MySQL changed no row although the row is there: it
// counts the rows an update changes, and an account erased before is
// written the values it holds (a dry run after the erase).
func (a *Service) erasedAlready(ctx context.Context, tx bun.Tx, userID string, err error) bool {
	if !errors.Is(err, users.ErrNotFound) || tx.Dialect().Name() != dialect.MySQL {
		return false
	}
	u := a.Users
	found, e := tx.NewSelect().TableExpr("?", u.Ident()).Where("? = ?", u.Col(u.Cols.ID), userID).Exists(ctx)
	return e == nil && found
}

// ErasedPattern matches what an erase writes in an account's email
// (erased-<id>@erased.invalid) and its text columns (erased-<id>): a
// regular expression RE2 and JavaScript read alike, which the catalog
// gives the UI (the users entry's erasedPattern) to name such an account
// "Erased player".
const ErasedPattern = `^erased-[^@\s]*(@erased\.invalid)?$`

// eraseAccount empties the users row of personal values, makes it unable
// to sign in for good (a permanent ban, moderation's own, which ends its
// sessions), and removes its panel role and second factor.
//
// It writes only what the users table has: without a ban (no Ban,
// BanUntil or BanTable) the account is not banned, only left without a
// password (its sessions still end when there is a token version); with
// a BanTable the ban is a row there.
func (a *Service) eraseAccount(ctx context.Context, tx bun.Tx, res *rows.Resource, userID string, op authz.Operator) error {
	u := a.Users
	var err error
	switch {
	case u.HasBan && u.HasTokenVersion:
		err = a.Sanctions.BanTx(ctx, tx, userID, users.BanInfo{Reason: "erased", BannedBy: op.UserID})
	case u.HasTokenVersion:
		err = a.Sanctions.BumpTokenVersion(ctx, tx, userID)
	}
	if err != nil {
		return rows.ColumnFields(res, rows.DBError(err))
	}
	q := tx.NewUpdate()
	if u.HasEmail {
		q = q.Set("? = ?", u.Col(u.Cols.Email), "erased-"+safeFileName(userID)+"@erased.invalid")
	}
	if u.HashNotNull {
		q = q.Set("? = ?", u.Col(u.Cols.PasswordHash), users.UnusableHash)
	} else {
		q = q.Set("? = NULL", u.Col(u.Cols.PasswordHash))
	}
	for _, name := range a.personalColumns(res) {
		if u.HasEmail && name == u.Cols.Email {
			continue
		}
		q = q.Set("? = ?", u.Col(name), erasedUserValue(res.Table.ByName[name], userID))
	}
	if err := a.Users.Update(ctx, tx, q, userID); err != nil && !a.erasedAlready(ctx, tx, userID, err) {
		return rows.ColumnFields(res, rows.DBErrorIn(ctx, tx, res.Table.Name, err))
	}
	for _, t := range []string{"roles", "operator_totp", "operator_recovery_codes", "totp_challenges", "operator_prefs"} {
		if _, err := tx.NewDelete().TableExpr("?", a.Table(t)).Where("user_id = ?", userID).Exec(ctx); err != nil {
			return fmt.Errorf("admin: erase %s: %w", t, err)
		}
	}
	return nil
}
