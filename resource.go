package admin

import (
	"context"

	"github.com/gameadmin/admin/internal/engine"
)

// Action is a custom button on a resource's list page: per row, or a bulk
// action on the toolbar.
type Action struct {
	// Name is the last segment of POST /admin-api/<key>/_action/<name>.
	Name string
	// Label is the button text. Default: the humanized Name.
	Label string
	// PerRow puts the action in each row's menu; it then receives the row
	// the body's {id} names. Default false: a bulk action, which receives
	// a nil row and, when the body carries {ids: [...]}, the selection in
	// ActionContext.IDs.
	PerRow bool
	// LoadRows gives a bulk action the selected rows too, in
	// ActionContext.Rows (read in one query, without hidden columns).
	LoadRows bool
	// Confirm is the confirmation prompt. Default: the UI asks
	// `Run "<Label>"?`.
	Confirm *Confirm
	// Roles may invoke the action, checked literally (admin is not
	// implied). Empty: any admin or mod (a plain user too, with
	// Options.PlayersCanRead), and the action then bypasses the resource's
	// policies — list admin explicitly for admin-only actions.
	Roles []Role
	// Handler runs the action. Its result must marshal to JSON; the
	// operator is answered it with the columns their role may not read
	// (ReadRole, Hidden) masked or left out wherever its objects name
	// them, as rows do. Return an error made with NewError to answer the
	// operator with its status and message; any other error is logged and
	// answered with a generic 500.
	// It runs outside any transaction of the panel; its audit entry
	// ("custom", with the body and the result) is written after it returns,
	// and if that write fails the operator gets a 500 and the log line
	// carries the result. A panic is recovered, logged with its stack and
	// answered 500.
	Handler func(ctx context.Context, row map[string]any, c ActionContext) (any, error)
}

// Confirm is an action's confirmation prompt.
type Confirm = engine.Confirm

// ActionContext is what an Action's Handler receives besides the row.
type ActionContext struct {
	UserID   string
	Role     Role
	Resource string
	// Args is the full request body, decoded with encoding/json's
	// UseNumber: a JSON number arrives as a json.Number (call Int64 or
	// Float64), never a float64 that would round a large id.
	Args map[string]any
	// IDs is a bulk action's selection: the rows the body's
	// {ids: [...]} names, in that order without repeats, each as its
	// primary key keyed by SQL column name and typed by its column (an
	// int64 for an integer key, a string for text):
	// {"id": int64(7)}, or {"user_id": "…", "slot": "a"} for a
	// composite key. An element of ids is a string or number, as the
	// path's :id (a composite id is its base64url JSON array); a malformed
	// one, or one naming no row, answers 400 before the handler runs.
	// nil when the body has no ids.
	IDs []map[string]any
	// Rows are the selected rows, in the order of IDs, when
	// Action.LoadRows; else nil.
	Rows []map[string]any
}

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
	return engine.DefineResource(model, cfg.compile())
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
	// VersionColumn names a column the game bumps on every write of a row
	// (an integer it increments, or a timestamp it sets to now): the
	// row's ETag is then derived from it alone, so a write of the game
	// that does not bump it is not a change the panel's If-Match sees.
	// The panel's own updates bump it too (an integer by one, a time to
	// Options.Clock's now, past the stored one), so the game's optimistic
	// checks see an operator's write; operators cannot set it (it is
	// read-only), and a create without a database default for it stores
	// 1 or now. It must be a visible integer or time column, not a key.
	// Default "": the ETag is a keyed digest of the row's visible
	// columns (docs/api.md, "Versions").
	VersionColumn string
	// ScopeColumn names the column that says whose a row is when one
	// table holds several games, shards or regions (e.g. "game_id"): a
	// mod given a row scope (Moderation.SetRowScope, or the user page's
	// "Rows of") sees and touches only the rows whose ScopeColumn holds
	// one of its values, on every path (lists, counts, search, relation
	// tabs, exports, history, writes, moderation); the others answer 404.
	// It must be a visible text or integer column. Default "": the
	// resource is not narrowed by row scopes. Admins are never narrowed.
	ScopeColumn string
}

// ListConfig configures the list page.
type ListConfig struct {
	// Columns shown, in order; primary keys are always included. Default: all.
	Columns []string
	// DefaultSort applies when a request names no _sort. Default: the
	// primary key, ascending.
	DefaultSort Sort
}

// Sort is a column and a direction.
type Sort = engine.Sort

// FormConfig configures the create and edit forms.
type FormConfig struct {
	// Fields shown, in order. Default: all. The create form also hides
	// primary keys and columns with a database default.
	Fields []string
}

// ShowConfig configures the detail page.
type ShowConfig struct {
	// Fields shown, in order. Default: all.
	Fields []string
}

// CreateConfig configures creation.
type CreateConfig struct {
	// Defaults returns values merged into a create body before the INSERT;
	// the body wins on conflict. Keys may be SQL column names or Go field
	// names. OperatorID is the signed-in operator.
	Defaults func(ctx context.Context, c DefaultsContext) (map[string]any, error)
}

