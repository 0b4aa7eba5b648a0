package admintest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// TestReportFloodPostsOnce: reports the game files reach OnAudit once
// their transaction commits, and WebhookSink posts the player once, when
// their open reports reach the threshold, naming them and linking their
// page; the reports before and after it post nothing. The player has no
// display name: the line names them by id, never by their email.
func TestReportFloodPostsOnce(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		var mu sync.Mutex
		var posts []string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var body struct {
				Content string `json:"content"`
			}
			_ = json.NewDecoder(r.Body).Decode(&body)
			mu.Lock()
			posts = append(posts, body.Content)
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(srv.Close)
		sink := WebhookSink(WebhookOptions{URL: srv.URL + "/api/webhooks/1/secret", Kind: Discord, ReportThreshold: 3, PanelURL: "https://panel.example/admin"})
		h := &heard{}
		e := newEnv(t, db, Options{ReportCategories: reportCategories, OnAudit: func(ctx context.Context, ev AuditEvent) {
			sink(ctx, ev) // before it is heard: once the last is heard, every post is sent
			h.add(ctx, ev)
		}})
		ctx := context.Background()
		cheat := e.user("cheat@example.com", "pw password")
		for i := range 4 {
			reporter := e.user(fmt.Sprintf("r%d@example.com", i), "pw password")
			must(e.admin.FileReport(ctx, Report{ReporterID: reporter, PlayerID: cheat, Category: "name"}))
		}
		waitFor(t, func() bool { return len(h.of("report.file")) == 4 })
		time.Sleep(50 * time.Millisecond) // an event after the fourth, were there one
		mu.Lock()
		defer mu.Unlock()
		if len(posts) != 1 || !strings.HasPrefix(posts[0], "user "+discordID(cheat)+" has 3 open reports") ||
			!strings.HasSuffix(posts[0], " · https://panel.example/admin/users/"+cheat) || strings.Contains(posts[0], "cheat") {
			t.Fatalf("posts = %q; want one line naming the player by id (never their email), 3 open reports and a link to their page", posts)
		}
	})
}
