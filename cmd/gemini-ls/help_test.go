package main

import (
	"context"
	"strings"
	"testing"
)

// flagsOf is every flag each command takes, as its help must show it.
var flagsOf = map[string][]string{
	"serve": {"-log-file PATH", "-log-level LEVEL", "-stdio"},
	"acp":   {"-log-file PATH", "-log-level LEVEL"},
	"run":   {"-p PROMPT", "-prompt PROMPT", "-C DIR", "-model MODEL", "-approval-mode", "-include-directories DIRS", "-output-format", "-log-file PATH", "-log-level LEVEL"},
}

func runMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	// An empty stdin: a dispatch to serve by mistake ends at once.
	code = run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// wantCommandHelp fails t unless help shows name's usage line and every
// one of its flags.
func wantCommandHelp(t *testing.T, help, name string) {
	t.Helper()
	c, ok := lookup(name)
	if !ok || !strings.Contains(help, "gemini-ls "+c.synopsis+"\n") {
		t.Errorf("help lacks the usage line of %s:\n%s", name, help)
	}
	for _, f := range flagsOf[name] {
		if !strings.Contains(help, "  "+f) {
			t.Errorf("help lacks %s's flag %s:\n%s", name, f, help)
		}
	}
}

func TestHelpShowsEveryCommand(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"-help"}, {"--log-level", "debug", "--help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := runMain(t, args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
			}
			for _, name := range []string{"serve", "acp", "run", "version", "help"} {
				wantCommandHelp(t, stdout, name)
			}
			if !strings.Contains(stdout, "GEMINI_API_KEY") {
				t.Errorf("help does not say how to authenticate:\n%s", stdout)
			}
		})
	}
}

func TestCommandHelp(t *testing.T) {
	for _, name := range []string{"serve", "acp", "run", "version"} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runMain(t, name, "--help")
			if code != 0 || stdout != "" {
				t.Fatalf("exit %d, stdout %q; want 0 and the help on stderr", code, stdout)
			}
			wantCommandHelp(t, stderr, name)
			if foreign := map[string]string{"serve": "-approval-mode", "acp": "-stdio", "run": "-stdio", "version": "-log-file"}[name]; strings.Contains(stderr, foreign) {
				t.Errorf("%s's help shows another command's flag %s:\n%s", name, foreign, stderr)
			}
			// help NAME shows the same on stdout.
			code, stdout, _ = runMain(t, "help", name)
			if code != 0 || stdout != stderr {
				t.Errorf("help %s: exit %d, stdout\n%s\nwant 0 and\n%s", name, code, stdout, stderr)
			}
		})
	}
}

func TestHelpErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"serv"}, 1, `unknown command "serv" (did you mean "serve"?)`},
		{[]string{"hooks", "migrate"}, 1, "hooks does not apply"},
		{[]string{"help", "bogus"}, 2, `unknown command "bogus"`},
		{[]string{"help", "run", "serve"}, 2, "unexpected arguments"},
		{[]string{"version", "extra"}, 2, "unexpected arguments"},
		{[]string{"run", "--bogus"}, 1, "flag provided but not defined: -bogus"},
		{[]string{"run", "-i", "hi"}, 1, "--prompt-interactive does not apply: gemini-ls has no interactive terminal UI"},
		{[]string{"-s", "-p", "hi"}, 1, "--sandbox does not apply"},
		{[]string{"-w", "x", "-p", "hi"}, 1, "--worktree does not apply"},
		{[]string{"--screen-reader", "-p", "hi"}, 1, "--screen-reader does not apply"},
		{[]string{"--session-file=s.json", "-p", "hi"}, 1, "--session-file does not apply"},
		{[]string{"run", "--experimental-acp"}, 1, "ACP is its own command here"},
	} {
		code, stdout, stderr := runMain(t, tc.args...)
		if code != tc.code || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, code, stdout, stderr, tc.code, tc.want)
		}
	}
}

// A mistake gets one line and where to look, never the whole usage.
func TestMistakesGetOneLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"serv"}, 1, `gemini-ls: unknown command "serv" (did you mean "serve"?); run 'gemini-ls --help' for the commands`},
		{[]string{"run", "--bogus"}, 1, "flag provided but not defined: -bogus\ngemini-ls run: run 'gemini-ls run --help' for its flags"},
		{[]string{"--bogus"}, 1, "flag provided but not defined: -bogus\ngemini-ls run: run 'gemini-ls run --help' for its flags"},
		{[]string{"serve", "--bogus"}, 2, "flag provided but not defined: -bogus\ngemini-ls serve: run 'gemini-ls serve --help' for its flags"},
		{[]string{"version", "extra"}, 2, `gemini-ls version: unexpected arguments ["extra"]; run 'gemini-ls version --help' for its flags`},
	} {
		code, stdout, stderr := runMain(t, tc.args...)
		if code != tc.code || stdout != "" || strings.TrimSpace(stderr) != tc.want {
			t.Errorf("%q: exit %d, stdout %q, stderr\n%s\nwant %d and\n%s", tc.args, code, stdout, stderr, tc.code, tc.want)
		}
	}
}

func TestVersionFlags(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-v"}, {"version"}, {"--log-level", "debug", "--version"}} {
		code, stdout, stderr := runMain(t, args...)
		if code != 0 || stdout != "gemini-ls "+version+"\n" || stderr != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// mcp and skills given no subcommand say so in yargs' words, with the
// group's usage, status 1; asked for help, the usage, status 0.
func TestCommandGroupsWithoutASubcommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"mcp"}, 1, "You need at least one command before continuing."},
		{[]string{"skills"}, 1, "Not enough non-option arguments: got 0, need at least 1"},
		{[]string{"mcp", "--help"}, 0, "add"},
		{[]string{"skills", "-h"}, 0, "install"},
	} {
		code, stdout, stderr := runMain(t, tc.args...)
		if code != tc.code || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, code, stdout, stderr, tc.code, tc.want)
		}
	}
}
