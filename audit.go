package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"
)

// Audit records and prunes entries of the append-only audit log
// (game_admin_audit, resource adminAudit).
type Audit struct{ a *Admin }

// Record appends one entry. CreatedAt defaults to now; Action and Resource
// are required. Unlike the panel's own endpoints, which log an audit failure
// and go on, Record returns it.
func (au *Audit) Record(ctx context.Context, e AuditEntry) error {
	if e.Action == "" || e.Resource == "" {
		return errors.New("admin: audit entry needs Action and Resource")
	}
	e.ID = 0
	if e.CreatedAt.IsZero() {
		e.CreatedAt = time.Now().UTC()
	}
	if _, err := au.a.db.NewInsert().Model(&e).Exec(ctx); err != nil {
		return fmt.Errorf("admin: audit record %s: %w", e.Action, err)
	}
	return nil
}

// UpdateRecord describes one update for RecordUpdate. Before and After are
// maps of column to value or Bun models of the same table.
type UpdateRecord struct {
	OperatorID string
	Resource   string
	TargetID   string
	Before     any
	After      any
}

// RecordUpdate appends an "update" entry whose payload holds only the
// columns that changed: {changes: {<column>: {before, after}}}. Nothing is
// written when nothing changed.
func (au *Audit) RecordUpdate(ctx context.Context, u UpdateRecord) error {
	before, err := au.a.columnValues(u.Before)
	if err != nil {
		return err
	}
	after, err := au.a.columnValues(u.After)
	if err != nil {
		return err
	}
	changes := diffColumns(before, after)
	if len(changes) == 0 {
		return nil
	}
	return au.Record(ctx, AuditEntry{OperatorID: u.OperatorID, Action: "update", Resource: u.Resource,
		TargetID: u.TargetID, Payload: map[string]any{"changes": changes}})
}

// Prune deletes the entries created before the given time and reports how
// many it deleted. Run it out of band (a daily job); the panel never does.
func (au *Audit) Prune(ctx context.Context, before time.Time) (int64, error) {
	res, err := au.a.db.NewDelete().Model((*AuditEntry)(nil)).Where("created_at < ?", before.UTC()).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("admin: audit prune: %w", err)
	}
	return res.RowsAffected()
}

// record is the panel endpoints' audit write: a failure is logged and never
// fails the mutation that already happened.
func (a *Admin) record(ctx context.Context, e AuditEntry) {
	if err := a.audit.Record(context.WithoutCancel(ctx), e); err != nil {
		a.log.ErrorContext(ctx, "admin: audit write failed", "action", e.Action, "resource", e.Resource, "targetId", e.TargetID, "err", err)
	}
}

// diffColumns returns {column: {before, after}} for every column whose value
// differs, comparing JSON encodings so that times and numbers of different Go
// types compare by value.
func diffColumns(before, after map[string]any) map[string]any {
	changes := map[string]any{}
	for col, av := range after {
		bv, had := before[col]
		if had && jsonEqual(bv, av) {
			continue
		}
		changes[col] = map[string]any{"before": bv, "after": av}
	}
	for col, bv := range before {
		if _, ok := after[col]; !ok {
			changes[col] = map[string]any{"before": bv, "after": nil}
		}
	}
	return changes
}

func jsonEqual(x, y any) bool {
	bx, errx := json.Marshal(x)
	by, erry := json.Marshal(y)
	return errx == nil && erry == nil && bytes.Equal(bx, by)
}

// columnValues turns a map or a Bun model into column name -> value. Model
// fields tagged json:"-" are left out.
func (a *Admin) columnValues(v any) (map[string]any, error) {
	switch m := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return m, nil
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return map[string]any{}, nil
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil, fmt.Errorf("admin: audit: want a map or a Bun model, got %T", v)
	}
	t := a.db.Table(rv.Type())
	out := make(map[string]any, len(t.Fields))
	for _, f := range t.Fields {
		if f.StructField.Tag.Get("json") == "-" {
			continue // secrets such as password_hash stay out of the log
		}
		out[f.Name] = f.Value(rv).Interface()
	}
	return out, nil
}
