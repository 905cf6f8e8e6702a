package main

import (
	"context"
	"flag"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/manage"
)

// flagsOf is some of the flags each command takes, as its help shows
// them.
var flagsOf = map[string][]string{
	"serve": {"    --log-file ", "    --log-level ", "    --stdio "},
	"acp":   {"    --log-file ", "    --log-level "},
	"run":   {"-p, --prompt ", "-C ", "-m, --model ", "    --approval-mode ", "    --include-directories ", "-o, --output-format ", "    --log-file ", "    --log-level "},
	"login": {"    --no-browser "},
	"trust": {"    --parent "},
}

func runMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	// An empty stdin: a dispatch to serve by mistake ends at once.
	code = run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// wantCommandHelp fails t unless help is name's: its usage line, what it
// does, and its flags, then -h.
func wantCommandHelp(t *testing.T, help, name string) {
	t.Helper()
	c, ok := lookup(name)
	if !ok || !strings.HasPrefix(help, "Usage: gemini-ls "+name) || !strings.Contains(help, "\n\n"+c.Summary+"\n\nOptions:\n") {
		t.Errorf("help lacks the usage line or summary of %s:\n%s", name, help)
	}
	for _, f := range append(flagsOf[name], "-h, --help ") {
		if !strings.Contains(help, "\n  "+f) {
			t.Errorf("help lacks %s's flag %q:\n%s", name, f, help)
		}
	}
}

func TestHelpShowsEveryCommand(t *testing.T) {
	_, want, _ := runMain(t, "help")
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"-help"}, {"--log-level", "debug", "--help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := runMain(t, args...)
			if code != 0 || stderr != "" || stdout != want {
				t.Fatalf("exit %d, stderr %q, stdout\n%s\nwant 0, nothing and\n%s", code, stderr, stdout, want)
			}
			if !strings.HasPrefix(stdout, "Usage: gemini-ls [options] [command]\n") {
				t.Errorf("help does not start with its usage line:\n%s", stdout)
			}
			for _, c := range commands() {
				if !strings.Contains(stdout, "\n  gemini-ls "+c.Name+" ") {
					t.Errorf("help lacks the command %s:\n%s", c.Name, stdout)
				}
			}
			if !strings.Contains(stdout, "  gemini-ls serve ") || !strings.Contains(stdout, "what editors run.  [default]\n") {
				t.Errorf("help does not say serve is the default:\n%s", stdout)
			}
			if !strings.Contains(stdout, "GEMINI_API_KEY") {
				t.Errorf("help does not say how to authenticate:\n%s", stdout)
			}
		})
	}
}

// helpOptions is the flags of each line of help's Options section, by
// line, without dashes; t fails on a name not dashed as yargs dashes it
// (one for a letter, two for a word).
func helpOptions(t *testing.T, help string) map[string][]string {
	t.Helper()
	_, section, ok := strings.Cut(help, "\nOptions:\n")
	if !ok {
		t.Fatalf("help has no Options:\n%s", help)
	}
	section, _, _ = strings.Cut(section, "\n\n")
	lines := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSuffix(section, "\n"), "\n") {
		flags, _, _ := strings.Cut(strings.TrimSpace(line), "  ")
		for _, f := range strings.Split(flags, ", ") {
			name := strings.TrimPrefix(strings.TrimPrefix(f, "-"), "-")
			want := "--" + name
			if len(name) == 1 {
				want = "-" + name
			}
			if f != want {
				t.Errorf("help shows %s as %q, want %q:\n%s", name, f, want, line)
			}
			lines[line] = append(lines[line], name)
		}
	}
	return lines
}

// wantEachFlagOnce fails t unless help's Options show each flag fs parses
// once, on one line with all its names (those sharing its Value), but the
// hidden ones, and nothing fs does not parse but -h and the extras.
func wantEachFlagOnce(t *testing.T, help string, extras []string, sets ...*flag.FlagSet) {
	t.Helper()
	lineOf := map[string]string{}
	for line, names := range helpOptions(t, help) {
		for _, n := range names {
			if prev, ok := lineOf[n]; ok {
				t.Errorf("help shows %s twice:\n%s\n%s", n, prev, line)
			}
			lineOf[n] = line
		}
	}
	known := map[string]bool{"h": true, "help": true}
	for _, n := range extras {
		known[n] = true
	}
	for _, fs := range sets {
		fs.VisitAll(func(fl *flag.Flag) {
			known[fl.Name] = true
			line, shown := lineOf[fl.Name]
			if _, hidden := fl.Value.(hiddenFlag); hidden {
				if shown {
					t.Errorf("help shows the hidden flag %s:\n%s", fl.Name, line)
				}
				return
			}
			if !shown {
				t.Errorf("help lacks the flag %s, neither shown nor hidden:\n%s", fl.Name, help)
				return
			}
			fs.VisitAll(func(alias *flag.Flag) {
				if alias.Value == fl.Value && lineOf[alias.Name] != line {
					t.Errorf("help shows %s's alias %s on another line:\n%s\n%s", fl.Name, alias.Name, line, lineOf[alias.Name])
				}
			})
		})
	}
	for n, line := range lineOf {
		if !known[n] {
			t.Errorf("help shows %s, which is not parsed:\n%s", n, line)
		}
	}
}

