package admin

import "github.com/gameadmin/admin/internal/engine"

// Action is a custom button on a resource's list page: per row, or a bulk
// action on the toolbar.
type Action = engine.Action

// Confirm is an action's confirmation prompt.
type Confirm = engine.Confirm

// ActionContext is what an Action's Handler receives besides the row.
type ActionContext = engine.ActionContext

// Resource is how one table looks and behaves in the panel. Create it with
// DefineResource and put it in Options.Resources under the table's key.
type Resource = engine.Resource

// DefineResource describes the panel's view of a Bun model. model is the
// table's model, as in Options.Tables: a Resource needs no Tables entry,
// and New fails when the Tables entry under its key is another model.
// Names in List.Columns, Form.Fields, Show.Fields, Search,
// List.DefaultSort and the keys of Columns are SQL column names, and the
// keys of Relations are relation names; New fails on a name that is none
// (a Go field name included), naming the closest valid one.
func DefineResource(model any, cfg ResourceConfig) *Resource {
	return engine.DefineResource(model, engine.ResourceConfig(cfg))
}

// ResourceConfig configures a Resource. Every field is optional.
type ResourceConfig struct {
	// Label is the sidebar and page title. Default: the humanized key.
	Label string
	// Icon is a name from IconNames. Default: guessed from the table name
	// (*_users gives "user", *_scores "trophy"), else "database".
	Icon string
	// List configures the list page.
	List ListConfig
	// Form configures the create and edit forms.
	Form FormConfig
	// Show configures the read-only detail page.
	Show ShowConfig
	// Create configures creation.
	Create CreateConfig
	// Columns configures single columns, by SQL name.
	Columns map[string]ColumnConfig
	// Search names the columns _q searches, by SQL name. Default: every
	// text column. On PostgreSQL give each a pg_trgm GIN index (docs/performance.md,
	// "Large tables").
	Search []string
	// Relations configures relation tabs, by relation name.
	Relations map[string]RelationConfig
	// Actions are custom buttons on the list page.
	Actions []Action
	// Erase says what erasing a user's data (POST users/{id}/_erase) does
	// to this resource's rows that refer to the user: EraseDelete,
	// EraseKeep or EraseAnonymize{Columns}. Default: rows whose reference
	// is NOT NULL are deleted, nullable references cleared.
	Erase EraseRule
	// Policies override the standard rule per action. On a built-in
	// resource an operation left unset keeps the built-in policy, so the
	// audit log stays append-only whatever else is opened.
	Policies Policies
}

// ListConfig configures the list page.
type ListConfig = engine.ListConfig

// Sort is a column and a direction.
type Sort = engine.Sort

// FormConfig configures the create and edit forms.
type FormConfig = engine.FormConfig

// ShowConfig configures the detail page.
type ShowConfig = engine.ShowConfig

// CreateConfig configures creation.
type CreateConfig = engine.CreateConfig

// DefaultsContext is what CreateConfig.Defaults receives.
type DefaultsContext = engine.DefaultsContext

// ColumnConfig configures one column.
type ColumnConfig = engine.ColumnConfig

// LinkTo makes a column a link to a row of another resource.
type LinkTo = engine.LinkTo

// RelationConfig configures one relation tab.
type RelationConfig = engine.RelationConfig

// RelationKind says how many target rows a relation reaches from one row.
type RelationKind = engine.RelationKind

const One = engine.One

const Many = engine.Many

// Relation declares a relation of a table (Options.Relations). FK is the
// column holding the reference, as a Go field or SQL name: a column of
// this table for One, of the target for Many. Relations are also read from
// Bun rel: tags. Targets with a composite primary key are skipped.
type Relation = engine.Relation

// IconNames returns the built-in icon set a ResourceConfig.Icon names from,
// a new slice each call.
func IconNames() []string {
	return engine.IconNames()
}

// MaskEmail shows an email as its first letter and its domain:
// "alice@example.com" reads "a***@example.com". Anything else reads "***".
func MaskEmail(v any) any {
	return engine.MaskEmail(v)
}
