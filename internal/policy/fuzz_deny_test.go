package policy

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
)

// denySeeds are lines of issue 84: a deny rule's command spelled as the
// shell reads it, not as the rule is written.
var denySeeds = []string{
	" rm -rf x", "git push\n", `\rm x`, `'rm' x`, `"rm" x`, "r\\\nm x", `$'rm' x`, `$'\x72m' x`, `r""m x`,
	"bash -lc 'rm x'", "bash -e -c 'rm x'", "bash -c -- 'rm x'", "command bash -c 'rm x'", "exec bash -c 'rm x'",
	"dash -c 'rm x'", "sudo -u root rm x", "env -i A=1 rm x", "timeout -k 1 5 rm x", "xargs -I{} rm {}",
	"find . -exec rm {} +", "bash <<'EOF'\nrm x\nEOF", "bash <<< 'rm x'", "eval 'rm x'", "echo $(\\rm x) `rm y`",
	"$x -rf y", "git $sub", "echo rm | sh", "x='$(rm y)'; echo ${x@P}", "f() { rm x; }; f", "a=1 rm x | cat <(rm y)",
	"{rm,x}", "rm* x", "~/rm x", "$'\\cA' x", `$"rm" x`,
}

// denyNames are the deny rules' prefixes FuzzDenyRulesAgreeWithBash
// tries besides the names the line runs.
var denyNames = []string{"rm", "git push", "x", "sudo", "bash"}

// FuzzDenyRulesAgreeWithBash holds the deny side of the rules to
// mvdan.cc/sh's reading of the line (issue 84), with a rule allowing
// every shell line beneath the deny rule:
//   - every command mvdan.cc/sh's parser shows a line running, whose
//     name is static (the word's parts only text and quotes, no
//     expansion, glob or brace; its text as expand.Fields removes the
//     quotes and escapes), is denied by a deny rule naming it;
//   - a line allowed despite a deny rule of prefix P runs, as mvdan.cc/sh
//     parses it, no command whose static words begin with P's, nor one
//     whose words before its first that is not static agree with P's; a
//     line mvdan.cc/sh cannot parse is never allowed.
func FuzzDenyRulesAgreeWithBash(f *testing.F) {
	for i, seed := range denySeeds {
		f.Add(uint8(i), seed)
	}
	f.Fuzz(func(t *testing.T, pick uint8, command string) {
		if len(command) > 4096 {
			return // longer lines only cost time: they are not read otherwise
		}
		calls, parsed := bashCalls(command)
		names := []string{denyNames[int(pick)%len(denyNames)]}
		for _, words := range calls {
			if len(words) > 0 && words[0].static && strings.TrimSpace(words[0].text) != "" && !slices.Contains(names, words[0].text) {
				names = append(names, words[0].text)
				if v := denyBeneathAllow(t, words[0].text).Check(shellCall(command)); v.Decision != Deny {
					t.Errorf("%q runs %q (mvdan.cc/sh), but its deny rule decides %q (%s)", command, words[0].text, v.Decision, v.Why)
				}
			}
		}
		for _, name := range names {
			v := denyBeneathAllow(t, name).Check(shellCall(command))
			if v.Decision != Allow {
				continue
			}
			if !parsed {
				t.Errorf("%q cannot be parsed, yet the deny rule of %q beneath an allow of every line allows it", command, name)
			}
			for _, words := range calls {
				if mayStartWith(words, strings.Fields(name)) {
					t.Errorf("%q runs %+v (mvdan.cc/sh), which the deny rule of %q may name, yet it is allowed", command, words, name)
				}
			}
		}
	})
}

// denyBeneathAllow is an engine denying the command prefix name, above a
// rule allowing every shell line.
func denyBeneathAllow(t *testing.T, name string) *Engine {
	deny, _, err := parseRule(map[string]any{"commandPrefix": name, "decision": "deny", "priority": int64(500)}, TierUser, "fuzz")
	if err != nil {
		t.Fatalf("prefix %q: %v", name, err)
	}
	all, _, err := parseRule(map[string]any{"toolName": "run_shell_command", "decision": "allow", "priority": int64(100)}, TierUser, "fuzz")
	if err != nil {
		t.Fatal(err)
	}
	return New(append(deny, all...), true)
}

// refWord is a word as the reference reads it.
type refWord struct {
	text   string
	static bool
}

// bashCalls are the words of every simple command mvdan.cc/sh parses in
// command; false when it cannot parse it.
func bashCalls(command string) ([][]refWord, bool) {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, false
	}
	var calls [][]refWord
	syntax.Walk(file, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok {
			words := make([]refWord, len(call.Args))
			for i, w := range call.Args {
				words[i] = referenceWord(w)
			}
			calls = append(calls, words)
		}
		return true
	})
	return calls, true
}

// referenceWord is w as mvdan.cc/sh's expand passes it to a command
// (Fields: quotes and escapes removed), when it is static: parts of text and quotes only; outside quotes no glob or brace
// character (* ? [ {) that a backslash does not escape, no ~ to begin
// it; no $"…" (translated), no $'…' that bash decodes otherwise
// (bashDiffers).
func referenceWord(w *syntax.Word) refWord {
	if w.Lit() == "[" { // no ] closes it: bash's test command, not a glob
		return refWord{text: "[", static: true}
	}
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if expands(p.Value, i == 0) {
				return refWord{}
			}
		case *syntax.SglQuoted:
			if p.Dollar && bashDiffers(p.Value) {
				return refWord{}
			}
		case *syntax.DblQuoted:
			if p.Dollar || slices.ContainsFunc(p.Parts, func(q syntax.WordPart) bool { _, lit := q.(*syntax.Lit); return !lit }) {
				return refWord{}
			}
		default:
			return refWord{}
		}
	}
	fields, err := expand.Fields(&expand.Config{}, w)
	if err != nil || len(fields) != 1 || strings.ContainsRune(fields[0], 0) {
		return refWord{}
	}
	return refWord{text: fields[0], static: true}
}

