package engine

import (
	"net/http"

	"github.com/gameadmin/admin/internal/history"
	"github.com/gameadmin/admin/internal/userdata"
)

// newUserData wires a player's data requests (GET /users/{id}/_export,
// POST /users/{id}/_erase: internal/userdata) to what only the engine
// knows: its time-limited batch reads, its ids, request metadata, body
// decoding and JSON answers.
func (a *Admin) newUserData() *userdata.Service {
	return userdata.New(userdata.Config{
		DB:        a.db,
		Resources: a.resources,
		PanelKeys: panelKeys(),
		Users:     a.users,
		Roles:     a.roles,
		Store:     a.store,
		Audit:     a.audit,
		Table:     a.tbl,
		Reports:   a.reports,
		Sanctions: a.sanctions,
		Log:       a.log,
		ScanBatch: a.queries.scanBatch,
		Gate:      a.queries.gate,
		RowID:     rowID,
		UserID:    a.usersRes.pathUserID,
		RequestMeta: func(r *http.Request) map[string]any {
			return requestMeta(r, a.clientIPs())
		},
		WithoutRequestMeta: history.WithoutRequestMeta,
		DecodeOptional:     decodeOptional,
		WriteJSON:          writeJSON,
		NotFound:           errNotFoundRoute,
	})
}
