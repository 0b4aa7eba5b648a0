// Command bot connects demo players to the arena of examples/gameserver, so
// the panel has live rooms, clients and state to show.
//
//	go run ./examples/gameserver -seed    # in one terminal
//	go run ./examples/gameserver/bot -n 20
//
// Each bot signs in as playerNN@example.com (password "player-password"),
// joins /ws/arena with its token and moves at random until interrupted,
// -duration passes, or the server closes its connection (a kick or a ban
// in the panel ends that bot).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

func main() {
	n := flag.Int("n", 5, "number of bots (players 01..n of the seed)")
	addr := flag.String("addr", "http://localhost:8080", "game server URL")
	every := flag.Duration("every", 300*time.Millisecond, "time between moves")
	duration := flag.Duration("duration", 0, "stop after this long (0: until interrupted)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	var wg sync.WaitGroup
	for i := range *n {
		wg.Go(func() {
			email := fmt.Sprintf("player%02d@example.com", i+1)
			if err := run(ctx, *addr, email, *every); err != nil {
				log.Printf("%s: %v", email, err)
			}
		})
	}
	wg.Wait()
}

// run is one bot: sign in, join, move until ctx ends or the server closes.
func run(ctx context.Context, addr, email string, every time.Duration) error {
	body, _ := json.Marshal(map[string]string{"email": email, "password": "player-password"})
	res, err := http.Post(addr+"/api/auth/login", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	var login struct {
		Token string `json:"token"`
		Error string `json:"error"`
	}
	err = json.NewDecoder(res.Body).Decode(&login)
	res.Body.Close()
	if err != nil || login.Token == "" {
		return fmt.Errorf("login: %s %s", res.Status, login.Error)
	}
	wsURL := "ws" + strings.TrimPrefix(addr, "http") + "/ws/arena"
	conn, resp, err := websocket.DefaultDialer.DialContext(ctx, wsURL, http.Header{"Authorization": {"Bearer " + login.Token}})
	if err != nil {
		if resp != nil {
			return fmt.Errorf("join: %s", resp.Status)
		}
		return fmt.Errorf("join: %w", err)
	}
	defer conn.Close()
	log.Printf("%s joined", email)

	done := make(chan error, 1)
	go func() { // read until the server closes: a kick, ban or dispose
		for {
			if _, _, err := conn.ReadMessage(); err != nil {
				done <- err
				return
			}
		}
	}()
	moves := []string{"up", "down", "left", "right"}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye"), time.Now().Add(time.Second))
			return nil
		case err := <-done:
			log.Printf("%s left: %v", email, err)
			return nil
		case <-tick.C:
			if err := conn.WriteJSON(map[string]string{"move": moves[rand.IntN(len(moves))]}); err != nil {
				return err
			}
		}
	}
}
