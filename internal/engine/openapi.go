package engine

import (
	"net/http"

	"github.com/gameadmin/admin/internal/catalog"
	"github.com/gameadmin/admin/internal/openapi"
)

// openAPIHandler answers the OpenAPI document (routes.go builds it): an
// operator's catalog and permissions, and what the panel has, which New
// settled.
type openAPIHandler struct {
	catalog func(op Operator) []catalog.Entry        // what GET {api} answers op
	allowed func(op Operator, o Op, key string) bool // may op do o on key
	input   openapi.Input                            // the panel's part: paths, cookie, what it has, bounds
}

// newOpenAPIHandler is the document's endpoint; in holds the panel's part
// of openapi.Input, the operator's part is added per request.
func newOpenAPIHandler(catalog func(Operator) []catalog.Entry, allowed func(Operator, Op, string) bool, in openapi.Input) *openAPIHandler {
	return &openAPIHandler{catalog: catalog, allowed: allowed, input: in}
}

// GET /admin-api/_openapi.json: an OpenAPI 3.1 document of the API as the
// signed-in operator sees it, built by package openapi from their catalog.
func (h *openAPIHandler) handleOpenAPI(w http.ResponseWriter, r *http.Request, op Operator) error {
	if !op.Role.IsOperator() {
		return errOperatorOnly
	}
	writeJSON(w, http.StatusOK, h.openAPI(op))
	return nil
}

// openAPI builds the document for op from their catalog.
func (h *openAPIHandler) openAPI(op Operator) map[string]any {
	in := h.input
	in.Operator = op
	in.Catalog = h.catalog(op)
	in.ModerateUsers = h.allowed(op, OpUpdate, "users")
	in.RoomPermissions = map[Op]bool{
		OpList:   h.allowed(op, OpList, "rooms"),
		OpUpdate: h.allowed(op, OpUpdate, "rooms"),
		OpDelete: h.allowed(op, OpDelete, "rooms"),
	}
	in.ListUsers = h.allowed(op, OpList, "users")
	return openapi.Build(in)
}

// reportKeys are the categories' keys, nil when reports are off.
func reportKeys(cs []ReportCategory) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Key)
	}
	return out
}
