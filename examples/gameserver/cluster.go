package main

import (
	"flag"
	"fmt"
	"log/slog"

	"github.com/gameadmin/admin"
	"github.com/gameadmin/admin/live"
	"github.com/gameadmin/admin/redisstore"
)

// Several nodes: with -redis, this process is one node of a cluster that
// shares rate limits, rooms and moderation through Redis (docs/cluster.md):
//
//	go run ./examples/gameserver -db postgres://... -redis redis://127.0.0.1:6379 -node a -addr :8080
//	go run ./examples/gameserver -db postgres://... -redis redis://127.0.0.1:6379 -node b -addr :8081

var (
	redisFlag       = flag.String("redis", "", "Redis URL, e.g. redis://127.0.0.1:6379: run as one node of several sharing rate limits, rooms and moderation")
	nodeFlag        = flag.String("node", "", "this node's name in the cluster (default: the host name)")
	redisPrefixFlag = flag.String("redis-prefix", redisstore.DefaultPrefix, "prefix of the cluster's Redis keys and channels")
)

// cluster is the demo's Redis wiring; nil when -redis is not set. It
// names no go-redis type, so the core go.mod needs no Redis requirement
// (the demo reaches redisstore through go.work).
type cluster struct {
	rooms      *redisstore.Cluster
	limits     admin.RateLimitOptions
	health     admin.HealthCheck
	closeRedis func() error
}

// startCluster joins hub to the cluster named by the flags.
func startCluster(hub *live.Hub, log *slog.Logger) (*cluster, error) {
	if *redisFlag == "" {
		return nil, nil
	}
	// Short timeouts: when Redis goes down, the limiters and the room list
	// find out in about a second and go on without it (each node limits
	// sign-ins on its own, and lists its own rooms).
	rdb, err := redisstore.NewClient(*redisFlag)
	if err != nil {
		return nil, fmt.Errorf("-redis: %w", err)
	}
	// A Redis that is down now is no reason not to start: the node serves
	// its own players and joins the cluster when Redis answers.
	rooms, err := redisstore.NewCluster(rdb, hub, redisstore.ClusterOptions{Node: *nodeFlag, Prefix: *redisPrefixFlag, Logger: log})
	if err != nil {
		rdb.Close()
		return nil, err
	}
	log.Info("cluster node started", "node", rooms.Node(), "redis", rdb.Options().Addr)
	// Bucket names in Redis are keyed hashes, so a reader of Redis cannot
	// test a guessed email against them; every node derives the same key.
	opts := redisstore.LimiterOptions{Prefix: *redisPrefixFlag, Logger: log, KeySecret: limiterKey()}
	return &cluster{
		rooms:      rooms,
		limits:     redisstore.RateLimits(rdb, opts),
		health:     redisstore.HealthCheck(rdb),
		closeRedis: rdb.Close,
	}, nil
}

// configure points the panel's rooms, limiters and health widget at the
// cluster; the game's own login spends the panel's limiters
// (Auth().AuthenticateFrom), so it shares them too.
func (c *cluster) configure(opts *admin.Options) {
	if c == nil {
		return
	}
	opts.Rooms = c.rooms
	opts.RateLimit = c.limits
	opts.HealthChecks = append(opts.HealthChecks, c.health)
}

// close leaves the cluster; the node's rooms vanish from every panel.
func (c *cluster) close() {
	if c == nil {
		return
	}
	c.rooms.Close()
	c.closeRedis()
}
