package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// navigate_code is gemini-ls's own tool (Gemini CLI 0.61 has none like
// it; Claude Code's LSP tool is its model): the language servers' answers
// about code, from the editor's own servers where the editor answers
// gemini/languageFeature, else from servers gemini-ls starts
// (codeintel). The model names a line and the symbol on it, never a
// column; the answer lists each place as `line: text` under its file,
// relative to the workspace, and leaves out, counting them, the places
// the model may not read (outside the roots, ignored: as read_file
// decides). A hover, which shows a declaration wherever it is, is
// withheld, saying why, when the symbol is declared in such a place
// (navigate_hover.go).

type navigateCodeParams struct {
	Operation  string `json:"operation" jsonschema:"What to find: definition, type_definition, implementation, references, hover, document_symbols, workspace_symbols, incoming_calls (who calls it) or outgoing_calls (what it calls)."`
	FilePath   string `json:"file_path,omitempty" jsonschema:"The file holding the symbol (or, for document_symbols, the file to outline): absolute, or relative to the workspace root. Not needed for workspace_symbols."`
	Line       int    `json:"line,omitempty" jsonschema:"The 1-based line the symbol is on, as read_file numbers lines. Needed for every operation but document_symbols and workspace_symbols."`
	Symbol     string `json:"symbol,omitempty" jsonschema:"The symbol's name exactly as it appears on that line (e.g. Greet, not greet.Greet). Needed with line."`
	Occurrence int    `json:"occurrence,omitempty" jsonschema:"Optional: which appearance of the symbol on the line, 1-based from the left, when it appears more than once."`
	Query      string `json:"query,omitempty" jsonschema:"workspace_symbols' query: a name or part of one."`
}

func (navigateCodeParams) extendSchema(s *jsonschema.Schema) {
	op := s.Properties["operation"]
	for _, o := range codeintel.NavigationOps {
		op.Enum = append(op.Enum, string(o))
	}
	s.Properties["line"].Minimum = jsonschema.Ptr(1.0)
}

// codeIntelTools are navigate_code and rename_symbol where a language
// server can answer (p set).
func codeIntelTools(ws *workspace.Workspace, p codeintel.Provider) []Tool {
	if p == nil {
		return nil
	}
	return []Tool{navigateCode(ws, p), renameSymbol(ws, p)}
}

func navigateCode(ws *workspace.Workspace, p codeintel.Provider) *Defined[navigateCodeParams] {
	return Define(Spec{
		Name: NavigateCodeName,
		Description: "Asks the language servers (the user's editor's, or one gemini-ls starts) about code, as an IDE's go-to-definition, find-references and call hierarchy do. " +
			"Prefer it to grep_search for code questions: a symbol's definition across packages, all its references or callers (no false matches in comments, strings or same-named symbols), " +
			"the implementations of an interface, its type and documentation (hover), a file's outline (document_symbols) or where a name is declared in the project (workspace_symbols with query). " +
			"Name the symbol by its line and its text on that line, never a column. " +
			"Answers list each place as `<line>: <text of the line>` under its file path.",
		Annotations: Annotations{Kind: dialog.KindSearch, ReadOnly: true},
	}, func(params navigateCodeParams) (Call, error) {
		op := codeintel.Op(params.Operation)
		if !slices.Contains(codeintel.NavigationOps, op) {
			return nil, fmt.Errorf("Unknown operation %q: use one of %s.", params.Operation, opList())
		}
		c := &navigateCodeCall{ws: ws, p: p, op: op, line: params.Line, symbol: params.Symbol, occurrence: params.Occurrence, query: params.Query}
		switch {
		case op == codeintel.WorkspaceSymbols:
			if strings.TrimSpace(params.Query) == "" {
				return nil, fmt.Errorf("workspace_symbols needs a 'query': the name, or part of it, to look for.")
			}
			if params.FilePath == "" {
				root, err := defaultDir(ws)
				if err != nil {
					return nil, err
				}
				c.path = root
				return c, nil
			}
		case params.FilePath == "":
			return nil, fmt.Errorf("%s needs 'file_path'.", op)
		case op.Positional() && (params.Line < 1 || strings.TrimSpace(params.Symbol) == ""):
			return nil, fmt.Errorf("%s needs 'line' (1-based) and 'symbol' (its name as it appears on that line).", op)
		}
		abs, err := resolvePath(ws, "file_path", params.FilePath)
		if err != nil {
			return nil, err
		}
		c.path = abs
		if op == codeintel.WorkspaceSymbols {
			c.path = ws.RootOf(abs)
		}
		return c, nil
	})
}

