package live

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/gameadmin/admin/rooms"
)

type player struct {
	Name  string `json:"name"`
	Score int    `json:"score"`
}

type gameState struct {
	Round   int               `json:"round"`
	Players []player          `json:"players"`
	Tags    map[string]string `json:"tags,omitempty"`
	Cache   string            `json:"-"`
	secret  string
}

func newGameState() *gameState {
	return &gameState{
		Round:   1,
		Players: []player{{"ann", 3}, {"bob", 4}},
		Tags:    map[string]string{"mode": "duel"},
		Cache:   "cached",
		secret:  "s3",
	}
}

func decodeAny(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %q: %v", s, err)
	}
	return v
}

func jsonEqual(t testing.TB, got any, want string) bool {
	t.Helper()
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("marshal %v: %v", got, err)
	}
	return reflect.DeepEqual(decodeAny(t, string(b)), decodeAny(t, want))
}

func TestEditStateGeneric(t *testing.T) {
	tests := []struct {
		name    string
		state   string
		path    []any
		value   string // "" deletes
		want    string
		wantErr error
	}{
		{"set existing key", `{"a":1}`, []any{"a"}, `2`, `{"a":2}`, nil},
		{"set new key", `{"a":1}`, []any{"b"}, `"x"`, `{"a":1,"b":"x"}`, nil},
		{"set nested index float64", `{"a":{"b":[1,2,3]}}`, []any{"a", "b", 1.0}, `9`, `{"a":{"b":[1,9,3]}}`, nil},
		{"set nested index int", `{"a":[1,2]}`, []any{"a", 0}, `{"k":true}`, `{"a":[{"k":true},2]}`, nil},
		{"set index json.Number", `[1,2]`, []any{json.Number("1")}, `null`, `[1,null]`, nil},
		{"set root", `{"a":1}`, []any{}, `[1,2]`, ``, rooms.ErrInvalidPath},
		{"set root to null", `{"a":1}`, []any{}, `null`, ``, rooms.ErrInvalidPath},
		{"set root of null", `null`, nil, `{"a":1}`, ``, rooms.ErrInvalidPath},
		{"null into a generic key", `{"a":{"b":1}}`, []any{"a"}, `null`, `{"a":null}`, nil},
		{"index out of range", `{"a":[1,2]}`, []any{"a", 2}, `0`, ``, rooms.ErrInvalidPath},
		{"negative index", `[1,2]`, []any{-1}, `0`, ``, rooms.ErrInvalidPath},
		{"fractional index", `[1,2]`, []any{0.5}, `0`, ``, rooms.ErrInvalidPath},
		{"key on array", `[1,2]`, []any{"0"}, `0`, ``, rooms.ErrInvalidPath},
		{"number on object", `{"0":1}`, []any{0}, `0`, ``, rooms.ErrInvalidPath},
		{"bool path element", `{"a":1}`, []any{true}, `0`, ``, rooms.ErrInvalidPath},
		{"into number", `{"a":1}`, []any{"a", "b"}, `0`, ``, rooms.ErrInvalidPath},
		{"into string", `{"a":"s"}`, []any{"a", 0}, `0`, ``, rooms.ErrInvalidPath},
		{"into null", `{"a":null}`, []any{"a", "b"}, `0`, ``, rooms.ErrInvalidPath},
		{"missing intermediate", `{"a":{}}`, []any{"x", "y"}, `0`, ``, rooms.ErrInvalidPath},
		{"value not JSON", `{"a":1}`, []any{"a"}, `{nope`, ``, ErrInvalidValue},
		{"delete key", `{"a":1,"b":2}`, []any{"a"}, ``, `{"b":2}`, nil},
		{"delete nested element", `{"a":[1,2,3]}`, []any{"a", 1}, ``, `{"a":[1,3]}`, nil},
		{"delete last element", `[1]`, []any{0.0}, ``, `[]`, nil},
		{"delete missing key", `{"a":1}`, []any{"b"}, ``, ``, rooms.ErrInvalidPath},
		{"delete out of range", `[1]`, []any{1}, ``, ``, rooms.ErrInvalidPath},
		{"delete root", `{"a":1}`, []any{}, ``, ``, rooms.ErrInvalidPath},
		{"delete in scalar", `{"a":1}`, []any{"a", "b"}, ``, ``, rooms.ErrInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := decodeAny(t, tt.state)
			e := stateEdit{path: tt.path}
			if tt.value != "" {
				e.value = json.RawMessage(tt.value)
			}
			got, err := editState(state, e)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !errors.Is(err, rooms.ErrInvalidPath) {
					t.Fatalf("editState(%s, %v, %s) = %v; want %v", tt.state, tt.path, tt.value, err, tt.wantErr)
				}
				if !jsonEqual(t, state, tt.state) {
					t.Errorf("editState(%s, %v) failed but changed the state to %v", tt.state, tt.path, state)
				}
				return
			}
			if err != nil || !jsonEqual(t, got, tt.want) {
				t.Fatalf("editState(%s, %v, %s) = %v, %v; want %s", tt.state, tt.path, tt.value, got, err, tt.want)
			}
		})
	}
}

