package spelling

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"run", "run", 0},
		{"rn", "run", 1},       // an insertion
		{"promt", "prompt", 1}, // an insertion
		{"modle", "model", 1},  // a swap
		{"mpc", "mcp", 1},      // a swap
		{"serv", "serve", 1},
		{"test", "trust", 2},
		{"hello", "help", 2},
		{"Model", "model", 1}, // case counts here
		{"ca", "abc", 3},      // the restricted distance: no edit of a swapped pair
		{"héllo", "hello", 1}, // runes, not bytes
		{"", "abc", 3},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestNearest(t *testing.T) {
	commands := []string{"serve", "run", "acp", "login", "trust", "mcp", "extensions", "skills", "version", "help"}
	for _, tc := range []struct {
		word string
		max  int
		want string
	}{
		{"rn", 1, "run"},
		{"RUN", 1, "run"},
		{"mpc", 1, "mcp"},
		{"run", 1, ""}, // a command as it is is no typo
		{"test", 1, ""},
		{"test", 2, "trust"},
		{"hello", 1, ""},
		{"fix", 1, ""},
		{"ace", 1, "acp"}, // ties go to the first given
	} {
		if got := Nearest(tc.word, commands, tc.max); got != tc.want {
			t.Errorf("Nearest(%q, %d) = %q, want %q", tc.word, tc.max, got, tc.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	flags := []string{"p", "prompt", "m", "model", "C", "o", "output-format", "approval-mode", "y", "yolo", "skip-trust", "include-directories"}
	keys := []string{"general", "model", "mcp", "mcpServers", "defaultApprovalMode", "vimMode", "preferredEditor"}
	for _, tc := range []struct {
		word       string
		candidates []string
		want       string
	}{
		{"promt", flags, "prompt"},
		{"modle", flags, "model"},
		{"Prompt", flags, "prompt"},
		{"c", flags, "C"}, // one letter: its other case only
		{"x", flags, ""},
		{"q", flags, ""},
		{"outputformat", flags, "output-format"},
		{"approval_mode", flags, "approval-mode"},
		{"skiptrust", flags, "skip-trust"},
		{"include-dirs", flags, "include-directories"}, // a misspelt start
		{"exclude-dirs", flags, ""},
		{"include-direc", flags, "include-directories"},
		{"yolo", flags, ""},
		{"banana", flags, ""},
		{"modle", keys, "model"},
		{"defaultAproval", keys, "defaultApprovalMode"},
		{"defaultApprovalMod", keys, "defaultApprovalMode"},
		{"mcpserver", keys, "mcpServers"},
		{"genral", keys, "general"},
		{"vim", keys, ""}, // the start of vimMode, but too short to say so
		{"telemetry", keys, ""},
	} {
		if got := Suggest(tc.word, tc.candidates); got != tc.want {
			t.Errorf("Suggest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}