func opList() string {
	s := make([]string, len(codeintel.NavigationOps))
	for i, o := range codeintel.NavigationOps {
		s[i] = string(o)
	}
	return strings.Join(s, ", ")
}

type navigateCodeCall struct {
	ws               *workspace.Workspace
	p                codeintel.Provider
	op               codeintel.Op
	path             string
	line, occurrence int
	symbol, query    string
}

func (c *navigateCodeCall) Title() string {
	switch {
	case c.op == codeintel.WorkspaceSymbols:
		return fmt.Sprintf("Symbols matching %q", c.query)
	case c.op == codeintel.DocumentSymbols:
		return "Outline of " + c.ws.Display(c.path)
	}
	return fmt.Sprintf("%s of %s (%s:%d)", opTitle(c.op), c.symbol, c.ws.Display(c.path), c.line)
}

// Location is the file asked about, at the line.
func (c *navigateCodeCall) Location() (string, int) {
	if c.op == codeintel.WorkspaceSymbols {
		return "", 0
	}
	return c.path, c.line
}

func opTitle(op codeintel.Op) string {
	s := strings.ReplaceAll(string(op), "_", " ")
	return strings.ToUpper(s[:1]) + s[1:]
}

// Confirmation: none; it only reads.
func (*navigateCodeCall) Confirmation() *Confirmation { return nil }

func (c *navigateCodeCall) Execute(ctx context.Context, info CallInfo) (Result, error) {
	req := codeintel.Request{Op: c.op, Path: c.path, Query: c.query, Ask: serverAsk(info)}
	if c.op != codeintel.WorkspaceSymbols {
		text, err := readSymbolFile(ctx, c.ws, c.path)
		if err != nil {
			return failureOf(ctx, err)
		}
		req.Text = text
		if c.op.Positional() {
			pos, err := findSymbol(text, c.line, c.symbol, c.occurrence)
			if err != nil {
				return failure(err.Error()), nil
			}
			req.Position = pos
		}
	}
	if c.op == codeintel.Hover {
		withheld, err := c.hoverWithheld(ctx, req)
		if err != nil {
			return failureOf(ctx, err)
		}
		if withheld != "" {
			return Result{Output: withheld, Display: withheld}, nil
		}
	}
	a, err := askServer(ctx, c.p, req)
	if err != nil {
		return failureOf(ctx, err)
	}
	out, err := c.tell(ctx, req, a)
	if err != nil {
		return failure(fmt.Sprintf("The language server's answer could not be read: %v", err)), nil
	}
	if a.Caveat != "" {
		out += "\n\n" + a.Caveat
	}
	return Result{Output: out, Display: dialog.Fence("", out)}, nil
}

// failureOf is err as the call's failure, unless ctx ended.
func failureOf(ctx context.Context, err error) (Result, error) {
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	return failure(err.Error()), nil
}

// tell is the answer a as the model reads it.
func (c *navigateCodeCall) tell(ctx context.Context, req codeintel.Request, a codeintel.Answer) (string, error) {
	from := " (from " + a.Source + ")"
	l := newLister(ctx, c.ws)
	if req.Text != "" {
		l.know(req.Path, req.Text)
	}
	doc := ""
	if req.Path != "" {
		doc = string(uriOf(req.Path))
	}
	switch c.op {
	case codeintel.Hover:
		text, err := codeintel.HoverText(a.Result)
		if err != nil {
			return "", err
		}
		text = hoverSummary(text)
		if text == "" {
			return fmt.Sprintf("The language server%s has nothing to tell about %s on line %d.", from, c.symbol, c.line), nil
		}
		return fmt.Sprintf("%s%s:\n%s", c.symbol, from, text), nil
	case codeintel.DocumentSymbols:
		syms, err := codeintel.Symbols(a.Result, doc)
		if err != nil {
			return "", err
		}
		return outline(c.ws.Display(c.path), from, syms), nil
	case codeintel.WorkspaceSymbols:
		syms, err := codeintel.Symbols(a.Result, doc)
		if err != nil {
			return "", err
		}
		for _, s := range syms {
			l.add(s.Location, s.Kind+" "+s.Name)
		}
		return l.text(fmt.Sprintf("%s matching %q%s", plural(l.found, "symbol", "symbols"), c.query, from), fmt.Sprintf("No symbol matches %q%s.", c.query, from)), nil
	case codeintel.IncomingCalls, codeintel.OutgoingCalls:
		calls, err := codeintel.Calls(a.Result, c.op == codeintel.IncomingCalls, doc)
		if err != nil {
			return "", err
		}
		return c.tellCalls(l, calls, from), nil
	}
	locs, err := codeintel.Locations(a.Result)
	if err != nil {
		return "", err
	}
	for _, loc := range locs {
		l.add(loc, "")
	}
	what := map[codeintel.Op][2]string{
		codeintel.Definition:     {"definition", "definitions"},
		codeintel.TypeDefinition: {"type definition", "type definitions"},
		codeintel.Implementation: {"implementation", "implementations"},
		codeintel.References:     {"reference", "references"},
	}[c.op]
	head := fmt.Sprintf("%d %s of %s%s", l.found, plural(l.found, what[0], what[1]), c.symbol, from)
	if c.op == codeintel.References {
		head = fmt.Sprintf("%d %s to %s%s", l.found, plural(l.found, what[0], what[1]), c.symbol, from)
	}
	return l.text(head, fmt.Sprintf("No %s of %s found%s.", what[1], c.symbol, from)), nil
}

