package rooms

import (
	"encoding/json"
	"testing"
	"time"
)

// TestViewJSON: a View's JSON has the summary's fields beside its own, as
// the panel's API answers it, and its embedded field is named RoomSummary
// as it was when the panel defined the type.
func TestViewJSON(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	v := View{
		RoomSummary: Summary{RoomID: "match-1", Name: "match", Clients: 1, MaxClients: 8, CreatedAt: at},
		ClientList:  []Client{{SessionID: "s1", UserID: "u1", JoinedAt: at}},
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"roomId":"match-1","name":"match","clients":1,"maxClients":8,"locked":false,"createdAt":"2026-01-02T03:04:05Z","metadata":null,"clientList":[{"sessionId":"s1","userId":"u1","joinedAt":"2026-01-02T03:04:05Z"}],"state":null}`
	if string(b) != want {
		t.Errorf("JSON = %s\nwant   %s", b, want)
	}
}
