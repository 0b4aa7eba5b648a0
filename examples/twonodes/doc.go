// Package twonodes is a test: the demo game server run twice, as separate
// processes sharing one PostgreSQL schema and one Redis, showing that a
// ban on one node closes the player's socket on the other and that the
// panel of either node sees every room (redisstore's cluster). It needs
// redis-server on the PATH and PostgreSQL.
package twonodes
