package engine

import "net/http"

// POST /auth/request-reset: always 200, so it tells nobody whether an email
// exists; the lookup and the delivery run after the answer, on the bounded
// background queue.
func (h *authHandler) handleRequestReset(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Email string `json:"email"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if err := h.auth.RequestReset(r.Context(), body.Email, h.ips.Of(r), requestMeta(r, h.ips)); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

// POST /auth/reset: sets the password and ends every session of the user.
func (h *authHandler) handleReset(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Token    string `json:"token"`
		Password string `json:"password"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if err := h.auth.ResetPassword(r.Context(), body.Token, body.Password, requestMeta(r, h.ips)); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}
