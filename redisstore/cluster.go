package redisstore

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/panicerr"
	"github.com/gameadmin/admin/live"
	"github.com/redis/go-redis/v9"
)

// ClusterOptions configure a Cluster.
type ClusterOptions struct {
	// Node names this process among the nodes: letters, digits, '.', '_'
	// and '-', at most 64, unique in the cluster. It is what the panel shows
	// as a room's node. Default: the host name.
	Node string
	// Prefix starts every key and channel of the cluster: nodes sharing
	// rooms share it. Default DefaultPrefix.
	Prefix string
	// Expiry is how long a node's rooms and sessions stay listed after its
	// last heartbeat: a crashed node's rooms vanish from every panel within
	// it. Default 10s.
	Expiry time.Duration
	// Heartbeat is how often the node rewrites its presence even when
	// nothing changed; it must be shorter than Expiry. Changes are published
	// within about 100ms anyway. Default Expiry/3.
	Heartbeat time.Duration
	// Timeout bounds a room operation or a disconnect sent to another node;
	// past it the panel answers 504 node_timeout. The command carries what
	// is left of the shorter of it and the caller's deadline (the panel's
	// RoomTimeout), so the owner gives up first and answers 504
	// room_timeout for a room that is busy, and drops the work unrun.
	// Default 2s.
	Timeout time.Duration
	// Logger receives Redis errors the cluster rides out (a failed
	// heartbeat, a list served from this node alone). Default
	// slog.Default().
	Logger *slog.Logger
}

// Cluster is an admin.Rooms for a live.Hub running on several nodes that
// share one Redis. Each node publishes its rooms and its user→session index
// to Redis with a heartbeat, so List, Inspect and UserSessions see every
// room of every live node; operations on a room of another node, and
// DisconnectUser, travel to the node(s) holding them over Redis pub/sub and
// wait for their answer.
//
// When Redis cannot be reached, at start or later, List and UserSessions
// answer this node's rooms and sessions alone (and log it), operations on
// this node's rooms still work, and those on other nodes' rooms fail with
// admin.ErrNodeUnavailable. When it answers again the node (re)joins: it
// subscribes, publishes its presence and re-checks its players.
type Cluster struct {
	rdb  redis.UniversalClient
	hub  *live.Hub
	node string
	opts ClusterOptions
	log  *slog.Logger
	keys keys

	ps      *redis.PubSub
	changes chan struct{}
	recheck chan struct{} // asks the rechecker for one more Hub.Revalidate
	done    chan struct{}
	wg      sync.WaitGroup
	close   sync.Once

	pmu     sync.Mutex
	pending map[string]chan reply

	lastWarn atomic.Int64 // unix nanoseconds of the last degraded-read warning

	// Owned by the presence loop.
	published map[string]string // field of the rooms and users hashes -> value
	synced    bool              // Redis holds exactly published
	failing   bool              // the last heartbeat failed
	joined    bool              // a heartbeat has succeeded once
}

var _ admin.Rooms = (*Cluster)(nil)

// keys are the Redis keys and channels of one cluster prefix.
type keys struct{ prefix string }

func (k keys) nodes() string            { return k.prefix + "nodes" }
func (k keys) node(n string) string     { return k.prefix + "node:" + n }
func (k keys) rooms(n string) string    { return k.prefix + "node:" + n + ":rooms" }
func (k keys) users(n string) string    { return k.prefix + "node:" + n + ":users" }
func (k keys) commands(n string) string { return k.prefix + "cmd:" + n }
func (k keys) broadcast() string        { return k.prefix + "broadcast" }
func (k keys) replies(n string) string  { return k.prefix + "reply:" + n }

var nodeName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// publishDelay gathers the changes of a burst of joins into one write.
const publishDelay = 100 * time.Millisecond

