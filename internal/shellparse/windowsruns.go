package shellparse

import (
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
)

// ThroughWindows is Through for a command of a PowerShell or cmd.exe
// line (kind). The wrappers: PowerShell's dot-source operator, cmd.exe's
// call, cmd /c and /k, powershell and pwsh with -Command (and, for
// powershell, without: its arguments are the command), Invoke-Expression
// (iex) of a static string, and the POSIX shells Through knows with -c.
// The other commands that run code given as text or change what a name
// runs (Start-Process, Invoke-Command, Set-Alias, start, wsl …) make what
// they run Unknown. A command's name is compared as Windows finds the
// program: its last path element, in any case, without .exe.
func ThroughWindows(kind osshell.Kind, words []Word) Runs {
	var runs Runs
	for range maxWrappers {
		next, done := runs.unwrapWindows(kind == osshell.PowerShell, words)
		if done || len(next) == 0 {
			return runs
		}
		runs.Commands = append(runs.Commands, next)
		words = next
	}
	runs.Unknown = "it nests wrappers too deep"
	return runs
}

// unwrapWindows is unwrap of a PowerShell (ps) or cmd.exe command.
func (r *Runs) unwrapWindows(ps bool, words []Word) (next []Word, done bool) {
	if len(words) == 0 || !words[0].Static {
		return nil, true
	}
	name, args := WindowsCommandName(words[0].Text), words[1:]
	switch {
	case ps && name == ".", !ps && name == "call":
		return args, false
	case name == "cmd":
		r.cmdScript(args)
	case name == "powershell", name == "pwsh":
		r.powerShellScript(name, args)
	case ps && (name == "iex" || name == "invoke-expression"):
		if len(args) > 0 && args[0].Static && isParameter(args[0].Text, "command", 1) {
			args = args[1:]
		}
		r.windowsScript(args, "powershell")
	case isPOSIXShell(name):
		r.shell(args)
	case runsCode(ps, name):
		r.Unknown = name + " runs code the line does not show"
	}
	return nil, true
}

// cmdScript records what cmd.exe called with args runs: after /c or /k,
// the rest of its words as a cmd.exe line.
func (r *Runs) cmdScript(args []Word) {
	for i, a := range args {
		opt := strings.ToLower(a.Text)
		switch {
		case !a.Static:
			r.Unknown = "cmd takes a word that is not known before it runs"
			return
		case strings.HasPrefix(opt, "/c"), strings.HasPrefix(opt, "/k"):
			rest := args[i+1:]
			if len(a.Text) > 2 { // /cdir: the command starts at once
				rest = append([]Word{{Text: a.Text[2:], Static: true}}, rest...)
			}
			r.windowsScript(rest, "cmd")
			return
		case !isCmdSwitch(opt):
			r.Unknown = "cmd has an option gemini-ls does not know (" + a.Text + ")"
			return
		}
	}
	r.Unknown = "cmd reads its commands from its input"
}

// isCmdSwitch reports whether opt (in lower case) is one of cmd.exe's
// switches other than /c and /k.
func isCmdSwitch(opt string) bool {
	switch opt {
	case "/s", "/q", "/d", "/a", "/u", "/x", "/y", "/e:on", "/e:off", "/f:on", "/f:off", "/v:on", "/v:off":
		return true
	}
	return strings.HasPrefix(opt, "/t:")
}

// powerShellScript records what powershell or pwsh called with args
// runs: -Command's script, or, for powershell, its arguments.
func (r *Runs) powerShellScript(name string, args []Word) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Static {
			r.Unknown = name + " takes a word that is not known before it runs"
			return
		}
		if !strings.HasPrefix(a.Text, "-") && !strings.HasPrefix(a.Text, "/") {
			if name == "powershell" {
				r.windowsScript(args[i:], "powershell")
			} // pwsh runs a file: a program's business
			return
		}
		takes, script, why := powerShellParameter(strings.ToLower(a.Text[1:]))
		switch {
		case why != "":
			r.Unknown = name + " " + why
			return
		case script:
			r.windowsScript(args[i+1:], "powershell")
			return
		case takes < 0: // -File
			return
		}
		i += takes
	}
	r.Unknown = name + " reads its commands from its input"
}

// powerShellParameter judges a parameter of powershell or pwsh (without
// its - or /, in lower case): how many words it takes, whether the rest
// is the script (-Command), or why what it runs cannot be known; takes
// is -1 for -File.
func powerShellParameter(p string) (takes int, script bool, why string) {
	switch {
	case isParameter(p, "command", 1):
		return 0, true, ""
	case isParameter(p, "encodedcommand", 1), p == "ec", isParameter(p, "encodedarguments", 2), p == "ea", isParameter(p, "commandwithargs", 8), p == "cwa":
		return 0, false, "runs a command encoded or given its arguments apart"
	case isParameter(p, "file", 1):
		return -1, false, ""
	}
	for _, flag := range [...]string{"noprofile", "noninteractive", "nologo", "noexit", "sta", "mta", "login", "interactive"} {
		if isParameter(p, flag, 3) || p == "l" && flag == "login" {
			return 0, false, ""
		}
	}
	for _, valued := range [...]string{"executionpolicy", "windowstyle", "inputformat", "outputformat", "version", "configurationname", "psconsolefile", "workingdirectory", "settingsfile", "custompipename"} {
		if isParameter(p, valued, 2) || p == "ep" && valued == "executionpolicy" || p == "w" && valued == "windowstyle" {
			return 1, false, ""
		}
	}
	return 0, false, "has a parameter gemini-ls does not know (-" + p + ")"
}

// isParameter reports whether p is full, or a prefix of it of at least
// shortest letters, as PowerShell's command line takes parameters.
func isParameter(p, full string, shortest int) bool {
	p = strings.TrimPrefix(p, "-")
	return len(p) >= shortest && strings.HasPrefix(full, strings.ToLower(p))
}

// windowsScript records args, joined by spaces, as a script of shell.
// A quote left in an argument would be read again by the shell it is
// passed to, as the outer shell's quoting and the program's own decide:
// such a script is not known.
func (r *Runs) windowsScript(args []Word, shell string) {
	for _, a := range args {
		if !a.Static || strings.Contains(a.Text, `"`) {
			r.Unknown = "it runs a " + shell + " script that is not known before it runs"
			return
		}
	}
	if len(args) == 0 {
		return
	}
	r.code(args, shell)
}

// WindowsCommandName is name as Windows finds the program: its last path
// element, in lower case, without .exe, .com, .bat or .cmd.
func WindowsCommandName(name string) string {
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '\\' || name[i] == '/' {
			name = name[i+1:]
			break
		}
	}
	name = strings.ToLower(name)
	if strings.IndexByte(name, '.') < 0 {
		return name
	}
	for _, ext := range [...]string{".exe", ".com", ".bat", ".cmd"} {
		if base, ok := strings.CutSuffix(name, ext); ok && base != "" {
			return base
		}
	}
	return name
}
