package policy_test

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/policy"
)

// gitStatusRule is what the user's "always allow" of git status saves.
const gitStatusRule = `
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git status"]
decision = "allow"
priority = 950
modes = ["default", "autoEdit", "yolo"]
`

// An allow rule's commandPrefix covers exactly the commands it names
// (issue 64): every part of the line is a command a rule must allow,
// assignments and declarations included, an environment assignment
// before the named command makes it another command, and what the rules
// are not shown (${x@P}, eval, arithmetic on variables, a function, a
// here-document's expansions, a coprocess ...) asks, with the reason.
func TestAllowRuleCoversExactlyItsCommands(t *testing.T) {
	e := load(t, policy.TierUser, false, map[string]string{"auto-saved.toml": gitStatusRule})
	noProblems(t, e)
	for _, tc := range []struct {
		command   string
		want      policy.Decision
		undecided []string
		why       string
	}{
		// What the rule names still runs.
		{"git status", policy.Allow, nil, ""},
		{"git status --short", policy.Allow, nil, ""},
		{"git status && git status", policy.Allow, nil, ""},
		{"git status \"$HOME\" ${#HOME} $((1+2)) ${HOME:0:2}", policy.Allow, nil, ""},
		// An assignment or declaration between allowed commands is a
		// command no rule allowed.
		{"git status && PATH=/tmp/evil && git status", policy.Allow, []string{"PATH=/tmp/evil"}, ""},
		{"git status && GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch pwned'; git status",
			policy.Allow, []string{"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch pwned'"}, ""},
		{"git status && export GIT_CONFIG_COUNT=1 && git status", policy.Allow, []string{"export GIT_CONFIG_COUNT=1"}, ""},
		{"git status && declare -x GIT_CONFIG_COUNT=1 && git status", policy.Allow, []string{"declare -x GIT_CONFIG_COUNT=1"}, ""},
		{"git status && typeset X=1 && readonly Y=2 && git status", policy.Allow, []string{"typeset X=1", "readonly Y=2"}, ""},
		{"git status && [[ -e x ]] && git status", policy.Allow, []string{"[[ -e x ]]"}, ""},
		{"git status && (( 1 + 1 )) && git status", policy.Allow, []string{"(( 1 + 1 ))"}, ""},
		{"git status && x=$(touch pwned) && git status", policy.Allow, []string{"x=$(touch pwned)", "touch pwned"}, ""},
		// An environment assignment before the named command makes it
		// another command, which the rule does not name.
		{"PATH=/tmp/evil git status", "", nil, ""},
		{"git status && GIT_DIR=/tmp/x git status", policy.Allow, []string{"GIT_DIR=/tmp/x git status"}, ""},
		{"git status && LD_PRELOAD=/tmp/x.so git status", policy.Allow, []string{"LD_PRELOAD=/tmp/x.so git status"}, ""},
		// BASH_ENV names code every bash the line starts runs (issue 95).
		{"git status && BASH_ENV=/tmp/x git status", policy.AskUser, nil, "it sets BASH_ENV, which bash runs as code"},
		{"git status && LANG=C git status", policy.Allow, []string{"LANG=C git status"}, ""},
		// What the parser does not model asks, saying why.
		{"git status ${x@P}", policy.AskUser, nil, "${…@…} transformation"},
		{"git status && x='$(touch pwned)' && git status ${x@P}", policy.AskUser, nil, "${…@…} transformation"},
		{"git status ${!x}", policy.AskUser, nil, "indirect expansion"},
		{"git status ${x:=1}", policy.AskUser, nil, "assigns a variable inside an expansion"},
		{"git status $((x))", policy.AskUser, nil, "arithmetic on variables"},
		{"git status ${a[i]}", policy.AskUser, nil, "computed subscript"},
		{"git status ${HOME:x}", policy.AskUser, nil, "computed slice"},
		{"git status && (( x )) && git status", policy.AskUser, nil, "arithmetic on variables"},
		{"git status && let x=1 && git status", policy.AskUser, nil, "arithmetic on variables"},
		{"git status && [[ $x -eq 1 ]] && git status", policy.AskUser, nil, "arithmetic"},
		{"git status && [[ -v x ]] && git status", policy.AskUser, nil, "variable name"},
		{"git status && a[i]=1 && git status", policy.AskUser, nil, "computed subscript"},
		{"git status && declare -i x=1 && git status", policy.AskUser, nil, "arithmetic or names references"},
		{"git status && declare -n x=y && git status", policy.AskUser, nil, "arithmetic or names references"},
		{"git status && declare $x && git status", policy.AskUser, nil, "may expand to an assignment"},
		{"git status && eval \"$x\" && git status", policy.AskUser, nil, "eval runs shell code"},
		{"git status && source ./x && git status", policy.AskUser, nil, "source runs shell code"},
		{"git status && . ./x && git status", policy.AskUser, nil, ". runs shell code"},
		{"git status && builtin eval x && git status", policy.AskUser, nil, "eval runs shell code"},
		{"git status && command -p eval x && git status", policy.AskUser, nil, "eval runs shell code"},
		{"git status && trap 'touch pwned' EXIT && git status", policy.AskUser, nil, "trap runs shell code"},
		{"git status && hash -p /tmp/evil git && git status", policy.AskUser, nil, "hash runs shell code"},
		{"git status && read 'a[$(touch pwned)]' && git status", policy.AskUser, nil, "read may take a variable name"},
		{"git status && printf -v x y && git status", policy.AskUser, nil, "printf may take a variable name"},
		{"git status && f() { touch pwned; } && git status", policy.AskUser, nil, "defines a function"},
		{"git status && coproc touch pwned", policy.AskUser, nil, "coprocess"},
		{"git status && for PATH in /tmp; do git status; done", policy.AskUser, nil, "for loop"},
		{"git status && cat <<EOF\n$(touch pwned)\nEOF", policy.AskUser, nil, ""}, // it redirects too
		{"git status @(x|$(touch pwned))", policy.AskUser, nil, "extended glob"},
		{"git status && bash -c 'eval x'", policy.AskUser, nil, "eval runs shell code"},
		// A quote glued to the prefix is not the prefix.
		{`git status"x"`, "", nil, ""},
		{`git status'x'`, "", nil, ""},
		{`git status\x`, "", nil, ""},
		{`git status"" --short`, "", nil, ""},
		{`git status "x"`, policy.Allow, nil, ""},
		{`git status && git status"x"`, policy.Allow, []string{`git status"x"`}, ""},
	} {
		v := e.Check(shell(tc.command))
		if v.Decision != tc.want || strings.Join(v.Undecided, "|") != strings.Join(tc.undecided, "|") || !strings.Contains(v.Why, tc.why) {
			t.Errorf("%q: %q (undecided %q, why %q), want %q (undecided %q, why containing %q)", tc.command, v.Decision, v.Undecided, v.Why, tc.want, tc.undecided, tc.why)
		}
	}
}