// NewCluster joins hub to the cluster: it subscribes to the node's command
// channel, publishes the node's presence and keeps it fresh until Close.
// It fails only for bad options. When Redis does not answer, the node
// starts as one whose Redis went away: it serves its own rooms alone, and
// joins the cluster when Redis answers (go-redis subscribes again, the next
// heartbeat publishes the presence, and the node re-checks its players,
// since bans published meanwhile reached nobody here).
func NewCluster(rdb redis.UniversalClient, hub *live.Hub, opts ClusterOptions) (*Cluster, error) {
	if opts.Node == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("redisstore: no ClusterOptions.Node and no host name: %w", err)
		}
		opts.Node = h
	}
	if !nodeName.MatchString(opts.Node) {
		return nil, fmt.Errorf("redisstore: node name %q: want 1 to 64 letters, digits, '.', '_' or '-'", opts.Node)
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if opts.Expiry <= 0 {
		opts.Expiry = 10 * time.Second
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = opts.Expiry / 3
	}
	if opts.Heartbeat >= opts.Expiry {
		return nil, errors.New("redisstore: ClusterOptions.Heartbeat must be shorter than Expiry")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	c := &Cluster{
		rdb: rdb, hub: hub, node: opts.Node, opts: opts, log: opts.Logger,
		keys:    keys{opts.Prefix},
		changes: make(chan struct{}, 1),
		recheck: make(chan struct{}, 1),
		done:    make(chan struct{}),
		pending: make(map[string]chan reply),
	}
	ctx, cancel := context.WithTimeout(context.Background(), opts.Timeout)
	defer cancel()
	// go-redis keeps the channels whether or not Redis answers now, and
	// subscribes to them whenever it connects again; receive sees those
	// confirmations and has the players re-checked.
	c.ps = rdb.Subscribe(ctx, c.keys.commands(c.node), c.keys.broadcast(), c.keys.replies(c.node))
	var subscribeErr error
	for range 3 { // one confirmation per channel
		if _, subscribeErr = c.ps.Receive(ctx); subscribeErr != nil {
			break
		}
	}
	// Changes from here on are signalled, so none made before the first
	// publish waits for the next heartbeat.
	hub.NotifyChanges(c.changes)
	c.publish(ctx)
	if subscribeErr != nil && !c.failing { // else publish said Redis is away
		c.log.Warn("redisstore: subscribe failed; the node hears no commands until go-redis subscribes again", "node", c.node, "err", subscribeErr)
	}
	c.wg.Add(3)
	go c.receive()
	go c.presence()
	go c.rechecker()
	return c, nil
}

// Node returns the node's name.
func (c *Cluster) Node() string { return c.node }

// Close leaves the cluster: the node's rooms disappear from every panel at
// once, and operations sent to it fail. It does not close the hub or rdb.
// Close is idempotent and always returns nil.
func (c *Cluster) Close() error {
	c.close.Do(func() {
		close(c.done)
		ctx, cancel := context.WithTimeout(context.Background(), c.opts.Timeout)
		defer cancel()
		_ = c.ps.Close()
		c.wg.Wait()
		pipe := c.rdb.TxPipeline()
		pipe.Del(ctx, c.keys.node(c.node), c.keys.rooms(c.node), c.keys.users(c.node))
		pipe.SRem(ctx, c.keys.nodes(), c.node)
		if _, err := pipe.Exec(ctx); err != nil && c.joined {
			c.log.Warn("redisstore: leaving the cluster; other nodes drop this one at its expiry", "node", c.node, "err", err)
		}
	})
	return nil
}

// ---- presence ----

// presence publishes the node's rooms and sessions shortly after a change
// and at every heartbeat.
func (c *Cluster) presence() {
	defer c.wg.Done()
	tick := time.NewTicker(c.opts.Heartbeat)
	defer tick.Stop()
	var settle <-chan time.Time
	for {
		select {
		case <-c.done:
			return
		case <-c.changes:
			if settle == nil {
				settle = time.After(publishDelay)
			}
			continue
		case <-settle:
		case <-tick.C:
		}
		settle = nil
		ctx, cancel := context.WithTimeout(context.Background(), c.opts.Timeout)
		c.publish(ctx)
		cancel()
	}
}

// publish writes what changed since the last successful write, or
// everything when Redis may have lost it (a failed write, or the node's key
// found missing), in one transaction that also renews the expiry.
func (c *Cluster) publish(ctx context.Context) {
	rooms, err := c.hub.List(ctx)
	if err != nil {
		// An empty list would take this node's rooms out of every panel:
		// keep what Redis has until the next tick.
		c.log.WarnContext(ctx, "redisstore: list this node's rooms; not published this time", "node", c.node, "err", err)
		return
	}
	now := make(map[string]string, len(rooms))
	for _, r := range rooms {
		r.Node = c.node
		b, _ := json.Marshal(r)
		now["r:"+r.RoomID] = string(b)
	}
	for user, sessions := range c.hub.Sessions() {
		for i := range sessions {
			sessions[i].Node = c.node
		}
		b, _ := json.Marshal(sessions)
		now["u:"+user] = string(b)
	}
	for attempt := 0; attempt < 2; attempt++ {
		pipe := c.rdb.TxPipeline()
		prev := pipe.SetArgs(ctx, c.keys.node(c.node), time.Now().UTC().Format(time.RFC3339), redis.SetArgs{TTL: c.opts.Expiry, Get: true})
		pipe.SAdd(ctx, c.keys.nodes(), c.node)
		if !c.synced {
			pipe.Del(ctx, c.keys.rooms(c.node), c.keys.users(c.node))
		}
		var setRooms, setUsers []any
		var delRooms, delUsers []string
		for f, v := range now {
			if c.synced && c.published[f] == v {
				continue
			}
			if id, ok := strings.CutPrefix(f, "r:"); ok {
				setRooms = append(setRooms, id, v)
			} else {
				setUsers = append(setUsers, f[2:], v)
			}
		}
		if c.synced {
			for f := range c.published {
				if _, ok := now[f]; ok {
					continue
				}
				if id, ok := strings.CutPrefix(f, "r:"); ok {
					delRooms = append(delRooms, id)
				} else {
					delUsers = append(delUsers, f[2:])
				}
			}
		}
		if len(setRooms) > 0 {
			pipe.HSet(ctx, c.keys.rooms(c.node), setRooms...)
		}
		if len(setUsers) > 0 {
			pipe.HSet(ctx, c.keys.users(c.node), setUsers...)
		}
		if len(delRooms) > 0 {
			pipe.HDel(ctx, c.keys.rooms(c.node), delRooms...)
		}
		if len(delUsers) > 0 {
			pipe.HDel(ctx, c.keys.users(c.node), delUsers...)
		}
		pipe.PExpire(ctx, c.keys.rooms(c.node), c.opts.Expiry)
		pipe.PExpire(ctx, c.keys.users(c.node), c.opts.Expiry)
		_, err := pipe.Exec(ctx)
		if err != nil && !errors.Is(err, redis.Nil) {
			c.synced = false
			switch {
			case c.failing:
			case c.joined:
				c.log.Error("redisstore: heartbeat failed; other nodes drop this one at its expiry unless Redis comes back", "node", c.node, "err", err)
			default:
				c.log.Warn("redisstore: Redis unreachable; the node serves its own rooms alone and joins the cluster when Redis answers", "node", c.node, "err", err)
			}
			c.failing = true
			return
		}
		if !c.joined {
			c.joined = true
			if prev.Err() == nil {
				c.log.Warn("redisstore: another process was node "+c.node+" until recently; node names must be unique", "node", c.node)
			}
		}
		if c.failing {
			c.log.Info("redisstore: heartbeat back; the node is in the cluster", "node", c.node)
			c.failing = false
			c.askRecheck()
		}
		if c.synced && errors.Is(prev.Err(), redis.Nil) {
			// Our presence lapsed (a long pause, a Redis restart): what was
			// published incrementally may be gone. Write it all again.
			c.synced = false
			continue
		}
		c.published, c.synced = now, true
		return
	}
}

// warnEvery spaces the warnings of reads served without Redis: the panel
// polls the room list every few seconds.
const warnEvery = 30 * time.Second

func (c *Cluster) warn(ctx context.Context, msg string, err error) {
	now := time.Now().UnixNano()
	last := c.lastWarn.Load()
	if now-last < int64(warnEvery) || !c.lastWarn.CompareAndSwap(last, now) {
		return
	}
	c.log.WarnContext(ctx, msg, "node", c.node, "err", err, "repeats", "at most every "+warnEvery.String())
}

// liveNodes returns the other nodes whose presence has not expired.
func (c *Cluster) liveNodes(ctx context.Context) ([]string, error) {
	names, err := c.rdb.SMembers(ctx, c.keys.nodes()).Result()
	if err != nil {
		return nil, err
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == c.node })
	if len(names) == 0 {
		return nil, nil
	}
	exists := make([]*redis.IntCmd, len(names))
	if _, err := c.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, n := range names {
			exists[i] = p.Exists(ctx, c.keys.node(n))
		}
		return nil
	}); err != nil {
		return nil, err
	}
	var live, gone []string
	for i, n := range names {
		if exists[i].Val() > 0 {
			live = append(live, n)
		} else {
			gone = append(gone, n)
		}
	}
	if len(gone) > 0 {
		c.rdb.SRem(ctx, c.keys.nodes(), gone) // tidy up; the next reader retries
	}
	return live, nil
}

