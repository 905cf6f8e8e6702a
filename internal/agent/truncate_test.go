package agent

import (
	"strings"
	"testing"

	"google.golang.org/genai"
)

// The cut keeps a fifth of the threshold from the start and the rest
// from the end, and counts in 0.61's words.
func TestTruncatedToolOutput(t *testing.T) {
	s := strings.Repeat("a", 100) + strings.Repeat("m", 10_000) + strings.Repeat("z", 100)
	got := truncatedToolOutput(s, "/tmp/f.txt", 500)
	want := "Output too large. Showing first 100 and last 400 characters. For full output see: /tmp/f.txt\n" +
		strings.Repeat("a", 100) + "\n\n... [9,700 characters omitted] ...\n\n" + strings.Repeat("m", 300) + strings.Repeat("z", 100)
	if got != want {
		t.Errorf("got\n%.200s…", got)
	}
	if short := "short"; truncatedToolOutput(short, "x", 500) != short {
		t.Error("an output within the threshold was changed")
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 18074: "18,074", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// A hostile call id or tool name cannot lead the saved file out of its
// directory.
func TestToolOutputFileName(t *testing.T) {
	for _, c := range []struct{ name, id, want string }{
		{"run_shell_command", "call_1", "run_shell_command_call_1.txt"},
		{"run_shell_command", "run_shell_command__x_1", "run_shell_command__x_1.txt"},
		{"mcp/tool", "../../etc/passwd", "mcp_tool_______etc_passwd.txt"},
	} {
		if got := toolOutputFileName(&genai.FunctionCall{Name: c.name, ID: c.id}); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.name, c.id, got, c.want)
		}
	}
}