// Yolo runs what the rules are not shown, as it runs everything; a line
// that is not bash still asks in the other modes.
func TestUnmodelledLinesInYolo(t *testing.T) {
	e := load(t, policy.TierUser, false, map[string]string{"auto-saved.toml": gitStatusRule})
	c := shell("git status ${x@P}")
	c.Mode = policy.ModeYolo
	if v := e.Check(c); v.Decision != policy.Allow {
		t.Errorf("yolo: %q, want allow", v.Decision)
	}
	c = shell("git status 'unclosed")
	c.Mode = policy.ModeAutoEdit
	if v := e.Check(c); v.Decision == policy.Allow {
		t.Errorf("an unparseable line: %+v, want it not allowed", v)
	}
	regex := load(t, policy.TierUser, false, map[string]string{"regex.toml": `
[[rule]]
commandRegex = "git .*"
decision = "allow"
priority = 100
`})
	if v := regex.Check(c); v.Decision != policy.AskUser || v.Why != "it cannot be parsed as bash" {
		t.Errorf("an unparseable line a regex allows: %+v, want ask_user, saying why", v)
	}
}

// A rule that allows every shell line, naming no command, allows what
// the commands of a line do not show too.
func TestUnconditionalAllowCoversUnmodelledLines(t *testing.T) {
	e := load(t, policy.TierUser, false, map[string]string{"all.toml": `
[[rule]]
toolName = "run_shell_command"
decision = "allow"
priority = 100
`})
	for _, command := range []string{"for f in a b; do echo $f; done", "f() { :; }; f", "echo $((x + 1))"} {
		if v := e.Check(shell(command)); v.Decision != policy.Allow {
			t.Errorf("%q: %+v, want allow", command, v)
		}
	}
}

