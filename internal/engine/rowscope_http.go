package engine

import (
	"encoding/json"
	"net/http"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/users"
)

// A mod's row scope over HTTP (Moderation.SetRowScope for the UI's user
// page): GET and PUT /users/{id}/row-scope, admins only. The values are
// those of each resource's ScopeColumn whose rows the mod sees; null
// leaves the mod unscoped to rows.

// Bounds of a row scope sent over HTTP.
const (
	maxRowScopeValues = 100 // values in one row scope
	maxRowScopeValue  = 200 // characters in one value
)

// rowScopeHandler answers a user's row scope over the roles table and
// Moderation, which audits each change.
type rowScopeHandler struct {
	db     *bun.DB
	roles  *users.RoleTable
	mod    *Moderation
	userID func(*http.Request) (string, error) // the {id} of the path, a users row's id
}

// rowScopeAnswer is a user's row scope: values nil when unscoped.
type rowScopeAnswer struct {
	UserID string   `json:"userId"`
	Values []string `json:"values"`
}

// user is the {id} of the path once op is known to be an admin and the
// user to exist (404 otherwise).
func (h *rowScopeHandler) user(r *http.Request, op Operator) (string, error) {
	if op.Role != RoleAdmin {
		return "", errorf(http.StatusForbidden, "forbidden", "only an admin can see or set a row scope").WithParams("reason", "admin_only")
	}
	userID, err := h.userID(r)
	if err != nil {
		return "", err
	}
	if _, err := h.roles.UserRole(r.Context(), h.db, userID); err != nil {
		return "", err
	}
	return userID, nil
}

// GET /admin-api/users/{id}/row-scope
func (h *rowScopeHandler) handleGet(w http.ResponseWriter, r *http.Request, op Operator) error {
	userID, err := h.user(r, op)
	if err != nil {
		return err
	}
	values, err := h.roles.ReadRowScope(r.Context(), h.db, userID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rowScopeAnswer{UserID: userID, Values: values})
	return nil
}

// PUT /admin-api/users/{id}/row-scope {"values": ["alpha"]} sets the
// row scope ({"values": null} clears it, [] lets the mod see no row of a
// scoped resource), audited as "role.set_row_scope".
func (h *rowScopeHandler) handlePut(w http.ResponseWriter, r *http.Request, op Operator) error {
	userID, err := h.user(r, op)
	if err != nil {
		return err
	}
	var body struct {
		Values json.RawMessage `json:"values"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if body.Values == nil {
		return fieldError(http.StatusBadRequest, "missing_field", "values", "values is required: a list of the scope column's values, or null for every row").WithParams("field", "values")
	}
	var values []string
	if string(body.Values) != "null" {
		values = []string{}
		if err := json.Unmarshal(body.Values, &values); err != nil {
			return fieldError(http.StatusBadRequest, "invalid_value", "values", "values must be a list of text values, or null")
		}
	}
	if len(values) > maxRowScopeValues {
		return fieldError(http.StatusBadRequest, "invalid_value", "values", "a row scope holds at most %d values", maxRowScopeValues)
	}
	for _, v := range values {
		if v == "" || utf8.RuneCountInString(v) > maxRowScopeValue || !utf8.ValidString(v) {
			return fieldError(http.StatusBadRequest, "invalid_value", "values", "each value is non-empty text of at most %d characters", maxRowScopeValue)
		}
	}
	if err := h.mod.SetRowScope(r.Context(), userID, values); err != nil {
		return err
	}
	if values, err = h.roles.ReadRowScope(r.Context(), h.db, userID); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rowScopeAnswer{UserID: userID, Values: values})
	return nil
}

// rowsOf is op's row scope as /auth/me answers it: nil unless op is a
// row-scoped mod.
func rowsOf(op Operator) []string {
	if !op.RowScoped() {
		return nil
	}
	return op.Rows
}
