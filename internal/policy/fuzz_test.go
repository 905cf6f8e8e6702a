package policy

import (
	"github.com/gemini-ls/gemini-ls/internal/tools"

	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// policySeeds are policy files of the tests and the built-in defaults.
var policySeeds = []string{
	`
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git status", "git diff"]
decision = "allow"
priority = 100
modes = ["default", "autoEdit"]
interactive = false
allowRedirection = true

[[rule]]
commandRegex = "npm (test|run lint)"
decision = "deny"
priority = 90
denyMessage = "no"
`,
	`
[[rule]]
mcpName = "tester"
toolName = "echo"
decision = "allow"
priority = 100
toolAnnotations = { readOnlyHint = true }

[[rule]]
toolName = "server__tool"
argsPattern = "\"file_path\":\".*\\.md\""
decision = "ask_user"
priority = 999

[[safety_checker]]
toolName = "*"
`,
	"[[rule]]\ncommandPrefix = \"echo x > /etc/hosts\\u2028\"\ndecision = \"deny\"\npriority = 1\n",
	"[[rule]\ntoolName = ",
	"rule = 3",
	"[[rule]]\ntoolName = [\"a\", 1]\ndecision = \"allow\"\npriority = 1000\n",
}

// FuzzParsePolicyFile: loading never fails and never panics, every rule
// it keeps is well formed, and a commandPrefix rule matches the command
// that is its prefix, whatever characters it holds (issue 64: the
// pattern and the command were encoded differently).
func FuzzParsePolicyFile(f *testing.F) {
	for _, seed := range policySeeds {
		f.Add(seed)
	}
	defaults, _ := filepath.Glob(filepath.Join("defaults", "*.toml"))
	listing, _ := filepath.Glob(filepath.Join("listing", "*.toml"))
	for _, name := range append(defaults, listing...) {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, data string) {
		for _, tier := range []Tier{TierUser, TierExtension} {
			src := Source{Tier: tier, Path: "fuzz.toml", Extension: "ext"}
			rules, problems := parseFile(src, "fuzz.toml", []byte(data))
			for _, p := range problems {
				if p.Path != "fuzz.toml" || p.Message == "" {
					t.Errorf("problem without a path or message: %+v", p)
				}
			}
			for _, r := range rules {
				checkRule(t, r, tier)
			}
		}
	})
}

// checkRule fails t unless r is a rule Load may keep from a file of tier.
func checkRule(t *testing.T, r *Rule, tier Tier) {
	t.Helper()
	switch {
	case r.Decision != Allow && r.Decision != Deny && r.Decision != AskUser:
		t.Errorf("rule %+v: decision %q", r, r.Decision)
	case r.Priority < float64(tier) || r.Priority >= float64(tier)+1:
		t.Errorf("rule %+v: priority %v outside tier %d", r, r.Priority, tier)
	case r.ToolName == "":
		t.Errorf("rule %+v: no tool name", r)
	case tier == TierExtension && r.Decision == Allow:
		t.Errorf("rule %+v: an extension's allow was kept", r)
	case r.CommandPrefix != "" && r.ToolName != tools.ShellName:
		t.Errorf("rule %+v: a command prefix for another tool", r)
	}
	if r.CommandPrefix == "" {
		return
	}
	command := map[string]any{"command": r.CommandPrefix}
	if r.Args == nil || !r.Args.MatchString(stableStringify(command)) {
		t.Errorf("rule of prefix %q does not match the command %q", r.CommandPrefix, r.CommandPrefix)
	}
}

// shellSeeds are the command lines of the tests.
var shellSeeds = []string{
	"git status", "git status --short", "git status && git status", "git status; git push",
	"git status \"$HOME\" ${#HOME} $((1+2)) ${HOME:0:2}",
	"git status && PATH=/tmp/evil && git status",
	"git status && export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch pwned' && git status",
	"git status && declare -x GIT_CONFIG_COUNT=1 && git status",
	"PATH=/tmp/evil git status", "git status && LD_PRELOAD=/tmp/x.so git status",
	"git status && x='$(touch pwned)' && git status ${x@P}", "git status ${!x}", "git status ${x:=1}",
	"git status $((x))", "git status ${a[i]}", "git status && (( x )) && git status", "git status && let x=1",
	"git status && [[ $x -eq 1 ]]", "git status && eval \"$x\"", "git status && . ./x", "git status && builtin eval x",
	"git status && read 'a[$(touch pwned)]'", "git status && f() { touch pwned; }", "git status && coproc touch pwned",
	"git status && for PATH in /tmp; do git status; done", "git status && cat <<EOF\n$(touch pwned)\nEOF",
	"git status @(x|$(touch pwned))", "git status && bash -c 'eval x'", `git status"x"`, `git status'x'`, `git status\x`,
	"git status > out.txt", "git status $(git status)", "bash -c 'git status; git status'", "echo $(rm -rf /)",
	"git status | git status", "( git status ) && { git status; }", "if git status; then git status; fi",
}

