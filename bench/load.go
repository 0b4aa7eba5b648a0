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
	// CPUus is this process's CPU time per request in microseconds: the
	// clients and the server, and on SQLite the database too (on
	// PostgreSQL and MariaDB its work is in other processes).
	CPUus float64 `json:"cpuUsPerReq"`
}

// sample is what one or more windows of load measured, before it is
// summarized.
type sample struct {
	lat      []time.Duration
	errs     int
	firstErr error
	elapsed  time.Duration
	cpu      time.Duration
}

// load runs op from concurrency goroutines for d and adds what it measured
// to s. i numbers the calls, so an op can vary its request. The first
// error is kept for the report.
func (s *sample) load(concurrency int, d time.Duration, op func(ctx context.Context, i int) error) {
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	ctx := context.Background()
	cpu0 := processCPU()
	start := time.Now()
	deadline := start.Add(d)
	base := len(s.lat) + s.errs // call numbers go on from the last window
	for c := 0; c < concurrency; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			var mine []time.Duration
			for i := base + c; time.Now().Before(deadline); i += concurrency {
				t0 := time.Now()
				err := op(ctx, i)
				el := time.Since(t0)
				if err != nil {
					mu.Lock()
					s.errs++
					if s.firstErr == nil {
						s.firstErr = err
					}
					mu.Unlock()
					continue
				}
				mine = append(mine, el)
			}
			mu.Lock()
			s.lat = append(s.lat, mine...)
			mu.Unlock()
		}(c)
	}
	wg.Wait()
	s.elapsed += time.Since(start)
	s.cpu += processCPU() - cpu0
}

// result summarizes s under name.
func (s *sample) result(name string) (result, error) {
	lat := slices.Clone(s.lat)
	slices.Sort(lat)
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	r := result{Name: name, Requests: len(lat), Errors: s.errs, P50ms: pct(0.50), P95ms: pct(0.95), P99ms: pct(0.99)}
	if s.elapsed > 0 {
		r.RPS = float64(len(lat)) / s.elapsed.Seconds()
	}
	if n := len(lat) + s.errs; n > 0 {
		r.CPUus = float64(s.cpu.Microseconds()) / float64(n)
	}
	if s.firstErr != nil {
		return r, fmt.Errorf("%s: %d errors, first: %w", name, s.errs, s.firstErr)
	}
	return r, nil
}

// rounds is how many windows a scenario and its baseline take turns in.
const rounds = 5

// drivePair measures op and its floor in turns for d each: rounds
// windows of d/rounds apiece, the floor first in odd rounds and second in
// even ones. Whatever else the machine runs meanwhile lands on both
// alike, instead of on whichever happened to run while it was busy.
// floor may be nil.
func drivePair(name, floorName string, concurrency int, d time.Duration, op, floor runner) (res, base result, err error) {
	var s, b sample
	w := d / rounds
	for r := 0; r < rounds; r++ {
		if floor != nil && r%2 == 0 {
			if err := floor.window(&b, concurrency, w); err != nil {
				return res, base, err
			}
		}
		if err := op.window(&s, concurrency, w); err != nil {
			return res, base, err
		}
		if floor != nil && r%2 == 1 {
			if err := floor.window(&b, concurrency, w); err != nil {
				return res, base, err
			}
		}
	}
	if floor != nil {
		if base, err = b.result(floorName); err != nil {
			return res, base, err
		}
	}
	res, err = s.result(name)
	return res, base, err
}

// loadRunner is a floor this process drives, as it drives the panel.
type loadRunner func(ctx context.Context, i int) error

func (op loadRunner) window(s *sample, concurrency int, w time.Duration) error {
	s.load(concurrency, w, op)
	return nil
}

// plainTransport is the clients' transport: concurrency clients keep
// their connections, and ask for no compression (Go's transport asks for
// gzip by default), for the hand-written references answer plain and a
// comparison must not weigh the panel's compression against nothing
// (its cost per page is docs/performance.md's Compressed answers).
func plainTransport(concurrency int) *http.Transport {
	return &http.Transport{MaxIdleConnsPerHost: concurrency * 2, DisableCompression: true}
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
	if res.StatusCode != want {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		return nil, fmt.Errorf("%s %s = %d %s", method, path, res.StatusCode, b)
	}
	// The body is read to its end (the connection is reused) and thrown
	// away: the clients share the cores with the server under test, so
	// they spend nothing on answers they do not check.
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		return nil, err
	}
	return res.Header, nil
}

// download GETs path and counts its body's bytes.
func (c *client) download(ctx context.Context, path string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+path, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Cookie", c.cookie)
	res, err := c.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		return 0, fmt.Errorf("GET %s = %d %s", path, res.StatusCode, b)
	}
	return io.Copy(io.Discard, res.Body)
}
