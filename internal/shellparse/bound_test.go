package shellparse_test

import (
	"errors"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/lineartest"
	"github.com/gemini-ls/gemini-ls/internal/shellparse"
)

// stackHogs are the ways of nesting on which mvdan.cc/sh's parser
// recurses, each as the text that opens a level, what begins and ends
// the line, and what closes a level.
var stackHogs = []struct{ name, head, open, body, close string }{
	{"arithmetic parentheses", "echo $((", "(", "1", ")"},
	{"subshells", "", "(", "true", ")"},
	{"blocks", "", "{ ", "true;", " };"},
	{"command substitutions", "echo ", "$(", "true", ")"},
	{"quoted substitutions", "echo ", `"$(`, "true", `)"`},
	{"subscripts", "echo ", "${a[", "1", "]}"},
	{"default values", "echo ", "${a:-", "x", "}"},
	{"if in if", "", "if ", "true; then :; fi", "; then :; fi"},
	{"while", "", "while true; do ", "true", "; done"},
	{"case", "", "case x in x) ", "true", ";; esac"},
	{"time time", "", "time ", "true", ""},
	{"coproc coproc", "", "coproc ", "true", ""},
	{"functions", "", "f() ", "{ true; }", ""},
	{"test negations", "[[ ", "! ", "a ]]", ""},
	{"test conjunctions", "[[ ", "a && ", "a ]]", ""},
	{"test parentheses", "[[ ", "( ", "a", " )"},
	{"arithmetic negations", "echo $((", "!", "1))", ""},
	{"arithmetic minus", "echo $((", "- ", "1))", ""},
	{"arithmetic conditions", "echo $((", "1?1:", "1))", ""},
	{"arithmetic assignments", "echo $((", "a=", "1))", ""},
	{"arithmetic powers", "echo $((", "2**", "1))", ""},
	{"let parentheses", "let ", "(", "1", ")"},
	{"continued keywords", "", "ti\\\nme ", "true", ""},
	{"array in array", "a=(", "$(", "", ")"},
}

// hog is a line of levels levels of h.
func hog(h struct{ name, head, open, body, close string }, levels int) string {
	return h.head + strings.Repeat(h.open, levels) + h.body + strings.Repeat(h.close, levels)
}

// Issue 95: a line of about 150,000 nested parentheses (300 KB) ended the
// process in mvdan.cc/sh's arithmetic parser with a stack overflow,
// which Go cannot recover from. Parse refuses it, and every other way of
// nesting so deep, before parsing, saying why; a line longer than
// MaxLineBytes is refused too; ordinary lines, and a long flat list, are
// parsed.
func TestParseRefusesLinesThatNestTooDeep(t *testing.T) {
	var bound *shellparse.BoundError
	parens := "echo $((" + strings.Repeat("(", 150_000) + "1" + strings.Repeat(")", 150_002)
	if _, err := shellparse.Parse(parens); !errors.As(err, &bound) || !strings.Contains(bound.Why, "levels deep") {
		t.Errorf("300 KB of nested parentheses: %v, want a BoundError saying how deep it nests", err)
	}
	for _, h := range stackHogs {
		if _, err := shellparse.Parse(hog(h, 150_000)); !errors.As(err, &bound) {
			t.Errorf("%s 150,000 deep: %v, want a BoundError", h.name, err)
		}
	}
	long := "echo " + strings.Repeat("x", shellparse.MaxLineBytes)
	if _, err := shellparse.Parse(long); !errors.As(err, &bound) || !strings.Contains(bound.Why, "bytes long") {
		t.Errorf("a line of %d bytes: %v, want a BoundError saying how long it is", len(long), err)
	}
	for _, ok := range []string{"git status && " + strings.Repeat("git status && ", 30_000) + "true", "if [[ -f x && -n $(cat x) ]]; then rm -rf -- x; fi", "echo $(( (1+2)*3 ))"} {
		if _, err := shellparse.Parse(ok); err != nil {
			t.Errorf("%.40q…: %v", ok, err)
		}
	}
}

// The bounds keep the stack small whatever the line: in a process whose
// stack may not pass 64 MB (1 GB is Go's own bound), every way of
// nesting is parsed at the deepest the bound lets through without the
// process ending. The test runs itself again with that stack bound.
func TestParseWithinBoundsKeepsTheStackSmall(t *testing.T) {
	if os.Getenv("SHELLPARSE_STACK_CHILD") == "1" {
		debug.SetMaxStack(64 << 20)
		for _, h := range stackHogs {
			levels := 1
			for levels < 1<<20 {
				if _, err := shellparse.Parse(hog(h, levels*2)); errors.As(err, new(*shellparse.BoundError)) {
					break
				}
				levels *= 2
			}
			for step := levels / 2; step > 0; step /= 2 { // the deepest not refused
				if _, err := shellparse.Parse(hog(h, levels+step)); !errors.As(err, new(*shellparse.BoundError)) {
					levels += step
				}
			}
			t.Logf("%s: parsed %d levels", h.name, levels)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestParseWithinBoundsKeepsTheStackSmall$", "-test.v")
	cmd.Env = append(os.Environ(), "SHELLPARSE_STACK_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("parsing within the bounds overflowed a 64 MB stack: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// Parse, its bounds' check included, is linear in the line's length,
// whatever it nests or repeats.
func TestParseIsLinear(t *testing.T) {
	for name, input := range map[string]func(int) string{
		"parentheses":   lineartest.Repeat("("),
		"a flat list":   lineartest.Repeat("git status && "),
		"continuations": lineartest.Repeat("\\\n"),
		"keywords":      lineartest.Repeat("time "),
		"quotes":        lineartest.Repeat(`"$('`),
		"words":         lineartest.Repeat("ab "),
	} {
		lineartest.Linear(t, name, input, func(line string) { _, _ = shellparse.Parse(line) })
	}
}
