package policy

import (
	"path"
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
	// redirects reports whether the line redirects input or output
	// anywhere (>, >>, <, <<, <<<, &> ...), as Gemini CLI's hasRedirection
	// finds.
	redirects bool
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

// parseShell reads command as kind reads it; false when it cannot.
func parseShell(kind osshell.Kind, command string) (shellLine, bool) {
	if kind != osshell.Bash {
		return splitWindows(kind, command)
	}
	line := shellLine{budget: partsPerByte*len(command) + minPartsBudget}
	words, ok := line.read(command, maxWrapperDepth)
	line.words = words
	return line, ok && len(line.parts) > 0 && line.budget >= 0
}

// unread is why parseShell could not read the line.
func (line *shellLine) unread() string {
	if line.budget < 0 {
		return "it nests commands too deep to be judged"
	}
	return "it cannot be parsed as " + line.kind.String()
}

// splitWindows reads command as PowerShell or cmd.exe: its commands are
// the parts, and what shellparse.SplitWindows cannot vouch for leaves
// the line unmodelled, as bash's substitutions and eval do.
func splitWindows(kind osshell.Kind, command string) (shellLine, bool) {
	split := shellparse.SplitWindows(kind, command)
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
	line := shellLine{kind: kind, words: wordEnds{across: across}, redirects: split.Redirects, unmodelled: split.Unread}
	for _, c := range split.Commands {
		line.parts = append(line.parts, shellPart{text: c.Text, words: wordEnds{across: across, offset: c.Offset}})
	}
	return line, !split.Broken && len(line.parts) > 0
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
	if err != nil {
		return wordEnds{}, false
	}
	words := newWordEnds(file, len(command))
	syntax.Walk(file, func(n syntax.Node) bool {
		if line.budget < 0 {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			if n.Coprocess {
				line.unmodel("it starts a coprocess")
			}
		case *syntax.CallExpr:
			line.part(command, words, n)
			line.call(command, n, depth)
		case *syntax.DeclClause:
			line.part(command, words, n)
			line.decl(n)
		case *syntax.TestClause:
			line.part(command, words, n)
		case *syntax.ArithmCmd:
			line.part(command, words, n)
			line.arithmetic(n.X)
		case *syntax.LetClause:
			line.part(command, words, n)
			for _, x := range n.Exprs {
				line.arithmetic(x)
			}
		case *syntax.ArithmExp:
			line.arithmetic(n.X)
		case *syntax.Assign:
			line.assign(n)
		case *syntax.BinaryTest:
			if arithmeticTest(n.Op) && (!isNumberTest(n.X) || !isNumberTest(n.Y)) {
				line.unmodel("it compares as arithmetic what expands")
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
				line.unmodel("it tests a variable name, which can hide commands")
			}
		case *syntax.ParamExp:
			line.paramExp(n)
		case *syntax.ExtGlob:
			// The parser keeps the pattern as text, but bash expands it:
			// @(x|$(rm y)) runs rm.
			if strings.ContainsAny(n.Pattern.Value, "$`") {
				line.unmodel("it expands inside an extended glob")
			}
		case *syntax.Redirect:
			line.redirects = true
			if n.N != nil && strings.Trim(n.N.Value, "0123456789") != "" {
				line.unmodel("it assigns a file descriptor to a variable")
			}
			if n.Hdoc != nil && !isLiteral(n.Hdoc) {
				line.unmodel("it expands inside a here-document")
			}
		case *syntax.ForClause:
			if _, words := n.Loop.(*syntax.WordIter); !words || n.Select {
				line.unmodel("it runs an arithmetic for loop or a select menu")
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

// call judges a simple command: a builtin that runs shell code or reads
// a variable name is not modelled, a shell wrapper's script is read.
func (line *shellLine) call(command string, call *syntax.CallExpr, depth int) {
	args := call.Args
	// builtin, command and exec run the builtin or program they name.
	for len(args) > 1 && shellparse.IsStaticIn(args[0], "builtin", "command", "exec") {
		args = args[1:]
		for len(args) > 1 && isOption(args[0]) {
			args = args[1:]
		}
	}
	if len(args) == 0 {
		return
	}
	name, ok := shellparse.StaticText(args[0])
	switch {
	case !ok:
	case runsShellCode(name):
		line.unmodel(name + " runs shell code the line does not show")
	default:
		if _, takes := shellparse.VariableNameArg(name, args[1:]); takes {
			line.unmodel(name + " may take a variable name, which can hide commands")
		}
	}
	script, ok := wrappedScript(command, call)
	switch {
	case !ok:
	case depth == 0:
		line.unmodel("its shell scripts nest too deep")
	default:
		if _, ok := line.read(script, depth-1); !ok {
			line.unmodel("its shell script cannot be parsed")
		}
	}
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
			line.unmodel(d.Variant.Value + " takes a word that may expand to an assignment")
		case strings.HasPrefix(opt, "-") || strings.HasPrefix(opt, "+"):
			if strings.ContainsAny(opt, "in") {
				line.unmodel(d.Variant.Value + " " + opt + " makes values arithmetic or names references")
			}
		}
	}
}

// arithmetic judges an arithmetic expression.
func (line *shellLine) arithmetic(x syntax.ArithmExpr) {
	if !pureArithmetic(x) {
		line.unmodel("it uses arithmetic on variables, which can run commands hidden in them")
	}
}

// assign judges an assignment's subscripts, which bash evaluates as
// arithmetic.
func (line *shellLine) assign(a *syntax.Assign) {
	if a.Index != nil && !pureArithmetic(a.Index) {
		line.unmodel("it assigns to a computed subscript, which can run commands hidden in variables")
	}
	if a.Array == nil {
		return
	}
	for _, e := range a.Array.Elems {
		if e.Index != nil && !pureArithmetic(e.Index) {
			line.unmodel("it assigns to a computed subscript, which can run commands hidden in variables")
		}
	}
}

// paramExp judges a parameter expansion: indirection, subscripts and
// slices evaluate what variables hold, ${x@P} runs the command
// substitutions of its value, ${x:=v} assigns.
func (line *shellLine) paramExp(p *syntax.ParamExp) {
	switch {
	case p.Excl:
		line.unmodel("it uses an indirect expansion, which can run commands hidden in variables")
	case p.Index != nil && !pureArithmetic(p.Index) && !isAllElements(p.Index):
		line.unmodel("it expands a computed subscript, which can run commands hidden in variables")
	case p.Slice != nil && (p.Slice.Offset != nil && !pureArithmetic(p.Slice.Offset) || p.Slice.Length != nil && !pureArithmetic(p.Slice.Length)):
		line.unmodel("it expands a computed slice, which can run commands hidden in variables")
	case p.Flags != nil || p.NestedParam != nil || len(p.Modifiers) > 0 || p.Width || p.IsSet:
		line.unmodel("it uses an expansion bash does not have")
	case p.Exp == nil:
	case p.Exp.Op == syntax.OtherParamOps && !shellparse.IsStaticIn(p.Exp.Word, "Q", "E", "A", "K", "k", "a", "U", "u", "L"):
		line.unmodel("it uses a ${…@…} transformation, which can run commands hidden in variables")
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

// wrappedScript is the script of a call of a shell with -c: the third
// word as the shell passes it when it is static, else its text without
// the quotes around it (its expansions are the outer line's).
func wrappedScript(command string, call *syntax.CallExpr) (string, bool) {
	if len(call.Args) < 3 || call.Args[1].Lit() != "-c" {
		return "", false
	}
	switch path.Base(call.Args[0].Lit()) {
	case "sh", "bash", "zsh":
	default:
		return "", false
	}
	if script, ok := shellparse.StaticText(call.Args[2]); ok {
		return script, true
	}
	script, ok := source(command, call.Args[2])
	if len(script) >= 2 && (script[0] == '\'' || script[0] == '"') && script[len(script)-1] == script[0] {
		script = script[1 : len(script)-1]
	}
	return script, ok
}
