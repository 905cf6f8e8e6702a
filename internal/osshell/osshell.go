package osshell

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gemini-ls/gemini-ls/internal/shellquote"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// Kind is the language a shell reads its command lines in.
type Kind uint8

const (
	// Bash is bash, the shell everywhere but Windows; the zero Kind.
	Bash Kind = iota
	// PowerShell is Windows PowerShell (powershell.exe) or PowerShell 7
	// (pwsh.exe).
	PowerShell
	// Cmd is cmd.exe.
	Cmd
)

func (k Kind) String() string {
	switch k {
	case Bash:
		return "bash"
	case PowerShell:
		return "powershell"
	case Cmd:
		return "cmd"
	}
	return "unknown"
}

// Shell is a shell that runs a command line: Executable with Args, then
// the line as one more argument.
type Shell struct {
	Kind       Kind
	Executable string
	Args       []string
}

// PowerShell's argument prefixes, as 0.61 passes them: pwsh.exe found on
// PATH is not told -NonInteractive. Functions, so that no Shell shares
// another's slice, and nothing is built at start-up.
func powerShellArgs() []string { return []string{"-NoProfile", "-NonInteractive", "-Command"} }

func pwshArgs() []string { return []string{"-NoProfile", "-Command"} }

// cmdArgs: /d skips the AutoRun commands of the registry, /s /c runs
// what follows with its outer quotes stripped, as Node's shell option
// runs cmd.exe.
func cmdArgs() []string { return []string{"/d", "/s", "/c"} }

// Local is the shell that runs command lines on this machine, detected
// from the process's environment and PATH.
func Local() Shell {
	lookPath := spawn.LookPath
	if underWine() {
		lookPath = withoutWindowsPowerShell(lookPath)
	}
	return Detect(runtime.GOOS, os.Getenv, lookPath)
}

