package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// result is one measured scenario or baseline.
type result struct {
	Name     string  `json:"name"`
	Requests int     `json:"requests"`
	Errors   int     `json:"errors"`
	P50ms    float64 `json:"p50Ms"`
	P95ms    float64 `json:"p95Ms"`
	P99ms    float64 `json:"p99Ms"`
	RPS      float64 `json:"reqPerSec"`
}

// drive runs op from concurrency goroutines for d and summarizes the
// latencies. i numbers the calls, so an op can vary its request. The first
// error is kept for the report.
func drive(name string, concurrency int, d time.Duration, op func(ctx context.Context, i int) error) (result, error) {
	var (
		mu       sync.Mutex
		lat      []time.Duration
		errs     int
		firstErr error
		wg       sync.WaitGroup
	)
	ctx := context.Background()
	start := time.Now()
	deadline := start.Add(d)
	for c := 0; c < concurrency; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			var mine []time.Duration
			for i := c; time.Now().Before(deadline); i += concurrency {
				t0 := time.Now()
				err := op(ctx, i)
				el := time.Since(t0)
				if err != nil {
					mu.Lock()
					errs++
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					continue
				}
				mine = append(mine, el)
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}(c)
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(lat)
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	r := result{Name: name, Requests: len(lat), Errors: errs, P50ms: pct(0.50), P95ms: pct(0.95), P99ms: pct(0.99),
		RPS: float64(len(lat)) / elapsed.Seconds()}
	if firstErr != nil {
		return r, fmt.Errorf("%s: %d errors, first: %w", name, errs, firstErr)
	}
	return r, nil
}

// client sends requests to the server under test with one session.
type client struct {
	hc     *http.Client
	base   string
	cookie string
}

// do sends a request and drains the answer; any status but want is an
// error.
func (c *client) do(ctx context.Context, method, path, body string, want int) (http.Header, error) {
	var rd io.Reader
	if body != "" {
		rd = stringsReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.cookie != "" {
		req.Header.Set("Cookie", c.cookie)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		return nil, fmt.Errorf("%s %s = %d %s", method, path, res.StatusCode, b)
	}
	return res.Header, nil
}
