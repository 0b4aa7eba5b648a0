package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/gameadmin/admin/internal/panicerr"
)

// HealthCheck is admin.HealthCheck, field for field (the root converts one to the
// other); its documentation is there.
type HealthCheck struct {
	Name  string
	Check func(ctx context.Context) error
}

// Health is the health answer: the database's state and latency, and each
// of Options.HealthChecks.
type Health struct {
	// OK is whether the database answered; the game's checks leave it
	// alone (GET {api}/_health is 503 when it is false).
	OK bool `json:"ok"`
	// DB is "ok" or "unreachable".
	DB string `json:"db"`
	// LatencyMs is how long the ping and a SELECT 1 took, failed or not.
	LatencyMs float64 `json:"latencyMs"`
	// Checks are the results of Options.HealthChecks, by name, flattened
	// into the object by MarshalJSON.
	Checks map[string]string `json:"-"`
}

// MarshalJSON writes the checks beside ok, db and latencyMs, so the
// dashboard's kpi widget shows one figure per dependency.
func (h Health) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, 3+len(h.Checks))
	for k, v := range h.Checks {
		m[k] = v
	}
	m["ok"], m["db"], m["latencyMs"] = h.OK, h.DB, h.LatencyMs
	return json.Marshal(m)
}

// Health pings the database and runs the game's checks at once, within 2
// seconds; a failure is logged, and answered as "unreachable".
func (d *Dashboard) Health(ctx context.Context) Health {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	// A check cut off because the caller went away (a load balancer's
	// probe giving up) says nothing of what it checks: logged at debug.
	failed := func(msg string, args ...any) {
		if parent.Err() != nil {
			d.log.DebugContext(ctx, msg+" (the caller went away)", args...)
			return
		}
		d.log.ErrorContext(ctx, msg, args...)
	}
	start := time.Now()
	err := d.db.PingContext(ctx)
	if err == nil {
		_, err = d.db.ExecContext(ctx, "SELECT 1")
	}
	h := Health{OK: err == nil, DB: "ok", LatencyMs: float64(time.Since(start).Microseconds()) / 1000}
	if err != nil {
		failed("admin: health check failed", "err", err)
		h.DB = "unreachable"
	}
	if len(d.checks) > 0 {
		h.Checks = make(map[string]string, len(d.checks))
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, c := range d.checks {
			wg.Go(func() {
				status := "ok"
				if err := safeCheck(ctx, c); err != nil {
					failed("admin: health check failed", append([]any{"check", c.Name}, panicerr.Attrs(err)...)...)
					status = "unreachable"
				}
				mu.Lock()
				h.Checks[c.Name] = status
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	return h
}

func safeCheck(ctx context.Context, c HealthCheck) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("health check %s: %w", c.Name, panicerr.New(p))
		}
	}()
	if c.Check == nil {
		return nil
	}
	return c.Check(ctx)
}
