package tools

import (
	"context"
	"errors"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/workspace"
)

// Tool is one capability the model can call.
type Tool interface {
	// Name is the function name the model uses.
	Name() string
	// Declaration is what the model is told about the tool.
	Declaration() *genai.FunctionDeclaration
	// Build validates args and returns a runnable call, or an error whose
	// message is sent to the model as the call's error result.
	Build(args map[string]any) (Call, error)
}

// Kind groups calls by what they can do, for permissions and display.
type Kind string

const (
	KindRead    Kind = "read"
	KindSearch  Kind = "search"
	KindEdit    Kind = "edit"
	KindExecute Kind = "execute"
	KindFetch   Kind = "fetch"
	// KindThink: the call only records the model's own reasoning (its
	// to-do list).
	KindThink Kind = "think"
)

// Call is a validated invocation of a tool.
type Call interface {
	// Title is one human line saying what this call will do.
	Title() string
	Kind() Kind
	// Confirmation is what the user must approve before Execute, or nil when
	// the call needs no approval. Edits return nil: their confirmation is the
	// ChangeProposer's.
	Confirmation() *Confirmation
	// Execute runs the call. A returned error is a failure of the call,
	// reported to the model as an error result; ctx cancels it.
	Execute(ctx context.Context) (Result, error)
}

// Confirmation describes a non-edit approval request.
type Confirmation struct {
	Kind    string // "execute"
	Title   string // e.g. "Allow shell command?", and why it always asks
	Details string // the command, shown verbatim
	// AllowKeys are what "always allow" remembers: for shell, the name of
	// every command the line runs. The call runs without asking once the
	// user allowed every key; without keys it asks every time.
	AllowKeys []string
}

// Status is how a call ended, for the user's display.
type Status string

const (
	StatusOK        Status = "ok"
	StatusError     Status = "error"
	StatusRejected  Status = "rejected"
	StatusCancelled Status = "cancelled"
)

// Result is a call's two faces: what the model reads and what the user sees.
type Result struct {
	// Output is the llmContent text, sent as {"output": Output}.
	Output string
	// Parts are extra parts for the model (inline images, PDFs).
	Parts []*genai.Part
	// Error, when non-empty, is sent as {"error": Error} instead of output.
	Error string
	// Status defaults to ok, or error when Error is set.
	Status Status
	// Display is Markdown for the user.
	Display string
}

// CallInfo identifies the call being executed, for front ends that ask the
// user. The agent attaches it to the context passed to Execute.
type CallInfo struct {
	SessionID string
	CallID    string
	// Permissions is the session's approval service; nil allows nothing.
	Permissions Permissions
}

// Allowed reports whether the session allows every one of keys without
// asking.
func (c CallInfo) Allowed(keys ...string) bool {
	return c.Permissions != nil && c.Permissions.Allowed(keys...)
}

// EditKey is the permission key of file changes: allowed by auto_edit and
// yolo, or by the user's "always allow" on an edit.
const EditKey = "edit"

// Permissions is a session's approval service, the one place that knows
// what runs without asking: the approval mode, the settings' allowed
// tools, and what the user allowed for the rest of the session. Whoever
// asks the user (the agent for confirmations, a front end's proposer for
// edits) records an "always allow" here.
type Permissions interface {
	// Allowed reports whether every one of keys runs without asking; no
	// keys is never allowed, except in yolo mode.
	Allowed(keys ...string) bool
	// AllowAlways records that the user allowed keys for the rest of the
	// session.
	AllowAlways(keys ...string)
}

type callInfoKey struct{}

// WithCallInfo returns ctx carrying info.
func WithCallInfo(ctx context.Context, info CallInfo) context.Context {
	return context.WithValue(ctx, callInfoKey{}, info)
}

// CallInfoFrom returns the CallInfo in ctx, if any.
func CallInfoFrom(ctx context.Context) (CallInfo, bool) {
	info, ok := ctx.Value(callInfoKey{}).(CallInfo)
	return info, ok
}

// Outcome is what became of a proposed change.
type Outcome string

const (
	// Applied: the file now holds exactly the proposed text.
	Applied Outcome = "applied"
	// Declined: the user rejected it; the file is unchanged.
	Declined Outcome = "declined"
	// Modified: the user changed the proposal; Decision.Content holds the result.
	Modified Outcome = "modified"
	// Stale: the document changed since the proposal was made; nothing applied.
	Stale Outcome = "stale"
)

// Decision reports a proposal's outcome truthfully, read from the document.
type Decision struct {
	Outcome Outcome
	// Content is the file's text after the exchange (for Modified, what the
	// user made of it).
	Content string
	// Reason explains Declined or Stale in words for the model.
	Reason string
}

// LandOnDisk writes an allowed change to disk, for the proposers with no
// editor to land it in: applied, or stale when disk no longer holds what
// the change was made from (workspace.WriteFile's check), with why.
func LandOnDisk(ctx context.Context, change workspace.FileChange) (Decision, error) {
	if err := workspace.WriteFile(ctx, change, change.After); err != nil {
		if errors.Is(err, workspace.ErrStale) {
			return Decision{Outcome: Stale, Reason: err.Error()}, nil
		}
		return Decision{}, err
	}
	return Decision{Outcome: Applied, Content: change.After}, nil
}

// ChangeProposer confirms and applies file changes. Each front end has one.
type ChangeProposer interface {
	Propose(ctx context.Context, change workspace.FileChange) (Decision, error)
}

// ApprovalMode says what runs without asking.
type ApprovalMode string

const (
	ApprovalDefault  ApprovalMode = "default"   // ask for edits and shell
	ApprovalAutoEdit ApprovalMode = "auto_edit" // edits without asking
	ApprovalYolo     ApprovalMode = "yolo"      // everything without asking
)