func TestEditStateStruct(t *testing.T) {
	tests := []struct {
		name    string
		path    []any
		value   string // "" deletes
		check   func(s *gameState) bool
		wantErr error
	}{
		{"field", []any{"round"}, `5`, func(s *gameState) bool { return s.Round == 5 }, nil},
		{"nested field", []any{"players", 1, "score"}, `10`, func(s *gameState) bool { return s.Players[1].Score == 10 }, nil},
		{"map entry", []any{"tags", "map"}, `"dust"`, func(s *gameState) bool { return s.Tags["map"] == "dust" && s.Tags["mode"] == "duel" }, nil},
		{"whole state", nil, `{"round":9,"players":[]}`, nil, rooms.ErrInvalidPath},
		{"whole state null", []any{}, `null`, nil, rooms.ErrInvalidPath},
		{"null map", []any{"tags"}, `null`, nil, ErrInvalidValue},
		{"null scalar", []any{"round"}, `null`, nil, ErrInvalidValue},
		{"null struct element", []any{"players", 0}, `null`, nil, ErrInvalidValue},
		{"null nested in an object", []any{"players", 0}, `{"name":"x","score":null}`, nil, ErrInvalidValue},
		{"null slice", []any{"players"}, `null`, func(s *gameState) bool { return s.Players == nil }, nil},
		{"delete element", []any{"players", 0}, ``, func(s *gameState) bool { return len(s.Players) == 1 && s.Players[0].Name == "bob" }, nil},
		{"delete map entry", []any{"tags", "mode"}, ``, func(s *gameState) bool { return len(s.Tags) == 0 }, nil},
		{"wrong type", []any{"round"}, `"abc"`, nil, ErrInvalidValue},
		{"wrong nested type", []any{"players", 0}, `[1]`, nil, ErrInvalidValue},
		{"unknown field", []any{"nope"}, `1`, nil, ErrInvalidValue},
		{"delete struct field", []any{"round"}, ``, nil, ErrInvalidValue},
		{"delete map field", []any{"tags"}, ``, nil, ErrInvalidValue},
		{"index out of range", []any{"players", 2, "score"}, `1`, nil, rooms.ErrInvalidPath},
		{"into scalar", []any{"round", "x"}, `1`, nil, rooms.ErrInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newGameState()
			before, _ := json.Marshal(s)
			oldTags := s.Tags
			e := stateEdit{path: tt.path}
			if tt.value != "" {
				e.value = json.RawMessage(tt.value)
			}
			got, err := editState(s, e)
			if tt.wantErr != nil {
				after, _ := json.Marshal(s)
				if !errors.Is(err, tt.wantErr) || !errors.Is(err, rooms.ErrInvalidPath) || string(after) != string(before) {
					t.Fatalf("editState(%v, %s) = %v, state %s; want %v, state %s", tt.path, tt.value, err, after, tt.wantErr, before)
				}
				if len(oldTags) != 1 {
					t.Errorf("editState(%v, %s) failed but changed the tags map to %v", tt.path, tt.value, oldTags)
				}
				return
			}
			if err != nil {
				t.Fatalf("editState(%v, %s) = %v; want nil", tt.path, tt.value, err)
			}
			if got != any(s) {
				t.Errorf("editState(%v, %s) returned %p; want the same pointer %p", tt.path, tt.value, got, s)
			}
			if !tt.check(s) {
				t.Errorf("editState(%v, %s): struct is %+v", tt.path, tt.value, *s)
			}
			if s.Cache != "cached" || s.secret != "s3" {
				t.Errorf("editState(%v, %s) lost fields JSON does not see: Cache %q, secret %q", tt.path, tt.value, s.Cache, s.secret)
			}
		})
	}
}

