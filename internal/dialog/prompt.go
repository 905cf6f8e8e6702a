package dialog

import (
	"errors"
	"strings"

	"google.golang.org/genai"
)

// StopReason says why a prompt's turn ended.
type StopReason string

const (
	StopEndTurn   StopReason = "end_turn"
	StopCancelled StopReason = "cancelled"
	StopMaxTurns  StopReason = "max_turns"
	StopError     StopReason = "error"
	// StopMaxTokens: the model's last answer was cut at its output token
	// limit (finish reason MAX_TOKENS); the text so far is kept.
	StopMaxTokens StopReason = "max_tokens"
	// StopLoopDetected: the model repeated itself (the same call, or the
	// same text) and the turn was stopped.
	StopLoopDetected StopReason = "loop_detected"
)

// ErrAnswerCut is the Err of a StopMaxTokens result.
var ErrAnswerCut = errors.New("the model's answer was cut at its output token limit (finish reason MAX_TOKENS)")

// ReferenceError is a prompt's @ reference that could not be read: the
// prompt is not sent, as 0.61's handleAtCommand returns no query, and a
// headless run ends as on 0.61's FatalInputError. Its message is 0.61's.
type ReferenceError struct{ Msg string }

func (e *ReferenceError) Error() string {
	return "Exiting due to an error processing the @ command: " + e.Msg
}

// PromptResult is the outcome of Session.Prompt.
type PromptResult struct {
	StopReason StopReason
	Text       string // all model text of the turn, concatenated
	Usage      Usage  // summed over the turn
	ToolCalls  int
	Err        error // set with StopError
	// Model is the concrete model the turn's last request went to (the
	// one an auto routed it to, or fell back to); "" when none was made.
	Model string
}

// Input is one prompt from the user: the text they typed, and what their
// editor shows. Front ends hand the agent this and never compose
// model-facing text themselves.
type Input struct {
	Text string
	// Editor is what the user is looking at; nil when the front end has no
	// editor (headless) or the user sent none.
	Editor *EditorContext
	// Parts are what the user attached beside the text, sent after it:
	// images, audio, documents a client embedded.
	Parts []*genai.Part
	// Command is the "/name args" the user typed when Parts are what it
	// expanded to (a custom command's prompt, sent as it is) and Text is
	// empty: the session's title and its saved prompt say what was typed.
	Command string
	// Piped: Text begins with what was piped in (a headless run's stdin),
	// which nobody typed and which may come from anywhere: it is data for
	// the model, never a shell line (!) nor a command that writes files
	// where it names (builtin.Builtin.Writes).
	Piped bool
}

// EditorContext is the user's editor as a front end sees it.
type EditorContext struct {
	// ActiveFile is the file the user is working in; nil when none.
	ActiveFile *ActiveFile
	// OpenFiles are the other files open in the editor, as absolute paths.
	OpenFiles []string
}

// ActiveFile is the file the user is working in.
type ActiveFile struct {
	Path string // absolute
	// Cursor is where the caret is, 1-based; nil when unknown.
	Cursor *Position
	// Selection is the selected range, 1-based, and SelectedText its text
	// as the editor holds it (unsaved changes included); empty when
	// nothing is selected.
	Selection    *Range
	SelectedText string
	Diagnostics  []Diagnostic
}

// Position is a 1-based line and column.
type Position struct{ Line, Character int }

// Range is a span between two positions.
type Range struct{ Start, End Position }

// Diagnostic is a problem the editor shows in the active file.
type Diagnostic struct {
	Start    Position
	Severity string // error, warning, information, hint; "" when unknown
	Message  string
	Source   string // the tool that reported it, e.g. "gopls"
	Code     string
}

// ParagraphBreak is what starts a new paragraph after the text so far:
// nothing at the start, else enough line breaks to make a blank line. It
// separates a new model turn's text from the prompt's text so far (and a
// front end's transcript entries alike).
func ParagraphBreak(sofar string) string {
	switch {
	case strings.TrimSpace(sofar) == "", strings.HasSuffix(sofar, "\n\n"):
		return ""
	case strings.HasSuffix(sofar, "\n"):
		return "\n"
	}
	return "\n\n"
}

// ClientPrompt is a system prompt the front end's client gives a session
// (ACP's systemPrompt): Text added to the agent's own instructions, or
// with Override in the place of the built-in ones; the agent's rules
// about approvals stay in either.
type ClientPrompt struct {
	Text     string
	Override bool
}
