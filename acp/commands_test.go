package acp

import (
	"strings"
	"testing"
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
		cmd, args, ok := parseCommand(c.text)
		if ok != (c.name != "") || cmd.name != c.name || args != c.args {
			t.Errorf("parseCommand(%q) = %q, %q, %v; want %q, %q", c.text, cmd.name, args, ok, c.name, c.args)
		}
	}
}

// Every command is declared once, with a description, and takes input
// only when it says what.
func TestCommandsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands {
		if seen[c.name] || c.name == "" || strings.ContainsAny(c.name, " /") || c.description == "" || c.run == nil {
			t.Errorf("command %+v", c)
		}
		seen[c.name] = true
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
