package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/gameadmin/admin/internal/account"
	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/clientip"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/ratelimit"
)

// handlerFunc is an endpoint that reports failure by returning an error:
// an *APIError goes to the client as it is, anything else is logged and
// answered with a generic 500.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// opHandlerFunc is an endpoint that needs a signed-in identity.
type opHandlerFunc func(w http.ResponseWriter, r *http.Request, op Operator) error

// wrap is what every endpoint of the API runs inside (routes.go): the
// answer after Close, the body's bound, the recovery of a panic, the
// error body; and for signedIn the session and the second factor.
type wrap struct {
	closed   *atomic.Bool // Admin.closed: set by Close
	maxBody  int64        // Options.MaxBodyBytes, defaulted
	log      *slog.Logger
	sessions *account.SessionCheck
	totp     totpGate
}

// public wraps an endpoint that answers without a session.
func (e wrap) public(fn handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e.closed.Load() {
			writeError(e.log, w, r, errClosed)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, e.maxBody)
		defer func() {
			// A bug in one endpoint answers 500 with a logged stack
			// instead of a dropped connection.
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				writeError(e.log, w, r, recovered(p))
			}
		}()
		if err := fn(w, r); err != nil {
			writeError(e.log, w, r, err)
		}
	})
}

// signedIn wraps an endpoint that needs a valid session; the operator is on
// the request context too, for OperatorFrom.
func (e wrap) signedIn(fn opHandlerFunc) http.Handler {
	return e.public(func(w http.ResponseWriter, r *http.Request) error {
		op, err := e.sessions.Verify(r.Context(), r)
		if err != nil {
			return err
		}
		if err := e.totp.check(r, op); err != nil {
			return err
		}
		return fn(w, r.WithContext(withOperator(r.Context(), op)), op)
	})
}

// bodyMode says how readJSON treats a body.
type bodyMode uint8

const (
	// optional: an empty body leaves v as it is.
	optional bodyMode = 1 << iota
	// strict: unknown fields are refused (fixed-shape bodies).
	strict
	// numbers: numbers decode as json.Number, exact for 64-bit ids.
	numbers
)

// readJSON reads one JSON value into v: bounded by MaxBodyBytes (413),
// valid UTF-8 (encoding/json would store U+FFFD), nothing after it; every
// mistake a 400 with the error body.
func readJSON(r *http.Request, v any, mode bodyMode) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err // writeError turns it into 413
		}
		return errorf(http.StatusBadRequest, "invalid_body", "could not read the request body")
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		if mode&optional != 0 {
			return nil
		}
		return errorf(http.StatusBadRequest, "invalid_body", "a JSON object body is required")
	}
	if !utf8.Valid(body) {
		return errorf(http.StatusBadRequest, "invalid_body", "the request body is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if mode&strict != 0 {
		dec.DisallowUnknownFields()
	}
	if mode&numbers != 0 {
		dec.UseNumber()
	}
	if err := dec.Decode(v); err != nil {
		return bodyError(err)
	}
	// Not dec.More, which is false before a stray '}' or ']'.
	if dec.InputOffset() != int64(len(body)) {
		return errorf(http.StatusBadRequest, "invalid_body", "unexpected data after the JSON object")
	}
	// encoding/json keeps the last of two equal keys; a proxy or a log in
	// between may read the first. Such a body means two things: refused.
	if k, dup := duplicateKey(body); dup {
		return errorf(http.StatusBadRequest, "invalid_json", "the key %q appears twice in one object", errbody.Truncate(k, 80))
	}
	return nil
}

// duplicateKey finds a key that appears twice in one object of a JSON
// text that has decoded already (so it is well formed, and valid UTF-8).
// It walks the bytes: a string right after an object's '{' or ',' is a
// key, compared as it decodes ("a" and "\u0061" are one key).
func duplicateKey(body []byte) (string, bool) {
	type frame struct {
		keys      map[string]struct{} // nil for an array
		expectKey bool
	}
	var stack []frame
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '{':
			stack = append(stack, frame{keys: map[string]struct{}{}, expectKey: true})
		case '[':
			stack = append(stack, frame{})
		case '}', ']':
			if len(stack) == 0 {
				return "", false // not one JSON value: readJSON refuses it
			}
			stack = stack[:len(stack)-1]
		case ',':
			if len(stack) > 0 && stack[len(stack)-1].keys != nil {
				stack[len(stack)-1].expectKey = true
			}
		case '"':
			start, escaped := i, false
			for i++; body[i] != '"'; i++ {
				if body[i] == '\\' {
					i++
					escaped = true
				}
			}
			if len(stack) == 0 {
				continue // a string alone
			}
			top := &stack[len(stack)-1]
			if top.keys == nil || !top.expectKey {
				continue
			}
			top.expectKey = false
			k := string(body[start+1 : i])
			if escaped {
				if err := json.Unmarshal(body[start:i+1], &k); err != nil {
					return "", false
				}
			}
			if _, dup := top.keys[k]; dup {
				return k, true
			}
			top.keys[k] = struct{}{}
		}
	}
	return "", false
}

// decodeBody reads a required fixed-shape JSON object body into v.
func decodeBody(r *http.Request, v any) error { return readJSON(r, v, strict) }

// decodeOptional is decodeBody for endpoints whose body may be empty.
func decodeOptional(r *http.Request, v any) error { return readJSON(r, v, strict|optional) }

func bodyError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(http.StatusBadRequest, "invalid_json", "malformed JSON body")
	case errors.As(err, &typ):
		if typ.Field == "" {
			return errorf(http.StatusBadRequest, "invalid_body", "the body must be a JSON object")
		}
		return errorf(http.StatusBadRequest, "invalid_value", "field %q must be %s, not %s", typ.Field, jsonKind(typ.Type), article(typ.Value)).
			WithParams("field", typ.Field, "expected", jsonType(typ.Type), "got", strings.Fields(typ.Value + " value")[0])
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		e := errorf(http.StatusBadRequest, "unknown_field", "%s", strings.TrimPrefix(err.Error(), "json: "))
		if field, err := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field ")); err == nil {
			e = e.WithParams("field", field)
		}
		return e
	}
	return errorf(http.StatusBadRequest, "invalid_body", "malformed JSON body")
}

// jsonKind names what a Go type takes in JSON, in words a client's author
// reads ("a list"), not Go's ("[]interface {}").
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		if t == reflect.TypeFor[time.Time]() {
			return "a time (RFC 3339)"
		}
		return "an object"
	}
	return "another kind of value"
}

// article names a JSON value kind as encoding/json reports it ("array",
// "number 1.5") in words.
// jsonType is jsonKind as a code, for an answer's params: string,
// boolean, integer, number, array, object, time or value.
func jsonType(t reflect.Type) string {
	if c, ok := map[string]string{"a string": "string", "true or false": "boolean", "a whole number": "integer", "a number": "number", "a list": "array", "an object": "object", "a time (RFC 3339)": "time"}[jsonKind(t)]; ok {
		return c
	}
	return "value"
}

func article(v string) string {
	kind, _, _ := strings.Cut(v, " ")
	switch kind {
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "number":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	}
	return v
}

// requestMeta is the ip (behind the trusted proxies) and userAgent of r.
func requestMeta(r *http.Request, ips clientip.Resolver) map[string]any {
	return audit.RequestMeta(r, ips.Of(r))
}

// limit spends a token of key's bucket: 429 when empty, 503 when the
// limiter fails (writeError logs the cause with the request id).
func limit(ctx context.Context, l Limiter, key string) error {
	return ratelimit.Answer(ratelimit.Spend(ctx, l, key))
}
