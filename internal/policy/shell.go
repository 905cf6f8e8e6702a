package policy

import (
	"errors"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/shellparse"
)

// shellLine is what the rules are told of a shell line.
type shellLine struct {
	// kind is the shell that reads the line.
	kind osshell.Kind
	// words tells where the line's words end, for the whole line.
	words wordEnds
	// parts are the commands the line runs, each as its text in the line,
	// in order: every simple command with the assignments before it, every
	// bare assignment, declaration (export, declare, local, readonly,
	// typeset), test ([[ ]]) and arithmetic command ((( )), let), however
	// nested (lists, pipelines, subshells, blocks, loops, command and
	// process substitutions, assignments' values), and the commands of a
	// shell wrapper's script (sh, bash or zsh -c 'script').
	parts []shellPart
	// unmodelled is why the line does what its parts do not show, so that
	// no rule can speak for it; "" when nothing does.
	unmodelled string
	// runs are the commands the line runs as the programs they start
	// receive their words (runs.go), when withRuns: each simple command,
	// and each command a wrapper at its head starts, however nested.
	runs     []run
	withRuns bool
	// hidden is why the line may run commands that are not among its
	// runs (eval of what expands, arithmetic on variables, a shell reading
	// its input); "" when it runs none.
	hidden string
	// unjudged is why the line holds a construct the judge does not
	// fully understand (the allow-list of grammar: judge.go); "" when
	// every part is understood. names are what its words could name.
	unjudged string
	names    lineNames
	// programs are the commands of programs gemini-ls does not know,
	// whose arguments may name a program they run (judge.go).
	programs []unknownProgram
	// redirects reports whether the line redirects input or output
	// anywhere (>, >>, <, <<, <<<, &> ...), as Gemini CLI's hasRedirection
	// finds.
	redirects bool
	// bounded is why the line, or a script it runs, was not parsed: it
	// is longer or nests deeper than the parser is let read
	// (shellparse.CheckBounds); "" when none was.
	bounded string
	// budget is how many bytes of parts are left to record: nested
	// substitutions repeat the text they hold in each enclosing part, and
	// a line nesting so deep that its parts outgrow the budget is not
	// read at all, as one that cannot be parsed, so that judging it stays
	// linear in its length.
	budget int
}

// shellPart is a command of a shell line.
type shellPart struct {
	text string
	// words tells where the words of text end.
	words wordEnds
}

// wordEnds tells whether a text's words end at a byte offset: the shell
// splits it into words there, after quote removal or not (`git
// status"x"` is git and statusx: a rule for "git status" must not cover
// it). It is computed once per parse, so that judging every part of a
// line against every rule stays linear in the line.
type wordEnds struct {
	// across[i] counts the words that run across byte i of the parsed
	// text (start < i < end); offset is where the text starts in it.
	across []int32
	offset int
}

// at reports whether the shell ends a word at byte i of the text.
func (w wordEnds) at(i int) bool {
	i += w.offset
	return i >= len(w.across) || w.across[i] == 0
}

// newWordEnds counts, for each byte of a text of n bytes, the words of
// file that run across it.
func newWordEnds(file *syntax.File, n int) wordEnds {
	across := make([]int32, n+1)
	syntax.Walk(file, func(node syntax.Node) bool {
		if w, ok := node.(*syntax.Word); ok {
			start, end := int(w.Pos().Offset()), int(w.End().Offset())
			if start+1 < end && end <= n {
				across[start+1]++
				across[end]--
			}
		}
		return true
	})
	for i := 1; i <= n; i++ {
		across[i] += across[i-1]
	}
	return wordEnds{across: across}
}

// maxWrapperDepth bounds how deep parseShell looks into bash -c scripts
// within bash -c scripts.
const maxWrapperDepth = 4

// parseShell reads command as kind reads it, with its runs when
// withRuns; false when it cannot.
func parseShell(kind osshell.Kind, command string, withRuns bool) (shellLine, bool) {
	line := shellLine{kind: kind, withRuns: withRuns, budget: partsPerByte*len(command) + minPartsBudget}
	if kind != osshell.Bash {
		return line.splitWindows(command)
	}
	words, ok := line.read(command, maxWrapperDepth)
	line.words = words
	return line, ok && len(line.parts) > 0 && line.budget >= 0
}

