package policy

import (
	"strings"
	"testing"
)

// issue95Escapes are the lines with which bash ran a denied rm while
// everything else was allowed (issue 95, round ten), and the wrappers of
// issue 94 that start a command.
var issue95Escapes = []string{
	// A sourced process substitution or pipe.
	". <(echo 'rm -rf x')", "source <(echo 'rm -rf x')", "echo 'rm -rf x' | source /dev/stdin",
	"echo 'rm -rf x' | bash /dev/stdin", "printf '\\x72\\x6d x' | . /dev/stdin", "printf '\\x72\\x6d x' | sh /proc/self/fd/0",
	// A coprocess in a pipeline: the parser reads rm as its name.
	"coproc rm -rf x | cat", "coproc r\\m -rf x | cat",
	// ANSI-C \x{HH}, which bash decodes and the parser reads as written.
	"$'\\x{72}\\x{6d}' -rf x", "r$'\\x{6d}' -rf x",
	// Code in PS4 with set -x; BASH_ENV and ENV.
	"PS4='$(rm -rf x)' ; set -x; true", "export PS4='$(r\\m x)'; set -x; :", "BASH_ENV=<(echo rm -rf x) bash -c true",
	"ENV=<(echo rm x) sh -c true", "env PS4='$(rm x)' bash -xc true", "env 'BASH_FUNC_ls%%=() { rm x; }' bash -c ls",
	"PROMPT_COMMAND='rm x' bash -i",
	// Wrappers after find -exec, -execdir, -ok.
	"find . -exec env rm {} +", "find . -execdir sh -c 'rm x' \\;", "find . -ok sudo rm {} \\;", "find . -exec nice rm {} +",
	"find . -exec timeout 5 rm {} +", "find . -exec xargs rm \\;", "find . -exec command rm {} +",
	// Issue 94's wrappers.
	"flock /tmp/lock rm x", "flock -c 'rm x' /tmp/lock", "flock -n /tmp/lock -c 'rm x'", "watch -g rm x", "watch -n1 'rm x'",
	"script -qc 'rm x' /dev/null", "script -q -c 'rm x'", "nsenter -t 1 -m rm x", "nsenter --target=1 --mount rm x",
	"unshare -r rm x", "unshare --mount --fork rm x", "chroot / rm x", "chroot --userspec=a:b / rm x", "sudo -u root rm x",
	"doas rm x", "su -c 'rm x'", "su root -c 'rm x'", "su - root -c 'rm x'", "runuser -u nobody -- rm x", "runuser -l root -c 'rm x'",
	"systemd-run --user rm x", "systemd-run -p Nice=5 --wait rm x", "firejail rm x", "firejail --noprofile rm x", "parallel rm ::: x",
	"parallel -j2 rm {} ::: x", "parallel ::: 'rm x'", "echo rm x | sudo -s", "echo rm x | chroot /", "echo 'rm x' | su",
	// A program gemini-ls does not know, whose arguments name rm.
	"mytool rm x", "python3 -c 'import os; os.system(\"rm x\")'", "awk 'BEGIN{system(\"rm x\")}'", "sort --compress-program=rm x",
	"PAGER='rm x' mytool",
}

// Under yolo, with rm denied and every line allowed beneath, each escape
// is refused (nobody can be asked), a line the judge cannot read saying
// why; in default and auto_edit it is never allowed (it asks, or is
// denied). Lines that run no rm, and that the judge reads or whose words
// cannot name rm, are still allowed in yolo: ls rm lists a file.
func TestDenyRuleRefusesWhatCannotBeJudgedUnderYolo(t *testing.T) {
	e := denyBeneathAllow(t, "rm")
	for _, command := range issue95Escapes {
		for _, mode := range []Mode{ModeDefault, ModeAutoEdit, ModeYolo} {
			c := shellCall(command)
			c.Mode = mode
			v := e.Check(c)
			switch {
			case mode == ModeYolo && v.Decision != Deny:
				t.Errorf("yolo %q: %q (%s), want it refused", command, v.Decision, v.Why)
			case v.Decision == Allow:
				t.Errorf("%s %q: allowed, want it asked or refused", mode, command)
			}
		}
	}
	for _, command := range []string{"ls rm", "echo rm", "grep -r rm .", "git rm x", "git commit -m 'rm old'", "python x.py \"$f\"",
		"for f in *.go; do wc -l \"$f\"; done", "f() { echo hi; }; f", "cat <<'EOF'\nrm x\nEOF", "source venv/bin/activate && pytest",
		"LANG=C make test", "echo $(date) | tee log"} {
		c := shellCall(command)
		c.Mode = ModeYolo
		if v := e.Check(c); v.Decision != Allow {
			t.Errorf("yolo %q: %q (%s), want it allowed: it runs no rm", command, v.Decision, v.Why)
		}
	}
}

// What the model and the user are told of a line refused for want of
// being judged: why, in a sentence, with the rule that could match it.
func TestCannotJudgeSaysWhy(t *testing.T) {
	e := denyBeneathAllow(t, "rm")
	for command, why := range map[string]string{
		"coproc rm -rf x | cat":    "it starts a coprocess, whose command bash and the parser may read apart, and the deny rule of fuzz may match it",
		". <(echo 'rm -rf x')":     ". runs shell code that is not known before it runs, and the deny rule of fuzz may match it",
		"PS4='$(rm x)'; set -x; :": "it sets PS4, which bash runs as code, and the deny rule of fuzz may match it",
		"mytool rm x":              "it runs mytool, a program gemini-ls does not know, whose arguments name a program it may run, and the deny rule of fuzz may match it",
		"$'\\x{72}\\x{6d}' -rf x":  "whose words are not known before it runs",
		"echo $((" + strings.Repeat("(", 150_000) + "1" + strings.Repeat(")", 150_002): "it may nest 150002 levels deep, more than the 8192 levels of a shell line gemini-ls reads, and the deny rule of fuzz may match it",
	} {
		c := shellCall(command)
		c.Mode = ModeYolo
		if v := e.Check(c); v.Decision != Deny || !strings.Contains(v.Why, why) {
			t.Errorf("%.60q: %q (%s), want it refused saying %q", command, v.Decision, v.Why, why)
		}
	}
}

// Issue 95: a line of 150,000 nested parentheses ended the process in
// the parser. With no rule on shell lines but an allow, with a deny
// rule, in every mode, it is judged (not allowed where a deny rule could
// match it) and the process lives on.
func TestALineTooDeepIsJudgedWithoutParsing(t *testing.T) {
	line := "echo $((" + strings.Repeat("(", 150_000) + "1" + strings.Repeat(")", 150_002)
	for _, mode := range []Mode{ModeDefault, ModeYolo} {
		c := shellCall(line)
		c.Mode = mode
		if v := denyBeneathAllow(t, "rm").Check(c); v.Decision == Allow {
			t.Errorf("%s: allowed beneath a deny rule, unread", mode)
		}
		all, _, _ := parseRule(map[string]any{"toolName": "run_shell_command", "decision": "allow", "priority": int64(100)}, TierUser, "x")
		New(all, true).Check(c)
	}
}
