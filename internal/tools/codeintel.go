package tools

// What navigate_code and rename_symbol share: the symbol a call names,
// found on its line, and the file it is in, read as read_file reads it.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

const (
	// codeIntelTimeout bounds one call's wait for its language server:
	// a server still indexing says so well before it (langclient).
	codeIntelTimeout = 60 * time.Second
	// maxCodeLines bounds the locations (lines) a navigate_code answer
	// lists; the rest are counted.
	maxCodeLines = 100
	// maxSymbols bounds the document's or workspace's symbols listed.
	maxSymbols = 300
	// maxLineText bounds a listed line's text, in runes.
	maxLineText = 200
	// maxHover bounds a hover's text, in runes.
	maxHover = 2000
)

// readSymbolFile reads path for a code-intelligence call, as read_file
// would: not ignored, not in .git, text.
func readSymbolFile(ctx context.Context, ws *workspace.Workspace, path string) (string, error) {
	if hidden(ctx, ws, path, false) {
		return "", fmt.Errorf("File path '%s' is ignored by configured ignore patterns.", path)
	}
	f, err := ws.ReadFile(ctx, path, maxReadSize)
	switch {
	case ctx.Err() != nil:
		return "", ctx.Err()
	case errors.Is(err, workspace.ErrNotExist):
		return "", fmt.Errorf("File not found: %s", path)
	case err != nil:
		return "", fmt.Errorf("Cannot read %s: %v", path, err)
	case readHidden(ctx, ws, path, f, false):
		return "", fmt.Errorf("File path '%s' is ignored by configured ignore patterns.", f.Real)
	case isBinary(f.Content):
		return "", fmt.Errorf("%s is not a text file.", path)
	}
	return string(f.Content), nil
}

// findSymbol finds symbol on line (1-based) of text: its occurrence-th
// (1-based; 0: the only one) whole-word appearance there. Its errors
// tell the model what the line holds and where else the symbol is, so
// that the next call can be right.
func findSymbol(text string, line int, symbol string, occurrence int) (workspace.Position, error) {
	if strings.TrimSpace(symbol) == "" {
		return workspace.Position{}, errors.New("The 'symbol' parameter must be non-empty: the name of the symbol on the line.")
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if strings.HasSuffix(text, "\n") {
		lines = lines[:len(lines)-1]
	}
	if line < 1 || line > len(lines) {
		return workspace.Position{}, fmt.Errorf("Line %d is not in the file, which has %d lines.", line, len(lines))
	}
	src := lines[line-1]
	at := wordIndexes(src, symbol)
	switch {
	case len(at) == 0:
		msg := fmt.Sprintf("%q is not on line %d, which is empty.", symbol, line)
		if strings.TrimSpace(src) != "" {
			msg = fmt.Sprintf("%q is not on line %d, which reads: %s", symbol, line, clip(strings.TrimSpace(src), maxLineText))
		}
		if elsewhere := linesWith(lines, symbol, 5); len(elsewhere) > 0 {
			msg += fmt.Sprintf("\nIt is on %s %s.", plural(len(elsewhere), "line", "lines"), joinInts(elsewhere))
		}
		return workspace.Position{}, errors.New(msg)
	case occurrence > len(at):
		return workspace.Position{}, fmt.Errorf("%q appears %d %s on line %d, so there is no occurrence %d.", symbol, len(at), plural(len(at), "time", "times"), line, occurrence)
	case occurrence < 1 && len(at) > 1:
		return workspace.Position{}, fmt.Errorf("%q appears %d times on line %d (%s): give 'occurrence' (1 to %d, from the left) to say which.", symbol, len(at), line, clip(strings.TrimSpace(src), maxLineText), len(at))
	}
	i := 0
	if occurrence > 0 {
		i = occurrence - 1
	}
	return workspace.Position{Line: line - 1, Character: at[i]}, nil
}

// wordIndexes are the byte offsets of symbol in s where it is a whole
// word: no letter, digit or _ just before or after it (a symbol that
// is not a word itself, an operator, is matched anywhere).
func wordIndexes(s, symbol string) []int {
	var out []int
	for from := 0; ; {
		i := strings.Index(s[from:], symbol)
		if i < 0 {
			return out
		}
		i += from
		end := i + len(symbol)
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[end:])
		first, _ := utf8.DecodeRuneInString(symbol)
		last, _ := utf8.DecodeLastRuneInString(symbol)
		if (i == 0 || !isWord(first) || !isWord(before)) && (end == len(s) || !isWord(last) || !isWord(after)) {
			out = append(out, i)
		}
		from = i + max(1, len(symbol))
	}
}

func isWord(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// linesWith are the first n lines (1-based) holding symbol as a word.
func linesWith(lines []string, symbol string, n int) []int {
	var out []int
	for i, l := range lines {
		if len(wordIndexes(l, symbol)) > 0 {
			out = append(out, i+1)
			if len(out) == n {
				break
			}
		}
	}
	return out
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// clip is s cut to n runes, with an ellipsis where it was cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// errServerTimeout ends a question the language server took too long
// to answer.
var errServerTimeout = errors.New("the language server took too long")

// askServer asks p, bounded, with errors the model can act on. The bound
// is the server's: it stops while the user is asked whether a server
// may start (req.Ask).
func askServer(ctx context.Context, p codeintel.Provider, req codeintel.Request) (codeintel.Answer, error) {
	ask, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(codeIntelTimeout, func() { cancel(errServerTimeout) })
	defer timer.Stop()
	if user := req.Ask; user != nil {
		req.Ask = func(ctx context.Context, q spawn.Question) (bool, error) {
			timer.Stop()
			defer timer.Reset(codeIntelTimeout)
			return user(ctx, q)
		}
	}
	a, err := p.Ask(ask, req)
	var refused *spawn.RefusedError
	switch {
	case err == nil:
		return a, nil
	case ctx.Err() != nil:
		return a, ctx.Err()
	case errors.Is(context.Cause(ask), errServerTimeout):
		return a, fmt.Errorf("The language server did not answer within %s.", codeIntelTimeout)
	case codeintel.IsNoServer(err):
		return a, fmt.Errorf("No language server can answer for %s: %v.", filepath.Base(req.Path), err)
	case errors.As(err, &refused):
		return a, fmt.Errorf("No language server answered: %v.", err)
	}
	return a, fmt.Errorf("The language server answered with an error: %v", err)
}
