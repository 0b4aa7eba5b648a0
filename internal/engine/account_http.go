package engine

import (
	"net/http"
	"slices"
	"time"

	"github.com/gameadmin/admin/internal/rows"
)

// maxSessionsShown bounds GET /auth/sessions.
const maxSessionsShown = 20

// GET /auth/sessions: the operator's own recent sign-ins, newest first, read
// from the audit log: [{time, ip, userAgent, action, secondFactor?}].
func (h *authHandler) handleSessions(w http.ResponseWriter, r *http.Request, op Operator) error {
	rows, err := h.audit.SignIns(r.Context(), op.UserID, maxSessionsShown)
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(rows))
	for _, e := range rows {
		s := map[string]any{"time": e.CreatedAt.UTC().Format(time.RFC3339), "action": e.Action, "ip": e.Payload["ip"], "userAgent": e.Payload["userAgent"]}
		if f, ok := e.Payload["secondFactor"]; ok {
			s["secondFactor"] = f
		}
		out = append(out, s)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// POST /auth/password {current, new}: changes the operator's own password.
// Every other session ends; this one gets a fresh cookie.
func (h *authHandler) handlePasswordChange(w http.ResponseWriter, r *http.Request, op Operator) error {
	var body struct {
		Current string `json:"current"`
		New     string `json:"new"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	tv, err := h.auth.ChangePassword(r.Context(), op.UserID, body.Current, body.New, h.ips.Of(r), requestMeta(r, h.ips))
	if err != nil {
		return err
	}
	if err := h.tokens.SetSessionCookie(w, op.UserID, op.Role, tv); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

// uiLocales are the languages of the panel's UI, each a directory of
// ui/src/locales (TestUILocales holds the two lists together): the
// values PUT /auth/locale takes.
var uiLocales = []string{"en", "de"}

// PUT /auth/locale {locale}: the language the operator reads the UI in,
// kept with the account (GET /auth/me's locale); "" clears the choice,
// and the UI follows the browser's. The operator's own display
// preference, as the theme is: not audited.
func (h *authHandler) handleLocale(w http.ResponseWriter, r *http.Request, op Operator) error {
	var body struct {
		Locale *string `json:"locale"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if body.Locale == nil {
		return errorf(http.StatusBadRequest, "missing_field", "locale is required").WithParams("field", "locale")
	}
	if *body.Locale != "" && !slices.Contains(uiLocales, *body.Locale) {
		return errorf(http.StatusBadRequest, "invalid_value", "locale must be one of %s, or \"\" for the browser's language", rows.Quoted(uiLocales)).
			WithParams("field", "locale", "accepted", uiLocales)
	}
	if err := h.prefs.SetLocale(r.Context(), op.UserID, *body.Locale); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"locale": *body.Locale})
	return nil
}
