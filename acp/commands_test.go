package acp

import (
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/conversation/commands"
)

// A prompt is a command when it starts with "/" and a command's name;
// anything else goes to the model.
func TestParseCommand(t *testing.T) {
	for _, c := range []struct {
		text, name, args string
	}{
		{"/memory", "memory", ""},
		{"  /memory refresh  ", "memory", "refresh"},
		{"/memory\nshow", "memory", "show"},
		{"/tools", "tools", ""},
		{"/init please", "init", "please"},
		{"/xyz do it", "", ""},
		{"/", "", ""},
		{"/usr/bin/env is what?", "", ""},
		{"memory", "", ""},
		{"say /memory", "", ""},
		{"/Memory", "", ""},
	} {
		inv, ok := commands.Parse(c.text)
		ok = ok && slices.ContainsFunc(builtins, func(b builtin) bool { return b.Name == inv.Name })
		name, args := inv.Name, inv.Args
		if !ok {
			name, args = "", ""
		}
		if ok != (c.name != "") || name != c.name || args != c.args {
			t.Errorf("%q names %q, %q, %v; want %q, %q", c.text, name, args, ok, c.name, c.args)
		}
	}
}

// Every command is declared once, with a description, and takes input
// only when it says what.
func TestCommandsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range builtins {
		if seen[c.Name] || c.Name == "" || strings.ContainsAny(c.Name, " /") || c.Description == "" || c.run == nil || c.Source != commands.BuiltIn {
			t.Errorf("command %+v", c)
		}
		seen[c.Name] = true
	}
	for _, name := range []string{"memory", "tools", "mcp", "stats", "compress", "init"} {
		if !seen[name] {
			t.Errorf("no /%s", name)
		}
	}
}

func TestFirstSentence(t *testing.T) {
	for in, want := range map[string]string{
		"Reads a file. Then more.":   "Reads a file.",
		"One line\nand another. Yes": "One line",
		"  No period  ":              "No period",
		"Version 1.2 is here. Next.": "Version 1.2 is here.",
	} {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}
