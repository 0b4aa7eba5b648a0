package engine

import (
	"net/http"

	"github.com/gameadmin/admin/internal/openapi"
)

// GET /admin-api/_openapi.json: an OpenAPI 3.1 document of the API as the
// signed-in operator sees it, built by package openapi from their catalog.
func (a viewsAPI) handleOpenAPI(w http.ResponseWriter, r *http.Request, op Operator) error {
	if !op.Role.IsOperator() {
		return errOperatorOnly
	}
	writeJSON(w, http.StatusOK, a.openAPI(op))
	return nil
}

// openAPI builds the document for op from their catalog.
func (a viewsAPI) openAPI(op Operator) map[string]any {
	return openapi.Build(openapi.Input{
		Operator:      op,
		Catalog:       a.catalog(op),
		APIPath:       a.opts.APIPath,
		CookieName:    a.opts.Session.CookieName,
		Audit:         a.resources["adminAudit"] != nil,
		Users:         a.resources["users"] != nil,
		ModerateUsers: a.allowed(op, OpUpdate, "users"),
		Rooms:         a.opts.Rooms != nil,
		RoomPermissions: map[Op]bool{
			OpList:   a.allowed(op, OpList, "rooms"),
			OpUpdate: a.allowed(op, OpUpdate, "rooms"),
			OpDelete: a.allowed(op, OpDelete, "rooms"),
		},
		MaxReasonLen: maxReasonLen,
		MaxBulkIDs:   maxActionIDs,

		ReportCategories: reportKeys(a.reports.Categories()),
		ListUsers:        a.allowed(op, OpList, "users"),
	})
}

// reportKeys are the categories' keys, nil when reports are off.
func reportKeys(cs []ReportCategory) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Key)
	}
	return out
}
