package engine

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"strings"
	"time"

	"github.com/gameadmin/admin/internal/account"
	"github.com/gameadmin/admin/rooms"
)

// Options is admin.Options, field for field (the root converts one to the
// other, so the compiler keeps them equal); its documentation is there.
type Options struct {
	Secret               []byte
	SetupToken           string
	Production           bool
	UIPath               string
	APIPath              string
	TrustedOrigins       []string
	Tables               map[string]any
	Resources            map[string]*Resource
	Relations            map[string][]Relation
	Widgets              []Widget
	WidgetTimeout        time.Duration
	DashboardTotals      []string
	Session              SessionOptions
	RateLimit            RateLimitOptions
	TrustedProxies       []netip.Prefix
	ClientIPHeader       string
	OnResetRequest       func(ctx context.Context, req ResetRequest) error
	ResetOperatorsOnly   bool
	PasswordHasher       PasswordHasher
	HashConcurrency      int
	Rooms                rooms.Runtime
	RoomTimeout          time.Duration
	Logger               *slog.Logger
	Clock                func() time.Time
	MaxBodyBytes         int64
	MaxTextLength        int
	PlayersCanRead       bool
	RequireTOTP          TOTPPolicy
	ExactCountBelow      int64
	AuditMaxPayloadBytes int
	TablePrefix          string
	Migrations           MigrationMode
	UserColumns          UserColumns
	ExactCountBudget     time.Duration
	CountBudget          time.Duration
	QueryTimeout         time.Duration
	CatalogRefresh       time.Duration
	QueryConcurrency     int
	DatabaseConcurrency  int
	ExportMaxRows        int64
	ExportNoBOM          bool
	HealthChecks         []HealthCheck
	ReportCategories     []ReportCategory
	ReportWindow         time.Duration
	ReportClaimExpiry    time.Duration
	OnAudit              func(ctx context.Context, e AuditEvent)
	AuditQueue           int
}

// SessionOptions configure the session cookie.
type SessionOptions = account.SessionOptions

// ResetRequest is what OnResetRequest receives. URL is the site-relative
// link <UIPath>/reset?token=<Token>; the callback prepends the origin.
type ResetRequest = account.ResetRequest

// normalizePaths defaults UIPath and APIPath and checks them: absolute,
// plain, not the root, and neither inside the other.
func normalizePaths(opts *Options) error {
	for _, p := range []struct {
		name string
		v    *string
		def  string
	}{{"UIPath", &opts.UIPath, defaultUIPath}, {"APIPath", &opts.APIPath, defaultAPIPath}} {
		if *p.v == "" {
			*p.v = p.def
		}
		*p.v = "/" + strings.Trim(*p.v, "/")
		if *p.v == "/" || !isPlainPath(*p.v) || strings.ContainsAny(*p.v, "?#{}% \\") || strings.Contains(*p.v, "//") {
			return fmt.Errorf("admin: %s %q must be a plain sub-path such as %q", p.name, *p.v, p.def)
		}
	}
	ui, api := opts.UIPath, opts.APIPath
	if ui == api || strings.HasPrefix(ui+"/", api+"/") || strings.HasPrefix(api+"/", ui+"/") {
		return fmt.Errorf("admin: UIPath %q and APIPath %q must not contain one another", ui, api)
	}
	return nil
}

// initSecret takes the signing key out of opts (Options.Secret, else a
// random one outside production).
func initSecret(opts *Options, log *slog.Logger) ([]byte, error) {
	secret := opts.Secret
	switch {
	case len(secret) == 0 && opts.Production:
		return nil, errors.New("admin: no Secret: set Options.Secret in production")
	case len(secret) == 0:
		secret = []byte(rand.Text() + rand.Text())
		log.Warn("admin: no Options.Secret; using a random key, so sessions end when the process restarts")
	case len(secret) < minSecretBytes:
		return nil, fmt.Errorf("admin: Secret is %d bytes; at least %d are needed", len(secret), minSecretBytes)
	}
	opts.Secret = nil // the key lives in the panel's tokens only
	return secret, nil
}
