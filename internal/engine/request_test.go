package engine

import "testing"

func TestDuplicateKey(t *testing.T) {
	for _, c := range []struct {
		body string
		key  string
		dup  bool
	}{
		{`{"a":1,"b":2}`, "", false},
		{`{"a":1,"a":2}`, "a", true},
		{`{"a":1,"\u0061":2}`, "a", true},                  // one key, spelled twice
		{`{"a\"b":1,"a\"b":2}`, `a"b`, true},               // an escaped quote inside the key
		{`{"a":{"a":1},"b":[{"a":1},{"a":2}]}`, "", false}, // the same key in other objects
		{`{"a":"a","b":"a"}`, "", false},                   // values are not keys
		{`{"a":"{\"b\":1,\"b\":2}","c":1}`, "", false},     // braces inside a string
		{`{"a":[1,"a",{"x":1}],"x":2,"a2":{"y":1,"y":2}}`, "y", true},
		{`[{"a":1},{"a":1}]`, "", false},
		{`[{"a":1,"a":1}]`, "a", true},
		{`{"k":"\\","k":1}`, "k", true}, // a string ending in an escaped backslash
		{`"a"`, "", false},
		{`{"é":1,"\u00e9":2}`, "é", true},
		{`{}  }`, "", false}, // not one value: no answer, and no panic
		{`{"a":1}],`, "", false},
	} {
		key, dup := duplicateKey([]byte(c.body))
		if key != c.key || dup != c.dup {
			t.Errorf("duplicateKey(%s) = %q, %v; want %q, %v", c.body, key, dup, c.key, c.dup)
		}
	}
}
