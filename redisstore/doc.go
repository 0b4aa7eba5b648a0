// Package redisstore runs the admin panel on several game-server nodes that
// share one Redis: rate limits shared by every node, every room visible
// from every node's panel, and room operations and moderation that reach
// the node holding the room or the socket.
//
// It is its own Go module, so the core module github.com/gameadmin/admin
// stays free of Redis for the games that run one process.
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
// What lives where, and what happens when Redis or a node dies, is in the
// README section "Running several nodes".
package redisstore