// A deny or ask_user rule's prefix matches without the word boundary an
// allow rule needs, so that it only matches more; a shell wrapper's
// script is read as the shell passes it, quotes removed.
func TestDenyPrefixMatchesAGluedQuoteAndAWrappedScript(t *testing.T) {
	e := load(t, policy.TierUser, false, map[string]string{"deny.toml": `
[[rule]]
commandPrefix = "rm -rf"
decision = "deny"
priority = 100
`})
	for _, command := range []string{`rm -rf"" /`, `bash -c 'r''m -rf /'`, `sh -c "rm -rf \"/\""`} {
		if v := e.Check(shell(command)); v.Decision != policy.Deny {
			t.Errorf(`%s: %q, want deny`, command, v.Decision)
		}
	}
}

// On Windows the line is PowerShell's or cmd.exe's (issue 57): an allow
// rule's prefix covers its commands only, each split at ; && || | & and
// line breaks as that shell splits them, and what the split cannot vouch
// for ($(…), script blocks, backticks, %VAR%, iex) asks.
func TestAllowRuleOnWindowsShells(t *testing.T) {
	e := load(t, policy.TierUser, false, map[string]string{"auto-saved.toml": gitStatusRule})
	noProblems(t, e)
	for _, tc := range []struct {
		kind      osshell.Kind
		command   string
		want      policy.Decision
		undecided []string
		why       string
	}{
		{osshell.PowerShell, "git status", policy.Allow, nil, ""},
		{osshell.PowerShell, "git status --short; git status", policy.Allow, nil, ""},
		{osshell.PowerShell, "git status ; rm -rf x", policy.Allow, []string{"rm -rf x"}, ""},
		// As in bash, the prefix must end in a space or quote (0.61's
		// regular expression) for the rule to match the line at all.
		{osshell.PowerShell, "git status; rm -rf x", "", nil, ""},
		{osshell.PowerShell, "git status && Remove-Item -Recurse x", policy.Allow, []string{"Remove-Item -Recurse x"}, ""},
		{osshell.PowerShell, "git status || rm x", policy.Allow, []string{"rm x"}, ""},
		{osshell.PowerShell, "git status | rm x", policy.Allow, []string{"rm x"}, ""},
		{osshell.PowerShell, "git status & rm x", policy.Allow, []string{"rm x"}, ""},
		{osshell.PowerShell, "git status \nrm x", policy.Allow, []string{"rm x"}, ""},
		{osshell.PowerShell, "git status 'a; b'", policy.Allow, nil, ""},
		{osshell.PowerShell, "git status $(rm x)", policy.AskUser, nil, "subexpression"},
		{osshell.PowerShell, "git status @(rm x)", policy.AskUser, nil, "array subexpression"},
		{osshell.PowerShell, "git status `; rm x", policy.AskUser, nil, "backtick"},
		{osshell.PowerShell, "git status ; iex 'rm x'", policy.AskUser, nil, "iex runs code"},
		{osshell.PowerShell, "git status > out.txt", policy.AskUser, nil, "redirects"},
		{osshell.PowerShell, `git status"x"`, "", nil, ""},
		{osshell.PowerShell, "git status 'unclosed", policy.AskUser, nil, "cannot be parsed as powershell"},
		{osshell.Cmd, "git status & del x", policy.Allow, []string{"del x"}, ""},
		{osshell.Cmd, "git status && del x", policy.Allow, []string{"del x"}, ""},
		{osshell.Cmd, "git status %X%", policy.AskUser, nil, "% or ! expansion"},
		{osshell.Cmd, "git status ^& del x", policy.AskUser, nil, "% or ! expansion or ^ escapes"},
		{osshell.Cmd, `git status "a & b"`, policy.Allow, nil, ""},
	} {
		c := shell(tc.command)
		c.Shell = tc.kind
		v := e.Check(c)
		if v.Decision != tc.want || strings.Join(v.Undecided, "|") != strings.Join(tc.undecided, "|") || !strings.Contains(v.Why, tc.why) {
			t.Errorf("%v %q: %q (undecided %q, why %q), want %q (undecided %q, why containing %q)", tc.kind, tc.command, v.Decision, v.Undecided, v.Why, tc.want, tc.undecided, tc.why)
		}
	}
}