func TestEditStateGoValuesInMap(t *testing.T) {
	p := &player{Name: "ann", Score: 1}
	state := map[string]any{"p": p, "n": 7, "v": player{Name: "val"}}
	if _, err := editState(state, stateEdit{path: []any{"p", "score"}, value: json.RawMessage(`3`)}); err != nil || p.Score != 3 {
		t.Fatalf(`editState(["p","score"], 3) = %v, Score %d; want nil, 3`, err, p.Score)
	}
	if _, err := editState(state, stateEdit{path: []any{"n"}, value: json.RawMessage(`8`)}); err != nil || state["n"] != 8 {
		t.Fatalf(`editState(["n"], 8) = %v, n %#v; want nil, int 8`, err, state["n"])
	}
	if _, err := editState(state, stateEdit{path: []any{"n"}, value: json.RawMessage(`8.5`)}); !errors.Is(err, ErrInvalidValue) || state["n"] != 8 {
		t.Fatalf(`editState(["n"], 8.5) = %v, n %#v; want ErrInvalidValue, int 8`, err, state["n"])
	}
	if _, err := editState(state, stateEdit{path: []any{"v", "name"}, value: json.RawMessage(`"new"`)}); err != nil || state["v"] != (player{Name: "new"}) {
		t.Fatalf(`editState(["v","name"], "new") = %v, v %#v; want nil, player new`, err, state["v"])
	}
	typed := map[string]int{"a": 1}
	got, err := editState(typed, stateEdit{path: []any{"b"}, value: json.RawMessage(`2`)})
	if err != nil || typed["b"] != 2 || !reflect.DeepEqual(got, typed) {
		t.Fatalf(`editState(map[string]int, ["b"], 2) = %v, %v; want the same map with b=2`, got, err)
	}
}

func TestArrayIndex(t *testing.T) {
	tests := []struct {
		in   any
		want int
		ok   bool
	}{
		{0, 0, true}, {3, 3, true}, {-1, 0, false}, {int64(2), 2, true}, {uint(4), 4, true},
		{2.0, 2, true}, {2.5, 0, false}, {-0.5, 0, false}, {float32(1), 1, true},
		{json.Number("7"), 7, true}, {json.Number("7.5"), 0, false}, {json.Number("-1"), 0, false},
		{"1", 0, false}, {nil, 0, false}, {1e300, 0, false},
	}
	for _, tt := range tests {
		got, ok := arrayIndex(tt.in)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("arrayIndex(%#v) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCloseReason(t *testing.T) {
	long := ""
	for range 100 {
		long += "é" // two bytes each
	}
	if got := closeReason(long); len(got) > 123 || len(got) != 122 {
		t.Errorf("closeReason(100 runes of é) has %d bytes; want 122", len(got))
	}
	if got := closeReason("short"); got != "short" {
		t.Errorf("closeReason(%q) = %q; want it unchanged", "short", got)
	}
}

func FuzzEditState(f *testing.F) {
	f.Add(`{"round":1,"players":[{"name":"a","score":1}]}`, `["players",0,"score"]`, `5`, false)
	f.Add(`{"a":[1,2,{"b":null}]}`, `["a",2,"b"]`, `{"c":[]}`, false)
	f.Add(`[1,2,3]`, `[1]`, ``, true)
	f.Add(`{"a":1}`, `[]`, `"x"`, false)
	f.Add(`{"tags":{"x":"y"}}`, `["tags","x"]`, ``, true)
	f.Fuzz(func(t *testing.T, state, path, value string, del bool) {
		var p []any
		if json.Unmarshal([]byte(path), &p) != nil {
			return
		}
		e := stateEdit{path: p}
		if !del {
			e.value = json.RawMessage(value)
		}
		var generic any
		if json.Unmarshal([]byte(state), &generic) == nil {
			got, err := editState(generic, e)
			if err == nil {
				if _, merr := json.Marshal(got); merr != nil {
					t.Fatalf("editState(%s, %s) gave a state that does not marshal: %v", state, path, merr)
				}
			} else if !errors.Is(err, rooms.ErrInvalidPath) {
				t.Fatalf("editState(%s, %s, %q) = %v; want nil or ErrInvalidPath", state, path, value, err)
			}
		}
		s := newGameState()
		if json.Unmarshal([]byte(state), s) != nil {
			return
		}
		before, _ := json.Marshal(s)
		if _, err := editState(s, e); err != nil {
			if after, _ := json.Marshal(s); string(after) != string(before) {
				t.Fatalf("editState(%s, %s) = %v but changed the struct to %s", state, path, err, after)
			}
		}
	})
}