// unread is why parseShell could not read the line.
func (line *shellLine) unread() string {
	switch {
	case line.bounded != "":
		return line.bounded
	case line.budget < 0:
		return "it nests commands too deep to be judged"
	}
	return "it cannot be parsed as " + line.kind.String()
}

// splitWindows reads command as PowerShell or cmd.exe: its commands are
// the parts, and what shellparse.SplitWindows cannot vouch for leaves
// the line unmodelled, as bash's substitutions and eval do.
func (line shellLine) splitWindows(command string) (shellLine, bool) {
	split := shellparse.SplitWindows(line.kind, command)
	across := make([]int32, len(command)+1)
	for _, c := range split.Commands {
		for _, w := range c.Words {
			if w.Start+1 < w.End {
				across[w.Start+1]++
				across[w.End]--
			}
		}
	}
	for i := 1; i < len(across); i++ {
		across[i] += across[i-1]
	}
	line.words, line.redirects, line.unmodelled = wordEnds{across: across}, split.Redirects, split.Unread
	for _, c := range split.Commands {
		line.parts = append(line.parts, shellPart{text: c.Text, words: wordEnds{across: across, offset: c.Offset}})
	}
	if line.withRuns {
		line.windowsRuns(split, maxWrapperDepth)
	}
	return line, !split.Broken && len(line.parts) > 0 && line.budget >= 0
}

// windowsRuns adds the runs of the commands of split, and of the
// scripts their wrappers run, depth deep at most.
func (line *shellLine) windowsRuns(split shellparse.Line, depth int) {
	if split.Hidden != "" {
		line.hide(split.Hidden)
	}
	if split.Broken {
		line.hide("it runs a script that cannot be parsed")
	}
	for _, c := range split.Commands {
		line.wrapped(c.Args, shellparse.ThroughWindows(line.kind, c.Args), depth, nil)
	}
}

// The parts' budget: partsPerByte bytes a byte of the line, and
// minPartsBudget more.
const (
	partsPerByte   = 32
	minPartsBudget = 64 << 10
)

// read adds what command runs to line, and tells where its words end.
func (line *shellLine) read(command string, depth int) (wordEnds, bool) {
	file, err := shellparse.Parse(command)
	if bound := (*shellparse.BoundError)(nil); errors.As(err, &bound) && line.bounded == "" {
		line.bounded = bound.Why
	}
	if err != nil {
		return wordEnds{}, false
	}
	words := newWordEnds(file, len(command))
	syntax.Walk(file, func(n syntax.Node) bool {
		if line.budget < 0 {
			return false
		}
		line.understand(n)
		switch n := n.(type) {
		case *syntax.Stmt:
			if n.Coprocess {
				line.unmodel("it starts a coprocess")
			}
			if call, ok := n.Cmd.(*syntax.CallExpr); ok {
				line.call(command, call, n.Redirs, depth)
			}
		case *syntax.CallExpr:
			line.part(command, words, n)
		case *syntax.DeclClause:
			line.sourcePart(command, words, n)
			line.decl(n)
		case *syntax.TestClause:
			line.sourcePart(command, words, n)
		case *syntax.ArithmCmd:
			line.sourcePart(command, words, n)
			line.arithmetic(n.X)
		case *syntax.LetClause:
			line.sourcePart(command, words, n)
			for _, x := range n.Exprs {
				line.arithmetic(x)
			}
		case *syntax.ArithmExp:
			line.arithmetic(n.X)
		case *syntax.Assign:
			line.assign(n)
		case *syntax.BinaryTest:
			if arithmeticTest(n.Op) && (!isNumberTest(n.X) || !isNumberTest(n.Y)) {
				line.hide("it compares as arithmetic what expands")
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
				line.hide("it tests a variable name, which can hide commands")
			}
		case *syntax.ParamExp:
			line.paramExp(n)
		case *syntax.ExtGlob:
			// The parser keeps the pattern as text, but bash expands it:
			// @(x|$(rm y)) runs rm.
			if strings.ContainsAny(n.Pattern.Value, "$`") {
				line.hide("it expands inside an extended glob")
			}
		case *syntax.Redirect:
			line.redirects = true
			if n.N != nil && strings.Trim(n.N.Value, "0123456789") != "" {
				line.hide("it assigns a file descriptor to a variable")
			}
			if n.Hdoc != nil && !isLiteral(n.Hdoc) {
				line.unmodel("it expands inside a here-document")
			}
		case *syntax.ForClause:
			if _, words := n.Loop.(*syntax.WordIter); !words || n.Select {
				line.hide("it runs an arithmetic for loop or a select menu")
			} else {
				line.unmodel("its for loop assigns a variable")
			}
		case *syntax.FuncDecl:
			line.unmodel("it defines a function")
		case *syntax.CoprocClause:
			line.unmodel("it starts a coprocess")
		}
		return true
	})
	return words, true
}