// runFlagSet is the flags a headless run parses, as runHeadless declares
// them.
func runFlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var f runFlags
	f.register(fs)
	return fs
}

// The bare gemini-ls's help shows every flag it takes without a command
// (a headless run's and serve's) once, with its aliases, but those it
// takes only to refuse; so does run's help. A flag added to either set
// shows, or is marked hidden.
func TestHelpListsEachFlagOnce(t *testing.T) {
	_, top, _ := runMain(t, "--help")
	wantEachFlagOnce(t, top, []string{"v", "version"}, runFlagSet(), serveWithLogFlags())
	_, _, runHelp := runMain(t, "run", "--help")
	wantEachFlagOnce(t, runHelp, nil, runFlagSet())
	// Types, choices and defaults as 0.61 shows them.
	lineOf := map[string]string{}
	for line, names := range helpOptions(t, top) {
		lineOf[names[0]] = line
	}
	for _, tc := range []struct{ name, start, end string }{
		{"d", "  -d, --debug  ", "  [boolean]"},
		{"approval-mode", "      --approval-mode  ", `  [string] [choices: "default", "auto_edit", "yolo", "plan"]`},
		// No default, as 0.61's: output.format is the default.
		{"o", "  -o, --output-format  ", `  [string] [choices: "text", "json", "stream-json"]`},
		{"include-directories", "      --include-directories  ", "  [array]"},
		{"C", "  -C  ", `  [string] [default: "."]`},
		{"stdio", "      --stdio  ", "  [boolean] [default: true]"},
		{"v", "  -v, --version  ", "Show version number  [boolean]"},
		{"h", "  -h, --help  ", "Show help  [boolean]"},
	} {
		if line := lineOf[tc.name]; !strings.HasPrefix(line, tc.start) || !strings.HasSuffix(line, tc.end) {
			t.Errorf("%s's line is %q, want %q ... %q", tc.name, line, tc.start, tc.end)
		}
	}
	// 0.61's is 45 lines; gemini-ls's was 160, an alias a flag of its own.
	if n := strings.Count(top, "\n"); n > 60 {
		t.Errorf("help is %d lines:\n%s", n, top)
	}
}

// The flags gemini-ls takes only to refuse, hidden from help, still say
// why when given, each by each of its names.
func TestHiddenFlagsStillRefuse(t *testing.T) {
	hidden := 0
	runFlagSet().VisitAll(func(fl *flag.Flag) {
		if _, ok := fl.Value.(*interactiveFlag); ok {
			// Given a prompt, as 0.61's; stdin here is no terminal.
			hidden++
			code, stdout, stderr := runMain(t, "run", "--"+fl.Name, "hi")
			if code != exitInput || stdout != "" || !strings.Contains(stderr, "--prompt-interactive flag cannot be used when input is piped") {
				t.Errorf("--%s: exit %d, stdout %q, stderr %q; want %d and 0.61's error", fl.Name, code, stdout, stderr, exitInput)
			}
			return
		}
		n, ok := fl.Value.(*notHereFlag)
		if !ok {
			if _, ok := fl.Value.(hiddenFlag); ok {
				t.Errorf("%s is hidden but not refused", fl.Name)
			}
			return
		}
		hidden++
		code, stdout, stderr := runMain(t, "run", "--"+fl.Name, "-p", "hi")
		want := "does not apply: " + n.why
		if code != exitError || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
			t.Errorf("--%s: exit %d, stdout %q, stderr %q; want %d and one line with %q", fl.Name, code, stdout, stderr, exitError, want)
		}
	})
	if hidden < 6 {
		t.Errorf("%d hidden flag names, want at least the 6 of -i, --screen-reader, --session-file, --acp and --experimental-acp", hidden)
	}
}

