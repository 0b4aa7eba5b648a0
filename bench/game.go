package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gameadmin/admin/live"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// With -game the bench is a game server: a room server on the library's
// live hub, the panel mounted beside it with the hub as its Options.Rooms,
// players as bot sockets in a child process (bots.go). It measures what
// the operators' work on the panel takes from the game: each window
// records the rooms' ticks (their duration, and the late ones) and the
// bots' gaps between tick messages, first idle, then under each kind of
// operator work, then all of it at once. The operators' requests come
// from a child process of their own (operators.go).

// gameConfig is the -game flags.
type gameConfig struct {
	rooms    int           // arena rooms
	bots     int           // bot sockets over the arenas (one more joins the world)
	entities int           // the world room's entities
	window   time.Duration // each window's length
}

// lateTick is the gap between two ticks of a room past which the second
// is late.
const lateTick = 100 * time.Millisecond

// tickLog gathers the ticks of every room in a window.
type tickLog struct {
	mu   sync.Mutex
	took []time.Duration // each tick's duration
	late int
}

// ticks is the current window's tickLog.
var ticks atomic.Pointer[tickLog]

// record adds a tick that started at start, gap after its room's last.
func record(start time.Time, gap time.Duration) {
	took := time.Since(start)
	t := ticks.Load()
	t.mu.Lock()
	t.took = append(t.took, took)
	if gap > lateTick {
		t.late++
	}
	t.mu.Unlock()
}

// arena is an arena room's state: its players' places, moved every tick
// and sent to its sockets.
type arena struct {
	Tick    int       `json:"tick"`
	Players [][2]int  `json:"players"`
	last    time.Time // the last tick's start
}