// unmodel records why, unless a reason is recorded already.
func (line *shellLine) unmodel(why string) {
	if line.unmodelled == "" {
		line.unmodelled = why
	}
}

// part records n, of command, whose words end as words says, as a part.
func (line *shellLine) part(command string, words wordEnds, n syntax.Node) {
	if text, ok := source(command, n); ok {
		line.budget -= len(text)
		words.offset = int(n.Pos().Offset())
		line.parts = append(line.parts, shellPart{text: text, words: words})
	}
}

// sourcePart records n as a part, and as a run its text as written (a
// declaration, test or arithmetic command runs no program: its text is
// what a rule may name).
func (line *shellLine) sourcePart(command string, words wordEnds, n syntax.Node) {
	line.part(command, words, n)
	if text, ok := source(command, n); ok && line.withRuns {
		line.addRun(run{text: text, known: len(text)})
	}
}

// call judges a simple command, with the redirections of its
// statement: a builtin that runs shell code or reads a variable name is
// not modelled; the commands it runs through the wrappers at its head
// are its runs, and the shell scripts they run (sh -c, eval, a shell fed
// a here-document) are read as the line is.
func (line *shellLine) call(command string, call *syntax.CallExpr, redirs []*syntax.Redirect, depth int) {
	args := call.Args
	// builtin, command and exec run the builtin or program they name.
	for len(args) > 1 && shellparse.IsStaticIn(args[0], "builtin", "command", "exec") {
		args = args[1:]
		for len(args) > 1 && isOption(args[0]) {
			args = args[1:]
		}
	}
	if len(args) > 0 {
		line.builtin(args)
	}
	if len(call.Args) > 0 {
		words := shellparse.Words(command, call.Args)
		runs := shellparse.Through(words)
		line.wrapped(words, runs, depth, redirs)
		if line.withRuns {
			line.program(words, runs, call.Assigns)
		}
	}
}

// builtin judges the builtin args name: one that runs shell code, or
// changes what a command name runs, or reads a variable name.
func (line *shellLine) builtin(args []*syntax.Word) {
	name, ok := shellparse.StaticText(args[0])
	switch {
	case !ok:
	case name == "source" || name == ".":
		// A script file is the business of the program that runs it, as
		// bash x.sh's is; input, a process substitution or a name that
		// expands is code the line computes as it runs (issue 95).
		line.unmodel(name + " runs shell code the line does not show")
		if len(args) < 2 {
			break
		}
		if file, ok := shellparse.Text(args[1]); !ok || strings.HasPrefix(file, "/dev/") || strings.HasPrefix(file, "/proc/") {
			line.hide(name + " runs shell code that is not known before it runs")
		}
	case name == "eval" || name == "trap":
		// Through reads their code when it is static.
		line.unmodel(name + " runs shell code the line does not show")
	case runsShellCode(name):
		line.hide(name + " runs shell code the line does not show")
	default:
		if _, takes := shellparse.VariableNameArg(name, args[1:]); takes {
			line.hide(name + " may take a variable name, which can hide commands")
		}
	}
}

