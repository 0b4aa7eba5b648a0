package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// With -game, the players are bot WebSocket clients in a child process
// (this binary again, -bots-child), so their CPU is not counted as the
// game's, as a game's players are on other machines (here they share
// the cores). The parent sends the child a botsSpec line on stdin, the
// child dials and answers "ready"; then each line the parent sends ends
// a window, and the child answers it with the window's botStats line.

// tickEvery is the rooms' tick period: 20 Hz.
const tickEvery = 50 * time.Millisecond

// botsSpec is what the parent asks of the bots' child.
type botsSpec struct {
	URLs []string `json:"urls"` // one socket each
}

// botStats is what the bots measured in one window: how far each gap
// between two of a bot's tick messages was from tickEvery.
type botStats struct {
	Gaps   int64   `json:"gaps"`
	DevP50 float64 `json:"devP50Ms"`
	DevP99 float64 `json:"devP99Ms"`
	DevMax float64 `json:"devMaxMs"`
	// Lost are the bots whose socket ended so far (the hub drops a
	// client its queue cannot keep up with).
	Lost int64 `json:"lost"`
}

// devBucket is the width of a bucket of the gaps' histogram, devBuckets
// their count: deviations up to 10 s, the last bucket holding the rest.
const (
	devBucket  = 100 * time.Microsecond
	devBuckets = 100_000
)

// devHistogram counts the deviations of a window.
type devHistogram struct {
	n   [devBuckets]atomic.Int64
	max atomic.Int64
}

func (h *devHistogram) add(dev time.Duration) {
	h.n[min(int(dev/devBucket), devBuckets-1)].Add(1)
	for {
		old := h.max.Load()
		if int64(dev) <= old || h.max.CompareAndSwap(old, int64(dev)) {
			return
		}
	}
}

// stats summarizes h.
func (h *devHistogram) stats() botStats {
	var total int64
	for i := range h.n {
		total += h.n[i].Load()
	}
	s := botStats{Gaps: total, DevMax: ms(time.Duration(h.max.Load()))}
	pct := func(p float64) float64 {
		want, seen := int64(p*float64(total)), int64(0)
		for i := range h.n {
			if seen += h.n[i].Load(); seen > want {
				return ms(time.Duration(i) * devBucket)
			}
		}
		return 0
	}
	if total > 0 {
		s.DevP50, s.DevP99 = pct(0.50), pct(0.99)
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// botsChild is the child's side of -game: it reads a botsSpec, dials
// every socket, answers "ready", then answers each line on stdin with
// the window's botStats until stdin ends.
func botsChild() error {
	in := bufio.NewScanner(os.Stdin)
	if !in.Scan() {
		return fmt.Errorf("no spec on stdin")
	}
	var spec botsSpec
	if err := json.Unmarshal(in.Bytes(), &spec); err != nil {
		return err
	}
	var (
		cur  atomic.Pointer[devHistogram]
		lost atomic.Int64
	)
	cur.Store(new(devHistogram))
	conns := make([]*websocket.Conn, len(spec.URLs))
	dialer := *websocket.DefaultDialer
	dialer.HandshakeTimeout = 30 * time.Second
	var (
		wg      sync.WaitGroup
		dialErr atomic.Pointer[error]
		slots   = make(chan struct{}, 32) // dials under way at once
	)
	for i, u := range spec.URLs {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			c, _, err := dialer.Dial(u, nil)
			if err != nil {
				dialErr.CompareAndSwap(nil, &err)
				return
			}
			conns[i] = c
		}()
	}
	wg.Wait()
	if err := dialErr.Load(); err != nil {
		return fmt.Errorf("dial: %w", *err)
	}
	for _, c := range conns {
		go func() {
			defer lost.Add(1)
			var last time.Time
			for {
				_, msg, err := c.ReadMessage()
				if err != nil {
					return
				}
				// Only the tick's message counts: the joined and state
				// envelopes come once, at the join.
				if !bytes.HasPrefix(msg, []byte(`{"type":"message"`)) {
					continue
				}
				now := time.Now()
				if !last.IsZero() {
					dev := now.Sub(last) - tickEvery
					cur.Load().add(max(dev, -dev))
				}
				last = now
			}
		}()
	}
	out := json.NewEncoder(os.Stdout)
	if err := out.Encode("ready"); err != nil {
		return err
	}
	for in.Scan() {
		h := cur.Swap(new(devHistogram))
		s := h.stats()
		s.Lost = lost.Load()
		if err := out.Encode(s); err != nil {
			return err
		}
	}
	for _, c := range conns {
		c.Close()
	}
	return in.Err()
}

// bots is the parent's handle on the bots' child.
type bots struct{ *child }

// startBots starts the child with one bot per URL and waits until all
// have joined.
func startBots(urls []string) (*bots, error) {
	c, err := startChild("-bots-child", "bots")
	if err != nil {
		return nil, err
	}
	b := &bots{c}
	spec, _ := json.Marshal(botsSpec{URLs: urls})
	var ready string
	if _, err := fmt.Fprintf(c.in, "%s\n", spec); err != nil {
		c.stop()
		return nil, err
	}
	if err := c.out.Decode(&ready); err != nil || ready != "ready" {
		c.stop()
		return nil, fmt.Errorf("the bots' child did not start (%v)", err)
	}
	return b, nil
}

// mark ends the bots' window and returns what it measured.
func (b *bots) mark() (botStats, error) {
	var s botStats
	if _, err := io.WriteString(b.in, "mark\n"); err != nil {
		return s, err
	}
	err := b.out.Decode(&s)
	return s, err
}

// child is a child process of -game (this binary again, with a flag),
// spoken to by JSON lines on its stdin and stdout.
type child struct {
	name string
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *json.Decoder
}

// startChild starts this binary with flag, its stderr the parent's.
func startChild(flag, name string) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, flag)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &child{name: name, cmd: cmd, in: in, out: json.NewDecoder(out)}, nil
}

// stop closes the child's stdin, which ends it, and waits for it.
func (c *child) stop() {
	c.in.Close()
	if err := c.cmd.Wait(); err != nil {
		fmt.Fprintf(os.Stderr, "bench: the %s' child: %v\n", c.name, err)
	}
}
