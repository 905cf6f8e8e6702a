package conversation

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/conversation/commands"
)

// A prompt is a shell command when it starts with "!" and names one.
func TestShellPrompt(t *testing.T) {
	for _, c := range []struct {
		text, command string
	}{
		{"!ls", "ls"},
		{"  ! git status \n", "git status"},
		{"!", ""},
		{"!   ", ""},
		{"ls !", ""},
		{"/memory", ""},
	} {
		command, ok := shellPrompt(c.text)
		if ok != (c.command != "") || command != c.command {
			t.Errorf("%q runs %q, %v; want %q", c.text, command, ok, c.command)
		}
	}
}

// The model is told a command's result in 0.61's words: how it ended
// when not well, its output or that there was none, backslashes and
// backticks escaped, cut at 10000 characters.
func TestShellModeHistory(t *testing.T) {
	for _, c := range []struct {
		r    commands.ShellResult
		want string
	}{
		{commands.ShellResult{Output: "hi\n"}, "hi"},
		{commands.ShellResult{}, "(Command produced no output)"},
		{commands.ShellResult{Output: "no such file\n", ExitCode: 2}, "Command exited with code 2.\nno such file"},
		{commands.ShellResult{Signal: "SIGKILL"}, "Command terminated by signal: SIGKILL.\n(Command produced no output)"},
		{commands.ShellResult{Output: "partial", Aborted: true}, "Command was cancelled.\npartial"},
	} {
		if got := shellModeResult(c.r); got != c.want {
			t.Errorf("%+v is told as %q, want %q", c.r, got, c.want)
		}
	}
	got := shellModeHistory("echo `a` \\", "x`y\\z").Parts[0].Text
	want := "I ran the following shell command:\n```sh\necho \\`a\\` \\\\\n```\n\nThis produced the following result:\n```\nx\\`y\\\\z\n```"
	if got != want {
		t.Errorf("history text %q, want %q", got, want)
	}
	long := strings.Repeat("é", 10001)
	got = shellModeHistory("yes", long).Parts[0].Text
	if !strings.Contains(got, strings.Repeat("é", 10000)+"\n... (truncated)\n```") || strings.Contains(got, strings.Repeat("é", 10001)) {
		t.Errorf("a result of 10001 characters is not cut to 10000: %d bytes", len(got))
	}
}