// List returns every room of every live node, oldest first. When Redis
// cannot be reached it returns this node's rooms and logs the error.
func (c *Cluster) List(ctx context.Context) ([]admin.RoomSummary, error) {
	out, err := c.hub.List(ctx)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Node = c.node
	}
	remote, err := c.remoteRooms(ctx)
	if err != nil {
		c.warn(ctx, "redisstore: listing this node's rooms only", err)
	}
	out = append(out, remote...)
	slices.SortFunc(out, func(a, b admin.RoomSummary) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.RoomID, b.RoomID))
	})
	return out, nil
}

func (c *Cluster) remoteRooms(ctx context.Context) ([]admin.RoomSummary, error) {
	nodes, err := c.liveNodes(ctx)
	if err != nil || len(nodes) == 0 {
		return nil, err
	}
	cmds := make([]*redis.MapStringStringCmd, len(nodes))
	if _, err := c.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, n := range nodes {
			cmds[i] = p.HGetAll(ctx, c.keys.rooms(n))
		}
		return nil
	}); err != nil {
		return nil, err
	}
	var out []admin.RoomSummary
	for i, cmd := range cmds {
		for _, v := range cmd.Val() {
			var r admin.RoomSummary
			if err := json.Unmarshal([]byte(v), &r); err != nil {
				return nil, fmt.Errorf("room of node %s: %w", nodes[i], err)
			}
			r.Node = nodes[i]
			out = append(out, r)
		}
	}
	return out, nil
}

