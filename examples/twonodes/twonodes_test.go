package twonodes

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun/driver/pgdriver"
)

// The two-node test runs the demo game server twice, as separate
// processes on loopback, sharing one PostgreSQL schema and one Redis (a
// redis-server of the test's own, so that it can stop it).

var (
	demoOnce sync.Once
	demoBin  string
	demoErr  error
)

// buildDemo builds examples/gameserver once per test binary.
func buildDemo(t *testing.T) string {
	t.Helper()
	demoOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gameserver-bin")
		if err != nil {
			demoErr = err
			return
		}
		demoBin = filepath.Join(dir, "gameserver")
		out, err := exec.Command("go", "build", "-o", demoBin, "github.com/gameadmin/admin/examples/gameserver").CombinedOutput()
		if err != nil {
			demoErr = fmt.Errorf("go build the demo: %v\n%s", err, out)
		}
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return demoBin
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// process is a child process of the test, killed at cleanup; its output
// goes to a file shown when the test fails.
type process struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

func start(t *testing.T, name string, args ...string) *process {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), filepath.Base(name)+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), "ADMIN_JWT_SECRET=two-node test secret, shared by both nodes",
		"ADMIN_SETUP_TOKEN="+setupToken)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() { cmd.Wait(); f.Close(); close(p.done) }()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("--- %s %s:\n%s", name, strings.Join(args, " "), b)
		}
	})
	return p
}

func (p *process) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// redisServer starts a redis-server of the test's own on a free port.
func redisServer(t *testing.T) (*process, string) {
	t.Helper()
	return redisServerOn(t, freePort(t))
}

// redisServerOn starts a redis-server of the test's own on port.
func redisServerOn(t *testing.T, port int) (*process, string) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("ADMIN_REQUIRE_REDIS") == "1" || os.Getenv("ADMIN_REQUIRE_PG") == "1" {
			t.Fatalf("redis-server not found and ADMIN_REQUIRE_REDIS or ADMIN_REQUIRE_PG is 1: %v", err)
		}
		t.Skipf("redis-server not found: %v", err)
	}
	p := start(t, bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	url := fmt.Sprintf("redis://127.0.0.1:%d/0", port)
	rdb := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port)})
	defer rdb.Close()
	waitFor(t, waitLong, "redis-server up", func() bool { return rdb.Ping(context.Background()).Err() == nil })
	return p, url
}

// pgSchema creates a fresh PostgreSQL schema and returns a DSN using it.
func pgSchema(t *testing.T) string {
	t.Helper()
	dsn := cmp.Or(os.Getenv("ADMIN_PG_DSN"), "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn), pgdriver.WithTimeout(10*time.Second)))
	if err := db.Ping(); err != nil {
		// As the other database tests: skipped when PostgreSQL is away,
		// failed when CI requires it.
		if os.Getenv("ADMIN_REQUIRE_PG") == "1" {
			t.Fatalf("PostgreSQL at %s: %v (ADMIN_REQUIRE_PG=1)", dsn, err)
		}
		t.Skipf("PostgreSQL at %s: %v", dsn, err)
	}
	schema := "nodes_" + strings.ToLower(rand.Text()[:10])
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Exec("DROP SCHEMA " + schema + " CASCADE")
		db.Close()
	})
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "search_path=" + schema
}

// waitLong is how long a wait for what should come (a close, a list that
// changes) may take: it ends as soon as it comes, so only what never
// comes takes it whole, and a loaded machine only makes the test slower.
const waitLong = 30 * time.Second

func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > within {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(25 * time.Millisecond)
	}
	return time.Since(start)
}

// gameNode is one demo process.
type gameNode struct {
	*process
	url string
}

