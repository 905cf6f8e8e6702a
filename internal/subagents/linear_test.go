package subagents

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/lineartest"
)

// An agent's file of 1 MiB, however made, is read in linear time: its
// front matter's YAML, and the problems of each item of a list of
// remote agents.
func TestParseMarkdownIsLinear(t *testing.T) {
	inFront := func(unit string) func(int) string {
		return func(size int) string { return "---\n" + lineartest.Repeat(unit)(size-16) + "\n---\nbody" }
	}
	for name, input := range map[string]func(int) string{
		"a list of bad agents":        inFront("- x\n"),
		"a list of bad remote agents": inFront("- kind: remote\n"),
		"many keys":                   inFront("k: v\n"),
		"list markers":                inFront("- "),
		"a long body":                 func(size int) string { return "---\nname: a\ndescription: d\n---\n" + lineartest.Repeat("---\n")(size) },
		"front matter never closed":   lineartest.Repeat("---\n-"),
		"a description of many lines": inFront("description: |\n" + strings.Repeat("  x\n", 4)),
	} {
		lineartest.Linear(t, name, input, func(text string) { parseMarkdown("agent.md", text) })
	}
}
