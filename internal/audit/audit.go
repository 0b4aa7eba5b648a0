// Package audit writes the append-only audit log: the entries of the
// panel's changes and events and of the game's own writes, their payloads
// capped in size, and the anonymous sign-in failures collapsed into a few
// rows. It is handed the database, the log's table name, the payload cap
// and a logger; it knows nothing else of the panel. Reading the log (its
// list, a row's history, the dashboard) is the panel's; the one read here
// is SignIns, an operator's recent sign-ins.
package audit

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"time"

	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/stmtcache"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	bunschema "github.com/uptrace/bun/schema"
)

// Key is the audit log's key in Options.Tables and the key of its
// resource. The panel's behaviour for the log's rows is the engine's
// audit log resource (internal/engine/audit_resource.go).
const Key = "adminAudit"

// Entry is a row of the append-only game_admin_audit table.
type Entry struct {
	bun.BaseModel `bun:"table:game_admin_audit,alias:aa"`

	ID         int64          `bun:"id,pk,autoincrement" json:"id"`
	CreatedAt  time.Time      `bun:"created_at,notnull" json:"created_at"`
	OperatorID string         `bun:"operator_id,nullzero" json:"operator_id"`
	Action     string         `bun:"action,notnull" json:"action"`
	Resource   string         `bun:"resource,notnull" json:"resource"`
	TargetID   string         `bun:"target_id,nullzero" json:"target_id"`
	Payload    map[string]any `bun:"payload" json:"payload"`
}

// Log records and prunes entries of the append-only audit log
// (game_admin_audit, resource adminAudit).
type Log struct {
	db         *bun.DB
	table      string // where the log is: the prefixed admin_audit
	maxPayload int    // Options.AuditMaxPayloadBytes, defaulted
	log        *slog.Logger
	commits    *Commits         // where committed entries go (SendCommits), or nil
	stmts      *stmtcache.Cache // PrepareIn's, or nil
}

// New returns the log kept in db's table (Options.TablePrefix +
// "admin_audit"). maxPayload bounds an entry's payload (see capPayload; 0
// or less keeps everything); log receives the failures of the writes
// that do not fail a request (Event).
func New(db *bun.DB, table string, maxPayload int, log *slog.Logger) *Log {
	return &Log{db: db, table: table, maxPayload: maxPayload, log: log}
}

// PrepareIn makes the entries written in a transaction stmts runs
// (stmtcache.Cache.RunInTx) go through a prepared INSERT, their values
// bound. Call it before the log is used.
func (au *Log) PrepareIn(stmts *stmtcache.Cache) { au.stmts = stmts }

// aliased is `"<table>" AS "aa"`, the ModelTableExpr of the log's select
// and delete queries.
func (au *Log) aliased() bunschema.QueryWithArgs {
	return bun.SafeQuery("? AS aa", bun.Ident(au.table))
}

// Record appends one entry. CreatedAt defaults to now; Action and Resource
// are required. A payload past Options.AuditMaxPayloadBytes is cut down
// (see capPayload) and marked "_truncated". It returns any failure to
// write.
func (au *Log) Record(ctx context.Context, e Entry) error {
	return au.record(ctx, au.db, e)
}

// RecordTx appends one entry through tx, the transaction of the change it
// records: the change and its entry commit together or not at all. Use it
// for the game's own writes that should be as reliable as the panel's.
func (au *Log) RecordTx(ctx context.Context, tx bun.Tx, e Entry) error {
	return au.record(ctx, tx, e)
}

