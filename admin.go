// Package admin is an embeddable admin panel for Go game servers: operator
// sign-in with a signed session cookie, a live-read role hierarchy
// (admin > mod > user), moderation, an append-only audit log, a route guard,
// password reset and rate limits, over the game's own Bun database.
package admin

import (
	"log/slog"
)

// Admin is the panel: an http.Handler serving /admin-api/* and the UI.
type Admin struct {
	log *slog.Logger
}

// Operator is the signed-in identity of a request, read live from the
// database: its role and, for mods, the resource keys in its scopes.
// Every authenticated endpoint and Guard put it on the request context.
type Operator struct {
	UserID string   `json:"userId"`
	Role   Role     `json:"role"`
	Scopes []string `json:"scopes"`
}