func startGameNode(t *testing.T, dsn, redisURL, prefix, name string, seed bool) *gameNode {
	t.Helper()
	port := freePort(t)
	args := []string{"-addr", fmt.Sprintf("127.0.0.1:%d", port), "-db", dsn, "-redis", redisURL, "-node", name, "-redis-prefix", prefix}
	if seed {
		args = append(args, "-seed")
	}
	n := &gameNode{process: start(t, buildDemo(t), args...), url: fmt.Sprintf("http://127.0.0.1:%d", port)}
	waitFor(t, 60*time.Second, "node "+name+" serving", func() bool {
		select {
		case <-n.done:
			t.Fatalf("node %s exited", name)
		default:
		}
		res, err := http.Get(n.url + "/admin-api/auth/status")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == 200
	})
	return n
}

// api is an HTTP client with a cookie jar; loopback cookies are shared by
// both nodes (cookies ignore ports), as behind one load balancer.
type api struct {
	t  *testing.T
	hc *http.Client
}

func newAPI(t *testing.T) *api {
	jar, _ := cookiejar.New(nil)
	return &api{t: t, hc: &http.Client{Jar: jar, Timeout: waitLong}}
}

func (a *api) do(method, url, body string) (int, string) {
	a.t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	res, err := a.hc.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// want sends a request and checks the status and a part of the body.
func (a *api) want(method, url, body string, code int, contains string) string {
	a.t.Helper()
	got, b := a.do(method, url, body)
	if got != code || !strings.Contains(b, contains) {
		a.t.Fatalf("%s %s = %d %s; want %d containing %q", method, url, got, b, code, contains)
	}
	return b
}

// joinPlayer signs a seeded player in on node n and connects it to the arena.
func joinPlayer(t *testing.T, n *gameNode, email string) (userID, roomID, sessionID string, closed <-chan struct{}) {
	t.Helper()
	_, body := newAPI(t).do("POST", n.url+"/api/auth/login", `{"email":"`+email+`","password":"player-password"}`)
	var login struct{ Token, UserID string }
	if json.Unmarshal([]byte(body), &login) != nil || login.Token == "" {
		t.Fatalf("player login on %s: %s", n.url, body)
	}
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(n.url, "http")+"/ws/arena", http.Header{"Authorization": {"Bearer " + login.Token}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	var joined struct{ Type, RoomID, SessionID string }
	if err := conn.ReadJSON(&joined); err != nil || joined.Type != "joined" {
		t.Fatalf("join: %+v %v", joined, err)
	}
	// Keep reading (state ticks) so the hub never drops us as slow, until
	// the server closes the connection.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, _, err := conn.NextReader(); err != nil {
				return
			}
		}
	}()
	return login.UserID, joined.RoomID, joined.SessionID, done
}

type roomRow struct {
	RoomID  string `json:"roomId"`
	Node    string `json:"node"`
	Clients int    `json:"clients"`
	Locked  bool   `json:"locked"`
}

func rooms(a *api, n *gameNode) []roomRow {
	a.t.Helper()
	var rs []roomRow
	if err := json.Unmarshal([]byte(a.want("GET", n.url+"/admin-api/rooms", "", 200, "")), &rs); err != nil {
		a.t.Fatal(err)
	}
	return rs
}

func roomOn(rs []roomRow, id string) (roomRow, bool) {
	for _, r := range rs {
		if r.RoomID == id {
			return r, true
		}
	}
	return roomRow{}, false
}

// closedWithin waits until the server has closed the player's socket.
func closedWithin(t *testing.T, closed <-chan struct{}, within time.Duration) {
	t.Helper()
	select {
	case <-closed:
	case <-time.After(within):
		t.Fatalf("socket still open after %v", within)
	}
}

// setupToken is both nodes' Options.SetupToken: a cluster's setup link
// must work on whichever node the load balancer picks.
const setupToken = "two-node test setup token"

