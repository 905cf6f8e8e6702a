package shellquote

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// hostile are values a user may type as a custom command's arguments.
var hostile = []string{
	"",
	"plain-word_1.2",
	"it's!",
	"!'",
	"a'b!c",
	"don't!!",
	"!!",
	"!$",
	"!-1",
	`it's "$x" \ ! done`,
	`a\!b`,
	"'",
	`"`,
	`\`,
	`\\`,
	"`id`",
	"$(id)",
	"${HOME}",
	"$HOME",
	"~",
	"~root",
	"~/x",
	"a=~",
	"x:~",
	"*",
	"?",
	"[a]",
	"{a,b}",
	"a b",
	" lead and trail ",
	"tab\there",
	"new\nline",
	"\u00a0x",
	"\u2028",
	"a; reboot",
	"a && reboot",
	"C:$x",
	"a:b",
	"#not a comment",
	"-n",
	"é ü 中",
	"!{x}",
	"{{args}}",
	"$'\\n'",
	"%s",
	// Bytes that are not UTF-8 (a file name in Latin-1), in each way of
	// quoting: they were written as U+FFFD inside double quotes.
	"it's caf\xe9",
	"'\x80\xff",
	"a b\xc3",
	"caf\xe9!",
	"\x01\x7f",
}

// Each value reaches a command run by "bash -c" as it was: printf prints
// it back.
func TestQuotedValueReachesBashAsItWas(t *testing.T) {
	checkShell(t, "bash")
}

func TestQuotedValueReachesShAsItWas(t *testing.T) {
	checkShell(t, "sh")
}

func checkShell(t *testing.T, shell string) {
	// As platformtest.Tool, which imports this package: skipped on
	// Windows and on a contributor's machine without the shell, failed
	// under CI, where it must be there.
	path, err := exec.LookPath(shell)
	switch {
	case err == nil:
	case runtime.GOOS == "windows":
		t.Skipf("needs %s, which this Windows does not have", shell)
	case os.Getenv("CI") != "":
		t.Fatalf("needs %s: %v (the CI machine should have it)", shell, err)
	default:
		t.Skipf("needs %s on PATH: %v", shell, err)
	}
	for _, value := range hostile {
		command := "printf '%s' " + Quote(value)
		out, err := exec.Command(path, "-c", command).Output()
		if err != nil {
			t.Errorf("%s -c %q: %v", shell, command, err)
			continue
		}
		if string(out) != value {
			t.Errorf("%s -c %q printed %q, want %q", shell, command, out, value)
		}
	}
}

// Quote writes what shell-quote 1.8's quote writes where that keeps the
// value; the inputs are Gemini CLI's shellProcessor.test.ts's escaping
// scenarios.
func TestQuoteIsShellQuotes(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"user input", "'user input'"},
		{`a "quoted" string`, `'a "quoted" string'`},
		{"it's a string", `"it's a string"`},
		{"`reboot`", "\\`reboot\\`"},
		{"$(reboot)", `\$\(reboot\)`},
		{"a; reboot", "'a; reboot'"},
		{"first line\nsecond line", "'first line\nsecond line'"},
		{`back\slash`, `'back\slash'`},
		{`it's "$x"`, `"it's \"\$x\""`},
		{"plain-word_1.2", "plain-word_1.2"},
		{"a:b", `a\:b`},
		{"C:$x", `C:\$x`},
		{"wow!", `wow\!`},
		// Where shell-quote's would not keep the value.
		{"it's!", `"it's!"`},
		{"~root", `\~root`},
	} {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
