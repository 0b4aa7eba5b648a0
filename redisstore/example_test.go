package redisstore_test

import (
	"log"
	"net/http"

	"github.com/gameadmin/admin"
	"github.com/gameadmin/admin/live"
	"github.com/gameadmin/admin/redisstore"
	"github.com/uptrace/bun"
)

// A game-server node of a cluster: its rooms, rate limits and moderation
// shared with the other nodes through Redis.
func ExampleNewCluster() {
	var db *bun.DB // the game's database, shared by every node
	rdb, err := redisstore.NewClient("redis://127.0.0.1:6379")
	if err != nil {
		log.Fatal(err)
	}
	defer rdb.Close()
	hub := live.NewHub(live.Options{AllowAnonymous: true})
	defer hub.Close()
	hub.Define("arena", live.RoomType{MaxClients: 20})

	cluster, err := redisstore.NewCluster(rdb, hub, redisstore.ClusterOptions{Node: "eu-1"})
	if err != nil {
		log.Fatal(err)
	}
	defer cluster.Close() // runs before hub.Close: the node leaves every panel at once
	a, err := admin.New(db, admin.Options{
		Rooms:        cluster,
		RateLimit:    redisstore.RateLimits(rdb, redisstore.LimiterOptions{}),
		HealthChecks: []admin.HealthCheck{redisstore.HealthCheck(rdb)},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	mux := http.NewServeMux()
	a.Mount(mux)
	mux.Handle("/ws/", http.StripPrefix("/ws/", hub))
	log.Fatal(http.ListenAndServe(":8080", mux))
}

// During a Redis outage a limiter answers from this node's own buckets by
// default; one may refuse instead, or, when it protects capacity rather
// than secrets, let requests through.
func ExampleNewLimiter() {
	rdb, err := redisstore.NewClient("redis://127.0.0.1:6379")
	if err != nil {
		log.Fatal(err)
	}
	limits := redisstore.RateLimits(rdb, redisstore.LimiterOptions{})
	// Second-factor codes: a burst of 10, one more every 30 s, refused
	// (503 rate_limiter_unavailable) during an outage.
	limits.TOTP = redisstore.NewLimiter(rdb, "totp", 10, 1.0/30, redisstore.LimiterOptions{Outage: redisstore.OutageClosed})
	_ = admin.Options{RateLimit: limits}
}
