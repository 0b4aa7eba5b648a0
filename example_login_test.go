package admin_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/netip"

	"github.com/gameadmin/admin"
	"golang.org/x/crypto/bcrypt"
)

// The game's own player sign-in goes through the panel's password check,
// with its limits and failure audit: AuthenticateFrom keys them on the
// client's address (a.ClientIP, which honours Options.TrustedProxies).
func ExampleAuth_AuthenticateFrom() {
	db, done := openExampleDB()
	defer done()
	a, err := admin.New(db, admin.Options{
		Secret: []byte("an example secret of at least 32 bytes"),
		Logger: quiet,
		// Behind a load balancer at 10.0.0.0/8; loopback is trusted by default.
		TrustedProxies: append(admin.DefaultTrustedProxies(), netip.MustParsePrefix("10.0.0.0/8")),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()
	h, _ := a.Auth().HashPassword(ctx, "player password")
	db.NewInsert().Model(&admin.User{Email: "p@example.com", PasswordHash: h}).Exec(ctx)

	login := func(password string) error {
		r := httptest.NewRequest("POST", "/api/auth/login", nil)
		r.RemoteAddr = "10.1.2.3:4000" // the load balancer
		r.Header.Set("X-Forwarded-For", "198.51.100.7")
		_, err := a.Auth().AuthenticateFrom(r, "p@example.com", password)
		return err
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr, r.Header["X-Forwarded-For"] = "10.1.2.3:4000", []string{"198.51.100.7"}
	fmt.Println("client:", a.ClientIP(r))
	fmt.Println("right password:", login("player password"))
	for range 10 { // RateLimit.LoginFailuresPerNetwork: 10 from one /24
		login("guess")
	}
	err = login("player password")
	var limited *admin.RateLimitError
	fmt.Println("after 10 guesses:", errors.Is(err, admin.ErrRateLimited), errors.As(err, &limited) && limited.RetryAfter > 0)
	if errors.Is(err, admin.ErrRateLimited) {
		fmt.Println("answer:", http.StatusTooManyRequests)
	}
	// Output:
	// client: 198.51.100.7
	// right password: <nil>
	// after 10 guesses: true true
	// answer: 429
}

// A game whose own login checks bcrypt keeps it working: with Bcrypt,
// every hash the panel writes is one the game's code accepts, and sign-in
// matches the player's email in any case without rewriting it.
func ExampleBcrypt() {
	db, done := openExampleDB()
	defer done()
	a, err := admin.New(db, admin.Options{
		Secret:         []byte("an example secret of at least 32 bytes"),
		Logger:         quiet,
		PasswordHasher: admin.Bcrypt{Cost: bcrypt.MinCost}, // the game's cost, 10 to 12 in production
	})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()
	h, _ := a.Auth().HashPassword(ctx, "player password")
	db.NewInsert().Model(&admin.User{Email: "Sam.Player@Example.com", PasswordHash: h}).Exec(ctx)

	id, err := a.Auth().Authenticate(ctx, "sam.player@example.com", "player password")
	fmt.Println("signed in:", err == nil)
	var u admin.User
	db.NewSelect().Model(&u).Where("id = ?", id).Scan(ctx)
	fmt.Println("email kept:", u.Email)
	fmt.Println("the game's bcrypt check:", bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte("player password")) == nil)
	// Output:
	// signed in: true
	// email kept: Sam.Player@Example.com
	// the game's bcrypt check: true
}
