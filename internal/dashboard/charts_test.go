package dashboard

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun/dialect"
	"time"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/schema"
)

func TestRangeOf(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 13, 40, 0, 0, time.UTC)
	for _, tc := range []struct {
		q        string
		from, to time.Time
		step     time.Duration
	}{
		{"", time.Date(2026, 11, 24, 14, 0, 0, 0, time.UTC), time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC), time.Hour},
		{"range=24h", time.Date(2026, 11, 24, 14, 0, 0, 0, time.UTC), time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC), time.Hour},
		{"range=7d", time.Date(2026, 11, 18, 18, 0, 0, 0, time.UTC), time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC), 6 * time.Hour},
		{"range=30d", time.Date(2026, 10, 27, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC), 24 * time.Hour},
	} {
		q, _ := url.ParseQuery(tc.q)
		rg, err := rangeOf(q, now)
		if err != nil || !rg.From.Equal(tc.from) || !rg.To.Equal(tc.to) || rg.Step != tc.step {
			t.Errorf("%q: %v %v; want [%v, %v) every %v", tc.q, rg, err, tc.from, tc.to, tc.step)
		}
	}
	var e *errbody.Error
	if _, err := rangeOf(url.Values{"range": {"1y"}}, now); !errors.As(err, &e) || e.Status != http.StatusBadRequest || e.Code != "invalid_value" {
		t.Fatalf("range=1y: %v; want 400 invalid_value", err)
	}
}

func TestRangeLine(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	rg := Range{From: from, To: from.Add(4 * time.Hour), Step: time.Hour}
	if b := rg.bucket(from.Add(90 * time.Minute)); !b.Equal(from.Add(time.Hour)) {
		t.Fatalf("bucket of 01:30 = %v; want 01:00", b)
	}
	l := rg.line("x", map[time.Time]float64{from.Add(2 * time.Hour): 3})
	if len(l.Points) != 4 || l.Points[2].V != 3 || l.Points[0].V != 0 || !l.Points[3].T.Equal(from.Add(3*time.Hour)) {
		t.Fatalf("line = %+v; want 4 points, 3 at 02:00, zero elsewhere", l)
	}
}

func TestEpochBucket(t *testing.T) {
	t.Parallel()
	rg := Range{Step: 6 * time.Hour}
	if got, want := epochBucket(dialect.PG, rg, ""), "(floor(extract(epoch FROM ?TableAlias.?) / 21600) * 21600)::bigint"; got != want {
		t.Errorf("PostgreSQL: %s; want %s", got, want)
	}
	if got, want := epochBucket(dialect.SQLite, rg, ""), "(unixepoch(?TableAlias.?) / 21600) * 21600"; got != want {
		t.Errorf("SQLite: %s; want %s", got, want)
	}
	if got, want := epochBucket(dialect.MySQL, rg, ""), "(TIMESTAMPDIFF(SECOND, '1970-01-01', ?TableAlias.?) DIV 21600) * 21600"; got != want {
		t.Errorf("MySQL: %s; want %s", got, want)
	}
	// A unix time's integer is its epoch already, in seconds or ms.
	for _, d := range []dialect.Name{dialect.PG, dialect.SQLite, dialect.MySQL} {
		div := "/"
		if d == dialect.MySQL {
			div = "DIV" // MySQL's / answers a decimal
		}
		if got, want := epochBucket(d, rg, schema.UnixSeconds), "(?TableAlias.? "+div+" 21600) * 21600"; got != want {
			t.Errorf("unix seconds: %s; want %s", got, want)
		}
		if got, want := epochBucket(d, rg, schema.UnixMillis), "(?TableAlias.? "+div+" 21600000) * 21600"; got != want {
			t.Errorf("unix milliseconds: %s; want %s", got, want)
		}
	}
}

// syncBuffer is a log's output, written by several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestCachedSeriesComputedOnce(t *testing.T) {
	t.Parallel()
	d := New(Config{Log: slog.New(slog.NewTextHandler(&syncBuffer{}, nil))})
	var calls atomic.Int32
	release := make(chan struct{})
	fn := d.cachedSeries("c", func(ctx context.Context, op authz.Operator, rg Range) (*Series, error) {
		calls.Add(1)
		<-release
		return &Series{Unit: string(op.Role)}, nil
	})
	admin := authz.Operator{Role: authz.RoleAdmin}
	rg := Range{From: time.Unix(0, 0), Step: time.Hour}
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			if s, err := fn(t.Context(), admin, rg); err != nil || s.Unit != "admin" {
				t.Errorf("fn = %v, %v", s, err)
			}
		})
	}
	for {
		d.charts.mu.Lock()
		c := d.charts.inflight["c\x00admin\x00\x00"+rg.From.String()+rg.Step.String()]
		waiting := c != nil && c.waiting == 5
		d.charts.mu.Unlock()
		if waiting {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if s, err := fn(t.Context(), admin, rg); err != nil || s.Unit != "admin" || calls.Load() != 1 {
		t.Fatalf("after: %v, %v, %d computations; want one, kept", s, err, calls.Load())
	}
	// Another role has its own chart.
	if s, err := fn(t.Context(), authz.Operator{Role: authz.RoleMod}, rg); err != nil || s.Unit != "mod" || calls.Load() != 2 {
		t.Fatalf("mod: %v, %v, %d computations; want a second", s, err, calls.Load())
	}
}

func TestCachedSeriesFailures(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	d := New(Config{Log: slog.New(slog.NewTextHandler(logs, nil))})
	op := authz.Operator{Role: authz.RoleAdmin}
	rg := Range{From: time.Unix(0, 0), Step: time.Hour}
	panics := d.cachedSeries("p", func(context.Context, authz.Operator, Range) (*Series, error) { panic("s3cr3t") })
	if _, err := panics(t.Context(), op, rg); err == nil || !strings.Contains(err.Error(), "chart p: panic: s3cr3t") {
		t.Fatalf("a panicking chart: %v", err)
	}
	// A chart that fails after its request stopped waiting is logged,
	// and its error is not kept.
	release := make(chan struct{})
	var calls atomic.Int32
	slow := d.cachedSeries("slow", func(context.Context, authz.Operator, Range) (*Series, error) {
		if calls.Add(1) == 1 {
			<-release
			return nil, errors.New("too slow")
		}
		return &Series{}, nil
	})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	if _, err := slow(ctx, op, rg); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the waiting request: %v; want its deadline", err)
	}
	close(release)
	for !strings.Contains(logs.String(), "chart=slow") {
		time.Sleep(time.Millisecond)
	}
	if !strings.Contains(logs.String(), "too slow") {
		t.Fatalf("the unheard failure is logged without its cause: %s", logs)
	}
	if _, err := slow(t.Context(), op, rg); err != nil || calls.Load() != 2 {
		t.Fatalf("after a failure: %v, %d computations; want a new one", err, calls.Load())
	}
}
