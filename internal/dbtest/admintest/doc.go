// Package admintest holds the tests of package admin that need a database:
// the HTTP API, sessions, moderation and the audit on SQLite and
// PostgreSQL, through the panel's exported API and real HTTP, as a game
// would use it.
package admintest
