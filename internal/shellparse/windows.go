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
	// text), or names a command otherwise than as plain text (an
	// escape); "" when nothing does.
	Unread string
	// Hidden is why the line may run commands that are not among its
	// Commands at all: a substitution, a script block, a comment or
	// quotes the reader does not follow, cmd.exe's %VAR%; "" when
	// every command it runs is one of them (or one they start).
	Hidden string
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
	// Args are the words as the command receives them: quotes and
	// escapes removed, a word holding a variable not Static.
	Args []Word
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
			r.hide("it uses typographic quotes, which PowerShell reads as quotes")
		}
	case osshell.Cmd:
		// cmd.exe expands %VAR% (and !VAR!, when delayed expansion is
		// on) before it looks for separators, inside quotes too, and ^
		// escapes them: the line's text does not show its commands.
		if strings.ContainsAny(line, "%!^") {
			r.unread("it uses cmd.exe's % or ! expansion or ^ escapes, which can hide commands")
		}
		if strings.Contains(line, "%") {
			r.hide("it uses cmd.exe's % expansion, which can hide commands")
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
	// spans and args hold the words of every command, each command's
	// its own part of them: one array for the line, not one a command.
	spans               []Span
	args                []Word
	firstSpan, firstArg int
}

func (r *winReader) unread(why string) {
	if r.out.Unread == "" {
		r.out.Unread = why
	}
}

// hide records why the line may run commands its Commands do not show.
func (r *winReader) hide(why string) {
	r.unread(why)
	if r.out.Hidden == "" {
		r.out.Hidden = why
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
		case r.continuation() > 0:
			r.i += r.continuation()
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
			w := r.word()
			if r.i < len(r.line) && (r.line[r.i] == '>' || r.line[r.i] == '<') && isStream(w.text, r.ps) {
				r.extend(start, r.i) // 2> : the stream a redirection takes
				continue
			}
			r.addWord(start, r.i, w)
		}
	}
	r.finish()
}

// isStream reports whether text names the stream of a redirection that
// follows it at once (2>, *> in PowerShell).
func isStream(text string, ps bool) bool {
	return text != "" && strings.Trim(text, "0123456789") == "" || ps && text == "*"
}

// readWord is a word as word reads it.
type readWord struct {
	// text is the word after quote and escape removal.
	text string
	// plain: no quotes, no variable, no escape.
	plain bool
	// static: no variable; the command receives text.
	static bool
}

// word reads a word from r.i. Its text is the line's own, unless a
// quote or escape makes it another.
func (r *winReader) word() readWord {
	var b strings.Builder
	w := readWord{plain: true, static: true}
	start, copied := r.i, r.i // line[copied:r.i] is text not yet in b
	for r.i < len(r.line) && !endsWord(r.line[r.i]) && r.continuation() == 0 {
		c := r.line[r.i]
		switch {
		case c == '"' || c == '\'' && r.ps || c == '`' && r.ps || c == '^' && !r.ps:
			b.WriteString(r.line[copied:r.i])
			w.plain = false
			w.static = r.transformed(&b) && w.static
			copied = r.i
		case r.ps:
			plain, static := r.powerShellChar(r.i == start)
			w.plain, w.static = w.plain && plain, w.static && static
			r.i++
		default:
			if c == '(' || c == ')' {
				r.hide("it groups commands in parentheses")
			}
			w.static = w.static && c != '!'
			r.i++
		}
	}
	r.wordEnd(start)
	if w.plain {
		w.text = r.line[start:r.i]
	} else {
		b.WriteString(r.line[copied:r.i])
		w.text = b.String()
	}
	return w
}

// transformed reads the quoted text or escape at r.i into b, and reports
// whether it is static.
func (r *winReader) transformed(b *strings.Builder) bool {
	switch r.line[r.i] {
	case '"':
		return r.doubleQuoted(b)
	case '\'':
		r.singleQuoted(b)
	default:
		r.escaped(b)
	}
	return true
}

// continuation is the length of the line continuation at r.i: a
// backtick (PowerShell) or caret (cmd.exe) before a line break; 0 when
// there is none. PowerShell reads it as a blank.
func (r *winReader) continuation() int {
	escape := byte('`')
	if !r.ps {
		escape = '^'
	}
	if r.line[r.i] != escape {
		return 0
	}
	switch rest := r.line[r.i+1:]; {
	case strings.HasPrefix(rest, "\n"):
		return 2
	case strings.HasPrefix(rest, "\r\n"):
		return 3
	}
	return 0
}

