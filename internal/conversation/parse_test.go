package conversation

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/conversation/builtin"
	"github.com/gemini-ls/gemini-ls/internal/conversation/commands"
)

// A prompt is a command when it starts with "/" and a command's name;
// anything else goes to the model (Run dispatches by this rule).
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
		if ok {
			_, ok = builtin.Find(inv.Name)
		}
		name, args := inv.Name, inv.Args
		if !ok {
			name, args = "", ""
		}
		if ok != (c.name != "") || name != c.name || args != c.args {
			t.Errorf("%q names %q, %q, %v; want %q, %q", c.text, name, args, ok, c.name, c.args)
		}
	}
}