// withoutWindowsPowerShell is lookPath finding no powershell.exe: Wine's
// is a stub that runs nothing and exits 0, so a command given to it would
// seem to succeed, silently. pwsh.exe, PowerShell 7, is a real one
// wherever it is installed.
func withoutWindowsPowerShell(lookPath func(string) (string, error)) func(string) (string, error) {
	return func(name string) (string, error) {
		if strings.EqualFold(filepath.Base(strings.ReplaceAll(name, `\`, "/")), "powershell.exe") {
			return "", spawn.ErrNotFound
		}
		return lookPath(name)
	}
}

// BashShell is bash -c: the shell off Windows, and in every container
// image a sandbox runs.
func BashShell() Shell { return Shell{Kind: Bash, Executable: "bash", Args: []string{"-c"}} }

// OrLocal is s, or Local when s is the zero Shell (no executable).
func (s Shell) OrLocal() Shell {
	if s.Executable == "" {
		return Local()
	}
	return s
}

// Detect is the shell that runs command lines on an OS goos (runtime.GOOS
// values) whose environment getenv reads and whose executables lookPath
// finds (spawn.LookPath: a bare name is searched on PATH, a path is
// checked as it is).
func Detect(goos string, getenv func(string) string, lookPath func(string) (string, error)) Shell {
	if goos != "windows" {
		return BashShell()
	}
	comSpec := getenv("ComSpec")
	if lower := strings.ToLower(comSpec); strings.HasSuffix(lower, "powershell.exe") || strings.HasSuffix(lower, "pwsh.exe") {
		return Shell{Kind: PowerShell, Executable: comSpec, Args: powerShellArgs()}
	}
	if path, err := lookPath("pwsh.exe"); err == nil {
		return Shell{Kind: PowerShell, Executable: path, Args: pwshArgs()}
	}
	if path, ok := windowsPowerShell(getenv, lookPath); ok {
		return Shell{Kind: PowerShell, Executable: path, Args: powerShellArgs()}
	}
	// Not 0.61's: it runs powershell.exe whether or not there is one.
	// A Windows without PowerShell (Nano Server, a stripped image, Wine)
	// still has cmd.exe, and %ComSpec% names it.
	executable := "cmd.exe"
	if strings.HasSuffix(strings.ToLower(comSpec), `cmd.exe`) {
		executable = comSpec
	}
	return Shell{Kind: Cmd, Executable: executable, Args: cmdArgs()}
}

// windowsPowerShell finds powershell.exe on PATH, else where Windows
// installs it, which a PATH without System32's subfolders misses.
func windowsPowerShell(getenv func(string) string, lookPath func(string) (string, error)) (string, bool) {
	if path, err := lookPath("powershell.exe"); err == nil {
		return path, true
	}
	root := strings.TrimRight(getenv("SystemRoot"), `\/`)
	if root == "" {
		return "", false
	}
	path, err := lookPath(root + `\System32\WindowsPowerShell\v1.0\powershell.exe`)
	return path, err == nil
}

// Command is the command that runs line in s, through door for why,
// ended with what it started when ctx ends.
func (s Shell) Command(ctx context.Context, door *spawn.Door, why spawn.Reason, line string) *spawn.Cmd {
	cmd := door.Command(ctx, why, s.Executable, append(slices.Clone(s.Args), line)...)
	verbatim(cmd, s, line)
	return cmd
}

// cmdLine is the Windows command line that runs line in cmd.exe. cmd.exe
// does not split its command line as programs do (CommandLineToArgvW):
// quoting line as one argument would escape its quotes with backslashes,
// which cmd.exe keeps. With /s it drops the first and last quote of what
// follows /c and runs the rest as typed.
func (s Shell) cmdLine(line string) string {
	return `"` + s.Executable + `" ` + strings.Join(s.Args, " ") + ` "` + line + `"`
}

// plainArg reports whether arg is what 0.61's escapeShellArg leaves
// unquoted for PowerShell and cmd.exe: /^[a-zA-Z0-9\-_.]+$/.
func plainArg(arg string) bool {
	for _, c := range arg {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return arg != ""
}

// Quote is arg as one literal word of s's command lines, as 0.61's
// escapeShellArg writes it ("" for ""): in single quotes for PowerShell,
// double quotes for cmd.exe (where %VAR% still expands, as in 0.61),
// shell-quote's quoting for bash. PowerShell ends a single-quoted string
// at any of its four single quotes, the typographic ones too (’ ends
// 'it’s'), so each is doubled, as its own
// CodeGeneration.EscapeSingleQuotedStringContent does; 0.61 doubles only
// the ASCII one.
func (s Shell) Quote(arg string) string {
	switch {
	case arg == "":
		return ""
	case (s.Kind == PowerShell || s.Kind == Cmd) && plainArg(arg):
		return arg
	case s.Kind == PowerShell:
		return "'" + escapeSingleQuoted(arg) + "'"
	case s.Kind == Cmd:
		return `"` + strings.ReplaceAll(arg, `"`, `""`) + `"`
	}
	return shellquote.Quote(arg)
}

// powerShellSingleQuotes are the characters PowerShell's tokenizer takes
// for a single quote: ' and ‘ ’ ‚ ‛.
const powerShellSingleQuotes = "'\u2018\u2019\u201a\u201b"

// escapeSingleQuoted is arg with each of PowerShell's single quotes
// doubled, which inside a single-quoted string reads as one.
func escapeSingleQuoted(arg string) string {
	var b strings.Builder
	for i := 0; i < len(arg); {
		r, size := utf8.DecodeRuneInString(arg[i:])
		if strings.ContainsRune(powerShellSingleQuotes, r) {
			b.WriteString(arg[i : i+size])
		}
		b.WriteString(arg[i : i+size]) // as it is, invalid UTF-8 too
		i += size
	}
	return b.String()
}

// Describe is how s runs a command, for the model, in 0.61's words where
// it has them: "`bash -c <command>`", "`powershell.exe -NoProfile
// -Command <command>`" (whichever PowerShell runs it, as 0.61 says).
func (s Shell) Describe() string {
	switch s.Kind {
	case PowerShell:
		return "`powershell.exe -NoProfile -Command <command>`"
	case Cmd:
		return "`cmd.exe /d /s /c <command>`"
	}
	return "`bash -c <command>`"
}