// wrapped records what the command of words runs, through its wrappers
// (runs): it and their commands as runs, and the script the last one
// runs, read depth deep at most; the here-document or here-string of
// redirs feeds a shell reading its input.
func (line *shellLine) wrapped(words []shellparse.Word, runs shellparse.Runs, depth int, redirs []*syntax.Redirect) {
	if line.withRuns {
		line.addRuns(words)
		for _, words := range runs.Commands {
			line.addRuns(words)
		}
	}
	script, kind := runs.Script, runs.ScriptShell
	if runs.Stdin {
		if script, kind = stdinScript(redirs); script == nil {
			line.hide("it runs a shell that reads its commands from input the line does not show")
		}
	}
	switch {
	case runs.Unknown != "":
		line.hide(runs.Unknown)
	case script == nil:
	case depth == 0:
		line.hide("its shell scripts nest too deep")
	case kind == "bash":
		if _, ok := line.read(script.Text, depth-1); !ok {
			line.hide("its shell script cannot be parsed")
		}
	case line.withRuns:
		k := osshell.PowerShell
		if kind == "cmd" {
			k = osshell.Cmd
		}
		inner := shellLine{kind: k, withRuns: true, budget: line.budget}
		inner.windowsRuns(shellparse.SplitWindows(k, script.Text), depth-1)
		line.runs, line.budget = append(line.runs, inner.runs...), inner.budget
		if inner.hidden != "" {
			line.hide(inner.hidden)
		}
	}
}

// stdinScript is the script a here-document or here-string of redirs
// feeds a shell, in the language it reads; nil when none does, or when
// what it holds expands.
func stdinScript(redirs []*syntax.Redirect) (*shellparse.Word, string) {
	for _, r := range redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.WordHdoc:
			if text, ok := shellparse.StaticText(r.Word); ok {
				return &shellparse.Word{Text: text + "\n", Static: true}, "bash"
			}
		case syntax.Hdoc, syntax.DashHdoc:
			if text, ok := hereDocument(r); ok {
				return &shellparse.Word{Text: text, Static: true}, "bash"
			}
		}
	}
	return nil, ""
}

// hereDocument is the text of a here-document, when bash passes it as it
// is written: its delimiter is quoted, or it holds no expansion and no
// backslash.
func hereDocument(r *syntax.Redirect) (string, bool) {
	if r.Hdoc == nil {
		return "", true
	}
	if !isLiteral(r.Hdoc) {
		return "", false
	}
	text := r.Hdoc.Lit()
	if isLiteral(r.Word) && strings.ContainsAny(text, "\\$`") {
		return "", false // an unquoted delimiter: bash reads escapes
	}
	return text, true
}

// isOption reports whether word is static text starting with -.
func isOption(word *syntax.Word) bool {
	text, ok := shellparse.StaticText(word)
	return ok && strings.HasPrefix(text, "-")
}

// runsShellCode reports whether the builtin name runs shell code given
// in its arguments or elsewhere (a callback, a trap, a loaded builtin),
// or changes what a command name runs.
func runsShellCode(name string) bool {
	switch name {
	case "eval", "source", ".", "trap", "enable", "hash", "alias", "fc", "bind", "complete", "compgen", "compopt":
		return true
	}
	return false
}

// decl judges a declaration's options and words: -i makes its
// assignments arithmetic, -n makes names references, and a word that is
// not static may expand to an assignment the parser never saw.
func (line *shellLine) decl(d *syntax.DeclClause) {
	for _, a := range d.Args {
		if !a.Naked || a.Name != nil {
			continue // an assignment or a name: Walk visits it
		}
		opt, ok := shellparse.StaticText(a.Value)
		switch {
		case !ok:
			line.hide(d.Variant.Value + " takes a word that may expand to an assignment")
		case strings.HasPrefix(opt, "-") || strings.HasPrefix(opt, "+"):
			if strings.ContainsAny(opt, "in") {
				line.hide(d.Variant.Value + " " + opt + " makes values arithmetic or names references")
			}
		}
	}
}