// UserSessions lists the user's sessions on every live node, by join time.
// When Redis cannot be reached it returns this node's and logs the error.
func (c *Cluster) UserSessions(ctx context.Context, userID string) ([]admin.UserSession, error) {
	out, err := c.hub.UserSessions(ctx, userID)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Node = c.node
	}
	remote, err := c.remoteSessions(ctx, userID)
	if err != nil {
		c.warn(ctx, "redisstore: listing this node's sessions only", err)
	}
	out = append(out, remote...)
	slices.SortFunc(out, func(a, b admin.UserSession) int {
		return cmp.Or(a.JoinedAt.Compare(b.JoinedAt), strings.Compare(a.SessionID, b.SessionID))
	})
	return out, nil
}

func (c *Cluster) remoteSessions(ctx context.Context, userID string) ([]admin.UserSession, error) {
	nodes, err := c.liveNodes(ctx)
	if err != nil || len(nodes) == 0 {
		return nil, err
	}
	cmds := make([]*redis.StringCmd, len(nodes))
	if _, err := c.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, n := range nodes {
			cmds[i] = p.HGet(ctx, c.keys.users(n), userID)
		}
		return nil
	}); err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	var out []admin.UserSession
	for i, cmd := range cmds {
		if cmd.Err() != nil {
			continue // redis.Nil: no session there
		}
		var s []admin.UserSession
		if err := json.Unmarshal([]byte(cmd.Val()), &s); err != nil {
			return nil, fmt.Errorf("sessions on node %s: %w", nodes[i], err)
		}
		for j := range s {
			s[j].Node = nodes[i]
		}
		out = append(out, s...)
	}
	return out, nil
}

