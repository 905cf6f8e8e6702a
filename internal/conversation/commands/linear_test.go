package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/lineartest"
)

// A custom command's TOML file, however made, is read in linear time. Its
// inputs are a quarter of lineartest's, the largest under maxFileSize.
func TestParseFileIsLinear(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.toml")
	after := func(head, unit, tail string) func(int) string {
		return func(size int) string {
			return head + lineartest.Repeat(unit)(size*maxFileSize/lineartest.Size-64) + tail
		}
	}
	for name, input := range map[string]func(int) string{
		"nested arrays":        after("a = ", "[", ""),
		"nested inline tables": after("a = ", "{b=", ""),
		"many keys":            after("prompt = 'p'\n", "k = 1\n", ""),
		"many tables":          after("prompt = 'p'\n", "[[t]]\n", ""),
		"dotted keys":          after("prompt = 'p'\n", "a.", "b = 1"),
		"escapes":              after(`prompt = "`, `\u0041\n`, `"`),
		"a multi-line string":  after(`prompt = """`, `""\`+"\n", `"""`),
		"comments":             after("prompt = 'p'\n", "#\n", ""),
		"the same key":         after("", "prompt = 'p'\n", ""),
	} {
		lineartest.Linear(t, name, input, func(text string) {
			if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
				t.Error(err)
			} else if _, err := parseFile(path); err != nil && strings.Contains(err.Error(), "larger than") {
				t.Errorf("%s: the file was not read: %v", name, err)
			}
		})
	}
}
