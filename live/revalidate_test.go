package live

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gameadmin/admin/rooms"
)

// states is a test UserStates: token versions and bans by user id.
type states struct {
	mu sync.Mutex
	m  map[string]rooms.UserState
}

func (s *states) get(_ context.Context, ids []string) (map[string]rooms.UserState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]rooms.UserState{}
	for _, id := range ids {
		if st, ok := s.m[id]; ok {
			out[id] = st
		}
	}
	return out, nil
}

func (s *states) set(id string, st rooms.UserState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[id] = st
}

func (s *states) remove(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, id)
}

// TestRevalidate: clients whose user was banned, removed, or whose token
// version moved on since they joined are kicked by Revalidate; a client
// that joined after the bump, and other users, stay. A join is checked
// against UserStates too.
func TestRevalidate(t *testing.T) {
	tk := newTokens("t-ann", "ann", "t-bob", "bob", "t-cid", "cid", "t-dee", "dee", "t-eve", "eve")
	st := &states{m: map[string]rooms.UserState{"ann": {TokenVersion: 1}, "bob": {TokenVersion: 1}, "cid": {}, "dee": {}, "eve": {Banned: true}}}
	opts := testOptions()
	opts.Authenticate, opts.UserStates, opts.RevalidateEvery = tk.authenticate, st.get, -1
	e := newEnv(t, opts, map[string]RoomType{"lobby": {}})

	if status, code := e.refused(t, withQuery("lobby", "token", "t-eve")); status != 403 || code != "banned" {
		t.Fatalf("banned join = %d %s; want 403 banned", status, code)
	}
	annOld := e.join(t, withQuery("lobby", "token", "t-ann"))
	bob := e.join(t, withQuery("lobby", "token", "t-bob"))
	cid := e.join(t, withQuery("lobby", "token", "t-cid"))
	dee := e.join(t, withQuery("lobby", "token", "t-dee"))

	st.set("ann", rooms.UserState{TokenVersion: 2}) // sessions revoked on another node
	annNew := e.join(t, withQuery("lobby", "token", "t-ann"))
	st.set("cid", rooms.UserState{Banned: true})
	st.remove("dee")
	n, err := e.hub.Revalidate(context.Background())
	if err != nil || n != 3 {
		t.Fatalf("Revalidate = %d, %v; want 3 closed", n, err)
	}
	for name, c := range map[string]*client{"ann's old": annOld, "cid's": cid, "dee's": dee} {
		if ce := c.closed(); ce.Code != CloseKicked {
			t.Fatalf("%s socket closed with %d; want %d", name, ce.Code, CloseKicked)
		}
	}
	for _, c := range []*client{annNew, bob} {
		c.send(`"still here"`)
	}
	if got := e.clientCount(t, bob.roomID); got != 2 {
		t.Fatalf("clients left = %d; want ann's new one and bob's", got)
	}
	if n, err := e.hub.Revalidate(context.Background()); err != nil || n != 0 {
		t.Fatalf("second Revalidate = %d, %v; want nothing to close", n, err)
	}
	if status, code := e.refused(t, withQuery("lobby", "token", "t-dee")); status != 401 || code != "unauthenticated" {
		t.Fatalf("join of a removed user = %d %s; want 401", status, code)
	}
}

// TestRevalidateEvery: the hub re-checks on its own.
func TestRevalidateEvery(t *testing.T) {
	tk := newTokens("t-ann", "ann")
	st := &states{m: map[string]rooms.UserState{"ann": {}}}
	opts := testOptions()
	opts.Authenticate, opts.UserStates, opts.RevalidateEvery = tk.authenticate, st.get, 20*time.Millisecond
	e := newEnv(t, opts, map[string]RoomType{"lobby": {}})
	ann := e.join(t, withQuery("lobby", "token", "t-ann"))
	st.set("ann", rooms.UserState{Banned: true})
	if ce := ann.closed(); ce.Code != CloseKicked || ce.Text != "banned" {
		t.Fatalf("closed with %d %q; want kicked, banned", ce.Code, ce.Text)
	}
}
