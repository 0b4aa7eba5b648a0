package main

import (
	"encoding/json"
	"math/rand/v2"
	"time"

	"github.com/gameadmin/admin"
	"github.com/gameadmin/admin/live"
	"github.com/gameadmin/admin/rooms"
)

// The arena: players move on a grid and pick up coins. Its state is a Go
// struct, so an operator's state edit in the panel lands in this struct.
//
// A player whose connection drops keeps their seat (place and score) for
// arenaGrace, and gets it back by joining the room again within it. Only
// a drop earns that: a player who left, was kicked or banned, or whose
// sessions an operator ended gets no seat back, so a kick is not undone
// by reconnecting.

const (
	arenaSize  = 20
	arenaGrace = 30 * time.Second
)

// Arena is the state of one arena room.
type Arena struct {
	Players map[string]*ArenaPlayer `json:"players"` // by session id
	// Away are the seats kept for players whose connection dropped, by
	// user id, until their grace ends.
	Away  map[string]*AwaySeat `json:"away"`
	Coins []Point              `json:"coins"`
	Tick  int                  `json:"tick"`
	// CoinGoal is how many coins the arena keeps on the grid; operators
	// tune it live from the panel.
	CoinGoal int `json:"coinGoal"`
}

// ArenaPlayer is one player in the arena.
type ArenaPlayer struct {
	UserID string `json:"userId"`
	X      int    `json:"x"`
	Y      int    `json:"y"`
	Score  int    `json:"score"`
}

// AwaySeat is a dropped player's seat, kept until Until.
type AwaySeat struct {
	ArenaPlayer
	Until time.Time `json:"until"`
}

// Point is a grid cell.
type Point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// arenaRoom is the arena's room type. A client may report another
// player of the room by session ({"report": {"session", "category",
// "text"}}); report files it, off the room's goroutine, since it reads
// and writes the database.
func arenaRoom(report func(admin.Report)) live.RoomType {
	return live.RoomType{
		MaxClients: 20,
		NewState: func() any {
			return &Arena{Players: map[string]*ArenaPlayer{}, Away: map[string]*AwaySeat{}, Coins: []Point{}, CoinGoal: 5}
		},
		TickInterval: time.Second,
		// An empty arena waits out the grace of the seats it keeps.
		EmptyTimeout: arenaGrace,
		OnJoin: func(r *live.Room, c *live.Client) {
			s := r.State().(*Arena)
			p := &ArenaPlayer{UserID: c.UserID(), X: rand.IntN(arenaSize), Y: rand.IntN(arenaSize)}
			if seat := s.Away[c.UserID()]; seat != nil && c.UserID() != "" {
				delete(s.Away, c.UserID())
				if time.Now().Before(seat.Until) {
					p = &seat.ArenaPlayer // back within the grace: the seat is theirs
				}
			}
			s.Players[c.SessionID()] = p
			_ = r.BroadcastState()
		},
		OnLeave: func(r *live.Room, c *live.Client) {
			s := r.State().(*Arena)
			p := s.Players[c.SessionID()]
			delete(s.Players, c.SessionID())
			switch c.LeaveReason() {
			case rooms.LeaveDropped:
				// The connection dropped: keep the seat for a while.
				if p != nil && c.UserID() != "" {
					s.Away[c.UserID()] = &AwaySeat{ArenaPlayer: *p, Until: time.Now().Add(arenaGrace)}
				}
			case rooms.LeaveKicked, rooms.LeaveBanned, rooms.LeaveRevoked:
				// An operator removed the player: no seat to come back
				// to, not even one kept from an earlier drop.
				delete(s.Away, c.UserID())
			}
			_ = r.BroadcastState()
		},
		OnMessage: func(r *live.Room, c *live.Client, msg json.RawMessage) {
			var m struct {
				Move   string `json:"move"` // up, down, left, right
				Report *struct {
					Session  string `json:"session"`
					Category string `json:"category"`
					Text     string `json:"text"`
				} `json:"report"`
			}
			if json.Unmarshal(msg, &m) != nil {
				return
			}
			s := r.State().(*Arena)
			if rp := m.Report; rp != nil {
				if target := s.Players[rp.Session]; target != nil {
					go report(admin.Report{ReporterID: c.UserID(), PlayerID: target.UserID, Category: rp.Category, Text: rp.Text,
						RoomID: r.ID(), SessionID: rp.Session})
				}
				return
			}
			p := s.Players[c.SessionID()]
			if p == nil {
				return
			}
			switch m.Move {
			case "up":
				p.Y = max(p.Y-1, 0)
			case "down":
				p.Y = min(p.Y+1, arenaSize-1)
			case "left":
				p.X = max(p.X-1, 0)
			case "right":
				p.X = min(p.X+1, arenaSize-1)
			default:
				return
			}
			for i, coin := range s.Coins {
				if coin.X == p.X && coin.Y == p.Y {
					p.Score++
					s.Coins = append(s.Coins[:i], s.Coins[i+1:]...)
					break
				}
			}
			_ = r.BroadcastState()
		},
		OnTick: func(r *live.Room) {
			s := r.State().(*Arena)
			s.Tick++
			for user, seat := range s.Away {
				if time.Now().After(seat.Until) {
					delete(s.Away, user) // the grace is over
				}
			}
			if len(s.Coins) < min(max(s.CoinGoal, 0), 50) {
				s.Coins = append(s.Coins, Point{X: rand.IntN(arenaSize), Y: rand.IntN(arenaSize)})
				_ = r.BroadcastState()
			}
		},
		Metadata: func(r *live.Room) any { return map[string]any{"grid": arenaSize} },
	}
}
