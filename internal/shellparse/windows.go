package shellparse

import (
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
)

// Line is a PowerShell or cmd.exe command line as SplitWindows reads it.
// Unlike Parse, SplitWindows has no grammar of these shells: it finds
// where their commands start and end, and gives up (Unread) at whatever
// could run code its commands do not show, so that its caller asks.
type Line struct {
	// Commands are the line's commands, in order, split wherever the
	// shell may start another: at ; && || | & and line breaks. Where the
	// shell would not (cmd.exe takes ; for a space), a split only asks
	// about more.
	Commands []Command
	// Redirects: the line redirects input or output somewhere.
	Redirects bool
	// Writes: a redirection writes to a file, not to $null, NUL or
	// another stream (2>&1).
	Writes bool
	// Unread is why the line may run what its Commands do not show
	// (a substitution, a script block, a variable the shell expands
	// before it splits the line, a command that runs code given as
	// text); "" when nothing does.
	Unread string
	// Broken: the line cannot be read at all (a quote left open).
	Broken bool
}

// Command is one command of a Line.
type Command struct {
	// Text is the command's text in the line, redirections included.
	Text string
	// Offset is where Text starts in the line.
	Offset int
	// Name is the command's name as typed when it is plain text: not
	// quoted, no variable, no escape. "" when it is not.
	Name string
	// Words are where the command's words are in the line, redirections
	// left out.
	Words []Span
}

// Span is the byte offsets [Start, End) of a word in a line.
type Span struct{ Start, End int }

// typographicQuotes are quotes PowerShell reads as ' and ": a reader that
// took them for text would be inside a string where PowerShell is not.
const typographicQuotes = "\u2018\u2019\u201a\u201b\u201c\u201d\u201e"

// SplitWindows reads line as kind (osshell.PowerShell or osshell.Cmd)
// would, well enough to tell its commands apart.
func SplitWindows(kind osshell.Kind, line string) Line {
	r := &winReader{ps: kind == osshell.PowerShell, line: line}
	switch kind {
	case osshell.PowerShell:
		if strings.ContainsAny(line, typographicQuotes) {
			r.unread("it uses typographic quotes, which PowerShell reads as quotes")
		}
	case osshell.Cmd:
		// cmd.exe expands %VAR% (and !VAR!, when delayed expansion is
		// on) before it looks for separators, inside quotes too, and ^
		// escapes them: the line's text does not show its commands.
		if strings.ContainsAny(line, "%!^") {
			r.unread("it uses cmd.exe's % or ! expansion or ^ escapes, which can hide commands")
		}
	default:
		panic("shellparse: SplitWindows of a " + kind.String() + " line; use Parse")
	}
	r.read()
	return r.out
}

// winReader reads a line for SplitWindows.
type winReader struct {
	ps   bool // PowerShell; else cmd.exe
	line string
	i    int
	out  Line
	// cur is the command being read; nil between commands.
	cur *Command
	end int // where cur's last token ends
}

func (r *winReader) unread(why string) {
	if r.out.Unread == "" {
		r.out.Unread = why
	}
}

// isBlank reports whether c separates words.
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\v' || c == '\f' }

// endsWord reports whether c, outside quotes, ends a word.
func endsWord(c byte) bool { return isBlank(c) || strings.IndexByte("\n\r;|&<>", c) >= 0 }

func (r *winReader) read() {
	for r.i < len(r.line) {
		switch c := r.line[r.i]; {
		case isBlank(c):
			r.i++
		case c == '\n', c == '\r', c == ';':
			r.finish()
			r.i++
		case c == '|', c == '&':
			double := r.i+1 < len(r.line) && r.line[r.i+1] == c
			if c == '&' && !double && r.ps && r.cur == nil {
				r.unread("it runs a command through PowerShell's call operator &")
			}
			r.finish()
			r.i++
			if double {
				r.i++
			}
		case c == '<', c == '>':
			r.redirect()
		default:
			start := r.i
			text, plain := r.word()
			if r.i < len(r.line) && (r.line[r.i] == '>' || r.line[r.i] == '<') && isStream(text, r.ps) {
				r.extend(start, r.i) // 2> : the stream a redirection takes
				continue
			}
			r.addWord(start, r.i, text, plain)
		}
	}
	r.finish()
}

// isStream reports whether text names the stream of a redirection that
// follows it at once (2>, *> in PowerShell).
func isStream(text string, ps bool) bool {
	return text != "" && strings.Trim(text, "0123456789") == "" || ps && text == "*"
}

// word reads a word from r.i: its text after quote removal, and whether
// it is plain text (no quotes, no variable).
func (r *winReader) word() (string, bool) {
	var b strings.Builder
	plain := true
	start := r.i
	for r.i < len(r.line) {
		c := r.line[r.i]
		switch {
		case endsWord(c):
			r.wordEnd(start)
			return b.String(), plain
		case c == '"':
			plain = false
			r.doubleQuoted(&b)
		case c == '\'' && r.ps:
			plain = false
			r.singleQuoted(&b)
		default:
			if r.ps {
				plain = r.powerShellChar(r.i == start) && plain
			} else if c == '(' || c == ')' {
				r.unread("it groups commands in parentheses")
			}
			b.WriteByte(c)
			r.i++
		}
	}
	r.wordEnd(start)
	return b.String(), plain
}

// wordEnd judges the word just read, from start.
func (r *winReader) wordEnd(start int) {
	if r.ps && r.line[start:r.i] == "--%" {
		r.unread("it stops PowerShell's parsing (--%)")
	}
}

