package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"time"
)

// With -clients external, the requests of the panel's API and their
// references served over HTTP are sent by a child process (this binary again, -load-child),
// so the clients' CPU is not taken from the server's cores in this
// process's accounting, nor set its ceiling: the CPU per request then is
// the server's alone (and SQLite's, which runs in it).

// childPaths is how many distinct requests a child cycles through: call
// i sends paths[i % childPaths] (with bodies[i % childPaths]).
const childPaths = 4096

// childLoad is what the parent asks of a child window.
type childLoad struct {
	Base        string        `json:"base"`
	Cookie      string        `json:"cookie"`
	Method      string        `json:"method"`
	Want        int           `json:"want"`
	Paths       []string      `json:"paths"`
	Bodies      []string      `json:"bodies,omitempty"`
	Concurrency int           `json:"concurrency"`
	Window      time.Duration `json:"window"`
}

// childResult is what a child window measured.
type childResult struct {
	LatencyUs []int64       `json:"latencyUs"`
	Errors    int           `json:"errors"`
	FirstErr  string        `json:"firstErr,omitempty"`
	Elapsed   time.Duration `json:"elapsed"`
}

// externalRunner runs a request's windows in a child process.
type externalRunner struct {
	spec childLoad
}

func newExternal(c *client, o op) *externalRunner {
	spec := childLoad{Base: c.base, Cookie: c.cookie, Method: cmp.Or(o.method, "GET"), Want: cmp.Or(o.want, 200), Paths: make([]string, childPaths)}
	for i := range spec.Paths {
		spec.Paths[i] = o.path(i)
	}
	if o.body != nil {
		spec.Bodies = make([]string, childPaths)
		for i := range spec.Bodies {
			spec.Bodies[i] = o.body(i)
		}
	}
	return &externalRunner{spec: spec}
}

// window runs one window in a child and adds its latencies to s, with
// this process's CPU meanwhile: the server's.
func (e *externalRunner) window(s *sample, concurrency int, w time.Duration) error {
	spec := e.spec
	spec.Concurrency, spec.Window = concurrency, w
	in, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "-load-child")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = io.MultiWriter(os.Stderr, &stderr)
	cpu0 := processCPU()
	out, err := cmd.Output()
	cpu := processCPU() - cpu0
	if err != nil {
		return fmt.Errorf("load child: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	var r childResult
	if err := json.Unmarshal(out, &r); err != nil {
		return fmt.Errorf("load child: %w", err)
	}
	for _, us := range r.LatencyUs {
		s.lat = append(s.lat, time.Duration(us)*time.Microsecond)
	}
	s.errs += r.Errors
	if s.firstErr == nil && r.FirstErr != "" {
		s.firstErr = fmt.Errorf("%s", r.FirstErr)
	}
	s.elapsed += r.Elapsed
	s.cpu += cpu
	return nil
}

// loadChild is the child's side: it reads a childLoad on stdin, sends
// its requests, and writes a childResult on stdout.
func loadChild() error {
	var spec childLoad
	if err := json.NewDecoder(os.Stdin).Decode(&spec); err != nil {
		return err
	}
	c := &client{hc: &http.Client{Transport: plainTransport(spec.Concurrency)}, base: spec.Base, cookie: spec.Cookie}
	send := func(ctx context.Context, i int) error {
		body := ""
		if spec.Bodies != nil {
			body = spec.Bodies[i%len(spec.Bodies)]
		}
		_, err := c.do(ctx, spec.Method, spec.Paths[i%len(spec.Paths)], body, spec.Want)
		return err
	}
	// A first request each, so connections are open before the window.
	for i := range spec.Concurrency {
		if err := send(context.Background(), i); err != nil {
			return err
		}
	}
	var s sample
	s.load(spec.Concurrency, spec.Window, send)
	r := childResult{Errors: s.errs, Elapsed: s.elapsed, LatencyUs: make([]int64, len(s.lat))}
	for i, l := range s.lat {
		r.LatencyUs[i] = l.Microseconds()
	}
	if s.firstErr != nil {
		r.FirstErr = s.firstErr.Error()
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}