// A deny rule's prefix matches every command of a Windows line.
func TestDenyPrefixOnWindowsShells(t *testing.T) {
	e := load(t, policy.TierUser, false, map[string]string{"deny.toml": `
[[rule]]
commandPrefix = "rm -rf"
decision = "deny"
priority = 100
`})
	for _, kind := range []osshell.Kind{osshell.PowerShell, osshell.Cmd} {
		c := shell("git status & rm -rf x")
		c.Shell = kind
		if v := e.Check(c); v.Decision != policy.Deny {
			t.Errorf("%v: %q, want deny", kind, v.Decision)
		}
	}
}

// denyRules deny rm and git push; allowBeneath adds a rule below them
// that allows every shell line (issue 84).
const (
	denyRules = `
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["rm", "git push"]
decision = "deny"
priority = 500
`
	allowBeneath = `
[[rule]]
toolName = "run_shell_command"
decision = "allow"
priority = 100
`
)

// denyCase is a line and what the deny rules of denyRules make of it.
type denyCase struct {
	kind    osshell.Kind
	command string
	want    policy.Decision
}

// A deny rule denies every line that would run what it names, as the
// shell reads the line: blanks around it, its words after quote and
// escape removal, through the wrappers that run another command, inside
// substitutions (issue 84). A line whose words it cannot know before it
// runs asks, unless no deny rule could match it.
func TestDenyRuleJudgesWhatTheShellRuns(t *testing.T) {
	var cases []denyCase
	for _, command := range deniedBash {
		cases = append(cases, denyCase{osshell.Bash, command, policy.Deny})
	}
	for _, command := range unjudgedBash {
		cases = append(cases, denyCase{osshell.Bash, command, policy.AskUser})
	}
	cases = append(cases, windowsDenyCases...)
	for _, beneath := range []string{"", allowBeneath} {
		e := load(t, policy.TierUser, true, map[string]string{"deny.toml": denyRules + beneath})
		noProblems(t, e)
		for _, tc := range cases {
			c := shell(tc.command)
			c.Shell = tc.kind
			if v := e.Check(c); v.Decision != tc.want {
				t.Errorf("allow beneath %t, %v %q: %q (why %q), want %q", beneath != "", tc.kind, tc.command, v.Decision, v.Why, tc.want)
			}
		}
	}
}

