package skills_test

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/lineartest"
	"github.com/gemini-ls/gemini-ls/internal/skills"
)

// A SKILL.md of 1 MiB, however made, is read in linear time: as YAML, and
// line by line where YAML refuses it.
func TestParseIsLinear(t *testing.T) {
	inFront := func(unit string) func(int) string {
		return func(size int) string { return "---\n" + lineartest.Repeat(unit)(size-16) + "\n---\nbody" }
	}
	for name, input := range map[string]func(int) string{
		"names and descriptions": inFront("name: a\ndescription: b: c\n"),
		"a continued description": func(size int) string {
			return "---\nname: a\ndescription: b: c\n" + lineartest.Repeat("  more: x\n")(size) + "---\n"
		},
		"list markers": inFront("- "),
		"blank lines":  inFront("\n"),
	} {
		lineartest.Linear(t, name, input, func(text string) { skills.Parse("SKILL.md", text) })
	}
}