// fuzzPrefixes are the allow rules' prefixes FuzzShellRules tries: plain
// words, as "always allow" saves them.
var fuzzPrefixes = []string{"git status", "git", "ls", "echo", "npm run build"}

// FuzzShellRules: a deny rule denies the command that is its prefix,
// whatever characters it holds; and whatever an allow rule allows in the
// default mode, without leaving a part undecided, is, parsed by
// mvdan.cc/sh, only simple commands that the rule names (their first
// words are the prefix's), with no assignment, redirection, declaration,
// test or arithmetic command, and no expansion that evaluates what a
// variable holds or assigns.
func FuzzShellRules(f *testing.F) {
	for i, seed := range shellSeeds {
		f.Add(uint8(i), seed)
	}
	f.Fuzz(func(t *testing.T, pick uint8, command string) {
		deny := fuzzEngine(t, command, Deny)
		if v := deny.Check(shellCall(command)); v.Decision != Deny {
			t.Errorf("a deny rule of prefix %q on the command %q: %q", command, command, v.Decision)
		}
		prefix := fuzzPrefixes[int(pick)%len(fuzzPrefixes)]
		v := fuzzEngine(t, prefix, Allow).Check(shellCall(command))
		if v.Decision != Allow || len(v.Undecided) > 0 {
			return
		}
		if why := notNamed(command, strings.Fields(prefix)); why != "" {
			t.Errorf("the allow rule of prefix %q allows %q, which %s", prefix, command, why)
		}
	})
}

// fuzzEngine is an engine of one rule of prefix and decision.
func fuzzEngine(t *testing.T, prefix string, decision Decision) *Engine {
	rules, _, err := parseRule(map[string]any{"commandPrefix": prefix, "decision": string(decision), "priority": int64(1)}, TierUser, "fuzz")
	if err != nil {
		t.Fatalf("prefix %q: %v", prefix, err)
	}
	return New(rules, false)
}

func shellCall(command string) Call {
	return Call{Name: tools.ShellName, Args: map[string]any{"command": command}, Mode: ModeDefault}
}

// notNamed says what in command a rule naming prefix (plain words) does
// not name; "" when it names everything command runs.
func notNamed(command string, prefix []string) string {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return "cannot be parsed"
	}
	why := ""
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			switch {
			case len(n.Assigns) > 0:
				why = "assigns"
			case len(n.Args) < len(prefix):
				why = "runs a command shorter than the prefix"
			default:
				for i, word := range prefix {
					if n.Args[i].Lit() != word {
						why = fmt.Sprintf("runs a command whose word %d is not %q", i, word)
					}
				}
			}
		case *syntax.Redirect:
			why = "redirects"
		case *syntax.DeclClause, *syntax.TestClause, *syntax.ArithmCmd, *syntax.LetClause, *syntax.FuncDecl,
			*syntax.CoprocClause, *syntax.ForClause:
			why = fmt.Sprintf("runs a %T", n)
		case *syntax.Assign:
			why = "assigns"
		case *syntax.ParamExp:
			if n.Excl || n.Index != nil && !onlyNumbers(n.Index) && !isAllElements(n.Index) || n.Slice != nil && !sliceOfNumbers(n.Slice) ||
				n.Exp != nil && (n.Exp.Op == syntax.OtherParamOps && n.Exp.Word.Lit() == "P" ||
					n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
				why = "expands a variable in a way that evaluates or assigns"
			}
		case *syntax.ArithmExp:
			if !onlyNumbers(n.X) {
				why = "evaluates arithmetic on variables"
			}
		case *syntax.ExtGlob:
			if strings.ContainsAny(n.Pattern.Value, "$`") {
				why = "expands in an extended glob"
			}
		}
		return why == ""
	})
	return why
}

func sliceOfNumbers(s *syntax.Slice) bool {
	return (s.Offset == nil || onlyNumbers(s.Offset)) && (s.Length == nil || onlyNumbers(s.Length))
}

// onlyNumbers reports whether every word of x is a number: bash reads a
// word that starts with a digit as one, never as a variable.
func onlyNumbers(x syntax.ArithmExpr) bool {
	only := true
	syntax.Walk(x, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok && (w.Lit() == "" || w.Lit()[0] < '0' || w.Lit()[0] > '9') {
			only = false
		}
		return only
	})
	return only
}
