package admintest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/klauspost/compress/zstd"
	"github.com/uptrace/bun"
)

// encoded is an answer as it went over the wire and as it reads.
type encoded struct {
	*http.Response
	wire []byte // the body as sent
	body []byte // decoded per Content-Encoding
}

// getEncoded GETs path with c's session asking for accept ("" sends no
// Accept-Encoding at all), and decodes what comes back by its
// Content-Encoding, as a browser does.
func getEncoded(t *testing.T, c *client, path, accept string) encoded {
	t.Helper()
	req, _ := http.NewRequest("GET", c.e.srv.URL+path, nil)
	if accept != "" {
		req.Header.Set("Accept-Encoding", accept)
	}
	// DisableCompression: Go's transport would otherwise ask for gzip
	// and decode it behind the test's back.
	hc := &http.Client{Jar: c.jar, Transport: &http.Transport{DisableCompression: true}}
	res, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	wire, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("GET %s (%s): %v", path, accept, err)
	}
	return encoded{Response: res, wire: wire, body: decode(t, res.Header.Get("Content-Encoding"), bytes.NewReader(wire))}
}

// decode reads r to its end through the decoder of enc.
func decode(t *testing.T, enc string, r io.Reader) []byte {
	t.Helper()
	rd := decoder(t, enc, r)
	b, err := io.ReadAll(rd)
	if err != nil {
		t.Fatalf("decoding %s: %v", enc, err)
	}
	return b
}

// decoder is a reader of r's content, decoded per enc.
func decoder(t *testing.T, enc string, r io.Reader) io.Reader {
	t.Helper()
	switch enc {
	case "":
		return r
	case "gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		return zr
	case "zstd":
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(zr.Close)
		return zr
	}
	t.Fatalf("Content-Encoding %q", enc)
	return nil
}

// realisticGadgets inserts n gadgets as a game's table holds them:
// names, numbers, times and JSON documents of some variety, a note on
// some.
func realisticGadgets(t *testing.T, db *bun.DB, n int) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(7, 52))
	adj := []string{"Rusty", "Gilded", "Arcane", "Feral", "Silent", "Molten", "Frozen", "Lucky", "Ancient", "Hollow"}
	noun := []string{"Blade", "Compass", "Lantern", "Gauntlet", "Cloak", "Drone", "Relic", "Totem", "Harpoon", "Beacon"}
	notes := []string{"dropped by the raid boss", "event reward", "crafted", "bought in the shop", "traded"}
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]testGadget, n)
	for i := range rows {
		seen := base.Add(-time.Duration(rnd.IntN(90*24*3600)) * time.Second)
		g := testGadget{
			ID:     int64(i + 1),
			Name:   fmt.Sprintf("%s %s #%d", adj[rnd.IntN(len(adj))], noun[rnd.IntN(len(noun))], 1000+rnd.IntN(9000)),
			Qty:    int64(rnd.IntN(500)),
			Price:  float64(rnd.IntN(100_000)) / 100,
			Active: rnd.IntN(3) > 0,
			SeenAt: &seen,
			Meta: map[string]any{"lvl": rnd.IntN(60), "rarity": []string{"common", "rare", "epic", "legendary"}[rnd.IntN(4)],
				"stats": map[string]any{"atk": rnd.IntN(200), "def": rnd.IntN(200), "spd": rnd.Float64()}},
		}
		if rnd.IntN(2) == 0 {
			g.Note = ptrTo(notes[rnd.IntN(len(notes))])
		}
		owner := fmt.Sprintf("player-%05d", rnd.IntN(50_000))
		g.OwnerID = &owner
		rows[i] = g
	}
	insert(t, db, &rows)
}

