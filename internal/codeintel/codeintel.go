package codeintel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Op is what a Request asks of a language server.
type Op string

// The operations, as navigate_code's model names them (and Rename,
// rename_symbol's). Each is answered in the LSP JSON shape noted.
const (
	Definition       Op = "definition"        // Location[] | LocationLink[] | Location | null
	TypeDefinition   Op = "type_definition"   // as Definition
	Implementation   Op = "implementation"    // as Definition
	References       Op = "references"        // Location[] | null (declaration included)
	Hover            Op = "hover"             // Hover | null
	DocumentSymbols  Op = "document_symbols"  // DocumentSymbol[] | SymbolInformation[] | null
	WorkspaceSymbols Op = "workspace_symbols" // SymbolInformation[] | WorkspaceSymbol[] | null
	IncomingCalls    Op = "incoming_calls"    // CallHierarchyIncomingCall[] | null
	OutgoingCalls    Op = "outgoing_calls"    // CallHierarchyOutgoingCall[] | null
	Rename           Op = "rename"            // WorkspaceEdit | null
)

// NavigationOps are navigate_code's operations, in the order its
// description lists them.
var NavigationOps = []Op{Definition, TypeDefinition, Implementation, References, Hover, DocumentSymbols, WorkspaceSymbols, IncomingCalls, OutgoingCalls}

// Positional reports whether op asks about a position in a file (all but
// the symbol listings).
func (op Op) Positional() bool { return op != DocumentSymbols && op != WorkspaceSymbols }

// Request is one question to a language server.
type Request struct {
	Op Op
	// Path is the file asked about: absolute, resolved, inside the roots.
	// For WorkspaceSymbols it is the root whose servers are asked (any
	// file there would do: it picks the root).
	Path string
	// LanguageID is the file's LSP language id (languageID), "" for a
	// WorkspaceSymbols request of every language.
	LanguageID string
	// Text is the file's text as the tool read it (the editor's buffer
	// when open); "" for WorkspaceSymbols.
	Text string
	// Position is the symbol's start in Text: Line 0-based, Character in
	// bytes (workspace.UTF8). Providers convert it with ToEncoding.
	Position workspace.Position
	// Query is WorkspaceSymbols' query, NewName Rename's new name.
	Query, NewName string
	// Ask asks the user before a language server that may run the
	// workspace's code is started for the request (spawn.Door.Allow);
	// nil where nobody can be asked. The editor's own servers need no
	// question.
	Ask spawn.Ask
}

// ToEncoding is r.Position in enc, counted in r.Text.
func (r Request) ToEncoding(enc workspace.Encoding) workspace.Position {
	if enc == workspace.UTF8 {
		return r.Position
	}
	return workspace.PositionAt(r.Text, workspace.OffsetAt(r.Text, r.Position, workspace.UTF8), enc)
}

// Answer is a provider's answer: the LSP result, as JSON.
type Answer struct {
	Result json.RawMessage
	// Encoding is what the positions in Result count in.
	Encoding workspace.Encoding
	// Source says who answered, for the model: "gopls", "the editor's
	// language servers".
	Source string
	// Caveat is what the model is told of the answer's worth besides,
	// "" when nothing: a server asked while it still reported work in
	// progress, which it had said nothing more of for long.
	Caveat string
}

// Provider asks language servers.
type Provider interface {
	// Ask answers req, or fails with a *NoServerError when it has no
	// server for req's file, or with the server's own error.
	Ask(ctx context.Context, req Request) (Answer, error)
}

// NoServerError says a provider has no language server for a file.
type NoServerError struct {
	// Language names the file's language ("Go"); File names the file
	// instead where its language is not known.
	Language, File string
	// Install says what to install for one, "" when nothing is known.
	Install string
}

func (e *NoServerError) Error() string {
	msg := "no language server is available for " + e.Language + " files"
	if e.Language == "" {
		msg = "no language server is available for " + e.File
	}
	if e.Install != "" {
		msg += "; install " + e.Install
	}
	return msg
}

// IsNoServer reports whether err says no server answers the file.
func IsNoServer(err error) bool {
	var ns *NoServerError
	return errors.As(err, &ns)
}

// Chain asks each provider in turn until one has a server for the file
// (the editor's own first, then gemini-ls's); nil providers are skipped.
func Chain(ps ...Provider) Provider {
	var kept chain
	for _, p := range ps {
		if p != nil {
			kept = append(kept, p)
		}
	}
	switch len(kept) {
	case 0:
		return nil
	case 1:
		return kept[0]
	}
	return kept
}

type chain []Provider

func (c chain) Ask(ctx context.Context, req Request) (Answer, error) {
	var last error
	for _, p := range c {
		a, err := p.Ask(ctx, req)
		if err == nil || !IsNoServer(err) {
			return a, err
		}
		last = err
	}
	return Answer{}, last
}

// ErrUnknownOp is a Request whose Op no provider knows.
var ErrUnknownOp = errors.New("unknown code-intelligence operation")

// CheckOp is ErrUnknownOp, wrapped with op, unless op is known.
func CheckOp(op Op) error {
	if op == Rename || slices.Contains(NavigationOps, op) {
		return nil
	}
	return fmt.Errorf("%w %q", ErrUnknownOp, op)
}
