package rows

// Masks: a column a role reads through its mask (ColumnConfig.Mask) in
// every answer, a list's rows, a row's and an audit entry's changes.

import "strings"

// Mask shows the masked columns of rows through their masks.
func (res *Resource) Mask(rows []map[string]any) {
	if len(res.Masks) == 0 {
		return
	}
	for _, row := range rows {
		for col, m := range res.Masks {
			if v, ok := row[col]; ok {
				row[col] = maskValue(m, v)
			}
		}
	}
}

// maskPaths is a document's leaf changes (audit.PathsKey's list) with
// each value masked; the paths themselves are the document's shape.
func maskPaths(m func(any) any, paths any) any {
	list, _ := paths.([]any)
	out := make([]any, 0, len(list))
	for _, p := range list {
		pc, ok := p.(map[string]any)
		if !ok {
			continue
		}
		masked := map[string]any{"path": pc["path"]}
		for _, k := range []string{"before", "after"} {
			if v, has := pc[k]; has {
				masked[k] = maskValue(m, v)
			}
		}
		out = append(out, masked)
	}
	return out
}

// maskValue is v through m; NULL stays NULL.
func maskValue(m func(any) any, v any) any {
	if v == nil {
		return nil
	}
	return m(v)
}

// MaskEmail shows an email as its first letter and its domain:
// "alice@example.com" reads "a***@example.com". Anything else reads "***".
func MaskEmail(v any) any {
	s, ok := v.(string)
	at := strings.LastIndexByte(s, '@')
	if !ok || at < 1 {
		return "***"
	}
	return s[:1] + "***" + s[at:]
}
