package tools

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/shellparse"
)

// commandCheck is what "always allow" may know about a command line that
// run_shell_command passes to its shell.
type commandCheck struct {
	// names are the commands the line runs, each once, in order: the words
	// bash looks up, after quote removal ("ls" for `\ls` or 'ls'; a path
	// such as ./gradlew stays a path, so allowing ls never allows ./ls).
	names []string
	// prefixes are each command's name and its subcommand, when its
	// first argument is a plain word (go test for go test ./...; rm for
	// rm -rf x), each once, in order: what an "always allow" of the
	// command's prefix allows (ShellPrefixKey). Bash lines only.
	prefixes []string
	// why, when set, says why the line must be confirmed every time, whatever
	// the user allowed before: it does something the names do not show.
	why string
}

// checkCommand parses command as bash and walks all of it. Every simple
// command, however nested (lists, pipelines, subshells, blocks, if, while,
// for, case), must have a name that is plain text. The line is never
// auto-allowed when it writes to a file, substitutes a command or process,
// defines a function, runs a command through another (eval, bash -c,
// xargs, ...), evaluates arithmetic or a variable name bash may expand
// with command substitution, sets a variable that decides which program or
// code runs (PATH, LD_PRELOAD, ...), or cannot be parsed.
//
// A PowerShell or cmd.exe line (kind) is split into its commands instead,
// each of which must have a plain name, none that runs other commands,
// and nothing shellparse.SplitWindows cannot vouch for.
func checkCommand(kind osshell.Kind, command string) commandCheck {
	check := checkBashCommand(command)
	if kind != osshell.Bash {
		check = checkWindowsCommand(kind, command)
	}
	for _, name := range check.names {
		if !IsShellKey(name) {
			// Its "always allow" would allow another kind of call: a
			// program called edit, every file edit.
			return commandCheck{why: "its command " + name + " is named as gemini-ls names other approvals"}
		}
	}
	return check
}

// checkBashCommand is checkCommand of a bash line.
func checkBashCommand(command string) commandCheck {
	file, err := shellparse.Parse(command)
	if bound := (*shellparse.BoundError)(nil); errors.As(err, &bound) {
		return commandCheck{why: bound.Why}
	}
	if err != nil {
		return commandCheck{why: "it could not be parsed as bash (" + err.Error() + ")"}
	}
	w := &commandWalker{src: command}
	w.stmts(file.Stmts)
	if w.why == "" && len(w.names) == 0 {
		w.why = "it runs no command"
	}
	if w.why != "" {
		return commandCheck{why: w.why}
	}
	return commandCheck{names: w.names, prefixes: w.prefixes}
}

// checkWindowsCommand is checkCommand of a PowerShell or cmd.exe line.
func checkWindowsCommand(kind osshell.Kind, command string) commandCheck {
	line := shellparse.SplitWindows(kind, command)
	var why string
	switch {
	case line.Broken:
		why = "it could not be parsed as " + kind.String() + " (a quote is left open)"
	case line.Unread != "":
		why = line.Unread
	case line.Writes:
		why = "it writes to a file"
	case len(line.Commands) == 0:
		why = "it runs no command"
	}
	if why != "" {
		return commandCheck{why: why}
	}
	var names []string
	for _, c := range line.Commands {
		base := strings.TrimSuffix(strings.ToLower(c.Name[strings.LastIndexAny(c.Name, `\/`)+1:]), ".exe")
		switch {
		case c.Name == "":
			return commandCheck{why: "its command name is not plain text (" + firstLine(c.Text) + ")"}
		case isRunner(base):
			return commandCheck{why: c.Name + " runs other commands"}
		}
		if !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	return commandCheck{names: names}
}

// commandWalker collects command names until it finds the first reason to
// always ask.
type commandWalker struct {
	src      string
	names    []string
	prefixes []string
	why      string
}

// ask records why the command always asks, with the source of n.
func (w *commandWalker) ask(what string, n syntax.Node) {
	if w.why != "" {
		return
	}
	if n != nil {
		what += fmt.Sprintf(" (%s)", w.source(n))
	}
	w.why = what
}

// source is the text of n in the command, shortened to one short line.
func (w *commandWalker) source(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(w.src) || start >= end {
		return "?"
	}
	s := w.src[start:end]
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i] + " …"
	}
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40]) + "…"
	}
	return s
}

