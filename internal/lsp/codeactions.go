package lsp

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/internal/ellipsis"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Code actions put Gemini one keystroke away in clients without a plugin
// (Helix's space-a): each runs the gemini.prompt command with a prompt
// made from the diagnostics, selection or TODO at hand.

type codeActionParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Range   *lspRange `json:"range"`
	Context struct {
		Diagnostics []diagnostic `json:"diagnostics"`
		Only        []string     `json:"only"`
	} `json:"context"`
}

type codeAction struct {
	Title       string       `json:"title"`
	Kind        string       `json:"kind"`
	Diagnostics []diagnostic `json:"diagnostics,omitempty"`
	Command     command      `json:"command"`
}

type command struct {
	Title     string `json:"title"`
	Command   string `json:"command"`
	Arguments []any  `json:"arguments"`
}

// todoPattern finds a TODO-style comment and what it asks for.
var todoPattern = lazyregexp.New(`\b(?:TODO|FIXME)\b[:(]?\s*(.*)`)

func (s *Server) codeActions(ctx context.Context, p codeActionParams) ([]codeAction, error) {
	if p.TextDocument.URI == "" {
		return nil, missingField("textDocument.uri")
	}
	if p.Range == nil {
		return nil, missingField("range")
	}
	path, err := uriToPath(p.TextDocument.URI)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: textDocument.uri: %v", err)
	}
	ws, enc := s.agentState.workspace(), s.features.get().Encoding
	var text string
	if f, err := ws.ReadFile(ctx, path, workspace.MaxFileSize); err == nil {
		text = string(f.Content)
	}
	name := ws.Display(path)
	r := *p.Range
	args := func(prompt string, diags []diagnostic) []any {
		return []any{commandPromptArgs{Prompt: &prompt, URI: p.TextDocument.URI, Range: &r, Diagnostics: diags}}
	}
	var actions []codeAction
	add := func(kind, title, prompt string, diags []diagnostic) {
		if !kindAllowed(kind, p.Context.Only) {
			return
		}
		actions = append(actions, codeAction{
			Title: title, Kind: kind, Diagnostics: diags,
			Command: command{Title: title, Command: CommandPrompt, Arguments: args(prompt, diags)},
		})
	}

	start := workspace.OffsetAt(text, r.Start.toWorkspace(), enc)
	end := workspace.OffsetAt(text, r.End.toWorkspace(), enc)
	if start > end {
		start, end = end, start
	}
	// Titles say what goes with the prompt: the file and its lines.
	where := fmt.Sprintf("%s, line %d", name, r.Start.Line+1)
	if r.End.Line > r.Start.Line {
		where = fmt.Sprintf("%s, lines %d–%d", name, r.Start.Line+1, r.End.Line+1)
	}
	if d := p.Context.Diagnostics; len(d) > 0 {
		title := fmt.Sprintf("Gemini: fix the %d diagnostics here (%s)", len(d), where)
		if len(d) == 1 {
			title = fmt.Sprintf("Gemini: fix %s (%s)", quote(ellipsis.Cut(firstLine(d[0].Message), 60)), where)
		}
		add("quickfix", title, fmt.Sprintf("Fix the diagnostics the editor shows here in %s. Change only what the fix needs.", name), d)
	}
	if todo := todoAt(text, start, end); todo != "" {
		add("refactor.rewrite", fmt.Sprintf("Gemini: implement the TODO %s (%s)", quote(ellipsis.Cut(todo, 50)), name),
			fmt.Sprintf("Implement this TODO in %s: %q. Keep the change focused, and remove the TODO once it is done.", name, todo), nil)
	}
	if selected(text[start:end]) {
		add("", fmt.Sprintf("Gemini: explain the selected code (%s)", where), "Explain the selected code: what it does, and anything surprising in it.", nil)
	}
	if a, ok := editSelectionAction(p.TextDocument.URI, name, text, r); ok && kindAllowed(a.Kind, p.Context.Only) {
		actions = append(actions, a)
	}
	if s.conversations.get(s.rootOf(p.TextDocument.URI)) != "" && kindAllowed("", p.Context.Only) {
		actions = append(actions, codeAction{Title: "Gemini: new conversation", Command: command{
			Title: "Gemini: new conversation", Command: CommandNewSession, Arguments: []any{commandScope{URI: p.TextDocument.URI}},
		}})
	}
	if actions == nil {
		actions = []codeAction{}
	}
	return actions, nil
}

