package rows

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"hash"
	"maps"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

// Row versions: every answer that is one row carries its version as an
// ETag, and a write of the row may say which version it changes
// (If-Match). A row whose version differs is not written: the answer is
// 409 conflict with the row as it is now (Conflict).
//
// The version is the resource's VersionColumn when the game names one
// (a column it bumps on every write), else a digest of the row as stored:
// every column the panel reads (hidden ones are never read), whatever
// the reader's role may see, so an admin and a mod reading one row get
// one ETag. The digest is keyed (HMAC-SHA256) with a key derived from
// Options.Secret: an ETag cannot be used to test a guess at a masked
// value.

// Versions makes the ETags of rows with its key.
type Versions struct {
	key []byte
	// macs are keyed hashes and buffers to reuse: a read by id makes one
	// ETag, and building a keyed hash costs more than the digest.
	macs sync.Pool
}

// versionMAC is one of Versions' reusable hashes, with its buffer.
type versionMAC struct {
	h   hash.Hash
	buf []byte
}

// NewVersions returns the Versions keyed from secret (Options.Secret, or
// the panel's random key): a key of its own, so an ETag says nothing of
// the key that signs sessions.
func NewVersions(secret []byte) *Versions {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("gameadmin row versions v1"))
	v := &Versions{key: m.Sum(nil)}
	v.macs.New = func() any { return &versionMAC{h: hmac.New(sha256.New, v.key), buf: make([]byte, 0, 512)} }
	return v
}

// ETag is the version of row, a row of res as stored (StoredHidden left
// out, nothing masked): a strong quoted ETag, "" for a nil row. It is
// derived from res's version column alone when res has one.
func (v *Versions) ETag(res *Resource, row map[string]any) string {
	if v == nil || row == nil {
		return ""
	}
	m := v.macs.Get().(*versionMAC)
	defer func() {
		if cap(m.buf) <= 64<<10 {
			v.macs.Put(m)
		}
	}()
	b := m.buf[:0]
	if c := res.version; c != nil {
		b = append(b, "v\x00"...)
		b = appendCell(b, row[c.Name])
	} else {
		b = append(b, "r\x00"...)
		for _, c := range res.Table.Columns {
			if res.stored[c.Name] {
				continue
			}
			b = append(b, c.Name...)
			b = append(b, 0)
			b = appendCell(b, row[c.Name])
			b = append(b, 0)
		}
	}
	m.buf = b
	m.h.Reset()
	m.h.Write(b)
	var sum [sha256.Size]byte
	var out [2 + 24]byte
	out[0], out[len(out)-1] = '"', '"'
	base64.RawURLEncoding.Encode(out[1:len(out)-1], m.h.Sum(sum[:0])[:18])
	return string(out[:])
}

// appendCell appends a cell's value as JSON (compacted, as the answer
// writes it), or as Go prints it when it has no JSON form.
func appendCell(b []byte, v any) []byte {
	out, err := query.AppendJSON(b, v)
	if err != nil {
		return fmt.Append(b, v)
	}
	return out
}

// SetETag puts etag on an answer's headers, and lets a page of another
// origin read it as it reads X-Total-Count.
func SetETag(h http.Header, etag string) {
	if etag == "" {
		return
	}
	h.Set("ETag", etag)
	h.Set("Access-Control-Expose-Headers", "ETag")
}

// Match is a write's If-Match: the versions of the row its client read.
// A nil *Match checks nothing (a client that sends no If-Match).
type Match struct {
	any  bool     // "*": any version of an existing row
	tags []string // strong ETags, quoted
}

// maxIfMatch bounds the If-Match a write reads.
const maxIfMatch = 4 << 10

// ParseIfMatch reads the If-Match headers of h (RFC 9110: "*" or a list of
// entity tags): nil when there is none; 400 invalid_header when it is
// malformed or names a weak tag, which the panel never sends and which
// never matches a write's row.
func ParseIfMatch(h http.Header) (*Match, error) {
	vals := h.Values("If-Match")
	if len(vals) == 0 {
		return nil, nil
	}
	bad := func(why string) error {
		return errbody.New(http.StatusBadRequest, "invalid_header", "If-Match %s: send the ETag of the row as read, or *", why)
	}
	all := strings.Join(vals, ",")
	if len(all) > maxIfMatch {
		return nil, bad("is too long")
	}
	m := &Match{}
	for part := range strings.SplitSeq(all, ",") {
		part = strings.Trim(part, " \t")
		switch {
		case part == "":
			continue // a list may have empty elements
		case part == "*":
			m.any = true
		case strings.HasPrefix(part, "W/"):
			return nil, bad("names a weak ETag")
		case len(part) < 2 || part[0] != '"' || part[len(part)-1] != '"' || !etagChars(part[1:len(part)-1]):
			return nil, bad(fmt.Sprintf("is not a quoted ETag (%q)", errbody.Truncate(part, 40)))
		default:
			m.tags = append(m.tags, part)
		}
	}
	if !m.any && len(m.tags) == 0 {
		return nil, bad("is empty")
	}
	if m.any && len(m.tags) > 0 {
		return nil, bad("mixes * with ETags")
	}
	return m, nil
}

