package userdata

import (
	"regexp"
	"testing"

	"github.com/gameadmin/admin/internal/schema"
)

// TestErasedPattern: ErasedPattern, which the UI reads, matches the
// email and the text an erase writes, and not a person's.
func TestErasedPattern(t *testing.T) {
	re := regexp.MustCompile(ErasedPattern)
	text := &schema.Column{Name: "display_name", DataType: schema.String, NotNull: true}
	for _, id := range []string{"42", "76561198000000002", "0b6f3c1e-9a4d-4c1b-8f2e-2f7a9b1c5d3e"} {
		for _, v := range []string{"erased-" + safeFileName(id) + "@erased.invalid", erasedUserValue(text, id).(string)} {
			if !re.MatchString(v) {
				t.Errorf("ErasedPattern does not match %q", v)
			}
		}
	}
	for _, v := range []string{"player@example.com", "erased-1@example.com", "Erik"} {
		if re.MatchString(v) {
			t.Errorf("ErasedPattern matches %q", v)
		}
	}
}
