package rows

import (
	"context"
	"slices"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/catalog"
	"github.com/gameadmin/admin/internal/schema"
)

// ResourceConfig is admin.ResourceConfig, field for field (the root converts one to the
// other, so the compiler keeps them equal); its documentation is there.
type ResourceConfig struct {
	Label     string
	Icon      string
	List      ListConfig
	Form      FormConfig
	Show      ShowConfig
	Create    CreateConfig
	Columns   map[string]ColumnConfig
	Search    []string
	Relations map[string]RelationConfig
	Actions   []Action
	Erase     EraseRule
	Policies  authz.Policies
	// VersionColumn names the column the game bumps on every write of a
	// row (version.go).
	VersionColumn string
	// ScopeColumn names the column a mod's row scope reads (scope.go).
	ScopeColumn string
}

// ListConfig is admin.ListConfig, field for field; its documentation is there.
type ListConfig struct {
	Columns     []string
	DefaultSort Sort
}

// Sort is a column and a direction (the catalog shows a list's default).
type Sort = catalog.Sort

// FormConfig is admin.FormConfig, field for field; its documentation is there.
type FormConfig struct {
	Fields []string
}

// ShowConfig is admin.ShowConfig, field for field; its documentation is there.
type ShowConfig struct {
	Fields []string
}

// CreateConfig is admin.CreateConfig, field for field; its documentation is there.
type CreateConfig struct {
	Defaults func(ctx context.Context, c DefaultsContext) (map[string]any, error)
}

// DefaultsContext is admin.DefaultsContext, field for field; its documentation is there.
type DefaultsContext struct {
	OperatorID string
	Resource   string
}

// ColumnConfig is admin.ColumnConfig, field for field; its documentation is there.
type ColumnConfig struct {
	Label    string
	LinkTo   *LinkTo
	Hidden   bool
	ReadOnly bool
	ReadRole authz.Role
	Mask     func(v any) any
	Personal bool
	Choices  []string
	UnixTime schema.UnixUnit
}

// LinkTo makes a column a link to a row of another resource (as the
// catalog tells the UI).
type LinkTo = catalog.LinkTo

// RelationConfig is admin.RelationConfig, field for field; its documentation is there.
type RelationConfig struct {
	Label string
}

// Action is admin.Action, field for field; its documentation is there.
type Action struct {
	Name     string
	Label    string
	PerRow   bool
	LoadRows bool
	Confirm  *catalog.Confirm
	Roles    []authz.Role
	Handler  func(ctx context.Context, row map[string]any, c ActionContext) (any, error)
}

// ActionContext is admin.ActionContext, field for field; its documentation is there.
type ActionContext struct {
	UserID   string
	Role     authz.Role
	Resource string
	Args     map[string]any
	IDs      []map[string]any
	Rows     []map[string]any
}

// Allows reports whether an operator of role may run the action: any
// role when Roles is empty.
func (act Action) Allows(role authz.Role) bool {
	return len(act.Roles) == 0 || slices.Contains(act.Roles, role)
}

// EraseRule says what erasing a user does to a resource's rows that refer
// to the user: set it as ResourceConfig.Erase. Without one, rows whose
// reference is NOT NULL are deleted and nullable references are cleared.
type EraseRule interface{ eraseRule() string }

type eraseDelete struct{}
type eraseKeep struct{}

func (eraseDelete) eraseRule() string { return "delete" }
func (eraseKeep) eraseRule() string   { return "keep" }

var (
	// EraseDelete deletes the rows.
	EraseDelete EraseRule = eraseDelete{}
	// EraseKeep keeps the rows as they are: a legal hold (purchases kept
	// for the tax office). They stay linked to the erased account, whose
	// own personal values are gone.
	EraseKeep EraseRule = eraseKeep{}
	// EraseUnlink is the default for a nullable reference: the reference
	// cleared, the row kept. It is the erase's own; no game names it.
	EraseUnlink EraseRule = eraseUnlink{}
)

// EraseAnonymize keeps the rows and clears Columns in them: NULL, or
// "[erased]" in a NOT NULL text column.
type EraseAnonymize struct {
	Columns []string
}

func (EraseAnonymize) eraseRule() string { return "anonymize" }

type eraseUnlink struct{}

func (eraseUnlink) eraseRule() string { return "unlink" }

// RuleName is the name an erase report gives rule: "delete", "keep",
// "anonymize" or "unlink".
func RuleName(rule EraseRule) string { return rule.eraseRule() }
