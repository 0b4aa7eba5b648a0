// Package admin is an embeddable admin panel for Go game servers: operator
// sign-in with a signed session cookie, a live-read role hierarchy
// (admin > mod > user) with per-resource mod scopes, moderation, an
// append-only audit log, a route guard, password reset and rate limits, over
// the game's own Bun database (PostgreSQL or SQLite).
//
// Mount it on the game's mux:
//
//	a, err := admin.New(db, admin.Options{})
//	if err != nil { ... }
//	defer a.Close()
//	a.Mount(mux) // /admin-api/ and /admin/
package admin