// etagChars reports whether s is an opaque-tag's inside (RFC 9110
// etagc: visible ASCII but the quote, and obs-text).
func etagChars(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c < 0x21 || c == 0x7f {
			return false
		}
	}
	return true
}

// Matches reports whether etag, a row's version, is one m names.
func (m *Match) Matches(etag string) bool {
	if m == nil || m.any {
		return true
	}
	for _, t := range m.tags {
		if t == etag {
			return true
		}
	}
	return false
}

// checkMatch refuses a write of row (locked, as stored) whose version m
// does not name: 409 conflict with the row as the caller's role reads it.
func (s Store) checkMatch(res *Resource, m *Match, row map[string]any) error {
	if m == nil {
		return nil
	}
	etag := s.Versions.ETag(res, row)
	if m.Matches(etag) {
		return nil
	}
	return s.conflict(res, row, etag)
}

// Conflict is the answer to a write of a row that changed since its
// client read it: 409 conflict carrying row (as stored) as res's role
// reads it, and its ETag.
func (s Store) Conflict(res *Resource, row map[string]any) *errbody.Error {
	return s.conflict(res, row, s.Versions.ETag(res, row))
}

func (s Store) conflict(res *Resource, row map[string]any, etag string) *errbody.Error {
	e := errbody.New(http.StatusConflict, "conflict", "the row changed since you read it: nothing was written; the answer has the row as it is now").WithParams("reason", "changed")
	e.Row = res.Answer(maps.Clone(row))
	e.ETag = etag
	return e
}

// ETag is the version of row, a row of res as Store reads and writes it
// (Versions.ETag).
func (s Store) ETag(res *Resource, row map[string]any) string {
	return s.Versions.ETag(res, row)
}

// configColumn is the visible column name that a ResourceConfig field
// (its name) names: nil and no error when name is "", an error naming
// the field when there is no such column or it is hidden; fail words
// the field's other refusals.
func (res *Resource) configColumn(field, name string) (*schema.Column, func(format string, args ...any) error, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("admin: resource %q: %s: %s", res.Key, field, fmt.Sprintf(format, args...))
	}
	if name == "" {
		return nil, fail, nil
	}
	c := res.Table.ByName[name]
	switch {
	case c == nil:
		if gc, ok := res.Table.Lookup(name); ok {
			return nil, fail, fail("no column %q in %s (names are SQL column names: %q)", name, res.Table.Name, gc.Name)
		}
		return nil, fail, fail("no column %q in %s%s", name, res.Table.Name, schema.ClosestHint(name, res.Table.ColumnNames()))
	case res.Hidden[name]:
		return nil, fail, fail("column %q is hidden: the panel never reads it", name)
	}
	return c, fail, nil
}

// checkVersionColumn is New's check of cfg.VersionColumn on t: a visible
// integer or time column that is not a key.
func (res *Resource) checkVersionColumn() error {
	name := res.Config.VersionColumn
	c, fail, err := res.configColumn("VersionColumn", name)
	if c == nil {
		return err
	}
	switch {
	case c.Primary:
		return fail("column %q is part of the primary key", name)
	case c.Generated:
		return fail("column %q is computed by the database: the panel cannot bump it", name)
	case c.DataType != schema.Integer && c.DataType != schema.Datetime || c.Kind == schema.KindDate:
		return fail("column %q is %s: a version is an integer or a time", name, c.DataType)
	}
	res.version = c
	return nil
}

// VersionColumn is the column the game bumps on every write of res's
// rows (ResourceConfig.VersionColumn), or nil.
func (res *Resource) VersionColumn() *schema.Column { return res.version }

// bumpVersion sets res's version column in vals, the values an update of
// before (as stored) writes, past the stored value: an integer by one, a
// time to now (later than the stored one by a microsecond at least, the
// finest PostgreSQL keeps), a unix time to now in its unit (past the
// stored one by one). A body never sets it: it is read-only.
func (res *Resource) bumpVersion(before, vals map[string]any, now time.Time) {
	c := res.version
	if c == nil || len(vals) == 0 {
		return
	}
	vals[c.Name] = nextVersion(c, before[c.Name], now)
}

// firstVersion is the version a create stores when the body and the
// database give none.
func (res *Resource) firstVersion(vals map[string]any, now time.Time) {
	c := res.version
	if c == nil || c.HasDefault {
		return
	}
	if _, set := vals[c.Name]; !set {
		vals[c.Name] = nextVersion(c, nil, now)
	}
}

// nextVersion is the value of c after old.
func nextVersion(c *schema.Column, old any, now time.Time) any {
	now = now.UTC().Truncate(time.Microsecond)
	prev, isTime := old.(time.Time)
	if s, ok := old.(string); ok {
		// A wall clock's (MySQL's DATETIME) as a row carries it: text.
		for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"} {
			if t, err := time.Parse(layout, s); err == nil {
				prev, isTime = t, true
				break
			}
		}
	}
	switch {
	case c.Unix != "":
		next := c.UnixValue(now).(int64)
		if isTime {
			if p := c.UnixValue(prev).(int64); next <= p {
				next = p + 1
			}
		}
		return next
	case c.DataType == schema.Integer:
		n, _ := old.(int64)
		return n + 1
	}
	if isTime && !now.After(prev) {
		now = prev.Add(time.Microsecond).Truncate(time.Microsecond)
	}
	return now
}