func (w *commandWalker) stmts(stmts []*syntax.Stmt) {
	for _, s := range stmts {
		w.stmt(s)
	}
}

func (w *commandWalker) stmt(s *syntax.Stmt) {
	if w.why != "" || s == nil {
		return
	}
	// Background (&) and negation (!) run the same commands.
	if s.Coprocess || s.Disown {
		w.ask("it uses a construct bash does not have", s)
		return
	}
	if s.Cmd != nil {
		w.command(s.Cmd)
	}
	for _, r := range s.Redirs {
		w.redirect(r)
	}
}

func (w *commandWalker) command(cmd syntax.Command) {
	if w.why != "" {
		return
	}
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		w.call(c)
	case *syntax.BinaryCmd: // &&, ||, |, |&
		w.stmt(c.X)
		w.stmt(c.Y)
	case *syntax.Block:
		w.stmts(c.Stmts)
	case *syntax.Subshell:
		w.stmts(c.Stmts)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			w.stmts(c.Cond)
			w.stmts(c.Then)
		}
	case *syntax.WhileClause:
		w.stmts(c.Cond)
		w.stmts(c.Do)
	case *syntax.ForClause:
		iter, ok := c.Loop.(*syntax.WordIter)
		switch {
		case c.Select:
			w.ask("it shows a select menu", c)
		case !ok:
			w.ask(arithmetic, c)
		default:
			w.setsVariable(iter.Name.Value, iter.Name)
			for _, word := range iter.Items {
				w.word(word)
			}
			w.stmts(c.Do)
		}
	case *syntax.CaseClause:
		w.word(c.Word)
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				w.word(p)
			}
			w.stmts(item.Stmts)
		}
	case *syntax.TimeClause:
		w.stmt(c.Stmt)
	case *syntax.TestClause:
		w.test(c.X)
	case *syntax.DeclClause:
		w.decl(c)
	case *syntax.FuncDecl:
		w.ask("it defines a function", c)
	case *syntax.ArithmCmd, *syntax.LetClause:
		w.ask(arithmetic, c)
	case *syntax.CoprocClause:
		w.ask("it starts a coprocess", c)
	default:
		w.ask("it uses a construct gemini-ls does not analyse", c)
	}
}

// arithmetic is why arithmetic always asks: bash evaluates the value of a
// variable in it as arithmetic too, and a subscript there (x='a[$(rm -rf
// ~)]') runs its command substitution. Variable names given to builtins
// (read, printf -v, test -v, ...) hide commands the same way.
const arithmetic = "it uses arithmetic, which can run commands hidden in variables"

// isRunner reports whether the command name runs its arguments as a
// command or as shell code, so that allowing it for good would allow
// everything.
func isRunner(name string) bool {
	switch name {
	case "eval", "exec", "source", ".", "command", "builtin", "trap", "alias", "enable", "hash", "fc", "bind",
		"complete", "compgen", "compopt", // builtins
		"sh", "bash", "dash", "zsh", "ksh", "mksh", "csh", "tcsh", "fish", "busybox", // shells
		"env", "xargs", "sudo", "doas", "su", "runuser", "nohup", "nice", "ionice", "timeout", "stdbuf", "setsid",
		"chroot", "taskset", "unshare", "nsenter", "watch", "time", "strace", "ltrace", "parallel":
		return true
	}
	return false
}

func (w *commandWalker) call(c *syntax.CallExpr) {
	for _, a := range c.Assigns {
		w.assign(a)
	}
	if len(c.Args) == 0 {
		return // only assignments
	}
	name, ok := shellparse.StaticText(c.Args[0])
	switch {
	case !ok || name == "":
		w.ask("its command name is not plain text", c.Args[0])
		return
	case name == "command" && len(c.Args) > 1 && shellparse.IsStaticIn(c.Args[1], "-v", "-V"):
		// command -v only looks the name up.
	case isRunner(path.Base(name)): // /usr/bin/env too
		w.ask(name+" runs other commands", nil)
		return
	}
	if arg, ok := shellparse.VariableNameArg(name, c.Args[1:]); ok {
		if arg == nil {
			w.ask(name+" takes a variable name, which can hide commands", nil)
		} else {
			w.ask(name+" may take a variable name, which can hide commands", arg)
		}
		return
	}
	for _, arg := range c.Args[1:] {
		w.word(arg)
	}
	w.addName(name)
	prefix := name
	if sub, ok := subcommand(c); ok {
		prefix += " " + sub
	}
	if !slices.Contains(w.prefixes, prefix) {
		w.prefixes = append(w.prefixes, prefix)
	}
}

