// Package catalog holds the types of the catalog (GET /admin-api): every
// resource an operator may list or read, with its columns, relations,
// actions and the operator's own permissions, so the UI offers only what
// will work, and the OpenAPI document (internal/openapi) describes the
// same API. The engine builds the catalog from its resources; this
// package is only the shape, and imports nothing of the panel.
package catalog

import (
	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/schema"
)

// Entry is one resource as an operator sees it.
type Entry struct {
	Name        string     `json:"name"`
	Label       string     `json:"label"`
	Icon        string     `json:"icon"`
	PrimaryKey  []string   `json:"primaryKey"`
	Columns     []Column   `json:"columns"`
	ListColumns []string   `json:"listColumns,omitempty"`
	FormFields  []string   `json:"formFields,omitempty"`
	ShowFields  []string   `json:"showFields,omitempty"`
	DefaultSort *Sort      `json:"defaultSort,omitempty"`
	Actions     []Action   `json:"actions"`
	Relations   []Relation `json:"relations"`
	// Permissions are the operations the operator may run on it.
	Permissions map[authz.Op]bool `json:"permissions"`
	// BanColumn, on the users resource, is the column holding the ban
	// (UserColumns.Ban), when bans are on: the UI's badge, quick filter
	// (_banned) and moderation read it.
	BanColumn string `json:"banColumn,omitempty"`
	// Users marks the panel's users resource, the accounts it signs in:
	// moderation, data requests and roles are about its rows.
	Users bool `json:"users,omitempty"`
	// Builtin marks a built-in table in its built-in model (BuiltinTables):
	// its label and the labels of its columns and relations are the
	// panel's English words, which the UI translates; a label the game
	// set is shown as sent.
	Builtin bool `json:"builtin,omitempty"`
	// ErasedPattern, on the users resource, is a regular expression (RE2
	// and JavaScript read it alike) matching the email and names an erase
	// (POST /users/{id}/_erase) writes: such an account reads as erased.
	ErasedPattern string `json:"erasedPattern,omitempty"`
	// EmailColumn, on the users resource, is UserColumns.Email: what an
	// erase asks the operator to type back.
	EmailColumn string `json:"emailColumn,omitempty"`
	// UsernameColumn, on the users resource, is UserColumns.Username:
	// the login name, which names an account after its display name.
	UsernameColumn string `json:"usernameColumn,omitempty"`
	// SoftDeleteColumn is the model's soft-delete column (deleted_at),
	// when it has one the operator reads: a delete sets it and keeps the
	// row, the list leaves deleted rows out unless asked (_deleted=only
	// for the Deleted view, include for all), and POST …/{id}/_restore
	// brings one back.
	SoftDeleteColumn string `json:"softDeleteColumn,omitempty"`
	// ScopeColumn is the column a mod's row scope reads
	// (ResourceConfig.ScopeColumn): a row-scoped mod sees the rows whose
	// ScopeColumn holds one of their values (the operator's rows).
	ScopeColumn string `json:"scopeColumn,omitempty"`
	// ReadOnly says why the panel only reads the resource (a view, a
	// table without a primary key); "" when it writes it too. Its
	// Permissions then deny create, update and delete to everyone.
	ReadOnly string `json:"readOnly,omitempty"`
	// AuditActions are the audit log's actions in words (action → label),
	// on its own entry (adminAudit) only: every action the panel records
	// (package audit's list); a game's own are shown as recorded.
	AuditActions map[string]string `json:"auditActions,omitempty"`
}

// Column is one column of an Entry.
type Column struct {
	Name       string          `json:"name"`
	Label      string          `json:"label"`
	Type       string          `json:"type"`
	DataType   schema.DataType `json:"dataType"`
	NotNull    bool            `json:"notNull"`
	Primary    bool            `json:"primary"`
	HasDefault bool            `json:"hasDefault"`
	ReadOnly   bool            `json:"readOnly"`
	// Sortable and Filterable say what _sort and filters accept: json and
	// bytes columns cannot be sorted, bytes columns only tested for null.
	Sortable   bool `json:"sortable"`
	Filterable bool `json:"filterable"`
	// Masked columns show the operator their values through a mask
	// (ColumnConfig.Mask): read-only, not sortable nor filterable.
	Masked bool    `json:"masked,omitempty"`
	LinkTo *LinkTo `json:"linkTo,omitempty"`
	// Choices are ColumnConfig.Choices, else an enum's labels from the
	// database: the UI's select.
	Choices []string `json:"choices,omitempty"`
	// Kind is how the panel shows, filters and writes the column (see
	// schema.ValueKind); Elem the element kind of an array.
	Kind schema.ValueKind `json:"kind"`
	Elem schema.ValueKind `json:"elem,omitempty"`
	// Unix, on an integer column declared a unix time (kind "time"), is
	// its unit, "s" or "ms": informational, the API reads and writes
	// times.
	Unix schema.UnixUnit `json:"unix,omitempty"`
	// Required: a create must give a value (NOT NULL, no default).
	Required bool `json:"required"`
	// MaxLength is the most characters the panel writes: a varchar(n)'s
	// n, else for text Options.MaxTextLength.
	MaxLength int `json:"maxLength,omitempty"`
	// Scale, on a decimal column that declares one (numeric(12,2): 2),
	// is the digits after the point the panel shows.
	Scale *int `json:"scale,omitempty"`
	// Technical columns are the panel's machinery (the users' token
	// version): the API answers them, the UI keeps them out of the way.
	Technical bool `json:"technical,omitempty"`
}

// Action is an action of an Entry the operator may run.
type Action struct {
	Name    string   `json:"name"`
	Label   string   `json:"label"`
	PerRow  bool     `json:"perRow"`
	Confirm *Confirm `json:"confirm,omitempty"`
}

// Relation is a relation tab of an Entry.
type Relation struct {
	Name   string      `json:"name"`
	Label  string      `json:"label"`
	Target string      `json:"target"`
	Kind   schema.Kind `json:"kind"`
	FK     string      `json:"fk"`
}

// Sort is a column and a direction.
type Sort struct {
	Field string `json:"field"`
	// Order is "asc" (the default) or "desc".
	Order string `json:"order"`
}

// LinkTo makes a column a link to a row of another resource.
type LinkTo struct {
	// Resource is the target's key (the static form: the cell shows the raw value).
	Resource string `json:"resource,omitempty"`
	// ResourceFromColumn names a column of the same row holding the target
	// key (the dynamic form, used by the audit log's target_id).
	ResourceFromColumn string `json:"resourceFromColumn,omitempty"`
	// LabelColumn is the target column shown instead of the raw id; set
	// by the panel for relations of kind One.
	LabelColumn string `json:"labelColumn,omitempty"`
}

// Confirm is an action's confirmation prompt.
type Confirm struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
}
