package redisstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gameadmin/admin"
	"github.com/gameadmin/admin/live"
	"github.com/gorilla/websocket"
	"github.com/redis/go-redis/v9"
)

// node is one game-server node of a test cluster: a hub behind an httptest
// server, joined to the cluster.
type node struct {
	hub     *live.Hub
	cluster *Cluster
	srv     *httptest.Server
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// The tests' waits: a node's answer to another (ClusterOptions.Timeout),
// and a wait for what should come (a close, a list that changes), which
// ends as soon as it comes. Both are long, so that a loaded machine only
// makes a test slower; only what never comes takes them whole.
const (
	answerTimeout = 10 * time.Second
	waitLong      = 30 * time.Second
)

func startNode(t testing.TB, rdb redis.UniversalClient, prefix, name string, expiry time.Duration) *node {
	t.Helper()
	return startNodeWith(t, rdb, prefix, name, expiry, answerTimeout, live.Options{}, quiet())
}

// startNodeWith is startNode with the time the node waits for another's
// answer, the hub's options (its Authenticate and Logger are the test's)
// and the cluster's logger.
func startNodeWith(t testing.TB, rdb redis.UniversalClient, prefix, name string, expiry, timeout time.Duration, opts live.Options, log *slog.Logger) *node {
	t.Helper()
	opts.Authenticate = func(r *http.Request) (string, error) { return r.URL.Query().Get("user"), nil }
	opts.Logger = quiet()
	hub := live.NewHub(opts)
	hub.Define("arena", live.RoomType{EmptyTimeout: -1, NewState: func() any { return map[string]any{"goal": 5.0} }})
	c, err := NewCluster(rdb, hub, ClusterOptions{Node: name, Prefix: prefix, Expiry: expiry, Timeout: timeout, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/ws/", http.StripPrefix("/ws/", hub))
	n := &node{hub: hub, cluster: c, srv: httptest.NewServer(mux)}
	t.Cleanup(n.stop)
	return n
}

func (n *node) stop() {
	n.cluster.Close()
	n.hub.Close()
	n.srv.Close()
}

type player struct {
	conn          *websocket.Conn
	room, session string
}

func (n *node) join(t testing.TB, user string) *player {
	t.Helper()
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(n.srv.URL, "http")+"/ws/arena?user="+user, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	var m struct{ Type, RoomID, SessionID string }
	if err := conn.ReadJSON(&m); err != nil || m.Type != "joined" {
		t.Fatalf("join: %+v %v", m, err)
	}
	p := &player{conn: conn, room: m.RoomID, session: m.SessionID}
	p.state(t) // the state every join is sent
	return p
}

// closed reads until the socket closes and returns the close code.
func (p *player) closed(t *testing.T) int {
	t.Helper()
	p.conn.SetReadDeadline(time.Now().Add(waitLong))
	for {
		if _, _, err := p.conn.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) {
				t.Fatalf("read: %v; want a close within %v", err, waitLong)
			}
			return ce.Code
		}
	}
}

// open checks that the socket stays open for a moment: reads end in a
// timeout, not a close.
func (p *player) open(t *testing.T) {
	t.Helper()
	p.conn.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	for {
		_, _, err := p.conn.ReadMessage()
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return
		}
		if err != nil {
			t.Fatalf("socket of room %s: %v; want it open", p.room, err)
		}
	}
}