// record is the one place an entry is written, through db: the panel's
// mutations pass their transaction (RecordTx), so a failed audit write
// rolls the change back.
func (au *Log) record(ctx context.Context, db bun.IDB, e Entry) error {
	if e.Action == "" || e.Resource == "" {
		return errors.New("admin: audit entry needs Action and Resource")
	}
	e.ID = 0
	var payload []byte
	e.Payload, payload = capPayload(e.Payload, au.maxPayload)
	if payload == nil {
		var err error
		if payload, err = json.Marshal(e.Payload); err != nil {
			return fmt.Errorf("admin: audit record %s: payload: %w", e.Action, err)
		}
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = time.Now().UTC()
	}
	if err := au.insert(ctx, db, &e, payload); err != nil {
		return fmt.Errorf("admin: audit record %s: %w", e.Action, err)
	}
	au.committed(ctx, db, e)
	return nil
}

// insert writes e, whose payload's JSON is payload, through db: its
// values inline, unless db is a transaction au.stmts runs, where the
// INSERT is prepared once its text has been seen and the values are
// bound (query.Bind). The payload is written from payload
// (query.StoredJSON), not marshalled again by Bun.
func (au *Log) insert(ctx context.Context, db bun.IDB, e *Entry, payload []byte) error {
	// Each column's value as the literal Bun writes for it (NULL for an
	// empty nullzero column); the key is the database's.
	t := db.Dialect().Tables().Get(reflect.TypeFor[Entry]())
	gen := bunschema.NewQueryGen(db.Dialect())
	vals := make(map[string]any, len(t.Fields))
	var idCol, payloadCol string
	for _, f := range t.Fields {
		switch {
		case f.AutoIncrement:
			idCol = f.Name
		case f.GoName == "Payload":
			payloadCol = f.Name
			vals[f.Name] = bun.Safe(db.Dialect().AppendString(nil, string(query.StoredJSON(payload))))
		default:
			vals[f.Name] = bun.Safe(f.AppendValue(gen, nil, reflect.ValueOf(e).Elem()))
		}
	}
	// Through the model, which sets e.ID, with the payload's value; only
	// the id comes back (a value set by Value would be returned and read
	// into the payload's map, which cannot hold every JSON number).
	inline := func() (sql.Result, error) {
		return db.NewInsert().Model(e).ModelTableExpr("?", bun.Ident(au.table)).
			Value(payloadCol, "?", vals[payloadCol]).Returning("?", bun.Ident(idCol)).Exec(ctx)
	}
	tx, ok := db.(bun.Tx)
	if !ok || !au.stmts.Retryable(ctx) {
		_, err := inline()
		return err
	}
	params, args, ok := query.Bind(db, vals, 1)
	if !ok {
		_, err := inline()
		return err
	}
	text := db.NewInsert().Model(&params).TableExpr("?", bun.Ident(au.table)).String()
	_, err := au.stmts.ExecTx(ctx, tx.Tx, text, inline, args...)
	return err
}