// bashDiffers reports whether bash decodes the $'…' of value otherwise
// than mvdan.cc/sh's expand does: \c (a control character, which expand
// leaves as it is), an octal escape above \377 (bash keeps its low byte,
// expand writes 0xff) or before an 8 or 9 (bash ends the number there,
// expand reads a NUL), a \u or \U that is no Unicode character.
func bashDiffers(value string) bool {
	for i := 0; i+1 < len(value); i++ {
		if value[i] != '\\' {
			continue
		}
		rest := value[i+1:]
		i++ // the escaped character is not an escape
		switch {
		case rest[0] == 'c':
			return true
		case rest[0] >= '0' && rest[0] <= '7':
			digits := rest[:min(3, len(rest))]
			if end := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }); end >= 0 {
				digits = digits[:end]
			}
			n, err := strconv.ParseUint(digits, 8, 16)
			if err != nil || n > 0o377 {
				return true
			}
		case rest[0] == 'u' || rest[0] == 'U':
			hex := rest[1:min(len(rest), 9)]
			if end := strings.IndexFunc(hex, func(r rune) bool { return !strings.ContainsRune("0123456789abcdefABCDEF", r) }); end >= 0 {
				hex = hex[:end]
			}
			if rest[0] == 'u' {
				hex = hex[:min(4, len(hex))]
			}
			if n, err := strconv.ParseUint(hex, 16, 32); err == nil && !utf8.ValidRune(rune(n)) {
				return true
			}
		}
	}
	return false
}

// expands reports whether bash may expand text, outside quotes (first:
// the word's beginning): a glob or brace character not escaped, a tilde
// beginning the word.
func expands(text string, first bool) bool {
	for i := 0; i < len(text); i++ {
		switch {
		case text[i] == '\\':
			i++
		case strings.IndexByte("*?[{", text[i]) >= 0, text[i] == '~' && first && i == 0:
			return true
		}
	}
	return false
}

// mayStartWith reports whether a command of words may begin with the
// words of prefix: its static words do, or agree with it up to the first
// that is not static.
func mayStartWith(words []refWord, prefix []string) bool {
	for i, want := range prefix {
		switch {
		case i >= len(words):
			return false
		case !words[i].static:
			return true
		case words[i].text != want:
			return false
		}
	}
	return len(prefix) > 0
}

// FuzzDenyRuleOnEveryShell: a line that begins with a command a deny
// rule names, after any blanks, is never allowed, whatever follows, in
// bash, PowerShell and cmd.exe, with a rule allowing every shell line
// beneath the deny rule (issue 84).
func FuzzDenyRuleOnEveryShell(f *testing.F) {
	for i, seed := range append(slices.Clone(denySeeds), "; x", "& x", "`\n x", "^\n x", "'unclosed", "\"a\" b") {
		f.Add(uint8(i), " \t", seed)
	}
	kinds := []osshell.Kind{osshell.Bash, osshell.PowerShell, osshell.Cmd}
	f.Fuzz(func(t *testing.T, pick uint8, blanks, rest string) {
		if strings.Trim(blanks, " \t\n") != "" || len(rest) > 4096 {
			return
		}
		name := denyNames[int(pick)%len(denyNames)]
		c := shellCall(blanks + name + " " + rest)
		c.Shell = kinds[int(pick/8)%len(kinds)]
		if c.Shell == osshell.Bash && strings.HasPrefix(strings.TrimLeft(rest, " \t"), "(") {
			return // rm () { …; } defines a function: it runs no rm
		}
		if v := denyBeneathAllow(t, name).Check(c); v.Decision == Allow {
			t.Errorf("%v %q begins with %q, which a deny rule names, yet it is allowed", c.Shell, c.Args["command"], name)
		}
	})
}

// FuzzPrefixMatchesAsThePattern: prefixMatches, which judges a command
// prefix without running its pattern, decides as the pattern does, for
// every prefix and command, with a dir_path or without.
func FuzzPrefixMatchesAsThePattern(f *testing.F) {
	for _, seed := range [][2]string{{"rm", "rm x"}, {"git push", "git push"}, {"rm", "rmdir"}, {`a"b`, `a"b c`}, {"x", `x"`}, {"echo x > /etc/hosts\u2028", "echo x > /etc/hosts\u2028 y"}, {"a\\", "a\\ b"}, {"é", "é\t"}} {
		f.Add(seed[0], seed[1], false)
	}
	f.Fuzz(func(t *testing.T, prefix, command string, withDir bool) {
		rules, _, err := parseRule(map[string]any{"commandPrefix": prefix, "decision": "deny", "priority": int64(1)}, TierUser, "fuzz")
		if err != nil || len(rules) != 1 {
			return
		}
		args := map[string]any{"command": command}
		if withDir {
			args["dir_path"] = command
		}
		stringified := stringifyShell(args, command)
		if stringified != stableStringify(args) {
			t.Fatalf("stringifyShell %q, stableStringify %q", stringified, stableStringify(args))
		}
		literal, ok := New(rules, true).prefixLiterals()[rules[0]]
		if !ok {
			return // matched by its pattern
		}
		if got, want := prefixMatches(literal.exact, stringified), rules[0].Args.MatchString(stringified); got != want {
			t.Errorf("prefix %q, command %q: prefixMatches %v, the pattern %v", prefix, command, got, want)
		}
	})
}
