package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/gameadmin/admin"
	"github.com/go-chi/chi/v5"
	"github.com/uptrace/bun"
	"golang.org/x/crypto/bcrypt"
)

// Player is the game's own account table, older than the panel: bigint
// ids, its own column names, a NOT NULL bcrypt password column, emails
// stored as players typed them (mixed case), and game columns the panel
// knows nothing about (coins).
type Player struct {
	bun.BaseModel `bun:"table:players,alias:p"`

	ID       int64          `bun:"id,pk,autoincrement" json:"id"`
	Email    string         `bun:"email,notnull,unique" json:"email"`
	Nickname string         `bun:"nickname" json:"nickname"`
	PwHash   string         `bun:"pw_hash,notnull" json:"-"`
	Banned   *admin.BanInfo `bun:"banned" json:"banned"`
	TokenGen int64          `bun:"token_gen,notnull,default:0" json:"-"`
	Coins    int64          `bun:"coins,notnull,default:0" json:"coins"`
}

// playersResource is how the players look in the panel, with a bulk
// action on the operator's selection: the ids arrive typed (int64 here).
func playersResource(db *bun.DB) *admin.Resource {
	return admin.DefineResource((*Player)(nil), admin.ResourceConfig{
		Label: "Players",
		List:  admin.ListConfig{Columns: []string{"id", "email", "nickname", "coins"}, DefaultSort: admin.Sort{Field: "id", Order: "desc"}},
		Columns: map[string]admin.ColumnConfig{
			"coins":     {ReadOnly: true}, // changed by the game and by grant-coins only
			"token_gen": {Hidden: true},
		},
		Actions: []admin.Action{{
			Name: "grant-coins", Label: "Grant coins", Roles: []admin.Role{admin.RoleAdmin},
			Confirm: &admin.Confirm{Title: "Grant coins to the selected players?"},
			Handler: grantCoins(db),
		}},
	})
}

// grantCoins adds {amount} coins to every player in {ids}.
func grantCoins(db *bun.DB) func(context.Context, map[string]any, admin.ActionContext) (any, error) {
	return func(ctx context.Context, _ map[string]any, c admin.ActionContext) (any, error) {
		n, ok := c.Args["amount"].(json.Number) // JSON numbers arrive as json.Number
		amount, err := n.Int64()
		if !ok || err != nil || amount <= 0 || amount > 1_000_000 {
			return nil, admin.NewError(http.StatusBadRequest, "invalid_value", "amount must be an integer from 1 to 1000000")
		}
		if len(c.IDs) == 0 {
			return nil, admin.NewError(http.StatusBadRequest, "missing_field", "select the players first")
		}
		ids := make([]int64, len(c.IDs))
		for i, id := range c.IDs {
			ids[i] = id["id"].(int64) // typed by the column: the players id is a bigint
		}
		res, err := db.NewUpdate().Model((*Player)(nil)).Set("coins = coins + ?", amount).Where("id IN (?)", bun.List(ids)).Exec(ctx)
		if err != nil {
			return nil, err
		}
		granted, _ := res.RowsAffected()
		return map[string]any{"granted": granted, "amount": amount}, nil
	}
}

// publicProfile is one of the game's own endpoints, untouched by the
// panel.
func publicProfile(db *bun.DB) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
		if err != nil {
			http.Error(w, "bad id", http.StatusBadRequest)
			return
		}
		var p Player
		err = db.NewSelect().Model(&p).Column("id", "nickname", "coins").Where("id = ?", id).Scan(r.Context())
		if errors.Is(err, sql.ErrNoRows) {
			http.NotFound(w, r)
			return
		}
		if err != nil {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": p.ID, "nickname": p.Nickname, "coins": p.Coins})
	}
}

// economy is a game page for admins only: the coins in circulation. The
// guard verifies the panel session against the database on every request.
func economy(db *bun.DB) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		op, _ := admin.OperatorFrom(r.Context())
		var total int64
		if err := db.NewSelect().Model((*Player)(nil)).ColumnExpr("COALESCE(SUM(coins), 0)").Scan(r.Context(), &total); err != nil {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"coins": total, "viewer": op.UserID})
	}
}

// playerLogin is the game's own sign-in, POST /api/login {email,
// password}, older than the panel and unchanged by it: bcrypt only, the
// email matched without regard to case. It answers the player's id; a
// real game would hand out its own token here.
func playerLogin(db *bun.DB) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Email, Password string }
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&body); err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var p Player
		err := db.NewSelect().Model(&p).Column("id", "pw_hash").Where("lower(email) = lower(?)", body.Email).Limit(1).Scan(r.Context())
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		if err != nil || bcrypt.CompareHashAndPassword([]byte(p.PwHash), []byte(body.Password)) != nil {
			http.Error(w, "wrong email or password", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": p.ID})
	}
}
