package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"io/fs"
	"net/http"
	"time"

	"github.com/gameadmin/admin/internal/testhook"
	"github.com/gameadmin/admin/internal/uiserve"
	"github.com/uptrace/bun"
)

// expose hands the panel's own tests (the dbtest module) what they check
// from inside, when NewContext's context carries a testhook; see
// internal/testhook. Nothing here runs for a game.
func (a *Admin) expose(fn func(*testhook.Internals)) {
	ui, _ := fs.Sub(a.ui, "ui/dist")
	fn(&testhook.Internals{
		SetNow:            func(now func() time.Time) { a.auth.totp.now = now },
		SetWidgetTimeout:  func(d time.Duration) { a.widgetTimeout = d },
		SetTabCountBudget: func(d time.Duration) { a.tabCountBudget = d },
		HoldExport:        func(userID string) (func(), bool) { return a.exports.Hold(userID, 1) },
		SessionStmt: func() *sql.Stmt {
			a.sessionStmt.mu.Lock()
			defer a.sessionStmt.mu.Unlock()
			return a.sessionStmt.stmt
		},
		PreparedTexts: a.stmts.Prepared,
		ResetStmtFailures: func() {
			a.sessionStmt.mu.Lock()
			defer a.sessionStmt.mu.Unlock()
			a.sessionStmt.failures = 0
		},
		MaxStmtFailures: maxStmtFailures,
		Authenticate: func(ctx context.Context, r *http.Request) error {
			_, err := a.authenticate(ctx, r)
			return err
		},
		Handler:    func(fn func(http.ResponseWriter, *http.Request) error) http.Handler { return a.public(fn) },
		WriteJSON:  writeJSON,
		Secret:     a.tokens.signer.Secret,
		Production: a.opts.Production,
		CreateUser: func(ctx context.Context, email, hash string) (string, error) {
			return a.users.createUser(ctx, a.db, email, "", hash)
		},
		Account: func(ctx context.Context, id string) (string, string, int64, error) {
			acc, err := a.users.accountByID(ctx, a.db, id)
			if err != nil {
				return "", "", 0, err
			}
			return acc.Email, acc.PasswordHash, acc.TokenVersion, nil
		},
		AdminExists: func(ctx context.Context) (bool, error) { return a.adminExists(ctx, a.db) },
		Schema:      builtinSchema,
		Plan:        a.plan,
		HasDefault: func(resource, column string) bool {
			res, ok := a.resources[resource]
			return ok && res.table.ByName[column] != nil && res.table.ByName[column].HasDefault
		},
		TakeSample:    a.takeSample,
		OpenAPI:       func() ([]byte, error) { return json.Marshal(viewsAPI{a}.openAPI(Operator{Role: RoleAdmin}, true)) },
		SetEraseFault: func(fn func(ctx context.Context, tx bun.Tx, step string) error) { a.eraseFault = fn },
		UI:            ui,
		UICSP:         uiserve.CSP,
	})
}
