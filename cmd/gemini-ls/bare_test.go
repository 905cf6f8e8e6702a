package main

import (
	"io"
	"strings"
	"testing"
)

// A bare gemini-ls whose stdin starts with an LSP header serves LSP.
func TestBarePeeksForAnLSPClient(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"Content-Length: 10\r\n\r\n", true},
		{"content-type: x\r\n", true},
		{"Content", false},
		{"explain this", false},
		{"", false},
	} {
		r, isLSP := peekLSP(strings.NewReader(tc.in))
		all, _ := io.ReadAll(r)
		if isLSP != tc.want || string(all) != tc.in {
			t.Errorf("%q: LSP %v, read %q", tc.in, isLSP, all)
		}
	} // serve's flags keep a bare gemini-ls a server; --stdio (VS Code's)
	// makes it one whatever stdin holds; any other flag is a headless run.
	for _, tc := range []struct {
		args          []string
		serves, stdio bool
	}{
		{nil, true, false},
		{[]string{"--stdio"}, true, true},
		{[]string{"-stdio=true", "--log-level", "debug"}, true, true},
		{[]string{"--log-file", "x.log"}, true, false},
		{[]string{"-p", "hi"}, false, false},
		{[]string{"--log-file", "x.log", "word"}, false, false},
	} {
		if serves, stdio := servesFlags(tc.args); serves != tc.serves || stdio != tc.stdio {
			t.Errorf("%q: serves %v, stdio %v; want %v, %v", tc.args, serves, stdio, tc.serves, tc.stdio)
		}
	}
}

// A first word that names no command is the prompt, as in Gemini CLI
// 0.61, unless it cannot be: beside -p, alone, or before a command of
// the group it is near; then it is a typo, said with the command meant.
func TestMistypedCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rn", "-p", "hi"}, "run"},
		{[]string{"rn", "--prompt=hi"}, "run"},
		{[]string{"rn"}, "run"},
		{[]string{"rn", "-m", "flash", "-y"}, "run"},
		{[]string{"serv", "--stdio"}, "serve"},
		{[]string{"verison"}, "version"},
		{[]string{"mpc", "list"}, "mcp"},
		{[]string{"extension", "install", "./x"}, "extensions"},
		// Prompts, as 0.61 takes them.
		{[]string{"fix", "the", "bug"}, ""},
		{[]string{"rum", "the", "tests"}, ""},
		{[]string{"mpc", "is", "down"}, ""},
		{[]string{"test"}, ""},
		{[]string{"hello"}, ""},
		{[]string{"fix", "-p", "the bug"}, ""},
		{[]string{"rn", "--", "-p"}, ""}, // a word after --, not the flag
	} {
		if got := mistypedCommand(tc.args); got != tc.want {
			t.Errorf("mistypedCommand(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
	// As the user sees it: one line, no request.
	code, stdout, stderr := runMain(t, "rn", "-p", "hi")
	if want := "gemini-ls: unknown command \"rn\" (did you mean \"run\"?); run 'gemini-ls --help' for the commands\n"; code != exitError || stdout != "" || stderr != want {
		t.Errorf("rn -p hi: exit %d, stdout %q, stderr %q; want %d and %q", code, stdout, stderr, exitError, want)
	}
	code, _, stderr = runMain(t, "fix", "-p", "the bug")
	if code != exitError || !strings.Contains(stderr, "Cannot use both a positional prompt and the --prompt (-p) flag together") {
		t.Errorf("fix -p: exit %d, stderr %q; want 0.61's words", code, stderr)
	}
}
