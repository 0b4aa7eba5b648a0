package live_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gameadmin/admin/live"
	"github.com/gorilla/websocket"
)

// A hub for a game served from play.example.com: pages of other sites
// cannot open sockets with the player's cookies, and one player holds at
// most two sockets.
func ExampleOptions_bounds() {
	hub := live.NewHub(live.Options{
		AllowAnonymous:  true,
		AllowedOrigins:  []string{"https://play.example.com"},
		MaxConnsPerUser: 2,
		MaxConnsPerIP:   50,
	})
	defer hub.Close()
	hub.Define("lobby", live.RoomType{})
	srv := httptest.NewServer(http.StripPrefix("/ws/", hub))
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws/lobby"

	for _, origin := range []string{"https://evil.example", "https://play.example.com"} {
		conn, res, err := websocket.DefaultDialer.Dial(url, http.Header{"Origin": {origin}})
		if err != nil {
			fmt.Println(origin, "refused:", res.StatusCode)
			continue
		}
		fmt.Println(origin, "joined")
		conn.Close()
	}
	// Output:
	// https://evil.example refused: 403
	// https://play.example.com joined
}