// entity is one of the world room's.
type entity struct {
	ID    int     `json:"id"`
	Kind  string  `json:"kind"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	HP    int     `json:"hp"`
	Owner string  `json:"owner"`
}

// world is the big room's state: what an operator's inspect serializes.
type world struct {
	Tick     int       `json:"tick"`
	Entities []entity  `json:"entities"`
	last     time.Time // the last tick's start
}

// gap is the time since the last tick, and now becomes the last; 0 for a
// room's first tick.
func gap(last *time.Time, now time.Time) time.Duration {
	g := now.Sub(*last)
	if last.IsZero() {
		g = 0
	}
	*last = now
	return g
}

// gameHub defines the arena and world room types on a hub that lets the
// bots in: anonymous, every socket from one address.
func gameHub(g gameConfig) *live.Hub {
	hub := live.NewHub(live.Options{
		AllowAnonymous: true, MaxConnsPerIP: -1, MaxConnsPerUser: -1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	perRoom := (g.bots + g.rooms - 1) / g.rooms
	hub.Define("arena", live.RoomType{
		MaxClients:   perRoom,
		NewState:     func() any { return &arena{Players: make([][2]int, perRoom)} },
		TickInterval: tickEvery,
		OnTick: func(r *live.Room) {
			start := time.Now()
			s := r.State().(*arena)
			since := gap(&s.last, start)
			s.Tick++
			for i := range s.Players {
				s.Players[i][0] += rand.IntN(3) - 1
				s.Players[i][1] += rand.IntN(3) - 1
			}
			_ = r.Broadcast(s)
			record(start, since)
		},
	})
	kinds := []string{"tree", "rock", "npc", "chest", "wolf"}
	hub.Define("world", live.RoomType{
		NewState: func() any {
			w := &world{Entities: make([]entity, g.entities)}
			for i := range w.Entities {
				w.Entities[i] = entity{ID: i + 1, Kind: kinds[i%len(kinds)], X: float64(i % 1000), Y: float64(i / 1000), HP: 100, Owner: fmt.Sprintf("u%d", i%50_000)}
			}
			return w
		},
		TickInterval: tickEvery,
		OnTick: func(r *live.Room) {
			start := time.Now()
			s := r.State().(*world)
			since := gap(&s.last, start)
			s.Tick++
			for i := range s.Entities {
				s.Entities[i].X += rand.Float64() - 0.5
				s.Entities[i].Y += rand.Float64() - 0.5
			}
			// Its sockets get the tick, not the whole world.
			_ = r.Broadcast(map[string]int{"tick": s.Tick, "entities": len(s.Entities)})
			record(start, since)
		},
	})
	return hub
}

// gameWindow is what one window measured.
type gameWindow struct {
	name string
	windowResult
	ticks   int
	late    int
	tickP99 float64 // ms
	tickMax float64 // ms
	bots    botStats
}

// runGame joins the bots, then runs the windows and prints their table.
func runGame(ctx context.Context, db *bun.DB, g gameConfig, hub *live.Hub, cookie, base string, rows int64, operators int, out io.Writer) error {
	// As many audit entries as events, about erasePlayers players: what
	// an erase searches and redacts.
	if err := seedAudit(ctx, db, rows); err != nil {
		return fmt.Errorf("seed audit: %w", err)
	}
	// The rows just written would draw PostgreSQL's autovacuum into the
	// first windows: it runs now instead, before any is measured.
	if db.Dialect().Name() == dialect.PG {
		if _, err := db.ExecContext(ctx, "VACUUM ANALYZE game_admin_audit, game_analytics_events"); err != nil {
			return err
		}
	}
	players, err := erasable(ctx, db)
	if err != nil {
		return err
	}
	urls := make([]string, 0, g.bots+1)
	ws := "ws" + strings.TrimPrefix(base, "http") + "/ws/"
	for range g.bots {
		urls = append(urls, ws+"arena")
	}
	urls = append(urls, ws+"world")
	ticks.Store(&tickLog{})
	b, err := startBots(urls)
	if err != nil {
		return err
	}
	defer b.stop()
	summaries, err := hub.List(ctx)
	if err != nil {
		return err
	}
	worldID := ""
	for _, s := range summaries {
		if s.Name == "world" {
			worldID = s.RoomID
		}
	}
	fmt.Fprintf(out, "game: %d rooms (%d arenas of up to %d bots, a world of %d entities), %d bots in a child process, ticks every %s\n",
		len(summaries), len(summaries)-1, (g.bots+g.rooms-1)/g.rooms, g.entities, g.bots+1, tickEvery)
	if _, err := b.mark(); err != nil { // the joins are no window's
		return err
	}

	ops, err := startOperators(operatorsSpec{Base: base, Cookie: cookie, Rows: rows, Operators: operators, WorldID: worldID, Entities: g.entities, Players: players})
	if err != nil {
		return err
	}
	defer ops.stop()

	// Idle again last: on a machine shared with other work, what the
	// two idle windows differ by is the machine's, not the panel's.
	const idle = -1
	var windows []gameWindow
	order := []int{idle}
	for k := range ops.names {
		order = append(order, k)
	}
	for _, k := range append(order, idle) {
		w, err := gameRun(ctx, ops, k, b, g.window)
		if err != nil {
			return err
		}
		windows = append(windows, w)
	}
	printGame(out, windows, g)
	var failed []string
	for _, w := range windows {
		if w.Errors > 0 {
			failed = append(failed, w.name)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("the panel's requests failed in %d windows (%s): above", len(failed), strings.Join(failed, "; "))
	}
	return nil
}

// gameRun runs one window of the operators' kind k in their child
// (idle: none; after the other windows, "idle again") and gathers the
// ticks and the bots' gaps meanwhile.
func gameRun(ctx context.Context, ops *operators, k int, b *bots, d time.Duration) (gameWindow, error) {
	w := gameWindow{name: "idle"}
	switch {
	case k >= 0:
		w.name = ops.names[k]
	case ops.ran:
		w.name = "idle again"
	}
	progress(false, "game window: %s...\n", w.name)
	ticks.Store(&tickLog{})
	if _, err := b.mark(); err != nil {
		return w, err
	}
	var err error
	if k >= 0 {
		w.windowResult, err = ops.run(k, d)
	} else {
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(d):
		}
	}
	if err != nil {
		return w, err
	}
	t := ticks.Swap(&tickLog{})
	if w.bots, err = b.mark(); err != nil {
		return w, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	slices.Sort(t.took)
	w.ticks, w.late = len(t.took), t.late
	if n := len(t.took); n > 0 {
		w.tickP99, w.tickMax = ms(t.took[min(n-1, n*99/100)]), ms(t.took[n-1])
	}
	return w, nil
}

// printGame writes the windows as a Markdown table, each figure beside
// its ratio to the idle window's: the quieter of the two (the lower bot
// dev p99), for on a machine shared with other work either may be
// disturbed by what is not the panel's.
func printGame(out io.Writer, windows []gameWindow, g gameConfig) {
	idle := windows[0]
	if last := windows[len(windows)-1]; last.bots.DevP99 < idle.bots.DevP99 {
		idle = last
	}
	ratio := func(v, base float64) string {
		if base <= 0 {
			return fmt.Sprintf("%.2f", v)
		}
		return fmt.Sprintf("%.2f (%.1f×)", v, v/base)
	}
	fmt.Fprintf(out, "\n%s windows; a tick is late when it starts more than %s after its room's previous one; bot dev is how far a bot's gap between tick messages is from %s\n\n",
		g.window, lateTick, tickEvery)
	fmt.Fprintln(out, "| window | panel requests done | errors | ticks | late ticks | tick p99 ms (× idle) | tick max ms | bot dev p50 ms (× idle) | bot dev p99 ms (× idle) | bot dev max ms | bots lost |")
	fmt.Fprintln(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, w := range windows {
		fmt.Fprintf(out, "| %s | %d | %d | %d | %d | %s | %.2f | %s | %s | %.1f | %d |\n", w.name, w.Requests, w.Errors, w.ticks, w.late,
			ratio(w.tickP99, idle.tickP99), w.tickMax, ratio(w.bots.DevP50, idle.bots.DevP50), ratio(w.bots.DevP99, idle.bots.DevP99), w.bots.DevMax, w.bots.Lost)
	}
	for _, w := range windows {
		if w.FirstErr != "" {
			fmt.Fprintf(out, "\n%s: %d requests failed, the first: %s", w.name, w.Errors, w.FirstErr)
		}
	}
	fmt.Fprintln(out)
}