// tellCalls lists calls: each caller (callee) under its file, with the
// lines of its calls.
func (c *navigateCodeCall) tellCalls(l *lister, calls []codeintel.Call, from string) string {
	in := c.op == codeintel.IncomingCalls
	for _, call := range calls {
		s := call.Symbol
		label := strings.TrimSpace(s.Kind + " " + s.Name)
		if !in {
			// Where the callee is; its calls are lines of the asked file.
			sites := make([]string, 0, len(call.Sites))
			for _, site := range call.Sites {
				sites = append(sites, fmt.Sprint(site.Range.Start.Line+1))
			}
			l.add(s.Location, label+" (called on line "+strings.Join(slices.Compact(sites), ", ")+")")
			continue
		}
		if len(call.Sites) == 0 {
			l.add(s.Location, label)
		}
		for _, site := range call.Sites {
			l.add(site, "in "+label)
		}
	}
	n := len(calls)
	if in {
		return l.text(fmt.Sprintf("%s is called from %d %s%s", c.symbol, n, plural(n, "place", "places"), from), fmt.Sprintf("Nothing calls %s%s.", c.symbol, from))
	}
	return l.text(fmt.Sprintf("%s calls %d %s%s", c.symbol, n, plural(n, "function", "functions"), from), fmt.Sprintf("%s calls nothing%s.", c.symbol, from))
}

// hoverSummary is a hover's signature (its first code block) and the
// first paragraph of the rest.
func hoverSummary(text string) string {
	text = strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
	var sig, rest string
	if strings.HasPrefix(text, "```") {
		if end := strings.Index(text[3:], "\n```"); end >= 0 {
			sig = strings.TrimSpace(text[:3+end+4])
			rest = strings.TrimSpace(text[3+end+4:])
		}
	} else {
		rest = text
	}
	for _, para := range strings.Split(rest, "\n\n") {
		para = strings.TrimSpace(para)
		if para == "" || para == "---" || strings.HasPrefix(para, "[") {
			continue // a separator, a link to the docs
		}
		rest = para
		break
	}
	if sig != "" && rest != "" && !strings.HasPrefix(rest, "```") {
		return clip(sig+"\n"+rest, maxHover)
	}
	if sig != "" {
		return clip(sig, maxHover)
	}
	return clip(rest, maxHover)
}

// outline is a document's symbols, indented by depth, with their lines.
func outline(name, from string, syms []codeintel.Symbol) string {
	if len(syms) == 0 {
		return fmt.Sprintf("%s has no symbols%s.", name, from)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d %s%s\n", name, len(syms), plural(len(syms), "symbol", "symbols"), from)
	for i, s := range syms {
		if i == maxSymbols {
			fmt.Fprintf(&b, "(%d more symbols not shown)\n", len(syms)-maxSymbols)
			break
		}
		detail := ""
		if s.Detail != "" {
			detail = " " + clip(s.Detail, maxLineText)
		}
		fmt.Fprintf(&b, "%s%d: %s %s%s\n", strings.Repeat("  ", s.Depth+1), s.Location.Range.Start.Line+1, s.Kind, s.Name, detail)
	}
	return strings.TrimRight(b.String(), "\n")
}
