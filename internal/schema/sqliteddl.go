package schema

import (
	"slices"
	"strings"
)

// SQLite keeps no catalog of a table's check constraints or of what its
// triggers do: only the statements that made them, in sqlite_master.
// This file reads what the panel needs out of those statements.

// sqlToken is one token of an SQL statement: a bare word, a quoted
// identifier, a string literal, or one character of punctuation.
type sqlToken struct {
	kind       byte   // 'w' bare word, 'i' quoted identifier, 's' string, 'n' number, 'p' punctuation
	text       string // a word or identifier as written, unquoted; a punctuation's character
	start, end int    // the token's bytes in the statement
}

// word reports whether tok is the bare keyword kw (any case).
func (tok sqlToken) word(kw string) bool { return tok.kind == 'w' && strings.EqualFold(tok.text, kw) }

// name reports whether tok can name a column: a bare word or a quoted
// identifier.
func (tok sqlToken) name() bool { return tok.kind == 'w' || tok.kind == 'i' }

// sqlTokens splits an SQL statement into tokens, skipping blanks and
// comments. An unterminated quote or comment runs to the end.
func sqlTokens(src string) []sqlToken {
	var out []sqlToken
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && strings.HasPrefix(src[i:], "--"):
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				return out
			}
			i += j + 1
		case c == '/' && strings.HasPrefix(src[i:], "/*"):
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return out
			}
			i += j + 4
		case c == '\'' || c == '"' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			var b strings.Builder
			j := i + 1
			for j < len(src) {
				if src[j] == closer {
					if closer != ']' && j+1 < len(src) && src[j+1] == closer {
						b.WriteByte(closer) // a doubled quote stands for one
						j += 2
						continue
					}
					break
				}
				b.WriteByte(src[j])
				j++
			}
			end := min(j+1, len(src))
			kind := byte('i')
			if c == '\'' {
				kind = 's'
			}
			out = append(out, sqlToken{kind: kind, text: b.String(), start: i, end: end})
			i = end
		case isWordByte(c) && !(c >= '0' && c <= '9'):
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			out = append(out, sqlToken{kind: 'w', text: src[i:j], start: i, end: j})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && (isWordByte(src[j]) || src[j] == '.') {
				j++
			}
			out = append(out, sqlToken{kind: 'n', text: src[i:j], start: i, end: j})
			i = j
		default:
			out = append(out, sqlToken{kind: 'p', text: src[i : i+1], start: i, end: i + 1})
			i++
		}
	}
	return out
}

// isWordByte reports whether c continues a bare word: letters, digits,
// _ and $, and any byte of a multi-byte character.
func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// closing is the index of the ")" that closes the "(" at toks[open], or
// len(toks) when none does.
func closing(toks []sqlToken, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		switch {
		case toks[i].kind != 'p':
		case toks[i].text == "(":
			depth++
		case toks[i].text == ")":
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(toks)
}

// sqliteChecks reads the check constraints out of a CREATE TABLE
// statement: each CHECK's name (CONSTRAINT name CHECK …, which names the
// definition's later constraints too, as SQLite does; "" for none),
// its expression as written (SQLite's refusal quotes an unnamed check so)
// and the columns it reads, in table order. A column's own check that
// names no column reads that column.
func sqliteChecks(src string) []Check {
	toks := sqlTokens(src)
	open := slices.IndexFunc(toks, func(t sqlToken) bool { return t.kind == 'p' && t.text == "(" })
	if open < 0 {
		return nil // CREATE TABLE … AS SELECT: no constraints
	}
	end := closing(toks, open)
	// The definitions: the comma-separated parts at the first depth.
	var defs [][]sqlToken
	depth, from := 0, open+1
	for i := open + 1; i < end; i++ {
		if toks[i].kind != 'p' {
			continue
		}
		switch toks[i].text {
		case "(":
			depth++
		case ")":
			depth--
		case ",":
			if depth == 0 {
				defs = append(defs, toks[from:i])
				from = i + 1
			}
		}
	}
	defs = append(defs, toks[from:end])
	var cols []string
	owner := make([]string, len(defs)) // the column a definition defines, "" for a table constraint
	for i, d := range defs {
		if len(d) == 0 || !d[0].name() {
			continue
		}
		if d[0].kind == 'w' && slices.ContainsFunc([]string{"CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"}, func(kw string) bool { return d[0].word(kw) }) {
			continue
		}
		owner[i] = d[0].text
		if columnNamed(cols, d[0].text) == "" { // SQLite refuses a second one
			cols = append(cols, d[0].text)
		}
	}
	var out []Check
	for i, d := range defs {
		// SQLite gives a CONSTRAINT's name to every constraint after it
		// in the definition, until another name.
		name := ""
		for j := 0; j+1 < len(d); j++ {
			if d[j].word("CONSTRAINT") && d[j+1].name() {
				name = d[j+1].text
				j++
				continue
			}
			if !d[j].word("CHECK") || d[j+1].kind != 'p' || d[j+1].text != "(" {
				continue
			}
			close := closing(d, j+1)
			if close >= len(d) || close == j+2 {
				break // unterminated or empty: not a statement SQLite ran
			}
			chk := Check{Name: name, Expr: strings.TrimSpace(src[d[j+2].start:d[close-1].end])}
			read := map[string]bool{}
			for k := j + 2; k < close; k++ {
				t := d[k]
				if !t.name() || k+1 < close && d[k+1].kind == 'p' && d[k+1].text == "(" {
					continue // not a name, or a function's
				}
				if c := columnNamed(cols, t.text); c != "" {
					read[c] = true
				}
			}
			if len(read) == 0 && owner[i] != "" {
				read[owner[i]] = true
			}
			for _, c := range cols {
				if read[c] {
					chk.Columns = append(chk.Columns, c)
				}
			}
			out = append(out, chk)
			j = close
		}
	}
	return out
}

// columnNamed is the column of cols that name names (SQLite's names
// match without regard to case), or "".
func columnNamed(cols []string, name string) string {
	for _, c := range cols {
		if strings.EqualFold(c, name) {
			return c
		}
	}
	return ""
}

// sqliteTriggerRewrites reports whether a CREATE TRIGGER statement fires
// on an INSERT or UPDATE: such a trigger may change the written row (in
// SQLite a BEFORE trigger as well as an AFTER one, by statements of its
// own), after RETURNING has given it back.
func sqliteTriggerRewrites(src string) bool {
	toks := sqlTokens(src)
	i := slices.IndexFunc(toks, func(t sqlToken) bool { return t.word("TRIGGER") })
	if i < 0 {
		return false
	}
	for _, t := range toks[i+1:] {
		switch {
		case t.word("INSERT"), t.word("UPDATE"):
			return true
		case t.word("DELETE"), t.word("ON"):
			return false
		}
	}
	return false
}
