package redisstore

import (
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// NewClient parses a redis:// (or rediss://) URL and returns a go-redis
// client with timeouts that suit the panel: a down Redis costs a sign-in
// about a second before the limiters answer, instead of several with
// go-redis' defaults. Timeouts set in the URL's query win.
func NewClient(url string) (*redis.Client, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redisstore: %w", err)
	}
	if opt.DialTimeout == 0 {
		opt.DialTimeout = time.Second
	}
	if opt.DialerRetries == 0 {
		opt.DialerRetries = 1 // go-redis dials 5 times, 100ms apart, by default
	}
	if opt.ReadTimeout == 0 {
		opt.ReadTimeout = 500 * time.Millisecond
	}
	if opt.WriteTimeout == 0 {
		opt.WriteTimeout = 500 * time.Millisecond
	}
	if opt.MaxRetries == 0 {
		opt.MaxRetries = 1
	}
	return redis.NewClient(opt), nil
}
