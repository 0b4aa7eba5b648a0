// Package live is a reference room hub for Go game servers: rooms of named
// types created on demand, clients joining over WebSocket
// (github.com/gorilla/websocket), room state as any JSON-marshalable value,
// lock and unlock, kick, dispose, and an index of each user's live sessions.
// A *Hub implements rooms.Runtime (github.com/gameadmin/admin/rooms; in the
// panel it is admin.Rooms), so the admin panel lists, inspects and moderates
// its rooms:
//
//	hub := live.NewHub(live.Options{Authenticate: playerFromToken, IsBanned: isBanned})
//	defer hub.Close()
//	hub.Define("match", live.RoomType{MaxClients: 8, NewState: func() any { return &Match{} }, OnMessage: onMove})
//	mux.Handle("/ws/", http.StripPrefix("/ws/", hub))
//	a, err := admin.New(db, admin.Options{Rooms: hub})
//
// # Concurrency
//
// Each room is owned by one goroutine that runs, one at a time, joins,
// leaves, client messages, ticks and admin operations; the RoomType callbacks
// run there and use the Room without locking. Code elsewhere reaches a room
// with Room.Do. Each client has a read goroutine and a write goroutine with a
// bounded send queue: a client whose queue is full is dropped rather than
// slowing its room, each write has a deadline, and a client silent for
// Options.PongTimeout (pings go out every PingInterval) is dropped.
// Hub.Close stops every goroutine and waits for them. A panic in a room's
// callbacks is logged and closes that room (its clients get 1011), not the
// server.
//
// The rooms.Runtime methods (the admin panel's calls) run on the room's
// goroutine too, and never harm it: one whose ctx has ended by the time
// the room gets to it is dropped unrun, and a panic of the game's
// callbacks while one runs (Metadata, a MarshalJSON of the state, OnLeave
// during a kick) is that call's error, rooms.ErrRoomFailed, while the room
// runs on and its clients stay. Session answers from the hub's index,
// without the room.
//
// # Leave reasons
//
// OnLeave learns why a client left from Client.LeaveReason:
// rooms.LeaveDropped (the connection was lost, closed other than
// normally, too slow or misbehaving), LeaveLeft (a normal close, 1000),
// LeaveKicked (Kick, Room.Kick), LeaveBanned and LeaveRevoked
// (DisconnectUser, as the panel's ban or end of sessions says, and the
// re-checks of Options.UserStates), LeaveDisposed (Dispose,
// Room.Dispose) and LeaveShutdown (Hub.Close). A game that keeps a seat
// for a player who may reconnect keeps it for LeaveDropped only, so a
// kicked or banned player does not get it back.
//
// # Protocol
//
// A client connects to <prefix>/<roomType> or <prefix>/<roomType>?room=<roomId>
// (see Hub.ServeHTTP for the answers to a refused join). Every message is a
// JSON text frame. The server sends envelopes with a "type":
//
//	{"type":"joined","roomId":"match-1a2b3c4d5e6f","roomName":"match","sessionId":"..."}
//	    first, once joined
//	{"type":"state","state":<state>}
//	    after joined, and after every change: Room.SetState,
//	    Room.BroadcastState, and an operator's EditState or DeleteState
//	{"type":"message","data":<value>}
//	    from Room.Broadcast and Room.Send
//	{"type":"lock","locked":true}
//	    when the room is locked or unlocked
//	{"type":"kicked","reason":"..."}
//	    then a close frame with CloseKicked (Kick, DisconnectUser)
//	{"type":"disposed","reason":"..."}
//	    then a close frame with CloseDisposed
//
// A client sends any JSON value; each reaches RoomType.OnMessage as it is.
// A binary frame closes the connection with 1003, text that is not JSON with
// 1007, a message over Options.MaxMessageBytes with 1009, messages faster
// than Options.MessagesPerSecond (past MessageBurst) with CloseRateLimited
// (4003).
//
// # Bounds
//
// A join from a browser page of another origin is refused (403
// cross_origin; Options.AllowedOrigins lists the others allowed), so a page
// elsewhere cannot open a socket with a player's cookies. Options cap the
// rooms open at once (MaxRooms), the clients of a room (MaxClientsPerRoom,
// unless RoomType.MaxClients says), and the sockets of one client address
// (MaxConnsPerIP) and of one user (MaxConnsPerUser); a join that gives up
// while waiting for its room never keeps its place. The close frame
// carries the reason too (cut to 123 bytes); see the Close constants for the
// codes.
//
// # State edits
//
// EditState and DeleteState address a path into the JSON of the state:
// strings for object keys, numbers for array indexes. A map[string]any or
// []any state is changed in place. Any other Go value on the path (a pointer
// to a struct, a typed map) is edited through its JSON and decoded back into
// the same value with unknown fields refused, so the edit lands in the struct
// the game holds and a value that does not fit its Go type is refused with
// the state unchanged. Fields JSON does not see keep their values.
//
// # Dependencies
//
// Package live imports package rooms for the contract it implements, and
// nothing else of the panel: a game server that runs rooms but mounts the
// panel elsewhere (or not at all) does not build the panel into its binary.
package live