// owner finds the live node holding roomID among the other nodes.
func (c *Cluster) owner(ctx context.Context, roomID string) (string, error) {
	nodes, err := c.liveNodes(ctx)
	if err != nil {
		return "", fmt.Errorf("redisstore: find the node of room %q: %w: %w", roomID, admin.ErrNodeUnavailable, err)
	}
	if len(nodes) == 0 {
		return "", fmt.Errorf("redisstore: room %q: %w", roomID, admin.ErrRoomNotFound)
	}
	has := make([]*redis.BoolCmd, len(nodes))
	if _, err := c.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, n := range nodes {
			has[i] = p.HExists(ctx, c.keys.rooms(n), roomID)
		}
		return nil
	}); err != nil {
		return "", fmt.Errorf("redisstore: find the node of room %q: %w: %w", roomID, admin.ErrNodeUnavailable, err)
	}
	for i, n := range nodes {
		if has[i].Val() {
			return n, nil
		}
	}
	return "", fmt.Errorf("redisstore: room %q: %w", roomID, admin.ErrRoomNotFound)
}

// ---- commands between nodes ----

// command is one room operation or disconnect sent to another node.
type command struct {
	ID   string `json:"id"`
	From string `json:"from"`
	Op   string `json:"op"`
	// Budget is how long, in milliseconds from its arrival, the owner may
	// work on the command: a little less than the sender waits (the
	// shorter of Timeout and the caller's deadline), so the answer gets
	// back in time. Its deadline travels as a duration, not a time of
	// day, so clocks that differ between nodes do not matter. 0: Timeout.
	Budget  int64  `json:"budget,omitempty"`
	Room    string `json:"room,omitempty"`
	Session string `json:"session,omitempty"`
	User    string `json:"user,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Leave is a disconnect's reason, for the game's leave callback.
	Leave  admin.LeaveReason `json:"leave,omitempty"`
	Locked bool              `json:"locked,omitempty"`
	Path   []any             `json:"path,omitempty"`
	Value  json.RawMessage   `json:"value,omitempty"`
}

// reply is a node's answer to a command.
type reply struct {
	ID    string          `json:"id"`
	Node  string          `json:"node"`
	Code  string          `json:"code,omitempty"` // "" when it went well
	Error string          `json:"error,omitempty"`
	View  json.RawMessage `json:"view,omitempty"`
	// Session is a session command's answer.
	Session *admin.UserSession `json:"session,omitempty"`
	N       int                `json:"n,omitempty"`
}

// wireView is a RoomView as it travels: state and metadata stay JSON text.
type wireView struct {
	admin.RoomSummary
	Metadata   json.RawMessage    `json:"metadata"`
	ClientList []admin.RoomClient `json:"clientList"`
	State      json.RawMessage    `json:"state"`
}

// wireErrors are the hub errors a reply names by code, in both
// directions. Order matters: a value that does not fit the state is
// ErrInvalidStateValue and ErrInvalidPath at once, and the panel answers
// it invalid_value.
var wireErrors = []struct {
	code string
	is   error
}{
	{"room_not_found", admin.ErrRoomNotFound},
	{"session_not_found", admin.ErrSessionNotFound},
	{"invalid_value", errors.Join(admin.ErrInvalidStateValue, admin.ErrInvalidPath)},
	{"invalid_path", admin.ErrInvalidPath},
	{"room_failed", admin.ErrRoomFailed},
	{"room_timeout", context.DeadlineExceeded},
}

// err turns a reply back into the error the owner's hub returned.
func (r reply) err() error {
	if r.Code == "" {
		return nil
	}
	for _, w := range wireErrors {
		if w.code == r.Code {
			return &remoteError{node: r.Node, msg: r.Error, is: w.is}
		}
	}
	return &remoteError{node: r.Node, msg: r.Error}
}

// remoteError is an error returned by another node's hub.
type remoteError struct {
	node, msg string
	is        error
}

func (e *remoteError) Error() string {
	if errors.Is(e.is, admin.ErrInvalidPath) {
		return e.msg // shown to the operator as the owner's hub wrote it
	}
	return "redisstore: node " + e.node + ": " + e.msg
}

func (e *remoteError) Unwrap() error { return e.is }

func errorCode(err error) string {
	if err == nil {
		return ""
	}
	for _, w := range wireErrors {
		// The first whose errors err all is: invalid_value needs both.
		if matchesAll(err, w.is) {
			return w.code
		}
	}
	return "internal"
}

// matchesAll reports whether err is target, or every error target joins.
func matchesAll(err, target error) bool {
	if j, ok := target.(interface{ Unwrap() []error }); ok {
		for _, t := range j.Unwrap() {
			if !errors.Is(err, t) {
				return false
			}
		}
		return true
	}
	return errors.Is(err, target)
}

// askRecheck asks for the node's clients to be re-checked against the
// database: bans and revocations published while this node could not hear
// them (Redis down, its subscription cut) reached nobody here.
func (c *Cluster) askRecheck() {
	select {
	case c.recheck <- struct{}{}:
	default: // one is queued already; it reads the database after this
	}
}

// rechecker runs Hub.Revalidate once per askRecheck, until Close. Asks that
// come while one runs are served by one more run after it, which reads the
// database after them.
func (c *Cluster) rechecker() {
	defer c.wg.Done()
	for {
		select {
		case <-c.done:
			return
		case <-c.recheck:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if n, err := c.hub.Revalidate(ctx); err != nil {
			c.log.Error("redisstore: re-checking clients after the outage", "node", c.node, "err", err)
		} else if n > 0 {
			c.log.Info("redisstore: closed clients whose sessions ended during the outage", "node", c.node, "closed", n)
		}
		cancel()
	}
}

// receive dispatches the node's subscriptions until Close. A subscription
// confirmed after NewCluster means go-redis reconnected and subscribed
// again: what was published in between was lost, so the node's clients are
// re-checked. An outage shorter than a heartbeat shows only there.
func (c *Cluster) receive() {
	defer c.wg.Done()
	for m := range c.ps.ChannelWithSubscriptions(redis.WithChannelSize(1024)) {
		msg, ok := m.(*redis.Message)
		if !ok {
			if s, ok := m.(*redis.Subscription); ok && s.Kind == "subscribe" {
				c.askRecheck()
			}
			continue
		}
		if msg.Channel == c.keys.replies(c.node) {
			var r reply
			if json.Unmarshal([]byte(msg.Payload), &r) != nil {
				continue
			}
			c.pmu.Lock()
			ch := c.pending[r.ID]
			c.pmu.Unlock()
			if ch != nil {
				select {
				case ch <- r:
				default:
				}
			}
			continue
		}
		var cmd command
		if err := json.Unmarshal([]byte(msg.Payload), &cmd); err != nil {
			c.log.Warn("redisstore: malformed command", "node", c.node, "err", err)
			continue
		}
		if cmd.From == c.node {
			continue // our own broadcast: done locally already
		}
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.serve(cmd)
		}()
	}
}

// serve runs a command on this node's hub and answers it, within the
// command's budget: work the hub has not started by then is dropped
// unrun (the sender has stopped waiting), and the answer is room_timeout.
// A panic of the game's code is the hub's room_failed answer; any other
// panic here is answered "internal" and logged with its stack, never the
// end of this process.
func (c *Cluster) serve(cmd command) {
	budget := c.opts.Timeout
	if cmd.Budget > 0 {
		budget = min(budget, time.Duration(cmd.Budget)*time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	r := reply{ID: cmd.ID, Node: c.node}
	err := c.run(ctx, cmd, &r)
	if r.Code = errorCode(err); r.Code != "" {
		r.Error = err.Error()
		switch r.Code {
		case "internal", "room_failed":
			c.log.Error("redisstore: command from another node failed", append([]any{"node", c.node, "from", cmd.From, "op", cmd.Op}, panicerr.Attrs(err)...)...)
		}
	}
	b, _ := json.Marshal(r)
	// The answer goes out even when the budget is spent: the sender may
	// still be waiting out the rest of its time.
	pctx, pcancel := context.WithTimeout(context.Background(), c.opts.Timeout)
	defer pcancel()
	if err := c.rdb.Publish(pctx, c.keys.replies(cmd.From), b).Err(); err != nil {
		c.log.Warn("redisstore: cannot answer a command", "node", c.node, "from", cmd.From, "op", cmd.Op, "err", err)
	}
}

// run runs cmd on this node's hub, filling r's answer.
func (c *Cluster) run(ctx context.Context, cmd command, r *reply) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("redisstore: %s on node %s: %w", cmd.Op, c.node, panicerr.New(p))
		}
	}()
	switch cmd.Op {
	case "inspect":
		var v admin.RoomView
		if v, err = c.hub.Inspect(ctx, cmd.Room); err == nil {
			v.Node = c.node
			r.View, err = json.Marshal(v)
		}
	case "session":
		var s admin.UserSession
		if s, err = c.hub.Session(ctx, cmd.Room, cmd.Session); err == nil {
			s.Node = c.node
			r.Session = &s
		}
	case "kick":
		err = c.hub.Kick(ctx, cmd.Room, cmd.Session, cmd.Reason)
	case "lock":
		err = c.hub.SetLocked(ctx, cmd.Room, cmd.Locked)
	case "edit":
		err = c.hub.EditState(ctx, cmd.Room, cmd.Path, cmd.Value)
	case "delete":
		err = c.hub.DeleteState(ctx, cmd.Room, cmd.Path)
	case "dispose":
		err = c.hub.Dispose(ctx, cmd.Room)
	case "disconnect":
		r.N, err = c.hub.DisconnectUser(ctx, cmd.User, cmd.Leave, cmd.Reason)
	default:
		err = fmt.Errorf("unknown operation %q", cmd.Op)
	}
	return err
}

// send publishes cmd on channel and collects replies until want of them
// arrived (want < 0: as many as the subscribers that received it) or the
// timeout. It returns the replies and the number expected.
func (c *Cluster) send(ctx context.Context, channel string, cmd command, want int) ([]reply, int, error) {
	cmd.ID, cmd.From = rand.Text(), c.node
	ch := make(chan reply, 1024)
	c.pmu.Lock()
	c.pending[cmd.ID] = ch
	c.pmu.Unlock()
	defer func() {
		c.pmu.Lock()
		delete(c.pending, cmd.ID)
		c.pmu.Unlock()
	}()
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	if dl, ok := ctx.Deadline(); ok {
		// The owner works for a fifth less than this node waits, so its
		// answer (room_timeout for a busy room) comes back in time.
		cmd.Budget = max(time.Until(dl)*4/5, time.Millisecond).Milliseconds()
	}
	b, err := json.Marshal(cmd)
	if err != nil {
		return nil, 0, err
	}
	n, err := c.rdb.Publish(ctx, channel, b).Result()
	if err != nil {
		return nil, 0, fmt.Errorf("redisstore: %s: %w: %w", cmd.Op, admin.ErrNodeUnavailable, err)
	}
	if want < 0 {
		want = int(n) - 1 // every subscriber but this node
	} else if n == 0 {
		return nil, want, fmt.Errorf("redisstore: %s: no node listens on %s: %w", cmd.Op, channel, admin.ErrNodeUnavailable)
	}
	var got []reply
	for len(got) < want {
		select {
		case r := <-ch:
			got = append(got, r)
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) {
				return got, want, ctx.Err() // the caller went away
			}
			return got, want, fmt.Errorf("redisstore: %s: %d of %d nodes answered in time (Timeout %v): %w", cmd.Op, len(got), want, c.opts.Timeout, admin.ErrNodeTimeout)
		}
	}
	return got, want, nil
}

// route runs cmd on this node's hub when the room is here, else on the
// room's owner.
func (c *Cluster) route(ctx context.Context, cmd command, local func() error) (reply, error) {
	if _, ok := c.hub.Room(cmd.Room); ok {
		err := local()
		if !errors.Is(err, admin.ErrRoomNotFound) {
			return reply{}, err
		}
	}
	owner, err := c.owner(ctx, cmd.Room)
	if err != nil {
		return reply{}, err
	}
	got, _, err := c.send(ctx, c.keys.commands(owner), cmd, 1)
	if err != nil {
		return reply{}, err
	}
	return got[0], got[0].err()
}

// Inspect returns a room of any live node.
func (c *Cluster) Inspect(ctx context.Context, roomID string) (admin.RoomView, error) {
	var v admin.RoomView
	r, err := c.route(ctx, command{Op: "inspect", Room: roomID}, func() (err error) {
		if v, err = c.hub.Inspect(ctx, roomID); err == nil {
			v.Node = c.node
		}
		return err
	})
	if err != nil || r.View == nil {
		return v, err
	}
	var w wireView
	if err := json.Unmarshal(r.View, &w); err != nil {
		return admin.RoomView{}, fmt.Errorf("redisstore: room %q from node %s: %w", roomID, r.Node, err)
	}
	v = admin.RoomView{RoomSummary: w.RoomSummary, Metadata: w.Metadata, ClientList: w.ClientList, State: w.State}
	v.Node = r.Node
	return v, nil
}

// Session returns one client of a room of any live node, its user id set.
func (c *Cluster) Session(ctx context.Context, roomID, sessionID string) (admin.UserSession, error) {
	var s admin.UserSession
	r, err := c.route(ctx, command{Op: "session", Room: roomID, Session: sessionID}, func() (err error) {
		if s, err = c.hub.Session(ctx, roomID, sessionID); err == nil {
			s.Node = c.node
		}
		return err
	})
	if err != nil || r.Session == nil {
		return s, err
	}
	return *r.Session, nil
}

// Kick closes one client's connection to a room of any live node.
func (c *Cluster) Kick(ctx context.Context, roomID, sessionID, reason string) error {
	_, err := c.route(ctx, command{Op: "kick", Room: roomID, Session: sessionID, Reason: reason}, func() error {
		return c.hub.Kick(ctx, roomID, sessionID, reason)
	})
	return err
}

// SetLocked locks or unlocks a room of any live node.
func (c *Cluster) SetLocked(ctx context.Context, roomID string, locked bool) error {
	_, err := c.route(ctx, command{Op: "lock", Room: roomID, Locked: locked}, func() error {
		return c.hub.SetLocked(ctx, roomID, locked)
	})
	return err
}

// EditState sets a value in the state of a room of any live node.
func (c *Cluster) EditState(ctx context.Context, roomID string, path []any, value json.RawMessage) error {
	_, err := c.route(ctx, command{Op: "edit", Room: roomID, Path: path, Value: value}, func() error {
		return c.hub.EditState(ctx, roomID, path, value)
	})
	return err
}

// DeleteState removes a value from the state of a room of any live node.
func (c *Cluster) DeleteState(ctx context.Context, roomID string, path []any) error {
	_, err := c.route(ctx, command{Op: "delete", Room: roomID, Path: path}, func() error {
		return c.hub.DeleteState(ctx, roomID, path)
	})
	return err
}

// Dispose closes every client of a room of any live node and removes it.
func (c *Cluster) Dispose(ctx context.Context, roomID string) error {
	_, err := c.route(ctx, command{Op: "dispose", Room: roomID}, func() error {
		return c.hub.Dispose(ctx, roomID)
	})
	return err
}

// DisconnectUser closes the user's sessions on every node, joins under way
// included, telling each game's leave callback why, and returns how many
// it closed in the whole cluster. The command goes to every subscribed
// node, whether or not presence lists a session there. When some node
// does not answer, or Redis cannot be reached, it returns the count of
// those that did with an error wrapping admin.ErrNodeTimeout or
// admin.ErrNodeUnavailable.
func (c *Cluster) DisconnectUser(ctx context.Context, userID string, why admin.LeaveReason, message string) (int, error) {
	total, local := c.hub.DisconnectUser(ctx, userID, why, message)
	// A leave callback that panicked here (ErrRoomFailed) closed the
	// sockets all the same: the other nodes still close theirs.
	if userID == "" || local != nil && !errors.Is(local, admin.ErrRoomFailed) {
		return total, local
	}
	got, _, err := c.send(ctx, c.keys.broadcast(), command{Op: "disconnect", User: userID, Leave: why, Reason: message}, -1)
	errs := []error{local}
	for _, r := range got {
		total += r.N
		if e := r.err(); e != nil {
			errs = append(errs, e)
		}
	}
	return total, errors.Join(append(errs, err)...)
}