// subcommand is c's first argument when it reads as a subcommand, a
// plain word (test in go test, run in npm run): lowercase letters,
// digits, - and _, written as is, so that the prefix it makes is the
// text of the line (a policy's commandPrefix matches the line as
// written). A path or an option is not one, nor the first operand of a
// program that takes no subcommands (echo hi, cd src): that would only
// make the prefix narrower than the command's name, never wider.
func subcommand(c *syntax.CallExpr) (string, bool) {
	if len(c.Args) < 2 || len(c.Args[1].Parts) != 1 || takesOperands(c.Args[0].Lit()) {
		return "", false
	}
	lit, ok := c.Args[1].Parts[0].(*syntax.Lit)
	if !ok || lit.Value == "" || lit.Value[0] < 'a' || lit.Value[0] > 'z' ||
		strings.TrimLeft(lit.Value, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
		return "", false
	}
	name, ok := c.Args[0].Parts[0].(*syntax.Lit)
	if !ok || len(c.Args[0].Parts) != 1 || strings.ContainsAny(name.Value, "\\") {
		return "", false // the name is written otherwise than it reads
	}
	return lit.Value, true
}

// takesOperands reports whether the program is a common one whose
// arguments are operands, files or text, never a subcommand.
func takesOperands(name string) bool {
	switch name {
	case "echo", "printf", "cat", "ls", "cd", "pwd", "mkdir", "rmdir", "rm", "cp", "mv", "touch", "head", "tail",
		"grep", "rg", "find", "wc", "sort", "uniq", "cut", "tr", "sed", "awk", "diff", "test", "which", "file",
		"stat", "chmod", "chown", "ln", "tee", "less", "more", "du", "df", "basename", "dirname", "realpath":
		return true
	}
	return false
}

func (w *commandWalker) addName(name string) {
	if !slices.Contains(w.names, name) {
		w.names = append(w.names, name)
	}
}

// declOptions are the declare/export/local/readonly/typeset options that
// neither make later assignments arithmetic (-i) nor make names references
// (-n).
const declOptions = "aAfFglprtux"

func (w *commandWalker) decl(c *syntax.DeclClause) {
	for _, a := range c.Args {
		if !a.Naked || a.Name != nil {
			w.assign(a)
			continue
		}
		// A word the parser could not read as an assignment: an option,
		// or text bash reads as an assignment at run time.
		opt, ok := shellparse.StaticText(a.Value)
		if !ok || len(opt) < 2 || opt[0] != '-' && opt[0] != '+' || strings.Trim(opt[1:], declOptions) != "" {
			w.ask(c.Variant.Value+" may take a variable name, which can hide commands", a.Value)
			return
		}
	}
	w.addName(c.Variant.Value)
	if !slices.Contains(w.prefixes, c.Variant.Value) {
		w.prefixes = append(w.prefixes, c.Variant.Value)
	}
}

// setsVariable asks when the variable name decides which program a command
// name runs, or loads code into bash or into every program it starts.
func (w *commandWalker) setsVariable(name string, n syntax.Node) {
	switch name {
	case "PATH", "ENV", "BASH_ENV", "SHELLOPTS", "BASHOPTS", "PS4", "BASH_LOADABLES_PATH", "EXECIGNORE",
		"BASH_CMDS", "BASH_ALIASES":
	default:
		if !strings.HasPrefix(name, "LD_") && !strings.HasPrefix(name, "DYLD_") {
			return
		}
	}
	w.ask("it sets "+name+", which changes what runs", n)
}

func (w *commandWalker) assign(a *syntax.Assign) {
	if a.Name != nil {
		w.setsVariable(a.Name.Value, a)
	}
	if a.Index != nil {
		w.ask(arithmetic, a)
	}
	w.word(a.Value)
	if a.Array != nil {
		for _, e := range a.Array.Elems {
			if e.Index != nil {
				w.ask(arithmetic, e)
			}
			w.word(e.Value)
		}
	}
}