func TestCommandHelp(t *testing.T) {
	for _, name := range []string{"serve", "acp", "run", "login", "trust", "version", "help"} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runMain(t, name, "--help")
			if code != 0 || stdout != "" {
				t.Fatalf("exit %d, stdout %q; want 0 and the help on stderr", code, stdout)
			}
			wantCommandHelp(t, stderr, name)
			if foreign := map[string]string{"serve": "--approval-mode", "acp": "--stdio", "run": "--stdio", "version": "--log-file"}[name]; foreign != "" && strings.Contains(stderr, foreign) {
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
		{[]string{"help", "bogus"}, 2, `unknown command "bogus"; run 'gemini-ls --help' for the commands`},
		{[]string{"help", "rn"}, 2, `gemini-ls help: unknown command "rn" (did you mean "run"?)`},
		{[]string{"help", "run", "serve"}, 2, "unexpected arguments"},
		{[]string{"version", "extra"}, 2, "unexpected arguments"},
		{[]string{"run", "--bogus"}, 1, "Unknown argument: bogus"},
		// stdin is no terminal: 0.61's error, FatalInputError.
		{[]string{"run", "-i", "hi"}, 42, "Error: The --prompt-interactive flag cannot be used when input is piped from stdin."},
		{[]string{"--prompt-interactive", "say '2'.", "say '3'."}, 42, "Error: The --prompt-interactive flag cannot be used when input is piped from stdin."},
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
		{[]string{"run", "--bogus"}, 1, "Unknown argument: bogus\ngemini-ls run: run 'gemini-ls run --help' for its flags"},
		{[]string{"--bogus"}, 1, "Unknown argument: bogus\ngemini-ls run: run 'gemini-ls run --help' for its flags"},
		{[]string{"serve", "--bogus"}, 2, "Unknown argument: bogus\ngemini-ls serve: run 'gemini-ls serve --help' for its flags"},
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
		if want := versionLine(version, commit, readBuildInfo()) + "\n"; code != 0 || stdout != want || !strings.HasPrefix(stdout, "gemini-ls "+version+" ") || stderr != "" {
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

// mcp, skills and extensions list their commands as 0.61's do, and each
// command's help its options, each once with its aliases.
func TestGroupHelp(t *testing.T) {
	for _, g := range manage.Commands(version) {
		group, subs := g.Name, g.Subcommands
		if len(subs) == 0 {
			t.Errorf("%s lists no commands", group)
		}
		code, stdout, stderr := runMain(t, group, "--help")
		if code != 0 || stdout != "" || !strings.HasPrefix(stderr, "Usage: gemini-ls "+group+" <command>\n") {
			t.Errorf("%s --help: exit %d, stdout %q, stderr\n%s", group, code, stdout, stderr)
		}
		helpOptions(t, stderr)
		if _, again, _ := runMain(t, "help", group); again != stderr {
			t.Errorf("help %s:\n%s\nwant\n%s", group, again, stderr)
		}
		for _, c := range subs {
			if !strings.Contains(stderr, "\n  "+strings.TrimSpace("gemini-ls "+group+" "+c.Name+" "+c.Args)+"  ") {
				t.Errorf("%s --help lacks %s:\n%s", group, c.Name, stderr)
			}
			code, stdout, sub := runMain(t, group, c.Name, "--help")
			if code != 0 || stdout != "" || !strings.HasPrefix(sub, "Usage: gemini-ls "+group+" "+c.Name) || !strings.Contains(sub, "\n  -h, --help  ") {
				t.Errorf("%s %s --help: exit %d, stdout %q, stderr\n%s", group, c.Name, code, stdout, sub)
			}
			helpOptions(t, sub)
		}
	}
	for _, tc := range []struct {
		args []string
		line string
	}{
		{[]string{"mcp", "add", "-h"}, `  -t, --transport, --type  Transport type  [string] [choices: "stdio", "sse", "http"] [default: "stdio"]`},
		{[]string{"mcp", "remove", "-h"}, `  -s, --scope  `},
		{[]string{"skills", "install", "-h"}, `      --path     `},
		{[]string{"extensions", "list", "-h"}, `  -o, --output-format  The format of the list  [string] [choices: "text", "json"] [default: "text"]`},
	} {
		if _, _, help := runMain(t, tc.args...); !strings.Contains(help, "\n"+tc.line) {
			t.Errorf("%q lacks %q:\n%s", tc.args, tc.line, help)
		}
	}
}

// At a terminal, -i says why gemini-ls has no interactive session.
func TestInteractiveAtATerminal(t *testing.T) {
	var stderr strings.Builder
	if code := interactive(false, &stderr); code != exitError || !strings.Contains(stderr.String(), "--prompt-interactive does not apply: gemini-ls has no interactive terminal UI") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}