// powerShellChar judges the character at r.i, outside quotes, as
// PowerShell's detectPowerShellSubstitution does in 0.61, and stricter:
// it reports whether the character leaves the word plain text.
func (r *winReader) powerShellChar(atWordStart bool) bool {
	c := r.line[r.i]
	next := byte(0)
	if r.i+1 < len(r.line) {
		next = r.line[r.i+1]
	}
	switch {
	case c == '`':
		r.unread("it escapes characters with a backtick")
	case c == '$' && next == '(':
		r.unread("it uses a subexpression $(…)")
	case c == '@' && strings.IndexByte("({'\"", next) >= 0:
		r.unread("it uses an array subexpression, hash table or here-string (@…)")
	case c == '(' || c == ')':
		r.unread("it uses parentheses, which PowerShell evaluates as expressions")
	case c == '{' || c == '}':
		r.unread("it has a script block, which runs code")
	case c == '#' && atWordStart:
		r.unread("it has a comment")
	case c == '$':
		return false // a variable
	}
	return true
}

// singleQuoted reads PowerShell's '…' from r.i (” is a quote).
func (r *winReader) singleQuoted(b *strings.Builder) {
	for r.i++; r.i < len(r.line); r.i++ {
		c := r.line[r.i]
		if c == '\'' {
			if r.i+1 < len(r.line) && r.line[r.i+1] == '\'' {
				b.WriteByte(c)
				r.i++
				continue
			}
			r.i++
			return
		}
		b.WriteByte(c)
	}
	r.out.Broken = true
}

// doubleQuoted reads "…" from r.i: PowerShell's, where "" and `" are
// quotes and $(…) runs commands, or cmd.exe's, which escapes nothing.
func (r *winReader) doubleQuoted(b *strings.Builder) {
	for r.i++; r.i < len(r.line); r.i++ {
		c := r.line[r.i]
		switch {
		case c == '"' && r.ps && r.i+1 < len(r.line) && r.line[r.i+1] == '"':
			b.WriteByte(c)
			r.i++
		case c == '"':
			r.i++
			return
		case c == '`' && r.ps && r.i+1 < len(r.line):
			r.i++
			b.WriteByte(r.line[r.i])
		case c == '$' && r.ps && r.i+1 < len(r.line) && r.line[r.i+1] == '(':
			r.unread("it uses a subexpression $(…)")
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	r.out.Broken = true
}

// redirect reads a redirection from r.i, at its < or >.
func (r *winReader) redirect() {
	r.out.Redirects = true
	start := r.i
	for r.i < len(r.line) && (r.line[r.i] == '>' || r.line[r.i] == '<') {
		r.i++
	}
	if r.i < len(r.line) && r.line[r.i] == '&' { // 2>&1: to another stream
		r.i++
		digits := r.i
		for r.i < len(r.line) && r.line[r.i] >= '0' && r.line[r.i] <= '9' {
			r.i++
		}
		if r.i == digits {
			r.out.Writes = true
		}
		r.extend(start, r.i)
		return
	}
	for r.i < len(r.line) && isBlank(r.line[r.i]) {
		r.i++
	}
	target := r.i
	r.word()
	r.extend(start, r.i)
	if r.line[start] == '>' && !r.isNull(r.line[target:r.i]) {
		r.out.Writes = true
	}
}

// isNull reports whether a redirection's target, as typed, discards what
// is written to it.
func (r *winReader) isNull(target string) bool {
	if r.ps {
		return strings.EqualFold(target, "$null")
	}
	return strings.EqualFold(target, "nul")
}

// extend makes [start, end) part of the current command, starting one.
func (r *winReader) extend(start, end int) {
	if r.cur == nil {
		r.cur = &Command{Offset: start}
	}
	r.end = end
}

// addWord adds the word [start, end), text after quote removal, to the
// current command.
func (r *winReader) addWord(start, end int, text string, plain bool) {
	r.extend(start, end)
	r.cur.Words = append(r.cur.Words, Span{start, end})
	if len(r.cur.Words) > 1 {
		return
	}
	if plain {
		r.cur.Name = text
	}
	if runsCode(r.ps, text) {
		r.unread(text + " runs code the line does not show")
	}
}

// finish ends the current command, if any.
func (r *winReader) finish() {
	if r.cur == nil {
		return
	}
	r.cur.Text = r.line[r.cur.Offset:r.end]
	r.out.Commands = append(r.out.Commands, *r.cur)
	r.cur = nil
}

// runsCode reports whether the command name runs code given to it as
// text or as a file, or changes what a name runs: PowerShell's names
// and aliases (any case), cmd.exe's built-ins, and the shells either
// may start.
func runsCode(ps bool, name string) bool {
	name = windowsCommandName(name)
	switch name {
	case "powershell", "pwsh", "cmd", "bash", "sh", "wsl", "wscript", "cscript", "mshta", "rundll32", "runas":
		return true
	}
	if !ps {
		switch name {
		case "call", "start", "for", "if", "doskey":
			return true
		}
		return false
	}
	switch name {
	case ".", "invoke-expression", "iex", "invoke-command", "icm", "start-process", "saps", "start",
		"start-job", "sajb", "start-threadjob", "invoke-item", "ii", "foreach-object", "%", "foreach",
		"where-object", "?", "where", "set-alias", "sal", "new-alias", "nal", "import-alias", "ipal",
		"set-item", "si", "new-item", "ni", "import-module", "ipmo", "add-type", "new-module", "nmo",
		"set-variable", "sv", "set", "new-variable", "nv", "register-engineevent", "register-objectevent",
		"set-psbreakpoint", "sbp":
		return true
	}
	return false
}

// windowsCommandName is name as Windows finds the program: its last
// path element, in lower case, without .exe.
func windowsCommandName(name string) string {
	name = name[strings.LastIndexAny(name, `\/`)+1:]
	return strings.TrimSuffix(strings.ToLower(name), ".exe")
}
