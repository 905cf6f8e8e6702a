package policy

import (
	"path"
	"reflect"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/gemini-ls/gemini-ls/internal/shellparse"
)

// The judge reads a line by an allow-list of grammar (issue 95): a line
// is judged only when every part of it is a construct it fully
// understands. Bash kept finding ways to run a word that a list of
// dangers did not hold (a coprocess in a pipeline, $'\x{72}', PS4 with
// set -x, source <(…)); what is not on this list is "cannot judge"
// instead, which a restricting rule that could match a word of the line
// decides as it decides a command not known before it runs: it asks,
// and under yolo a deny rule refuses (restrict).

// understand records why the line cannot be judged when n is not a
// construct the judge understands: simple commands and the wrappers
// Through reads, pipelines, lists, subshells, blocks, if, while, until,
// for-in, case, time, redirections, assignments, declarations, [[ ]],
// arithmetic (whose variables hide, as the walk finds), quoting,
// parameter expansions (whose evaluating kinds hide) and command and
// process substitutions (whose commands are read as the line's). A
// function, a coprocess, brace expansion, and any node this list does
// not name (a newer parser's) cannot be judged.
func (line *shellLine) understand(n syntax.Node) {
	if n == nil { // Walk's end of a node's children
		return
	}
	if line.withRuns {
		if w, ok := n.(*syntax.Word); ok {
			line.names.add(w)
		}
	}
	switch n := n.(type) {
	case *syntax.File, *syntax.Comment, *syntax.Redirect, *syntax.CallExpr, *syntax.Assign, *syntax.Word, *syntax.Lit,
		*syntax.SglQuoted, *syntax.DblQuoted, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ParamExp,
		*syntax.ArithmExp, *syntax.ArithmCmd, *syntax.BinaryArithm, *syntax.UnaryArithm,
		*syntax.ParenArithm, *syntax.ExtGlob, *syntax.Subshell, *syntax.Block, *syntax.IfClause, *syntax.WhileClause,
		*syntax.ForClause, *syntax.WordIter, *syntax.CStyleLoop, *syntax.BinaryCmd, *syntax.CaseClause, *syntax.CaseItem,
		*syntax.TestClause, *syntax.BinaryTest, *syntax.UnaryTest, *syntax.ParenTest, *syntax.DeclClause, *syntax.ArrayExpr,
		*syntax.ArrayElem, *syntax.LetClause, *syntax.TimeClause:
	case *syntax.Stmt:
		if n.Coprocess {
			line.unjudge("it starts a coprocess, whose command bash and the parser may read apart")
		}
	case *syntax.FuncDecl:
		line.unjudge("it defines a function")
	case *syntax.CoprocClause:
		line.unjudge("it starts a coprocess, whose command bash and the parser may read apart")
	default:
		line.unjudge("it uses a construct gemini-ls does not judge (" + strings.TrimPrefix(reflect.TypeOf(n).String(), "*syntax.") + ")")
	}
}

// unjudge records why the line cannot be judged, unless a reason is
// recorded already; no rule speaks for such a line either.
func (line *shellLine) unjudge(why string) {
	line.unmodel(why)
	if line.unjudged == "" {
		line.unjudged = why
	}
}

// lineNames are the program names a line's words could hold: each
// token of each word known before it runs (split where a name ends: at
// a blank, a quote, a slash, a semicolon …), and whether some word is
// not known (it could hold any).
type lineNames struct {
	tokens  map[string]bool
	unknown bool
}

// add adds the names word could hold.
func (n *lineNames) add(word *syntax.Word) {
	text, ok := shellparse.Text(word)
	if !ok {
		n.unknown = true
		return
	}
	n.addText(text)
}

// addText adds the tokens of text, also in lower case.
func (n *lineNames) addText(text string) {
	if n.tokens == nil {
		n.tokens = map[string]bool{}
	}
	for _, token := range strings.FieldsFunc(text, notNameByte) {
		n.tokens[token] = true
		n.tokens[strings.ToLower(token)] = true
	}
}

// notNameByte reports whether r ends a program's name in a word.
func notNameByte(r rune) bool {
	return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("._+-", r) || r > 127)
}

// could reports whether the words could name the program rule names as
// the command it starts (the first word of its command prefix; any, for
// a rule of another pattern), counting words not known when unknown.
func (n lineNames) could(rule *Rule, unknown bool) bool {
	fields := strings.Fields(rule.CommandPrefix)
	if len(fields) == 0 {
		return true
	}
	name := path.Base(fields[0])
	return unknown && n.unknown || n.tokens[name] || n.tokens[strings.ToLower(name)]
}

// unknownProgram is a command of a program gemini-ls does not know: it
// may run a program its arguments name (make rm, python -c '…rm…',
// parallel-like tools). An argument not known before it runs is not
// taken to name one: unknown programs take such arguments all the time
// (python x.py "$f"), and a rule cannot name what it never sees.
type unknownProgram struct {
	name  string
	names lineNames
}

// program records the command of words (through the wrappers at its
// head, runs; after the assignments assigns) when the program it ends in
// is one that Through does not read and that is not known to run no
// argument (shellparse.RunsNoArgument): ls rm lists a file; mytool rm x,
// PAGER='rm x' mytool may run rm. The names its arguments could hold
// are those of every word known before the line runs, the wrappers'
// and assignments' included.
func (line *shellLine) program(words []shellparse.Word, runs shellparse.Runs, assigns []*syntax.Assign) {
	last := words
	if len(runs.Commands) > 0 {
		last = runs.Commands[len(runs.Commands)-1]
	}
	if len(last) == 0 || !last[0].Static || shellparse.ReadsThrough(last[0].Text) || shellparse.RunsNoArgument(last) {
		return
	}
	p := unknownProgram{name: last[0].Text}
	for _, w := range words[1:] {
		if w.Static {
			p.names.addText(w.Text)
		}
	}
	for _, a := range assigns {
		if a.Value != nil {
			if text, ok := shellparse.Text(a.Value); ok {
				p.names.addText(text)
			}
		}
	}
	if len(p.names.tokens) > 0 {
		line.programs = append(line.programs, p)
	}
}
