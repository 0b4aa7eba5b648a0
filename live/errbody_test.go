package live

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A refused join answers the panel's error body; a 500 carries the
// request id its one log line has, as the panel's 5xx do.
func TestInternalErrorBody(t *testing.T) {
	tk := newTokens("t-bob", "bob")
	logs := &lockedBuffer{}
	opts := testOptions()
	opts.Authenticate = tk.authenticate
	opts.Logger = slog.New(slog.NewTextHandler(logs, nil))
	opts.IsBanned = func(context.Context, string) (bool, error) { return false, errors.New("ban store s3cr3t unreachable") }
	e := newEnv(t, opts, map[string]RoomType{"lobby": {}})
	res, err := http.Get(e.srv.URL + "/ws/lobby?token=t-bob")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("body %s: %v", raw, err)
	}
	id, _ := body["requestId"].(string)
	if res.StatusCode != 500 || body["status"] != 500.0 || body["code"] != "internal" || body["error"] == nil || id == "" ||
		res.Header.Get("Content-Type") != "application/json" || res.Header.Get("X-Request-Id") != id || len(body) != 4 {
		t.Fatalf("ban check failure = %d %s; want 500 with the panel's error body and a requestId", res.StatusCode, raw)
	}
	if strings.Contains(string(raw), "s3cr3t") {
		t.Fatalf("the cause leaked: %s", raw)
	}
	if n := strings.Count(logs.String(), "requestId="+id); n != 1 || !strings.Contains(logs.String(), "s3cr3t") {
		t.Fatalf("log = %s; want one line with requestId %s and the cause", logs.String(), id)
	}
}