// arithmetic judges an arithmetic expression.
func (line *shellLine) arithmetic(x syntax.ArithmExpr) {
	if !pureArithmetic(x) {
		line.hide("it uses arithmetic on variables, which can run commands hidden in them")
	}
}

// assign judges an assignment's subscripts, which bash evaluates as
// arithmetic.
func (line *shellLine) assign(a *syntax.Assign) {
	if a.Name != nil && shellparse.IsCodeVariable(a.Name.Value) {
		line.hide("it sets " + a.Name.Value + ", which bash runs as code")
	}
	if a.Index != nil && !pureArithmetic(a.Index) {
		line.hide("it assigns to a computed subscript, which can run commands hidden in variables")
	}
	if a.Array == nil {
		return
	}
	for _, e := range a.Array.Elems {
		if e.Index != nil && !pureArithmetic(e.Index) {
			line.hide("it assigns to a computed subscript, which can run commands hidden in variables")
		}
	}
}

// paramExp judges a parameter expansion: indirection, subscripts and
// slices evaluate what variables hold, ${x@P} runs the command
// substitutions of its value, ${x:=v} assigns.
func (line *shellLine) paramExp(p *syntax.ParamExp) {
	switch {
	case p.Excl:
		line.hide("it uses an indirect expansion, which can run commands hidden in variables")
	case p.Index != nil && !pureArithmetic(p.Index) && !isAllElements(p.Index):
		line.hide("it expands a computed subscript, which can run commands hidden in variables")
	case p.Slice != nil && (p.Slice.Offset != nil && !pureArithmetic(p.Slice.Offset) || p.Slice.Length != nil && !pureArithmetic(p.Slice.Length)):
		line.hide("it expands a computed slice, which can run commands hidden in variables")
	case p.Flags != nil || p.NestedParam != nil || len(p.Modifiers) > 0 || p.Width || p.IsSet:
		line.hide("it uses an expansion bash does not have")
	case p.Exp == nil:
	case p.Exp.Op == syntax.OtherParamOps && !shellparse.IsStaticIn(p.Exp.Word, "Q", "E", "A", "K", "k", "a", "U", "u", "L"):
		line.hide("it uses a ${…@…} transformation, which can run commands hidden in variables")
	case p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull:
		line.unmodel("it assigns a variable inside an expansion")
	}
}

// isAllElements reports whether a subscript is [@] or [*].
func isAllElements(index syntax.ArithmExpr) bool {
	w, ok := index.(*syntax.Word)
	return ok && (w.Lit() == "@" || w.Lit() == "*")
}

// pureArithmetic reports whether x is arithmetic on numbers only: a
// variable, even a bare name, is evaluated as arithmetic in turn, and its
// subscripts run command substitutions.
func pureArithmetic(x syntax.ArithmExpr) bool {
	pure := true
	syntax.Walk(x, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok && !isNumber(w) {
			pure = false
		}
		return pure
	})
	return pure
}

// isNumber reports whether word is a number literal (42, 0x2a, 8#52).
func isNumber(word *syntax.Word) bool {
	text := word.Lit()
	return text != "" && text[0] >= '0' && text[0] <= '9' && strings.Trim(text, "0123456789abcdefABCDEFxX#") == ""
}

// isNumberTest reports whether a [[ ]] operand is a number literal.
func isNumberTest(x syntax.TestExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && isNumber(w)
}

// isLiteral reports whether word holds no expansion.
func isLiteral(word *syntax.Word) bool {
	for _, part := range word.Parts {
		if _, ok := part.(*syntax.Lit); !ok {
			return false
		}
	}
	return true
}

// arithmeticTest reports whether [[ ]]'s op compares as arithmetic.
func arithmeticTest(op syntax.BinTestOperator) bool {
	switch op {
	case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
		return true
	}
	return false
}

// source is n's text in command.
func source(command string, n syntax.Node) (string, bool) {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || start >= end || end > len(command) {
		return "", false
	}
	return strings.TrimSpace(command[start:end]), true
}
