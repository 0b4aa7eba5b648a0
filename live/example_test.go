package live_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gameadmin/admin/live"
	"github.com/gorilla/websocket"
)

// chat is a room state: a pointer to a Go struct.
type chat struct {
	Lines []string `json:"lines"`
}

// Example runs a chat room: a client says hello, an operator edits the state
// through rooms.Runtime (the panel's admin.Rooms), and Close ends the
// connection.
func Example() {
	hub := live.NewHub(live.Options{AllowAnonymous: true})
	hub.Define("chat", live.RoomType{
		NewState: func() any { return &chat{Lines: []string{}} },
		OnMessage: func(r *live.Room, c *live.Client, msg json.RawMessage) {
			var line string
			if json.Unmarshal(msg, &line) != nil {
				return
			}
			s := r.State().(*chat)
			s.Lines = append(s.Lines, line)
			_ = r.BroadcastState()
		},
	})
	mux := http.NewServeMux()
	mux.Handle("/ws/", http.StripPrefix("/ws/", hub))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer hub.Close()

	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/ws/chat", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	read := func() {
		var m struct {
			Type     string          `json:"type"`
			RoomName string          `json:"roomName"`
			State    json.RawMessage `json:"state"`
		}
		if err := conn.ReadJSON(&m); err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				fmt.Println("closed", ce.Code, ce.Text)
				return
			}
			fmt.Println(err)
			return
		}
		fmt.Println(m.Type, m.RoomName+string(m.State))
	}
	read() // joined
	read() // state

	_ = conn.WriteMessage(websocket.TextMessage, []byte(`"hello"`))
	read()

	ctx := context.Background()
	rooms, _ := hub.List(ctx)
	_ = hub.EditState(ctx, rooms[0].RoomID, []any{"lines", 0}, json.RawMessage(`"hello, world"`))
	read()

	_ = hub.Close()
	read()
	// Output:
	// joined chat
	// state {"lines":[]}
	// state {"lines":["hello"]}
	// state {"lines":["hello, world"]}
	// closed 1001 server shutting down
}