func (lp lspPosition) toWorkspace() workspace.Position {
	return workspace.Position{Line: lp.Line, Character: lp.Character}
}

// instructionPattern finds a comment line that gives Gemini an
// instruction: "# gemini: make it iterative", "// Gemini: …", "-- gemini: …",
// "/* gemini: … */", "<!-- gemini: … -->".
var instructionPattern = lazyregexp.New(`(?i)^\s*(?:#+|//+|--|;+|%+|/\*+|<!--|\*)\s*gemini:\s*(.*?)\s*(?:\*/|-->)?\s*$`)

// editSelectionAction is the code action that edits the lines r touches
// as the instruction comment among them says (instructionPattern), for
// editors whose code actions cannot ask for the instruction (Helix): the
// selection is those whole lines, and the instruction says to drop its
// comment. ok is false when no such line is there.
func editSelectionAction(docURI, name, text string, r lspRange) (codeAction, bool) {
	first, last := r.Start.Line, r.End.Line
	if last > first && r.End.Character == 0 {
		last-- // a selection of whole lines ends at the next line's start
	}
	lines := strings.Split(text, "\n")
	for n := first; n <= last && n < len(lines); n++ {
		m := instructionPattern.FindStringSubmatch(strings.TrimSuffix(lines[n], "\r"))
		if m == nil || m[1] == "" {
			continue
		}
		instruction := fmt.Sprintf("%s\n(Leave out the comment line %q that gives this instruction.)", m[1], strings.TrimSpace(lines[n]))
		where := fmt.Sprintf("%s, line %d", name, first+1)
		if last > first {
			where = fmt.Sprintf("%s, lines %d–%d", name, first+1, last+1)
		}
		title := fmt.Sprintf("Gemini: edit selection: %s (%s)", quote(ellipsis.Cut(m[1], 50)), where)
		args := editSelectionParams{Range: &lspRange{Start: lspPosition{Line: first}, End: lspPosition{Line: last + 1}}, Instruction: instruction}
		args.TextDocument.URI = docURI
		return codeAction{Title: title, Kind: "refactor.rewrite", Command: command{Title: title, Command: CommandEditSelection, Arguments: []any{args}}}, true
	}
	return codeAction{}, false
}

// todoAt returns what the TODO on the lines spanning [start, end] asks,
// or "".
func todoAt(text string, start, end int) string {
	lineStart := strings.LastIndexByte(text[:start], '\n') + 1
	lineEnd := len(text)
	if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
		lineEnd = end + i
	}
	for _, line := range strings.Split(text[lineStart:lineEnd], "\n") {
		if m := todoPattern.FindStringSubmatch(line); m != nil {
			todo := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(m[1]), "*/"))
			if todo == "" {
				todo = strings.TrimSpace(line)
			}
			return todo
		}
	}
	return ""
}

// selected reports whether text, what a code action's range covers, is a
// selection the user made: more than a word. Clients send a range without
// one: Helix the character under its block cursor, eglot the word (or
// sexp) at point, others an empty range.
func selected(text string) bool {
	text = strings.TrimSpace(text)
	return strings.ContainsFunc(text, unicode.IsSpace)
}

// kindAllowed applies the client's context.only filter: a kind matches
// when it equals or refines one asked for.
func kindAllowed(kind string, only []string) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if kind == o || strings.HasPrefix(kind, o+".") || o == "" {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

func quote(s string) string { return "“" + s + "”" }
