package osshell

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// machine is a Windows for Detect: its environment and the executables
// lookPath finds.
type machine struct {
	env   map[string]string
	found map[string]string // name or path looked up -> path found
}

func (m machine) getenv(key string) string { return m.env[key] }

func (m machine) lookPath(name string) (string, error) {
	if path, ok := m.found[name]; ok {
		return path, nil
	}
	return "", exec.ErrNotFound
}

const systemPowerShell = `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`

func TestDetect(t *testing.T) {
	tests := []struct {
		name string
		goos string
		m    machine
		want Shell
	}{
		{"linux is bash, whatever the environment", "linux",
			machine{env: map[string]string{"ComSpec": `C:\pwsh.exe`}, found: map[string]string{"pwsh.exe": `C:\pwsh.exe`}},
			Shell{Bash, "bash", []string{"-c"}}},
		{"darwin is bash", "darwin", machine{}, Shell{Bash, "bash", []string{"-c"}}},
		{"ComSpec naming pwsh.exe", "windows",
			machine{env: map[string]string{"ComSpec": `C:\Program Files\PowerShell\7\PWSH.EXE`}},
			Shell{PowerShell, `C:\Program Files\PowerShell\7\PWSH.EXE`, []string{"-NoProfile", "-NonInteractive", "-Command"}}},
		{"ComSpec naming powershell.exe, before pwsh on PATH", "windows",
			machine{env: map[string]string{"ComSpec": systemPowerShell}, found: map[string]string{"pwsh.exe": `C:\pwsh\pwsh.exe`}},
			Shell{PowerShell, systemPowerShell, []string{"-NoProfile", "-NonInteractive", "-Command"}}},
		{"pwsh.exe on PATH, ComSpec cmd.exe", "windows",
			machine{env: map[string]string{"ComSpec": `C:\Windows\system32\cmd.exe`}, found: map[string]string{"pwsh.exe": `C:\pwsh\pwsh.exe`, "powershell.exe": systemPowerShell}},
			Shell{PowerShell, `C:\pwsh\pwsh.exe`, []string{"-NoProfile", "-Command"}}},
		{"powershell.exe on PATH", "windows",
			machine{env: map[string]string{"ComSpec": `C:\Windows\system32\cmd.exe`}, found: map[string]string{"powershell.exe": systemPowerShell}},
			Shell{PowerShell, systemPowerShell, []string{"-NoProfile", "-NonInteractive", "-Command"}}},
		{"powershell.exe where Windows installs it, off PATH", "windows",
			machine{env: map[string]string{"SystemRoot": `C:\Windows\`}, found: map[string]string{systemPowerShell: systemPowerShell}},
			Shell{PowerShell, systemPowerShell, []string{"-NoProfile", "-NonInteractive", "-Command"}}},
		{"no PowerShell: ComSpec's cmd.exe", "windows",
			machine{env: map[string]string{"ComSpec": `C:\Windows\system32\cmd.exe`, "SystemRoot": `C:\Windows`}},
			Shell{Cmd, `C:\Windows\system32\cmd.exe`, []string{"/d", "/s", "/c"}}},
		{"no PowerShell, no ComSpec: cmd.exe on PATH", "windows",
			machine{},
			Shell{Cmd, "cmd.exe", []string{"/d", "/s", "/c"}}},
		{"no PowerShell, ComSpec some other program: cmd.exe", "windows",
			machine{env: map[string]string{"ComSpec": `C:\tools\tcc.exe`}},
			Shell{Cmd, "cmd.exe", []string{"/d", "/s", "/c"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Detect(tt.goos, tt.m.getenv, tt.m.lookPath)
			if got.Kind != tt.want.Kind || got.Executable != tt.want.Executable || !slices.Equal(got.Args, tt.want.Args) {
				t.Errorf("Detect = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestDetectLooksNothingUpOffWindows: bash is 0.61's answer there,
// without a search.
func TestDetectLooksNothingUpOffWindows(t *testing.T) {
	Detect("linux", func(string) string { t.Error("getenv called"); return "" },
		func(string) (string, error) { t.Error("lookPath called"); return "", errors.New("no") })
}

// TestQuote: 0.61's escapeShellArg.
func TestQuote(t *testing.T) {
	tests := []struct {
		kind Kind
		arg  string
		want string
	}{
		{PowerShell, "", ""},
		{PowerShell, "plain-word_1.2", "plain-word_1.2"},
		{PowerShell, "two words", "'two words'"},
		{PowerShell, "it's", "'it''s'"},
		{PowerShell, "$(Remove-Item x)", "'$(Remove-Item x)'"},
		{PowerShell, "a`b;c", "'a`b;c'"},
		{PowerShell, `C:\dir\file`, `'C:\dir\file'`},
		{PowerShell, "it’s", "'it’’s'"},
		{Cmd, "", ""},
		{Cmd, "plain-word_1.2", "plain-word_1.2"},
		{Cmd, "two words", `"two words"`},
		{Cmd, `say "hi"`, `"say ""hi"""`},
		{Cmd, "a&b", `"a&b"`},
		{Bash, "", ""},
		{Bash, "plain", "plain"},
		{Bash, "two words", "'two words'"},
		{Bash, "it's", `"it's"`},
	}
	for _, tt := range tests {
		if got := (Shell{Kind: tt.kind}).Quote(tt.arg); got != tt.want {
			t.Errorf("%v Quote(%q) = %q, want %q", tt.kind, tt.arg, got, tt.want)
		}
	}
}

// PowerShell reads each quoted word back as the value: its tokenizer
// (ScanStringLiteral) ends a single-quoted string at any of ' ‘ ’ ‚ ‛
// unless another follows, which it reads as that one. A typographic
// quote ended the string, and what followed ran as code.
func TestPowerShellQuoteReadsBack(t *testing.T) {
	for _, value := range []string{
		"it's", "it’s; Remove-Item -Recurse ~", "‘a’", "‚‛", "''", "'’'",
		"$(x) `n @{}", "new\nline", "caf\xe9 '", "\xe2\x80 '",
	} {
		quoted := (Shell{Kind: PowerShell}).Quote(value)
		if got, ok := readPowerShellSingleQuoted(quoted); !ok || got != value {
			t.Errorf("Quote(%q) = %q, which PowerShell reads as %q (one word: %v)", value, quoted, got, ok)
		}
	}
}

// readPowerShellSingleQuoted is the string a word that is one
// single-quoted PowerShell string means; false when it is not one.
func readPowerShellSingleQuoted(word string) (string, bool) {
	isQuote := func(r rune) bool { return strings.ContainsRune("'\u2018\u2019\u201a\u201b", r) }
	r, size := utf8.DecodeRuneInString(word)
	if !isQuote(r) {
		return "", false
	}
	var b strings.Builder
	for i := size; i < len(word); {
		r, size := utf8.DecodeRuneInString(word[i:])
		if isQuote(r) {
			next, nextSize := utf8.DecodeRuneInString(word[i+size:])
			if !isQuote(next) {
				return b.String(), i+size == len(word)
			}
			i += size
			size = nextSize
		}
		b.WriteString(word[i : i+size])
		i += size
	}
	return b.String(), false // never closed
}

func TestCommand(t *testing.T) {
	for _, s := range []Shell{
		{Bash, "bash", []string{"-c"}},
		{PowerShell, `C:\pwsh\pwsh.exe`, []string{"-NoProfile", "-Command"}},
		{Cmd, "cmd.exe", []string{"/d", "/s", "/c"}},
	} {
		cmd := s.Command(context.Background(), nil, spawn.UserCommand{What: "a test"}, `echo "a b" & x`)
		want := append(append([]string{s.Executable}, s.Args...), `echo "a b" & x`)
		if !slices.Equal(cmd.Args, want) {
			t.Errorf("%v: Args = %q, want %q", s.Kind, cmd.Args, want)
		}
	}
}

// TestCommandKeepsArgs: a Command does not share its Shell's Args, so
// that appending the line never writes into them.
func TestCommandKeepsArgs(t *testing.T) {
	args := make([]string, 1, 4)
	args[0] = "-c"
	s := Shell{Bash, "bash", args}
	s.Command(context.Background(), nil, spawn.UserCommand{What: "a test"}, "one")
	s.Command(context.Background(), nil, spawn.UserCommand{What: "a test"}, "two")
	if got := args[:2][1]; got != "" {
		t.Errorf("Command wrote %q into the Shell's Args", got)
	}
}

// TestCmdLine: cmd.exe gets the line as typed, in one pair of quotes
// that /s drops.
func TestCmdLine(t *testing.T) {
	s := Shell{Cmd, `C:\Windows\system32\cmd.exe`, []string{"/d", "/s", "/c"}}
	got := s.cmdLine(`echo "a b" & dir`)
	want := `"C:\Windows\system32\cmd.exe" /d /s /c "echo "a b" & dir"`
	if got != want {
		t.Errorf("cmdLine = %s, want %s", got, want)
	}
}

func TestDescribe(t *testing.T) {
	tests := map[Kind]string{
		Bash:       "`bash -c <command>`",
		PowerShell: "`powershell.exe -NoProfile -Command <command>`",
		Cmd:        "`cmd.exe /d /s /c <command>`",
	}
	for kind, want := range tests {
		if got := (Shell{Kind: kind}).Describe(); got != want {
			t.Errorf("%v: Describe = %s, want %s", kind, got, want)
		}
	}
}

// Under Wine, powershell.exe is a stub that prints nothing and exits 0:
// Local looks past it, to pwsh where installed, else to cmd.exe.
func TestWinePowerShellIsPassedOver(t *testing.T) {
	m := machine{
		env:   map[string]string{"ComSpec": `C:\windows\system32\cmd.exe`, "SystemRoot": `C:\windows`},
		found: map[string]string{"powershell.exe": systemPowerShell, `C:\windows\System32\WindowsPowerShell\v1.0\powershell.exe`: systemPowerShell},
	}
	if got := Detect("windows", m.getenv, withoutWindowsPowerShell(m.lookPath)); got.Kind != Cmd || got.Executable != `C:\windows\system32\cmd.exe` {
		t.Errorf("under Wine: %+v, want ComSpec's cmd.exe", got)
	}
	m.found["pwsh.exe"] = `C:\pwsh\pwsh.exe`
	if got := Detect("windows", m.getenv, withoutWindowsPowerShell(m.lookPath)); got.Kind != PowerShell || got.Executable != `C:\pwsh\pwsh.exe` {
		t.Errorf("under Wine with PowerShell 7: %+v, want pwsh", got)
	}
}
