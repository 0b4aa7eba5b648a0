package engine

import (
	"cmp"
	"net/http"

	"github.com/gameadmin/admin/internal/catalog"
	"github.com/gameadmin/admin/internal/openapi"
)

// GET /admin-api/_openapi.json: an OpenAPI 3.1 document of the API as the
// signed-in operator sees it, built by package openapi from their catalog.
func (a viewsAPI) handleOpenAPI(w http.ResponseWriter, r *http.Request, op Operator) error {
	if !op.Role.IsOperator() {
		return errOperatorOnly
	}
	writeJSON(w, http.StatusOK, a.openAPI(op, false))
	return nil
}

// openAPI builds the document for op; every action, whatever role may
// run it, with allActions (the panel's own tests check every answer
// against one document).
func (a viewsAPI) openAPI(op Operator, allActions bool) map[string]any {
	cat := a.catalog(op)
	if allActions {
		for i, e := range cat {
			var acts []catalog.Action
			for _, act := range a.resources[e.Name].cfg.Actions {
				acts = append(acts, catalog.Action{Name: act.Name, Label: cmp.Or(act.Label, act.Name)})
			}
			cat[i].Actions = acts
		}
	}
	return openapi.Build(openapi.Input{
		Operator:      op,
		Catalog:       cat,
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
	})
}