// deniedBash are bash lines that run rm or git push, each spelled as the
// shell reads it but not as the rule is written.
var deniedBash = []string{
	// Blanks around the line.
	" rm -rf x", "\trm -rf x", "rm -rf x\n", "git push\n", "git push\t", "  git push  ", "\ngit push origin main",
	// Quotes, escapes and line continuations the shell removes.
	`\rm -rf x`, `'rm' -rf x`, `"rm" -rf x`, "r\\\nm -rf x", `$'rm' -rf x`, `$'\x72m' x`, `r""m x`, `git "push"`,
	`git 'pu'sh`, "git \\\npush", `"r\
m" x`,
	// A path to the program, in any case; a word that expands after the
	// rule's words.
	"/bin/rm x", "/usr/bin/git push", "./rm x", "RM x", "Git push", "rm -rf $x", `git push "$remote"`,
	// Shell wrappers, with any flags.
	"bash -c 'rm x'", "bash -lc 'rm x'", "bash -ec 'rm x'", "bash -e -c 'rm x'", "bash -c -- 'rm x'", "bash -o errexit -c 'rm x'",
	"command bash -c 'rm x'", "exec bash -c 'rm x'", "dash -c 'rm x'", "ksh -c 'rm x'", "/bin/sh -c 'git push'", "bash --norc -c 'rm x'",
	"bash -c 'bash -c \"rm x\"'", "bash <<'EOF'\nrm x\nEOF", "bash <<< 'rm x'", "sh -s <<EOF\ngit push\nEOF",
	// Programs that run the command they are given.
	"command rm x", "exec rm x", "exec -a foo rm x", "env rm x", "env -i FOO=1 rm x", "env -u HOME -- rm x", "nohup rm x",
	"timeout 5 rm x", "timeout -s KILL -k 1 5 rm x", "nice -n 5 rm x", "sudo rm x", "sudo -u root -E rm x", "doas rm x",
	"xargs rm", "xargs -0 -n 1 rm", "find . -name x -exec rm {} ;", "find . -execdir rm -f {} +", "setsid rm x", "stdbuf -oL rm x",
	"busybox rm x", "time rm x", "command time -p rm x", "eval 'rm x'", "eval rm x", "trap 'rm x' EXIT",
	// Inside lists, pipelines, substitutions, subshells, functions.
	"echo a && rm x", "echo a | rm x", "echo $(rm x)", "echo `rm x`", "cat <(rm x)", "(rm x)", "{ rm x; }",
	"f() { rm x; }", "if true; then rm x; fi", "x=$(git push)", "echo \"$(\\rm x)\"",
}

// unjudgedBash are bash lines that may run rm or git push, or not, as
// what is not written in them decides: they ask.
var unjudgedBash = []string{
	"$x -rf y", `"$cmd" x`, "r$x x", "$(echo rm) x", "rm* x", "{rm,x}", "~/rm x", "git $sub", `git "$sub" origin`,
	`bash -c "$x"`, "eval \"$x\"", "echo rm x | bash", "bash <<EOF\n$x\nEOF", "xargs -I{} {} x", "env -S 'rm x'",
	"x='$(rm y)'; echo ${x@P}", "sudo -X rm x", "find . -exec $x {} ;",
}

// windowsDenyCases are PowerShell and cmd.exe lines: denied as they run
// rm or git push, or asking when the line cannot be judged.
var windowsDenyCases = []denyCase{
	{osshell.PowerShell, " rm -rf x", policy.Deny},
	{osshell.PowerShell, "rm -rf x\n", policy.Deny},
	{osshell.PowerShell, "git push\n", policy.Deny},
	{osshell.PowerShell, "\tgit push\t", policy.Deny},
	{osshell.PowerShell, "RM x", policy.Deny},
	{osshell.PowerShell, "Git PUSH", policy.Deny},
	{osshell.PowerShell, `C:\tools\Git.EXE push`, policy.Deny},
	{osshell.PowerShell, "& 'rm' x", policy.Deny},
	{osshell.PowerShell, `& "git" push`, policy.Deny},
	{osshell.PowerShell, "git 'push'", policy.Deny},
	{osshell.PowerShell, "r`m x", policy.Deny},
	{osshell.PowerShell, "echo a; rm x", policy.Deny},
	{osshell.PowerShell, `cmd /c "rm x"`, policy.Deny},
	{osshell.PowerShell, `cmd.exe /d /s /c rm x`, policy.Deny},
	{osshell.PowerShell, `powershell -Command "rm x"`, policy.Deny},
	{osshell.PowerShell, `powershell -NoProfile -NonInteractive -c 'git push'`, policy.Deny},
	{osshell.PowerShell, `pwsh -c 'rm x'`, policy.Deny},
	{osshell.PowerShell, `iex 'rm x'`, policy.Deny},
	{osshell.PowerShell, "& $x", policy.AskUser},
	{osshell.PowerShell, "$x x", policy.AskUser},
	{osshell.PowerShell, "echo $(rm x)", policy.AskUser},
	{osshell.PowerShell, "echo { rm x }", policy.AskUser},
	{osshell.PowerShell, "iex $x", policy.AskUser},
	{osshell.PowerShell, "powershell -EncodedCommand cgBtACAAeAA=", policy.AskUser},
	{osshell.PowerShell, "Start-Process rm x", policy.AskUser},
	{osshell.PowerShell, "Set-Alias ls rm; ls x", policy.AskUser},
	{osshell.PowerShell, "wsl rm x", policy.AskUser},
	{osshell.PowerShell, "pwsh -c \"rm $x\"", policy.AskUser},
	{osshell.Cmd, " rm x", policy.Deny},
	{osshell.Cmd, "git push\n", policy.Deny},
	{osshell.Cmd, "r^m x", policy.Deny},
	{osshell.Cmd, "RM x", policy.Deny},
	{osshell.Cmd, `"rm" x`, policy.Deny},
	{osshell.Cmd, `git "push"`, policy.Deny},
	{osshell.Cmd, "echo a & rm x", policy.Deny},
	{osshell.Cmd, `echo ^" & rm x "`, policy.Deny},
	{osshell.Cmd, "cmd /c rm x", policy.Deny},
	{osshell.Cmd, `cmd /c "git push"`, policy.Deny},
	{osshell.Cmd, "start rm x", policy.AskUser},
	{osshell.Cmd, "%x% y", policy.AskUser},
	{osshell.Cmd, "echo %x%", policy.AskUser},
}