// TestTwoNodes runs two demo servers sharing PostgreSQL and Redis and
// checks what docs/cluster.md promises: one sign-in for both nodes, rooms
// seen and controlled across them, bans that close sockets everywhere, and
// what nodes do while Redis is down: sign-in and the panel keep working,
// and a node started then joins when Redis is back.
func TestTwoNodes(t *testing.T) {
	dsn := pgSchema(t)
	redisProc, redisURL := redisServer(t)
	prefix := "gameadmin-test:" + rand.Text()[:10] + ":"
	a := startGameNode(t, dsn, redisURL, prefix, "a", true)
	b := startGameNode(t, dsn, redisURL, prefix, "b", false)
	root := newAPI(t)
	root.want("POST", b.url+"/admin-api/auth/bootstrap", `{"email":"root@example.com","password":"correct horse"}`, 403, "setup_token_required")
	root.want("POST", b.url+"/admin-api/auth/bootstrap", `{"email":"root@example.com","password":"correct horse","token":"`+setupToken+`"}`, 201, `"role":"admin"`)
	root.want("GET", a.url+"/admin-api/auth/me", "", 200, `"role":"admin"`)

	// Players on node B; node A's panel sees their room on b.
	p7, roomB, _, conn7 := joinPlayer(t, b, "player07@example.com")
	_, roomB8, session8, conn8 := joinPlayer(t, b, "player08@example.com")
	if roomB8 != roomB {
		t.Fatalf("players joined %s and %s; want one arena", roomB, roomB8)
	}
	waitFor(t, waitLong, "A lists B's room with 2 clients", func() bool {
		r, ok := roomOn(rooms(root, a), roomB)
		return ok && r.Node == "b" && r.Clients == 2
	})
	path := a.url + "/admin-api/rooms/" + roomB
	root.want("GET", path, "", 200, `"node":"b"`)
	root.want("PATCH", path+"/state", `{"path":["coinGoal"],"value":9}`, 200, `"ok":true`)
	root.want("GET", path, "", 200, `"coinGoal":9`)
	root.want("PATCH", path+"/state", `{"path":["coinGoal"],"value":"lots"}`, 400, `"code":"invalid_value"`)
	root.want("PATCH", path, `{"locked":true}`, 200, `"ok":true`)
	root.want("GET", b.url+"/admin-api/rooms/"+roomB, "", 200, `"locked":true`)
	root.want("DELETE", path+"/clients/"+session8, `{"reason":"afk"}`, 200, `"ok":true`)
	closedWithin(t, conn8, waitLong)
	root.want("PATCH", path, `{"locked":false}`, 200, `"ok":true`)

	// A ban through A closes the player's socket on B, counted in A's answer.
	start := time.Now()
	root.want("POST", a.url+"/admin-api/users/"+p7+"/ban", `{"reason":"cheating"}`, 200, `"sessionsClosed":1`)
	closedWithin(t, conn7, waitLong)
	t.Logf("ban on A closed the socket on B in %v", time.Since(start))

	// Failed sign-ins spread over both nodes spend one bucket (Login's, 10
	// and one back every 6 s): the first 429 comes after 10 of them, not
	// after the 20 of a bucket per node, unless the sign-ins took a minute
	// on a loaded machine and earned 10 back.
	for i := 0; ; i++ {
		n := a
		if i%2 == 1 {
			n = b
		}
		code, body := newAPI(t).do("POST", n.url+"/admin-api/auth/login", `{"email":"nobody@example.com","password":"wrong password"}`)
		if code == 429 {
			if i < 10 || !strings.Contains(body, `"code":"rate_limited"`) {
				t.Fatalf("failed sign-in %d = %d %s; want 401 for the first 10, then 429 rate_limited", i+1, code, body)
			}
			break
		}
		if code != 401 {
			t.Fatalf("failed sign-in %d = %d %s; want 401", i+1, code, body)
		}
		if i == 19 {
			t.Fatal("20 failed sign-ins over two nodes without a 429; want the shared bucket's 10")
		}
	}

	// Killing node B: its rooms leave A's list within the expiry.
	_, roomB9, _, _ := joinPlayer(t, b, "player09@example.com")
	waitFor(t, waitLong, "A lists B's room", func() bool { _, ok := roomOn(rooms(root, a), roomB9); return ok })
	b.kill()
	killed := time.Now()
	waitFor(t, waitLong, "A answers 503 node_unavailable for B's room", func() bool {
		code, body := root.do("PATCH", a.url+"/admin-api/rooms/"+roomB9, `{"locked":true}`)
		return code == 503 && strings.Contains(body, `"code":"node_unavailable"`)
	})
	waitFor(t, 10*time.Second+waitLong, "B's room gone from A's list", func() bool { _, ok := roomOn(rooms(root, a), roomB9); return !ok })
	t.Logf("B's rooms left A's list %v after the kill (expiry 10s)", time.Since(killed))

	// A third node, C, with a player, for the outage below.
	c := startGameNode(t, dsn, redisURL, prefix, "c", false)
	p11, _, _, conn11 := joinPlayer(t, c, "player11@example.com")

	// With Redis stopped: sign-in works, limited by each node's own
	// buckets, and so does the rest of the panel, A's own rooms and
	// moderation included.
	p10, roomA, _, conn10 := joinPlayer(t, a, "player10@example.com")
	redisProc.kill()
	root.want("POST", a.url+"/admin-api/auth/login", `{"email":"root@example.com","password":"correct horse"}`, 200, `"role":"admin"`)
	root.want("GET", a.url+"/admin-api/auth/me", "", 200, `"role":"admin"`)
	root.want("GET", a.url+"/admin-api/users?_end=5", "", 200, `"email"`)
	root.want("GET", a.url+"/admin-api/guilds", "", 200, `"name"`)
	root.want("GET", a.url+"/admin-api/_health", "", 200, `"redis":"unreachable"`)
	root.want("GET", a.url+"/admin-api/_dashboard", "", 200, `"widgets"`)
	root.want("GET", a.url+"/admin-api/rooms", "", 200, roomA)
	root.want("GET", a.url+"/admin-api/rooms/"+roomA, "", 200, `"node":"a"`)
	root.want("GET", a.url+"/admin-api/adminAudit?_end=3", "", 200, `"action"`)
	root.want("POST", a.url+"/admin-api/users/"+p10+"/ban", `{"reason":"spam"}`, 200, `"sessionsClosed":1`)
	closedWithin(t, conn10, waitLong)
	if b, err := os.ReadFile(a.log); err != nil || !bytes.Contains(b, []byte("rate limits answer without it")) {
		t.Fatalf("A's log does not say its limiters lost Redis: %v", err)
	}

	// A node started while Redis is down (a crash, a deploy or a scale-up
	// during the outage) starts anyway: it serves its players and the
	// panel, and its health says Redis is unreachable.
	d := startGameNode(t, dsn, redisURL, prefix, "d", false)
	root.want("GET", d.url+"/admin-api/_health", "", 200, `"redis":"unreachable"`)
	_, roomD, _, _ := joinPlayer(t, d, "player12@example.com")
	root.want("GET", d.url+"/admin-api/rooms", "", 200, roomD)

	// A ban through A cannot reach C while Redis is down: the answer says
	// so. When Redis is back, C's heartbeat returns, C re-checks its
	// players against the database, and closes the banned one's socket.
	root.want("POST", a.url+"/admin-api/users/"+p11+"/ban", `{"reason":"spam"}`, 200, `"partial":true`)
	select {
	case <-conn11:
		t.Fatal("C closed the socket without hearing of the ban")
	case <-time.After(300 * time.Millisecond):
	}
	port, _ := strconv.Atoi(redisURL[strings.LastIndex(redisURL, ":")+1 : strings.LastIndex(redisURL, "/")])
	redisServerOn(t, port)
	back := time.Now()
	closedWithin(t, conn11, waitLong)
	t.Logf("C closed the banned player's socket %v after Redis came back", time.Since(back))

	// D joins the cluster: A lists D's room and reaches it.
	waitFor(t, waitLong, "A lists D's room on d", func() bool {
		r, ok := roomOn(rooms(root, a), roomD)
		return ok && r.Node == "d"
	})
	waitFor(t, waitLong, "A inspects D's room", func() bool {
		code, body := root.do("GET", a.url+"/admin-api/rooms/"+roomD, "")
		return code == 200 && strings.Contains(body, `"node":"d"`)
	})
	root.want("GET", d.url+"/admin-api/_health", "", 200, `"redis":"ok"`)
}
