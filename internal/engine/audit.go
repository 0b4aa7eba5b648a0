package engine

import "github.com/gameadmin/admin/internal/audit"

// The audit log's writer is package audit's; these are its names here,
// and the public API's through the root's wrapper and aliases.
type (
	// Audit records and prunes entries of the append-only audit log
	// (game_admin_audit, resource adminAudit).
	Audit = audit.Log
	// AuditEntry is a row of the append-only game_admin_audit table.
	AuditEntry = audit.Entry
	// UpdateRecord describes one update for RecordUpdate. Before and After
	// are maps of column to value or Bun models of the same table.
	UpdateRecord = audit.UpdateRecord
)