// TestCompressedAnswers: a list page, an export and the OpenAPI document
// are the same bytes decoded from gzip or zstd as sent plain; a client
// that sends no Accept-Encoding gets them plain, as does one that asks
// for identity; a small answer stays plain; a 100-row page of a real
// table is at least 3× smaller compressed; the UI's files are the
// build's own, not compressed again.
func TestCompressedAnswers(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{}, false)
		c, _ := e.bootstrap()
		realisticGadgets(t, db, 300)
		for _, path := range []string{
			"/admin-api/gadgets?_sort=id&_start=0&_end=100",
			"/admin-api/gadgets/_export.csv?_sort=id",
			"/admin-api/_openapi.json",
		} {
			plain := getEncoded(t, c, path, "")
			if plain.StatusCode != 200 || plain.Header.Get("Content-Encoding") != "" {
				t.Fatalf("GET %s without Accept-Encoding = %d, Content-Encoding %q; want 200, plain", path, plain.StatusCode, plain.Header.Get("Content-Encoding"))
			}
			if id := getEncoded(t, c, path, "identity"); id.Header.Get("Content-Encoding") != "" || !bytes.Equal(id.body, plain.body) {
				t.Errorf("GET %s (identity): Content-Encoding %q, %d bytes; want the plain %d", path, id.Header.Get("Content-Encoding"), len(id.body), len(plain.body))
			}
			for _, accept := range []string{"gzip", "zstd", "gzip, deflate, br, zstd"} {
				want := strings.TrimPrefix(accept[strings.LastIndex(accept, " ")+1:], " ")
				got := getEncoded(t, c, path, accept)
				if got.StatusCode != 200 || got.Header.Get("Content-Encoding") != want || !strings.Contains(got.Header.Get("Vary"), "Accept-Encoding") {
					t.Fatalf("GET %s (%s) = %d, Content-Encoding %q, Vary %q; want %s", path, accept, got.StatusCode, got.Header.Get("Content-Encoding"), got.Header.Get("Vary"), want)
				}
				if !bytes.Equal(got.body, plain.body) {
					t.Errorf("GET %s (%s): %d bytes decoded differ from the %d sent plain", path, accept, len(got.body), len(plain.body))
				}
				if strings.HasPrefix(path, "/admin-api/gadgets?") && 3*len(got.wire) > len(plain.wire) {
					t.Errorf("a 100-row page: %d bytes %s, %d plain; want at least 3× smaller", len(got.wire), want, len(plain.wire))
				}
			}
		}
		if me := getEncoded(t, c, "/admin-api/auth/me", "gzip, zstd"); me.StatusCode != 200 || me.Header.Get("Content-Encoding") != "" || len(me.wire) >= 1024 {
			t.Errorf("GET /auth/me: %d, Content-Encoding %q, %d bytes; want a small plain answer", me.StatusCode, me.Header.Get("Content-Encoding"), len(me.wire))
		}
		// The UI serves its build's own forms (brotli, gzip); none is zstd.
		if ui := getEncoded(t, c, "/admin/users", "zstd"); ui.StatusCode != 200 || ui.Header.Get("Content-Encoding") != "" || !bytes.Contains(ui.body, []byte("<html")) {
			t.Errorf("GET /admin/users (zstd) = %d, Content-Encoding %q; want the UI's page, plain", ui.StatusCode, ui.Header.Get("Content-Encoding"))
		}
	})
}

// holdBatch is a query hook that holds the nth batch query of an export
// of gadgets until release is closed.
type holdBatch struct {
	n       int32
	seen    atomic.Int32
	release chan struct{}
}

func (h *holdBatch) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	if strings.Contains(strings.ReplaceAll(ev.Query, "`", `"`), `FROM "gadgets"`) && strings.Contains(ev.Query, "LIMIT 501") && h.seen.Add(1) == h.n {
		<-h.release
	}
	return ctx
}

func (*holdBatch) AfterQuery(context.Context, *bun.QueryEvent) {}

// TestCompressedExportStreams: a compressed export reaches the client
// batch by batch (each flush flushes the compressor): the first batch is
// read whole while the server still waits for the second.
func TestCompressedExportStreams(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		hold := &holdBatch{n: 2}
		e := gadgetEnv(t, db.WithQueryHook(hold), Options{ExportMaxRows: -1}, false)
		c, _ := e.bootstrap()
		realisticGadgets(t, db, 700)
		for _, enc := range []string{"gzip", "zstd"} {
			t.Run(enc, func(t *testing.T) {
				hold.seen.Store(0)
				hold.release = make(chan struct{})
				defer func() {
					select {
					case <-hold.release:
					default:
						close(hold.release)
					}
				}()
				req, _ := http.NewRequest("GET", e.srv.URL+"/admin-api/gadgets/_export.csv?_sort=id", nil)
				req.Header.Set("Accept-Encoding", enc)
				res, err := (&http.Client{Jar: c.jar, Transport: &http.Transport{DisableCompression: true}}).Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				if res.Header.Get("Content-Encoding") != enc {
					t.Fatalf("Content-Encoding = %q; want %s", res.Header.Get("Content-Encoding"), enc)
				}
				lines := make(chan int, 1)
				rd := bufio.NewReader(decoder(t, enc, res.Body))
				go func() {
					n := 0
					for ; n < 501; n++ { // the header and the first batch
						if _, err := rd.ReadString('\n'); err != nil {
							break
						}
					}
					lines <- n
				}()
				select {
				case n := <-lines:
					if n != 501 {
						t.Fatalf("read %d lines; want the header and the first batch's 500", n)
					}
				case <-time.After(8 * time.Second):
					t.Fatal("the first batch did not reach the client while the second was held: the compressor kept it")
				}
				close(hold.release)
				rest, err := io.ReadAll(rd)
				if err != nil {
					t.Fatal(err)
				}
				if n := bytes.Count(rest, []byte("\n")); n != 200 {
					t.Errorf("%d lines after the first batch; want the other 200 rows", n)
				}
			})
		}
	})
}