// state reads until a state message and returns it.
func (p *player) state(t testing.TB) map[string]any {
	t.Helper()
	p.conn.SetReadDeadline(time.Now().Add(waitLong))
	for {
		var m struct {
			Type  string
			State map[string]any
		}
		if err := p.conn.ReadJSON(&m); err != nil {
			t.Fatalf("read: %v", err)
		}
		if m.Type == "state" {
			return m.State
		}
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", waitLong, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestClusterRooms: node A sees node B's rooms and sessions, and inspects,
// locks, edits, kicks and disposes there; a ban on A closes the player's
// sockets on both nodes and counts them all.
func TestClusterRooms(t *testing.T) {
	rdb, prefix := testRedis(t)
	ctx := context.Background()
	a := startNode(t, rdb, prefix, "a", 10*time.Second)
	b := startNode(t, rdb, prefix, "b", 10*time.Second)
	onB := b.join(t, "u1")
	onA := a.join(t, "u1")
	other := b.join(t, "u2")

	var rooms []admin.RoomSummary
	eventually(t, "A lists both rooms", func() bool {
		rooms, _ = a.cluster.List(ctx)
		return len(rooms) == 2
	})
	nodes := map[string]string{}
	for _, r := range rooms {
		nodes[r.RoomID] = r.Node
	}
	if nodes[onB.room] != "b" || nodes[onA.room] != "a" {
		t.Fatalf("A's list = %+v; want B's room on b and A's on a", rooms)
	}
	eventually(t, "B's room shows 2 clients on A", func() bool {
		rooms, _ = a.cluster.List(ctx)
		for _, r := range rooms {
			if r.RoomID == onB.room {
				return r.Clients == 2
			}
		}
		return false
	})
	s, err := a.cluster.UserSessions(ctx, "u1")
	if err != nil || len(s) != 2 || s[0].Node != "b" || s[1].Node != "a" || s[0].SessionID != onB.session {
		t.Fatalf("A's UserSessions(u1) = %+v, %v; want B's then A's", s, err)
	}

	v, err := a.cluster.Inspect(ctx, onB.room)
	if err != nil || v.Node != "b" || len(v.ClientList) != 2 || string(v.State.(json.RawMessage)) != `{"goal":5}` {
		t.Fatalf("A inspects B's room = %+v, %v", v, err)
	}
	if err := a.cluster.EditState(ctx, onB.room, []any{"goal", "x"}, json.RawMessage(`1`)); !errors.Is(err, admin.ErrInvalidPath) {
		t.Fatalf("a bad path on B = %v; want ErrInvalidPath", err)
	}
	if err := a.cluster.EditState(ctx, onB.room, []any{"goal"}, json.RawMessage(`9`)); err != nil {
		t.Fatal(err)
	}
	if st := onB.state(t); st["goal"] != 9.0 {
		t.Fatalf("state on B after A's edit = %v", st)
	}
	if err := a.cluster.SetLocked(ctx, onB.room, true); err != nil {
		t.Fatal(err)
	}
	if r, ok := b.hub.Room(onB.room); !ok || !r.Locked() {
		t.Fatal("B's room not locked after A's lock")
	}
	if err := a.cluster.Kick(ctx, onB.room, "nope", "x"); !errors.Is(err, admin.ErrSessionNotFound) {
		t.Fatalf("kick of an unknown session on B = %v; want ErrSessionNotFound", err)
	}
	if _, err := a.cluster.Inspect(ctx, "arena-000000000000"); !errors.Is(err, admin.ErrRoomNotFound) {
		t.Fatalf("inspect of an unknown room = %v; want ErrRoomNotFound", err)
	}
	if err := a.cluster.Kick(ctx, onB.room, other.session, "bye"); err != nil {
		t.Fatal(err)
	}
	if code := other.closed(t); code != live.CloseKicked {
		t.Fatalf("kicked socket closed with %d", code)
	}

	start := time.Now()
	n, err := a.cluster.DisconnectUser(ctx, "u1", admin.LeaveBanned, "banned")
	if err != nil || n != 2 {
		t.Fatalf("DisconnectUser(u1) on A = %d, %v; want 2 (one per node)", n, err)
	}
	onB.closed(t)
	onA.closed(t)
	t.Logf("ban across nodes: %v", time.Since(start))

	if err := a.cluster.Dispose(ctx, onB.room); err != nil {
		t.Fatal(err)
	}
	eventually(t, "B's disposed room gone from A's list", func() bool {
		rooms, _ = a.cluster.List(ctx)
		return len(rooms) == 1 && rooms[0].Node == "a"
	})
}

// TestClusterNodeGone: a node listed in Redis that no longer listens
// answers ErrNodeUnavailable at once; one that listens but never answers,
// ErrNodeTimeout after the timeout; and a node whose heartbeat stopped
// drops out of the list at its expiry (its keys are given a moment to
// live once the rest is checked: set at the start, a short expiry could
// pass before the checks on a loaded machine).
func TestClusterNodeGone(t *testing.T) {
	rdb, prefix := testRedis(t)
	ctx := context.Background()
	// A short timeout: only the mute node, which never answers, waits
	// for it.
	a := startNodeWith(t, rdb, prefix, "a", 10*time.Second, time.Second, live.Options{}, quiet())
	k := keys{prefix}
	ghost := func(name, room string, ttl time.Duration) {
		summary, _ := json.Marshal(admin.RoomSummary{RoomID: room, Name: "arena", CreatedAt: time.Now()})
		rdb.SAdd(ctx, k.nodes(), name)
		rdb.Set(ctx, k.node(name), "x", ttl)
		rdb.HSet(ctx, k.rooms(name), room, summary)
		rdb.PExpire(ctx, k.rooms(name), ttl)
	}
	ghost("crashed", "arena-crashed", time.Minute)
	ghost("mute", "arena-mute", time.Minute)
	mute := rdb.Subscribe(ctx, k.commands("mute"))
	defer mute.Close()
	if _, err := mute.Receive(ctx); err != nil {
		t.Fatal(err)
	}

	if rooms, _ := a.cluster.List(ctx); len(rooms) != 2 {
		t.Fatalf("List = %+v; want the crashed and the mute node's rooms", rooms)
	}
	if _, err := a.cluster.Inspect(ctx, "arena-crashed"); !errors.Is(err, admin.ErrNodeUnavailable) {
		t.Fatalf("inspect on a node nobody answers for = %v; want ErrNodeUnavailable", err)
	}
	start := time.Now()
	if err := a.cluster.SetLocked(ctx, "arena-mute", true); !errors.Is(err, admin.ErrNodeTimeout) {
		t.Fatalf("lock on a mute node = %v; want ErrNodeTimeout", err)
	}
	if d := time.Since(start); d < time.Second {
		t.Fatalf("gave up after %v; want the 1s timeout", d)
	}
	if n, err := a.cluster.DisconnectUser(ctx, "u1", admin.LeaveBanned, "banned"); n != 0 || err != nil {
		t.Fatalf("DisconnectUser with only a mute subscriber on the command channel = %d, %v", n, err)
	}
	// The crashed node's heartbeat is over: its keys expire.
	rdb.PExpire(ctx, k.node("crashed"), time.Millisecond)
	rdb.PExpire(ctx, k.rooms("crashed"), time.Millisecond)
	eventually(t, "the crashed node's room gone at its expiry", func() bool {
		rooms, _ := a.cluster.List(ctx)
		return len(rooms) == 1 && rooms[0].RoomID == "arena-mute"
	})
	if m, _ := rdb.SIsMember(ctx, k.nodes(), "crashed").Result(); m {
		t.Fatal("the expired node is still a member of the node set")
	}
}

// TestClusterRedisDown: with Redis unreachable, a node still lists,
// inspects and acts on its own rooms and disconnects its own sessions,
// reporting the rest of the cluster unavailable.
func TestClusterRedisDown(t *testing.T) {
	_, prefix := testRedis(t)
	ctx := context.Background()
	// A client of its own, whose connections the test can cut.
	opt, _ := redis.ParseURL(redisURL())
	opt.MaxRetries = -1
	own := redis.NewClient(opt)
	defer own.Close()
	a := startNode(t, own, prefix, "a", 10*time.Second)
	p := a.join(t, "u1")
	own.Close() // every command fails from here on, as with Redis down

	rooms, err := a.cluster.List(ctx)
	if err != nil || len(rooms) != 1 || rooms[0].Node != "a" {
		t.Fatalf("List without Redis = %+v, %v; want this node's room", rooms, err)
	}
	if _, err := a.cluster.Inspect(ctx, p.room); err != nil {
		t.Fatalf("inspect a local room without Redis: %v", err)
	}
	if _, err := a.cluster.Inspect(ctx, "arena-elsewhere"); !errors.Is(err, admin.ErrNodeUnavailable) {
		t.Fatalf("inspect another node's room without Redis = %v; want ErrNodeUnavailable", err)
	}
	n, err := a.cluster.DisconnectUser(ctx, "u1", admin.LeaveBanned, "banned")
	if n != 1 || !errors.Is(err, admin.ErrNodeUnavailable) {
		t.Fatalf("DisconnectUser without Redis = %d, %v; want 1 and ErrNodeUnavailable", n, err)
	}
	p.closed(t)
}

// TestClusterStartsWithRedisDown: two nodes on a redis-server of the
// test's own. B joins, Redis stops, and A starts: NewCluster succeeds, A
// serves its own rooms alone and its health check fails, and a ban of A's
// player made through B reaches nobody on A. When Redis is back A joins the
// cluster as a node whose Redis went away after start: B lists A's room and
// A lists B's, A answers B's commands (a kick through B), and A re-checks
// its players, closing the banned one's socket and no other.
func TestClusterStartsWithRedisDown(t *testing.T) {
	srv := newRedisServer(t)
	srv.start()
	prefix := "gameadmin-test:" + rand.Text()[:10] + ":"
	ctx := context.Background()
	b := startNode(t, srv.client(), prefix, "b", 3*time.Second)
	onB := b.join(t, "u3")

	srv.stop()
	banned := &bannedUsers{m: map[string]bool{}}
	ca := srv.client()
	var logs syncBuffer
	a := startNodeWith(t, ca, prefix, "a", 3*time.Second, answerTimeout, live.Options{
		UserStates:      banned.states,
		RevalidateEvery: -1, // only when the cluster asks
	}, slog.New(slog.NewTextHandler(&logs, nil)))
	cheater, honest := a.join(t, "u1"), a.join(t, "u2")
	rooms, err := a.cluster.List(ctx)
	if err != nil || len(rooms) != 1 || rooms[0].Node != "a" || rooms[0].Clients != 2 {
		t.Fatalf("A's List with Redis down = %+v, %v; want A's room with its 2 clients", rooms, err)
	}
	if v, err := a.cluster.Inspect(ctx, cheater.room); err != nil || v.Node != "a" {
		t.Fatalf("A inspects its room with Redis down = %+v, %v", v, err)
	}
	if err := HealthCheck(ca).Check(ctx); err == nil {
		t.Fatal("A's health check passes with Redis down")
	}
	if !strings.Contains(logs.String(), "joins the cluster when Redis answers") {
		t.Fatalf("A's log does not say it starts alone: %q", logs.String())
	}
	// A ban made through B during the outage: B cannot reach A.
	banned.ban("u1")
	if n, err := b.cluster.DisconnectUser(ctx, "u1", admin.LeaveBanned, "banned"); n != 0 || !errors.Is(err, admin.ErrNodeUnavailable) {
		t.Fatalf("B's DisconnectUser(u1) with Redis down = %d, %v; want 0 and ErrNodeUnavailable", n, err)
	}
	if s, err := a.hub.UserSessions(ctx, "u1"); err != nil || len(s) != 1 {
		t.Fatalf("u1's sessions on A after a ban A did not hear = %+v, %v; want still one", s, err)
	}

	srv.start()
	eventually(t, "B lists A's room on a", func() bool {
		rooms, _ := b.cluster.List(ctx)
		for _, r := range rooms {
			if r.RoomID == cheater.room {
				return r.Node == "a"
			}
		}
		return false
	})
	eventually(t, "A lists B's room on b", func() bool {
		rooms, _ := a.cluster.List(ctx)
		for _, r := range rooms {
			if r.RoomID == onB.room {
				return r.Node == "b"
			}
		}
		return false
	})
	if code := cheater.closed(t); code != live.CloseKicked {
		t.Fatalf("the banned player's socket closed with %d; want %d", code, live.CloseKicked)
	}
	// The other player stays: B sees one client in A's room, and the kick
	// finds the session.
	eventually(t, "B inspects A's room (A subscribed)", func() bool {
		v, err := b.cluster.Inspect(ctx, honest.room)
		return err == nil && v.Node == "a" && len(v.ClientList) == 1
	})
	if err := b.cluster.Kick(ctx, honest.room, honest.session, "bye"); err != nil {
		t.Fatalf("B kicks A's player after A joined: %v", err)
	}
	if code := honest.closed(t); code != live.CloseKicked {
		t.Fatalf("the kicked socket closed with %d; want %d", code, live.CloseKicked)
	}
	if err := HealthCheck(ca).Check(ctx); err != nil {
		t.Fatalf("A's health check once Redis is back and A joined: %v", err)
	}
}

// TestClusterCloseWhileRedisDown: a node started without Redis, and
// closed before Redis ever answered, stops every goroutine it started
// (its own and go-redis' subscription loop).
func TestClusterCloseWhileRedisDown(t *testing.T) {
	before := clusterGoroutines()
	hub := live.NewHub(live.Options{AllowAnonymous: true, Logger: quiet()})
	defer hub.Close()
	c, err := NewCluster(deadRedis(t), hub, ClusterOptions{Node: "alone", Prefix: "gameadmin-test:" + rand.Text()[:10] + ":", Logger: quiet()})
	if err != nil {
		t.Fatalf("NewCluster with Redis down = %v; want the node started", err)
	}
	if rooms, err := c.List(context.Background()); err != nil || len(rooms) != 0 {
		t.Fatalf("List = %+v, %v", rooms, err)
	}
	if n := clusterGoroutines(); n <= before {
		t.Fatalf("%d goroutines of the cluster while it runs; want more than the %d before", n, before)
	}
	c.Close()
	eventually(t, "the cluster's goroutines gone after Close", func() bool {
		return clusterGoroutines() <= before
	})
}

// clusterGoroutines counts the goroutines running a Cluster's loops or
// go-redis' subscription channel.
func clusterGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, "redisstore.(*Cluster)") || strings.Contains(g, "go-redis/v9.(*channel)") {
			count++
		}
	}
	return count
}