func (w *commandWalker) redirect(r *syntax.Redirect) {
	if w.why != "" {
		return
	}
	if r.N != nil && strings.Trim(r.N.Value, "0123456789") != "" {
		w.ask("it redirects a file descriptor variable", r)
		return
	}
	switch r.Op {
	case syntax.RdrIn:
		// Reading /dev/tcp/host/port or /dev/udp/… makes bash connect to
		// host, which a computed path could name.
		w.word(r.Word)
		if path, ok := shellparse.StaticText(r.Word); !ok || strings.HasPrefix(path, "/dev/tcp/") || strings.HasPrefix(path, "/dev/udp/") {
			w.ask("it reads from a path that may be a network connection", r)
		}
	case syntax.WordHdoc: // <<< word
		w.word(r.Word)
	case syntax.Hdoc, syntax.DashHdoc:
		w.word(r.Hdoc) // an unquoted here-document expands its body
	case syntax.DplIn, syntax.DplOut:
		// Duplicating or closing a descriptor (2>&1, >&-) writes no file;
		// >&word with any other word writes to the file word.
		if text, ok := shellparse.StaticText(r.Word); !ok || strings.TrimRight(strings.TrimRight(text, "-"), "0123456789") != "" {
			w.ask("it writes to a file", r)
		}
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
		if !shellparse.IsStaticIn(r.Word, "/dev/null") {
			w.ask("it writes to a file", r)
		}
	default: // <> opens for writing too
		w.ask("it writes to a file", r)
	}
}

// word checks the expansions in a word that bash expands as an argument, a
// value or a redirection target.
func (w *commandWalker) word(word *syntax.Word) {
	if word == nil {
		return
	}
	for _, part := range word.Parts {
		w.wordPart(part)
	}
}

func (w *commandWalker) wordPart(part syntax.WordPart) {
	if w.why != "" {
		return
	}
	switch p := part.(type) {
	case *syntax.Lit, *syntax.SglQuoted:
	case *syntax.ExtGlob:
		// The parser keeps the pattern as text, but bash expands it:
		// @(x|$(rm y)) runs rm.
		w.ask("it uses an extended glob, whose expansions gemini-ls does not analyse", p)
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			w.wordPart(q)
		}
	case *syntax.ParamExp:
		w.paramExp(p)
	case *syntax.CmdSubst:
		w.ask("it uses command substitution", p)
	case *syntax.ProcSubst:
		w.ask("it uses process substitution", p)
	case *syntax.ArithmExp:
		w.ask(arithmetic, p)
	default:
		w.ask("it uses an expansion gemini-ls does not analyse", p)
	}
}

func (w *commandWalker) paramExp(p *syntax.ParamExp) {
	switch {
	case p.Excl:
		w.ask("it uses an indirect expansion, which can run commands hidden in variables", p)
	case p.Index != nil || p.Slice != nil:
		w.ask(arithmetic, p)
	case p.Param == nil || p.Flags != nil || p.NestedParam != nil || len(p.Modifiers) > 0 || p.Width || p.IsSet:
		w.ask("it uses an expansion gemini-ls does not analyse", p)
	case p.Exp != nil && p.Exp.Op == syntax.OtherParamOps:
		// ${x@P} expands x as a prompt, running its command substitutions.
		w.ask("it uses a ${…@…} transformation, which can run commands hidden in variables", p)
	case p.Exp != nil && (p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull):
		w.setsVariable(p.Param.Value, p)
		w.word(p.Exp.Word)
	case p.Exp != nil:
		w.word(p.Exp.Word)
	case p.Repl != nil:
		w.word(p.Repl.Orig)
		w.word(p.Repl.With)
	}
}

// test checks a [[ ]] expression. Its operators are syntax, known before
// anything expands.
func (w *commandWalker) test(x syntax.TestExpr) {
	if w.why != "" {
		return
	}
	switch t := x.(type) {
	case *syntax.BinaryTest:
		switch t.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			w.ask(arithmetic, t)
			return
		}
		w.test(t.X)
		w.test(t.Y)
	case *syntax.UnaryTest:
		if t.Op == syntax.TsVarSet || t.Op == syntax.TsRefVar {
			w.ask("it tests a variable name, which can hide commands", t)
			return
		}
		w.test(t.X)
	case *syntax.ParenTest:
		w.test(t.X)
	case *syntax.Word:
		w.word(t)
	default:
		w.ask("it uses a test gemini-ls does not analyse", t)
	}
}
