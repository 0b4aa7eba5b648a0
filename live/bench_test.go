package live

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// BenchmarkBroadcast1000Clients50Rooms connects 1,000 WebSocket clients over
// loopback to 50 rooms of 20 and, per iteration, broadcasts one message in
// every room. It reports the latency from the broadcast (taken on the room
// goroutine) to its receipt by each client, median and 99th percentile, and
// the memory each connected client costs: heap and stacks after GC, both ends
// of the connection, since the clients run in the same process (about 2,000
// file descriptors). Run it with
//
//	go test -run '^$' -bench Broadcast -benchtime 1x ./live/
func BenchmarkBroadcast1000Clients50Rooms(b *testing.B) {
	const (
		nClients = 1000
		nRooms   = 50
		dialers  = 32
		deadline = 20 * time.Second // per round and for connecting
	)
	hub := NewHub(Options{AllowAnonymous: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	hub.Define("bench", RoomType{MaxClients: nClients / nRooms, EmptyTimeout: -1})
	mux := http.NewServeMux()
	mux.Handle("/ws/", http.StripPrefix("/ws/", hub))
	srv := httptest.NewServer(mux)
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws/bench"

	var (
		wg      sync.WaitGroup // receivers
		mu      sync.Mutex
		conns   []*websocket.Conn
		lat     = make(chan time.Duration, nClients)
		dialErr = make(chan error, dialers)
	)
	defer func() {
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		_ = hub.Close()
		srv.Close()
		wg.Wait()
	}()

	before := memInUse()
	next := make(chan int, nClients)
	for i := range nClients {
		next <- i
	}
	close(next)
	var dialWG sync.WaitGroup
	for range dialers {
		dialWG.Add(1)
		go func() {
			defer dialWG.Done()
			d := websocket.Dialer{HandshakeTimeout: deadline}
			for range next {
				conn, _, err := d.Dial(url, nil)
				if err != nil {
					dialErr <- err
					return
				}
				mu.Lock()
				conns = append(conns, conn)
				mu.Unlock()
				for range 2 { // joined, state
					if _, _, err := conn.ReadMessage(); err != nil {
						dialErr <- err
						return
					}
				}
				wg.Add(1)
				go receive(&wg, conn, lat)
			}
		}()
	}
	dialWG.Wait()
	close(dialErr)
	if err := <-dialErr; err != nil {
		if errors.Is(err, syscall.EMFILE) {
			b.Skipf("out of file descriptors (%v): the benchmark needs about %d; raise ulimit -n", err, 2*nClients+100)
		}
		b.Fatalf("connect: %v", err)
	}
	perClient := float64(memInUse()-before) / nClients

	rooms, _ := hub.List(context.Background())
	if len(rooms) != nRooms {
		b.Fatalf("%d rooms; want %d", len(rooms), nRooms)
	}
	var samples []time.Duration
	for b.Loop() {
		for _, rs := range rooms {
			r, _ := hub.Room(rs.RoomID)
			_ = r.Do(context.Background(), func(r *Room) {
				_ = r.Broadcast(benchMsg{Sent: time.Now().UnixNano(), Payload: "position update: x=12.5 y=-3.25 hp=87"})
			})
		}
		timeout := time.After(deadline)
		for range nClients {
			select {
			case d := <-lat:
				samples = append(samples, d)
			case <-timeout:
				b.Fatalf("a round took over %v", deadline)
			}
		}
	}
	slices.Sort(samples)
	b.ReportMetric(ms(samples[len(samples)/2]), "p50-ms")
	b.ReportMetric(ms(samples[len(samples)*99/100]), "p99-ms")
	b.ReportMetric(perClient, "bytes/client") // after b.Loop, which resets metrics
}

type benchMsg struct {
	Sent    int64  `json:"sent"`
	Payload string `json:"payload"`
}

// receive reads one client's messages until its connection closes, sending
// the latency of each broadcast to lat.
func receive(wg *sync.WaitGroup, conn *websocket.Conn, lat chan<- time.Duration) {
	defer wg.Done()
	for {
		_, b, err := conn.ReadMessage()
		if err != nil {
			return
		}
		now := time.Now()
		var m struct {
			Type string   `json:"type"`
			Data benchMsg `json:"data"`
		}
		if json.Unmarshal(b, &m) == nil && m.Type == "message" {
			lat <- now.Sub(time.Unix(0, m.Data.Sent))
		}
	}
}

// memInUse returns the heap and stack memory in use after a collection.
func memInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc + m.StackInuse)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