// A line that no deny rule could match is not asked about for want of
// being judged: what its expansions hold cannot make it run rm or git
// push.
func TestDenyRuleLeavesWhatItCannotMatch(t *testing.T) {
	e := load(t, policy.TierUser, true, map[string]string{"deny.toml": denyRules + allowBeneath})
	for _, tc := range []denyCase{
		{osshell.Bash, "ls $HOME", policy.Allow},
		{osshell.Bash, `echo "$(date)" *.go`, policy.Allow},
		{osshell.Bash, "git status $x", policy.Allow},
		{osshell.Bash, "git pushx", policy.Allow},
		{osshell.Bash, "rmdir x", policy.Allow},
		{osshell.Bash, "bash -c 'ls x'", policy.Allow},
		{osshell.Bash, "xargs ls", policy.Allow},
		{osshell.Bash, "timeout 5 ls $x", policy.Allow},
		{osshell.Bash, "command -v rm", policy.Allow},
		// A script file is the business of the program that runs it, as
		// any program's files are.
		{osshell.Bash, "source ./script", policy.Allow},
		{osshell.Bash, "bash ./script.sh", policy.Allow},
		{osshell.PowerShell, "ls $HOME", policy.Allow},
		{osshell.PowerShell, "& 'ls' x", policy.Allow},
		{osshell.Cmd, "dir x", policy.Allow},
	} {
		c := shell(tc.command)
		c.Shell = tc.kind
		if v := e.Check(c); v.Decision != tc.want {
			t.Errorf("%v %q: %q (why %q), want %q", tc.kind, tc.command, v.Decision, v.Why, tc.want)
		}
	}
}

// A rule of higher priority that decides a command first speaks for it,
// as for any call: an allow of every git command outranks a deny of git
// push, whatever the line's spelling, wrappers or expansions. The allow
// rule still allows only lines it names as written (" git push" and sudo
// are no rule's to allow: the approval mode decides them).
func TestHigherAllowSpeaksBeforeADeny(t *testing.T) {
	e := load(t, policy.TierUser, true, map[string]string{"rules.toml": `
[[rule]]
commandPrefix = "git"
decision = "allow"
priority = 900

[[rule]]
commandPrefix = "git push"
decision = "deny"
priority = 500
`})
	for command, want := range map[string]policy.Decision{
		" git push":     "",
		"sudo git push": "",
		`git "push"`:    policy.Allow,
		"git $sub":      policy.Allow,
		"$x push":       policy.AskUser,
	} {
		if v := e.Check(shell(command)); v.Decision != want {
			t.Errorf("%q: %q (why %q), want %q", command, v.Decision, v.Why, want)
		}
	}
}