// escaped reads an escape outside quotes at r.i: the character after a
// backtick (PowerShell) or caret (cmd.exe) is taken as it is, a quote or
// separator too.
func (r *winReader) escaped(b *strings.Builder) {
	r.unread("it escapes characters with a backtick or caret")
	r.i++
	if r.i == len(r.line) {
		if !r.ps {
			r.hide("it ends in a caret, which joins the line to what follows")
		}
		return
	}
	b.WriteByte(r.line[r.i])
	r.i++
}

// wordEnd judges the word just read, from start.
func (r *winReader) wordEnd(start int) {
	if r.ps && r.line[start:r.i] == "--%" {
		r.hide("it stops PowerShell's parsing (--%)")
	}
}

// powerShellChar judges the character at r.i, outside quotes, as
// PowerShell's detectPowerShellSubstitution does in 0.61, and stricter:
// whether it leaves the word plain text, and static (no variable).
func (r *winReader) powerShellChar(atWordStart bool) (plain, static bool) {
	c := r.line[r.i]
	next := byte(0)
	if r.i+1 < len(r.line) {
		next = r.line[r.i+1]
	}
	switch {
	case c == '$' && next == '(':
		r.hide("it uses a subexpression $(…)")
	case c == '@' && strings.IndexByte("({'\"", next) >= 0:
		r.hide("it uses an array subexpression, hash table or here-string (@…)")
	case c == '(' || c == ')':
		r.hide("it uses parentheses, which PowerShell evaluates as expressions")
	case c == '{' || c == '}':
		r.hide("it has a script block, which runs code")
	case c == '#' && atWordStart:
		r.hide("it has a comment")
	case c == '$', c == '@' && atWordStart:
		return false, false // a variable, or one splatted
	}
	return true, true
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
// quotes and $ expands, or cmd.exe's, which escapes nothing. It reports
// whether what it read is static: no variable.
func (r *winReader) doubleQuoted(b *strings.Builder) bool {
	static := true
	for r.i++; r.i < len(r.line); r.i++ {
		c := r.line[r.i]
		switch {
		case c == '"' && r.ps && r.i+1 < len(r.line) && r.line[r.i+1] == '"':
			b.WriteByte(c)
			r.i++
		case c == '"':
			r.i++
			return static
		case c == '`' && r.ps && r.i+1 < len(r.line):
			r.i++
			static = writeEscaped(b, r.line[r.i]) && static
		case c == '$' && r.ps && r.i+1 < len(r.line) && r.line[r.i+1] == '(':
			r.hide("it uses a subexpression $(…)")
			b.WriteByte(c)
		case c == '$' && r.ps:
			static = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	r.out.Broken = true
	return static
}

// writeEscaped writes what PowerShell makes of a backtick and c inside
// double quotes: `n a line break, `t a tab …, any other c itself. It
// reports false for `u{…}, which it does not decode.
func writeEscaped(b *strings.Builder, c byte) bool {
	if i := strings.IndexByte("0abefnrtv", c); i >= 0 {
		b.WriteByte("\x00\a\b\x1b\f\n\r\t\v"[i])
		return true
	}
	b.WriteByte(c)
	return c != 'u'
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
		r.firstSpan, r.firstArg = len(r.spans), len(r.args)
	}
	r.end = end
}

// addWord adds the word w, at [start, end), to the current command.
func (r *winReader) addWord(start, end int, w readWord) {
	r.extend(start, end)
	r.spans = append(r.spans, Span{start, end})
	r.args = append(r.args, Word{Text: w.text, Static: w.static})
	if len(r.spans)-r.firstSpan > 1 {
		return
	}
	if w.plain {
		r.cur.Name = w.text
	}
	if runsCode(r.ps, w.text) {
		r.unread(w.text + " runs code the line does not show")
	}
}

// finish ends the current command, if any.
func (r *winReader) finish() {
	if r.cur == nil {
		return
	}
	r.cur.Text = r.line[r.cur.Offset:r.end]
	if len(r.spans) > r.firstSpan {
		r.cur.Words = r.spans[r.firstSpan:len(r.spans):len(r.spans)]
		r.cur.Args = r.args[r.firstArg:len(r.args):len(r.args)]
	}
	r.out.Commands = append(r.out.Commands, *r.cur)
	r.cur = nil
}

// runsCode reports whether the command name runs code given to it as
// text or as a file, or changes what a name runs: PowerShell's names
// and aliases (any case), cmd.exe's built-ins, and the shells either
// may start.
func runsCode(ps bool, name string) bool {
	name = WindowsCommandName(name)
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