// DefaultsContext is what CreateConfig.Defaults receives.
type DefaultsContext struct {
	OperatorID string
	Resource   string
}

// ColumnConfig configures one column.
type ColumnConfig struct {
	// Label overrides the humanized column name.
	Label string
	// LinkTo renders the cell as a link to another resource's row.
	LinkTo *LinkTo
	// Hidden columns are never sent in any response nor accepted in any
	// body or filter.
	Hidden bool
	// ReadOnly columns are never written by create or update; a body that
	// sets one is refused.
	ReadOnly bool
	// ReadRole is the lowest role that reads the column: RoleAdmin keeps a
	// player's email from mods. Below it the column is as if Hidden, for
	// that operator only (visibility.go). Default "": whoever may read the
	// row.
	ReadRole Role
	// Mask, with ReadRole, shows the roles below it the column's values
	// through Mask (MaskEmail gives "a***@example.com") instead of leaving
	// the column out; they still cannot filter, sort, search or write it.
	Mask func(v any) any
	// Personal marks a users column as personal data besides the email and
	// display name: an erase clears it (NULL; in a NOT NULL text column
	// "erased-<id>", the row's own so that a UNIQUE column takes it, or a
	// digest of the id when that is longer than the column's varchar(n))
	// and the audit log's copies of it.
	Personal bool
	// Choices are the values the column may take (an enum-like text
	// column): the UI offers them in a select, and create and update
	// refuse any other non-null value with 400 invalid_value. Default nil:
	// any value.
	Choices []string
	// UnixTime declares an integer column a unix time in seconds
	// (UnixSeconds) or milliseconds (UnixMillis), as the struct tag
	// admin:"unixtime" (or admin:"unixtime=ms") on the model's field does:
	// the catalog gives it kind "time" (with "unix": "s" or "ms"), the API
	// shows it as an ISO 8601 UTC time, filters, sorts and charts it as a
	// time, writes an RFC 3339 time (or, as before, an integer) as the
	// integer, and the CSV export shows ISO 8601. A non-integer column is
	// an error at New. Default "": the column is what its type says.
	UnixTime UnixUnit
}

// UnixUnit is the unit of ColumnConfig.UnixTime.
type UnixUnit = engine.UnixUnit

// The units of a unix time column.
const (
	UnixSeconds UnixUnit = engine.UnixSeconds // seconds since 1970-01-01 UTC
	UnixMillis  UnixUnit = engine.UnixMillis  // milliseconds since 1970-01-01 UTC
)

// LinkTo makes a column a link to a row of another resource.
type LinkTo = engine.LinkTo

// RelationConfig configures one relation tab.
type RelationConfig struct {
	// Label overrides the humanized relation name.
	Label string
}

// RelationKind says how many target rows a relation reaches from one row.
type RelationKind = engine.RelationKind

const One = engine.One

const Many = engine.Many

// Relation declares a relation of a table (Options.Relations). FK is the
// column holding the reference, as a Go field or SQL name: a column of
// this table for One, of the target for Many. Relations are also read from
// Bun rel: tags. Targets with a composite primary key are skipped.
type Relation struct {
	Name   string
	Target string
	Kind   RelationKind
	FK     string
}

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

// compile turns the declaration into the engine's form: the structs whose
// fields are the same convert, the functions a game wrote are wrapped to
// take the engine's contexts. TestCompileKeepsEveryField fails when a
// field is added to one side only or left out here.
func (c ResourceConfig) compile() engine.ResourceConfig {
	out := engine.ResourceConfig{
		Label:    c.Label,
		Icon:     c.Icon,
		List:     engine.ListConfig(c.List),
		Form:     engine.FormConfig(c.Form),
		Show:     engine.ShowConfig(c.Show),
		Search:   c.Search,
		Erase:    c.Erase,
		Policies: c.Policies,

		VersionColumn: c.VersionColumn,
		ScopeColumn:   c.ScopeColumn,
	}
	if d := c.Create.Defaults; d != nil {
		out.Create.Defaults = func(ctx context.Context, dc engine.DefaultsContext) (map[string]any, error) {
			return d(ctx, DefaultsContext(dc))
		}
	}
	if c.Columns != nil {
		out.Columns = make(map[string]engine.ColumnConfig, len(c.Columns))
		for k, v := range c.Columns {
			out.Columns[k] = engine.ColumnConfig(v)
		}
	}
	if c.Relations != nil {
		out.Relations = make(map[string]engine.RelationConfig, len(c.Relations))
		for k, v := range c.Relations {
			out.Relations[k] = engine.RelationConfig(v)
		}
	}
	for _, act := range c.Actions {
		out.Actions = append(out.Actions, act.compile())
	}
	return out
}

// compile is the engine's form of an action.
func (act Action) compile() engine.Action {
	out := engine.Action{Name: act.Name, Label: act.Label, PerRow: act.PerRow, LoadRows: act.LoadRows, Confirm: act.Confirm, Roles: act.Roles}
	if h := act.Handler; h != nil {
		out.Handler = func(ctx context.Context, row map[string]any, c engine.ActionContext) (any, error) {
			return h(ctx, row, ActionContext(c))
		}
	}
	return out
}
