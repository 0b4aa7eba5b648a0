package audit

// The actions the panel records, each with the words an operator reads
// for it. This is the one list: the catalog serves it (the adminAudit
// entry's auditActions) and the UI shows these words wherever an action
// is shown (the audit log, an entry, a row's History, the dashboard) and
// the audit log's CSV export adds them as its "action_label" column. A
// game's own actions (Audit().Record) have no label here: they are shown
// as recorded. Admintest's TestAuditActionLabels reads the module's
// source for every action it records and fails on one missing here.

// actionLabels is every action the panel records, in the order the UI
// suggests them.
var actionLabels = []struct{ Action, Label string }{
	// A row of a resource.
	{"create", "Created"},
	{"update", "Updated"},
	{"delete", "Deleted"},
	{"restore", "Restored"},
	{"revert", "Reverted"},
	{"custom", "Action run"},
	{"export", "CSV exported"},
	// A user, as moderation and the data requests see them.
	{"user.ban", "Banned"},
	{"user.unban", "Unbanned"},
	{"user.revoke_sessions", "Sessions revoked"},
	{"user.sessions_closed", "Live connections closed"},
	{"user.invite", "Invited"},
	{"user.totp_reset", "Two-factor reset"},
	{"user.export", "Data exported"},
	{"user.erase", "Erased"},
	// Players' reports.
	{"report.file", "Report filed"},
	{"report.claim", "Reports claimed"},
	{"report.release", "Claim released"},
	{"report.resolve", "Reports resolved"},
	// Operators' roles.
	{"role.set", "Role changed"},
	{"role.assign_mod", "Made mod"},
	{"role.unassign_mod", "Mod removed"},
	{"role.set_row_scope", "Row scope changed"},
	// Live rooms.
	{"room.kick", "Kicked"},
	{"room.lock", "Room locked"},
	{"room.unlock", "Room unlocked"},
	{"room.state.edit", "Room state edited"},
	{"room.state.delete", "Room state deleted"},
	{"room.dispose", "Room closed"},
	// Signing in and the account.
	{"auth.login", "Signed in"},
	{"auth.login_failed", "Sign-in failed"},
	{"auth.logout", "Signed out"},
	{"auth.bootstrap", "First admin created"},
	{"auth.rate_limited", "Rate limited"},
	{"auth.totp_challenge", "Code asked for"},
	{"auth.totp_failed", "Wrong code"},
	{"auth.recovery_used", "Recovery code used"},
	{"auth.totp_enabled", "Two-factor turned on"},
	{"auth.totp_disabled", "Two-factor turned off"},
	{"auth.recovery_codes_regenerated", "Recovery codes renewed"},
	{"auth.password_changed", "Password changed"},
	{"auth.password_reset_requested", "Password reset asked for"},
	{"auth.password_reset_completed", "Password reset"},
	{"auth.reset_delivery_limited", "Reset email held back"},
}

// ActionLabels is a copy of every action the panel records with its label.
func ActionLabels() map[string]string {
	out := make(map[string]string, len(actionLabels))
	for _, a := range actionLabels {
		out[a.Action] = a.Label
	}
	return out
}

// ActionLabel is action's label, or action itself when the panel does not
// record it (a game's own).
func ActionLabel(action string) string {
	for _, a := range actionLabels {
		if a.Action == action {
			return a.Label
		}
	}
	return action
}