// syncBuffer is a bytes.Buffer safe for a logger and a test at once.
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

// TestClusterResubscribeRechecks: when the node's pub/sub connection is cut
// and go-redis subscribes again, a ban published in between reached nobody,
// and no heartbeat failed to say so; the renewed subscription makes the node
// re-check its players, closing the banned one's socket and no other.
func TestClusterResubscribeRechecks(t *testing.T) {
	rdb, prefix := testRedis(t)
	ctx := context.Background()
	opt, _ := redis.ParseURL(redisURL())
	opt.ClientName = strings.TrimSuffix(prefix, ":") + "-a"
	own := redis.NewClient(opt)
	defer own.Close()
	banned := &bannedUsers{m: map[string]bool{}}
	n := startNodeWith(t, own, prefix, "a", time.Minute, answerTimeout, live.Options{
		UserStates:      banned.states,
		RevalidateEvery: -1, // only when the cluster asks
	}, quiet())
	cheater, honest := n.join(t, "u1"), n.join(t, "u2")

	banned.ban("u1") // banned while the node could not hear it
	list, err := rdb.ClientList(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	for line := range strings.Lines(list) {
		if strings.Contains(line, " name="+opt.ClientName+" ") && !strings.Contains(line, " sub=0 ") {
			fmt.Sscanf(line, "id=%d", &id)
		}
	}
	if id == 0 {
		t.Fatalf("no subscribed connection named %s in CLIENT LIST:\n%s", opt.ClientName, list)
	}
	if err := rdb.ClientKillByFilter(ctx, "ID", strconv.FormatInt(id, 10)).Err(); err != nil {
		t.Fatal(err)
	}
	if code := cheater.closed(t); code != live.CloseKicked {
		t.Fatalf("the banned player's socket closed with %d; want %d", code, live.CloseKicked)
	}
	honest.open(t)
}

// TestClusterClose: Close leaves the cluster at once (the node's keys are
// gone) and stops every goroutine the cluster started.
func TestClusterClose(t *testing.T) {
	_, prefix := testRedis(t)
	ctx := context.Background()
	opt, _ := redis.ParseURL(redisURL())
	own := redis.NewClient(opt)
	defer own.Close()
	own.Ping(ctx)
	before := runtime.NumGoroutine()
	hub := live.NewHub(live.Options{AllowAnonymous: true, Logger: quiet()})
	c, err := NewCluster(own, hub, ClusterOptions{Node: "solo", Prefix: prefix, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	k := keys{prefix}
	if n := own.Exists(ctx, k.node("solo")).Val(); n != 1 {
		t.Fatalf("node key after NewCluster: exists = %d", n)
	}
	c.Close()
	c.Close() // idempotent
	hub.Close()
	if n := own.Exists(ctx, k.node("solo")).Val(); n != 0 {
		t.Fatal("node key left after Close")
	}
	if m := own.SIsMember(ctx, k.nodes(), "solo").Val(); m {
		t.Fatal("node still in the node set after Close")
	}
	eventually(t, "goroutines back to their count before NewCluster", func() bool {
		return runtime.NumGoroutine() <= before
	})
}

// bannedUsers is the ban state the tests' hubs re-check live players
// against (live.Options.UserStates), set by the test.
type bannedUsers struct {
	mu sync.Mutex
	m  map[string]bool
}

func (b *bannedUsers) ban(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.m[id] = true
}

func (b *bannedUsers) states(_ context.Context, ids []string) (map[string]admin.UserState, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]admin.UserState{}
	for _, id := range ids {
		out[id] = admin.UserState{Banned: b.m[id]}
	}
	return out, nil
}
