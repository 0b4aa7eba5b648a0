package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"
)

// With -game, the operators are a child process too (this binary again,
// -operators-child), as the bots are: an operator's browser is on
// another machine, so the CPU of sending the requests and reading the
// answers is not the game's to pay, and counting it in the game's
// process would weigh the panel down with its own load generator. The
// parent sends an operatorsSpec line on stdin, the child answers with
// the names of its kinds of work; then each runWindow line the parent
// sends runs one kind for a window, answered with a windowResult line.

// operatorsSpec is what the parent tells the operators' child.
type operatorsSpec struct {
	Base      string      `json:"base"`
	Cookie    string      `json:"cookie"`
	Rows      int64       `json:"rows"`
	Operators int         `json:"operators"`
	WorldID   string      `json:"worldId"`
	Entities  int         `json:"entities"`
	Players   [][2]string `json:"players"` // id and email of each erasable player
}

// runWindow asks the child to run its kind Kind for Window.
type runWindow struct {
	Kind   int           `json:"kind"`
	Window time.Duration `json:"window"`
}

// windowResult is what one window of a kind did.
type windowResult struct {
	Requests int    `json:"requests"`
	Errors   int    `json:"errors"`
	FirstErr string `json:"firstErr,omitempty"`
}

// operatorWork is one kind of the operators' work: it runs until ctx
// ends and counts what it did in w.
type operatorWork struct {
	name string
	run  func(ctx context.Context, w *windowCount)
}

// windowCount counts a window's requests as they end.
type windowCount struct {
	mu sync.Mutex
	windowResult
}

// done counts a request that ended with err; one cut by the window's end
// is not counted.
func (w *windowCount) done(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	w.mu.Lock()
	if err == nil {
		w.Requests++
	} else {
		w.Errors++
		if w.FirstErr == "" {
			w.FirstErr = withCause(err)
		}
	}
	w.mu.Unlock()
	if err != nil {
		time.Sleep(10 * time.Millisecond) // a failing request is not retried in a busy loop
	}
}

// operatorKinds are the kinds of work the windows run, the last all of
// the others together.
func operatorKinds(c *client, p operatorsSpec) []operatorWork {
	rows, operators := p.Rows, p.Operators
	// Each operator jumps to a depth spread over the table and pages on
	// from there: past the first pages (query.MaxOffset) the panel pages
	// by cursor, as its UI does. The jump is a one-row page filtered to
	// ids below the depth (ids are 1..rows, listed newest first), whose
	// cursor starts the walk.
	pagers := operatorWork{fmt.Sprintf("%d operators paging deep (10 pages by cursor from each of depths spread over the table)", operators), func(ctx context.Context, w *windowCount) {
		var wg sync.WaitGroup
		for o := range operators {
			wg.Go(func() {
				for i := o; ctx.Err() == nil; i += operators {
					below := rows - int64(i)*7919%max(rows-1000, 1)
					h, err := c.do(ctx, "GET", fmt.Sprintf("%s?_limit=1&id_lte=%d&_count=none", events, below), "", 200)
					w.done(ctx, err)
					for range 10 {
						if err != nil || h.Get("X-Next-Cursor") == "" || ctx.Err() != nil {
							break
						}
						h, err = c.do(ctx, "GET", events+"?_limit=100&_count=none&_cursor="+h.Get("X-Next-Cursor"), "", 200)
						w.done(ctx, err)
					}
				}
			})
		}
		wg.Wait()
	}}
	// The export starts again when done.
	export := operatorWork{fmt.Sprintf("CSV export of %d rows", rows), func(ctx context.Context, w *windowCount) {
		for ctx.Err() == nil {
			_, err := c.download(ctx, events+"/_export.csv")
			w.done(ctx, err)
		}
	}}
	everySecond := func(name, path string) operatorWork {
		return operatorWork{name, func(ctx context.Context, w *windowCount) {
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				_, err := c.do(ctx, "GET", path, "", 200)
				w.done(ctx, err)
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
		}}
	}
	dashboard := everySecond("the dashboard every second", dashboardPath)
	inspect := everySecond(fmt.Sprintf("inspect of the %d-entity room every second", p.Entities), "/admin-api/rooms/"+p.WorldID)
	erase := eraseWork(c, p.Players)
	erase.name = fmt.Sprintf("erases of players, one after another, over %d audit entries", rows)
	kinds := []operatorWork{pagers, export, dashboard, inspect, erase}
	all := operatorWork{"all of the above together", func(ctx context.Context, w *windowCount) {
		var wg sync.WaitGroup
		for _, k := range kinds {
			wg.Go(func() { k.run(ctx, w) })
		}
		wg.Wait()
	}}
	return append(kinds, all)
}

// operatorsChild is the child's side: it reads an operatorsSpec, answers
// with its kinds' names, then runs each runWindow it reads and answers
// its windowResult, until stdin ends.
func operatorsChild() error {
	in := bufio.NewScanner(os.Stdin)
	if !in.Scan() {
		return fmt.Errorf("no spec on stdin")
	}
	var spec operatorsSpec
	if err := json.Unmarshal(in.Bytes(), &spec); err != nil {
		return err
	}
	c := &client{hc: &http.Client{Transport: plainTransport(spec.Operators + 4)}, base: spec.Base, cookie: spec.Cookie}
	kinds := operatorKinds(c, spec)
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.name
	}
	out := json.NewEncoder(os.Stdout)
	if err := out.Encode(names); err != nil {
		return err
	}
	for in.Scan() {
		var r runWindow
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			return err
		}
		if r.Kind < 0 || r.Kind >= len(kinds) {
			return fmt.Errorf("no kind %d", r.Kind)
		}
		ctx, cancel := context.WithTimeout(context.Background(), r.Window)
		var w windowCount
		kinds[r.Kind].run(ctx, &w)
		<-ctx.Done()
		cancel()
		if err := out.Encode(w.windowResult); err != nil {
			return err
		}
	}
	return in.Err()
}

// operators is the parent's handle on the operators' child.
type operators struct {
	*child
	names []string // the kinds' names, in the child's order
	ran   bool     // a kind has run
}

// startOperators starts the child and reads its kinds' names.
func startOperators(spec operatorsSpec) (*operators, error) {
	c, err := startChild("-operators-child", "operators")
	if err != nil {
		return nil, err
	}
	o := &operators{child: c}
	line, _ := json.Marshal(spec)
	if _, err := fmt.Fprintf(c.in, "%s\n", line); err != nil {
		c.stop()
		return nil, err
	}
	if err := c.out.Decode(&o.names); err != nil || len(o.names) == 0 {
		c.stop()
		return nil, fmt.Errorf("the operators' child did not start (%v)", err)
	}
	return o, nil
}

// run runs kind k in the child for d and returns what it did.
func (o *operators) run(k int, d time.Duration) (windowResult, error) {
	var r windowResult
	o.ran = true
	line, _ := json.Marshal(runWindow{Kind: k, Window: d})
	if _, err := fmt.Fprintf(o.in, "%s\n", line); err != nil {
		return r, err
	}
	err := o.out.Decode(&r)
	return r, err
}
