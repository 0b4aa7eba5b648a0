package audit

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"slices"
)

// An update's change of a JSON column whose document was an object (or
// an array) before and after is recorded as the leaf changes, not the two
// documents, so that a one-key change of a 400 KB inventory is a small
// entry whose revert puts that key back:
//
//	{"paths": [
//	  {"path": ["stats", "gold"], "before": 100, "after": 777},  // changed
//	  {"path": ["slots", 3], "after": "sword"},                   // added: no before
//	  {"path": ["x"], "before": 1}                                // removed: no after
//	]}
//
// A path is the object keys (strings) and array indexes (numbers) from
// the document's top. Arrays of the same length are compared element by
// element; anything else that differs (a value of another type, an
// array whose length changed) is one change at its path, before and
// after whole. Every other column stays {"before", "after"}.

// PathsKey is the key of a JSON column's change that lists its leaf
// changes.
const PathsKey = "paths"

// TruncatedKey marks a column's change that was too large to record
// even as paths: {"truncated": true, "bytes": N}, N the size of what
// could not be kept.
const TruncatedKey = "truncated"

// docChange is the change of a JSON column from bv to av (both as rows
// carry them: json.RawMessage) as paths: ok is false when they are not
// both objects, or arrays of one length (the column then records before
// and after); same is true when they are the same document (spacing and
// key order aside), which is no change at all.
func docChange(bv, av any) (change map[string]any, same, ok bool) {
	b, okb := decodeDoc(bv)
	a, oka := decodeDoc(av)
	if !okb || !oka || !asPaths(b, a) {
		return nil, false, false
	}
	paths := []any{}
	diffDoc(nil, b, a, &paths)
	if len(paths) == 0 {
		return nil, true, true
	}
	return map[string]any{PathsKey: paths}, false, true
}

// asPaths reports whether two documents are recorded as paths: both
// objects, or arrays of one length.
func asPaths(b, a any) bool {
	switch b := b.(type) {
	case map[string]any:
		_, ok := a.(map[string]any)
		return ok
	case []any:
		aa, ok := a.([]any)
		return ok && len(aa) == len(b)
	}
	return false
}

// decodeDoc is a JSON column's value (json.RawMessage) decoded with
// UseNumber; ok is false for anything else.
func decodeDoc(v any) (any, bool) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var out any
	return out, d.Decode(&out) == nil
}

// diffDoc appends to out the leaf changes from b to a under path.
func diffDoc(path []any, b, a any, out *[]any) {
	at := func(k any) []any { return append(slices.Clip(path), k) }
	switch {
	case asPaths(b, a):
		if bm, isObj := b.(map[string]any); isObj {
			am := a.(map[string]any)
			keys := slices.Sorted(maps.Keys(bm))
			for k := range am {
				if _, had := bm[k]; !had {
					keys = append(keys, k)
				}
			}
			slices.SortFunc(keys, cmp.Compare)
			for _, k := range keys {
				bv, had := bm[k]
				av, has := am[k]
				switch {
				case !had:
					*out = append(*out, map[string]any{"path": at(k), "after": av})
				case !has:
					*out = append(*out, map[string]any{"path": at(k), "before": bv})
				default:
					diffDoc(at(k), bv, av, out)
				}
			}
			return
		}
		ba, aa := b.([]any), a.([]any)
		for i := range ba {
			diffDoc(at(i), ba[i], aa[i], out)
		}
	case !sameJSON(b, a):
		*out = append(*out, map[string]any{"path": path, "before": b, "after": a})
	}
}

// sameJSON reports whether two decoded values encode alike.
func sameJSON(x, y any) bool {
	bx, errx := json.Marshal(x)
	by, erry := json.Marshal(y)
	return errx == nil && erry == nil && bytes.Equal(bx, by)
}

// capChanges shrinks p's "changes" (an update's, {column: change}) to fit
// limit bytes of the payload whole (whole, its JSON, is over it): the
// largest columns' changes give way first, each becoming
// {"truncated": true, "bytes": N}, until the payload fits or none is
// left. It reports whether it cut anything; p itself is left as it is.
func capChanges(p map[string]any, whole int, limit int) (map[string]any, bool) {
	changes, ok := p["changes"].(map[string]any)
	if !ok || len(changes) == 0 {
		return p, false
	}
	type col struct {
		name string
		size int
	}
	cols := make([]col, 0, len(changes))
	for name, ch := range changes {
		b, err := json.Marshal(ch)
		if err != nil {
			continue
		}
		cols = append(cols, col{name, len(b)})
	}
	slices.SortFunc(cols, func(a, b col) int { return cmp.Or(cmp.Compare(b.size, a.size), cmp.Compare(a.name, b.name)) })
	out := maps.Clone(p)
	cut := maps.Clone(changes)
	size := whole
	for _, c := range cols {
		if size <= limit {
			break
		}
		marker := map[string]any{TruncatedKey: true, "bytes": c.size}
		m, _ := json.Marshal(marker)
		if len(m) >= c.size {
			continue
		}
		cut[c.name] = marker
		size -= c.size - len(m)
	}
	out["changes"] = cut
	return out, true
}
