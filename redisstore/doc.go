// Package redisstore runs the admin panel on several game-server nodes that
// share one Redis: rate limits shared by every node, every room visible
// from every node's panel, and room operations and moderation that reach
// the node holding the room or the socket.
//
// It is its own Go module, so the core module github.com/gameadmin/admin
// stays free of Redis for the games that run one process. Its go.mod
// requires the admin module at the commit it was last built against (a
// pseudo-version); go get picks that or any newer admin the game already
// uses. Until the repository has release tags, fetch both from the same
// commit so they agree:
//
//	go get github.com/gameadmin/admin@main github.com/gameadmin/admin/redisstore@main
//
//	rdb := redis.NewClient(opt)
//	cluster, err := redisstore.NewCluster(rdb, hub, redisstore.ClusterOptions{Node: "eu-1"})
//	if err != nil { ... }
//	defer cluster.Close()
//	a, err := admin.New(db, admin.Options{
//		Rooms:        cluster,
//		RateLimit:    redisstore.RateLimits(rdb, redisstore.LimiterOptions{}),
//		HealthChecks: []admin.HealthCheck{redisstore.HealthCheck(rdb)},
//	})
//
// What lives where, and what happens when Redis or a node dies, is in
// docs/cluster.md.
package redisstore