// Payload is an entry's payload: a copy of meta (a request's ip and
// userAgent) with the key/value pairs of kv added, so that every entry of
// a request carries its metadata the same way.
func Payload(meta map[string]any, kv ...any) map[string]any {
	out := make(map[string]any, len(meta)+len(kv)/2)
	for k, v := range meta {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// RequestMeta is what every entry a request writes says of it: the
// client's ip (as the caller resolved it behind its trusted proxies) and
// its User-Agent, cut at 512 bytes.
func RequestMeta(r *http.Request, ip string) map[string]any {
	ua := r.UserAgent()
	if len(ua) > 512 {
		ua = ua[:512]
	}
	return map[string]any{"ip": ip, "userAgent": ua}
}

// Prune deletes the entries created before the given time and reports how
// many it deleted. Run it out of band (a daily job); the panel never does.
func (au *Log) Prune(ctx context.Context, before time.Time) (int64, error) {
	var table any = au.aliased()
	if au.db.Dialect().Name() == dialect.MySQL {
		table = bun.Ident(au.table) // MariaDB's DELETE from one table takes no alias (until 11.6)
	}
	res, err := au.db.NewDelete().Model((*Entry)(nil)).ModelTableExpr("?", table).Where("created_at < ?", before.UTC()).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("admin: audit prune: %w", err)
	}
	return res.RowsAffected()
}

// signInActions are the audit actions that issued a session.
var signInActions = []string{"auth.login", "auth.bootstrap"}

// SignIns returns userID's most recent sign-ins (at most n), newest first.
func (au *Log) SignIns(ctx context.Context, userID string, n int64) ([]Entry, error) {
	var rows []Entry
	err := au.db.NewSelect().Model(&rows).ModelTableExpr("?", au.aliased()).Where("operator_id = ?", userID).
		Where("action IN (?)", bun.List(signInActions)).OrderExpr("id DESC").Limit(n).Scan(ctx)
	return rows, err
}

// Event writes the entry of an event that is not a change of the
// database (a sign-in, a failed attempt, a room operation): a failure is
// logged and the answer stands. Changes of the database write their entry
// in their own transaction with RecordTx instead.
func (au *Log) Event(ctx context.Context, e Entry) {
	if err := au.Record(context.WithoutCancel(ctx), e); err != nil {
		au.log.ErrorContext(ctx, "admin: audit write failed", "action", e.Action, "resource", e.Resource, "targetId", e.TargetID, "err", err)
	}
}

// DefaultMaxPayload is Options.AuditMaxPayloadBytes' default.
const DefaultMaxPayload = 16 << 10

// capPayload bounds what one audit row stores. A payload whose JSON is at
// most limit bytes is kept as it is. In a larger one, an update's changes
// are cut first, the largest columns' each replaced by
// {"truncated": true, "bytes": N} (capChanges). A payload still too large keeps its smallest values
// (the ip, an action's name, a reason) while they fit, replaces the others
// with the string "[truncated: N bytes]", and gains the marker
// "_truncated": {"bytes": <original size>}. A payload that still does not
// fit (thousands of keys) becomes the marker and the first key names. A
// limit of 0 or less keeps everything. It returns the payload to store
// and, when the payload is kept as it is, its JSON (else nil).
func capPayload(p map[string]any, limit int) (map[string]any, []byte) {
	whole, err := json.Marshal(p)
	if err != nil {
		return p, nil // one that does not marshal fails its insert with its cause
	}
	if limit <= 0 || len(whole) <= limit {
		return p, whole
	}
	// An update's changes give way column by column, each saying it was
	// too large, before the payload's keys are cut whole.
	if c, cut := capChanges(p, len(whole), limit); cut {
		c["_truncated"] = map[string]any{"bytes": len(whole)}
		if b, err := json.Marshal(c); err == nil && len(b) <= limit {
			return c, nil
		}
		delete(c, "_truncated") // the cut below marks it
		p = c
	}
	type entry struct {
		key string
		raw []byte
	}
	entries := make([]entry, 0, len(p))
	for k, v := range p {
		raw, err := json.Marshal(v)
		if err != nil {
			raw = nil
		}
		entries = append(entries, entry{k, raw})
	}
	slices.SortFunc(entries, func(a, b entry) int {
		return cmp.Or(cmp.Compare(len(a.key)+len(a.raw), len(b.key)+len(b.raw)), cmp.Compare(a.key, b.key))
	})
	marker := map[string]any{"bytes": len(whole)}
	out := map[string]any{"_truncated": marker}
	used := 64 // the marker and the braces
	for _, e := range entries {
		cost := len(e.key) + len(e.raw) + 4
		if e.raw != nil && used+cost <= limit {
			out[e.key] = json.RawMessage(e.raw)
			used += cost
			continue
		}
		stub := fmt.Sprintf("[truncated: %d bytes]", len(e.raw))
		if used+len(e.key)+len(stub)+6 > limit {
			keys := make([]string, 0, 50)
			for _, e := range entries[:min(len(entries), 50)] {
				keys = append(keys, e.key)
			}
			marker["keys"] = keys
			return map[string]any{"_truncated": marker}, nil
		}
		out[e.key] = stub
		used += len(e.key) + len(stub) + 6
	}
	return out, nil
}
