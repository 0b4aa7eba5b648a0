package account

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/gameadmin/admin/internal/sqldialect"
	"github.com/uptrace/bun"
)

// OperatorPrefs is a row of game_operator_prefs: an operator's own
// display preferences, kept with the account so that they follow the
// operator from browser to browser. Locale is the language of the
// panel's UI the operator chose ("en", "de"); no row is no choice, and
// the UI follows the browser's.
type OperatorPrefs struct {
	bun.BaseModel `bun:"table:game_operator_prefs,alias:opp"`

	UserID    string    `bun:"user_id,pk"`
	Locale    string    `bun:"locale,notnull"`
	UpdatedAt time.Time `bun:"updated_at,notnull"`
}

// Prefs reads and writes the operators' display preferences
// (OperatorPrefs) in the panel's prefs table.
type Prefs struct {
	db    *bun.DB
	table string // the prefs table's SQL name: TablePrefix + "operator_prefs"
}

// NewPrefs is the preferences of db's table prefix+"operator_prefs".
func NewPrefs(db *bun.DB, prefix string) *Prefs {
	return &Prefs{db: db, table: prefix + "operator_prefs"}
}

// Locale is the language userID chose for the panel, "" for none.
func (p *Prefs) Locale(ctx context.Context, userID string) (string, error) {
	var locale string
	err := p.db.NewSelect().TableExpr("?", bun.Ident(p.table)).Column("locale").
		Where("user_id = ?", userID).Scan(ctx, &locale)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("admin: locale of %s: %w", userID, err)
	}
	return locale, nil
}

// SetLocale keeps locale as userID's language of the panel; "" clears
// the choice. The caller checks the value.
func (p *Prefs) SetLocale(ctx context.Context, userID, locale string) error {
	var err error
	if locale == "" {
		_, err = p.db.NewDelete().TableExpr("?", bun.Ident(p.table)).Where("user_id = ?", userID).Exec(ctx)
	} else {
		_, err = sqldialect.OnConflictUpdate(p.db.NewInsert().Model(&OperatorPrefs{UserID: userID, Locale: locale, UpdatedAt: time.Now().UTC()}).
			ModelTableExpr("?", bun.Ident(p.table)), "user_id", "locale", "updated_at").Exec(ctx)
	}
	if err != nil {
		return fmt.Errorf("admin: set the locale of %s: %w", userID, err)
	}
	return nil
}
