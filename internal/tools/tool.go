package tools

import (
	"context"
	"errors"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools/background"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
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

// Call is a validated invocation of a tool.
type Call interface {
	// Title is one human line saying what this call will do.
	Title() string
	// Confirmation is what the agent's approval service decides on before
	// the call runs, or nil when the call needs no approval. Edits return
	// EditConfirmation: their question is asked with the change they
	// propose (Result.Proposal).
	Confirmation() *Confirmation
	// Execute runs the call that info identifies. A returned error is a
	// failure of the call, reported to the model as an error result; ctx
	// cancels it. An edit's Execute changes nothing: it returns the change
	// in Result.Proposal.
	Execute(ctx context.Context, info CallInfo) (Result, error)
}

// SessionTool is a tool whose calls depend on the session that makes
// them: plan mode's tools find the plan in the session's own plans
// directory. The agent builds their calls with BuildIn; Build builds one
// for no session (a transcript's title).
type SessionTool interface {
	Tool
	BuildIn(s SessionScope, raw map[string]any) (Call, error)
}

// SessionScope is what a SessionTool's call knows of its session.
type SessionScope struct {
	// PlansDir is the session's plans directory, absolute with its
	// symlinks resolved, and reachable through the workspace.
	PlansDir string
	// ModeBeforePlan is the mode the session leaves plan mode for when
	// nobody can choose one: the mode it had before it entered plan
	// mode; plan when it started in it.
	ModeBeforePlan dialog.ApprovalMode
}

// Located is a call about one file the user may follow as it runs, as
// Gemini CLI 0.61's toolLocations: the file read_file reads (at its
// start_line), the file replace and write_file change (at the line the
// change starts, once Prepare found it), exit_plan_mode's plan. ACP sends
// it as the tool call's location (an editor following the agent opens
// it); LSP sends it in the toolCall update and shows the plan with
// window/showDocument.
type Located interface {
	// Location is the file, absolute, and the 1-based line in it the call
	// starts at; 0 for none.
	Location() (path string, line int)
}

// Preparing is a call that reads the file it works on before it is
// presented, so that its location names the line it changes, not only
// the file: replace the line old_string starts at, write_file the first
// line it changes. The call keeps what it read and runs on it, so the
// file is read once (the read is bounded as the run's: a file too large
// to edit is not read, and has no line). A call presented without it (a
// transcript's, whose file has changed since) reads nothing.
type Preparing interface {
	Prepare(ctx context.Context)
}

// Prepare has c read what it works on when it is Preparing; the agent
// calls it on the call it is about to run, before Present.
func Prepare(ctx context.Context, c Call) {
	if p, ok := c.(Preparing); ok {
		p.Prepare(ctx)
	}
}

// Presenting is a call that tells the front ends more of itself than its
// title, kind and location (dialog.ToolCall's Todos, PresentsPlan).
type Presenting interface {
	Present(d *dialog.ToolCall)
}

// Present fills d with what a front end shows of call c of tool t: its
// title, kind, location and what the call adds (Presenting). Front ends
// render from that, never from the tool's name.
func Present(t Tool, c Call, d *dialog.ToolCall) {
	d.Title, d.Kind = c.Title(), AnnotationsOf(t).Kind
	d.Path, d.Line = LocationOf(c)
	if p, ok := c.(Presenting); ok {
		p.Present(d)
	}
}

// LocationOf is c's location when it is Located; "" and 0 when not.
func LocationOf(c Call) (path string, line int) {
	if l, ok := c.(Located); ok {
		return l.Location()
	}
	return "", 0
}

// Confirmation describes what a call needs approved. The agent's approval
// service decides from it whether the call runs without asking (the
// approval mode, AllowKeys, Trusted, settings' tools.allowed); tools never
// decide that themselves.
type Confirmation struct {
	Kind    dialog.ConfirmKind
	Title   string // e.g. "Allow shell command?", and why it always asks
	Details string // the command, shown verbatim
	// Subject is what the question is about in one line, for a front
	// end that shows a title alone (the command, the URLs fetched); ""
	// for the call's own title.
	Subject string
	// AllowKeys are what "always allow" remembers: for shell, the name of
	// every command the line runs. The call runs without asking once the
	// user allowed every key; without keys it asks every time, and no
	// "always" is offered (CanAllowAlways).
	AllowKeys []string
	// AllowPrefixes are the narrower scope an "always allow" of a shell
	// line may take, offered beside AllowKeys: each command's prefix
	// (its name and subcommand: go test) as ShellPrefixKey makes it,
	// which the agent allows as a policy rule's commandPrefix, judged by
	// the policy engine as the line's every command is. None where no
	// prefix is narrower than the names, or AllowKeys are none.
	AllowPrefixes []string
	// Dir is the directory a shell command runs in (absolute); "" for
	// any other call.
	Dir string
	// Trusted says the user's settings trust where the call goes (an MCP
	// server's "trust": true): it runs without asking.
	Trusted bool
	// AskWithChange says the user is asked, if at all, when the change
	// the call proposes lands, with the change (Result.Proposal): the
	// call runs first, changing nothing.
	AskWithChange bool
	// Path is the file an edit changes (absolute, resolved), by which plan
	// mode lets the plan file be written and refuses every other edit.
	Path string
}

// CanAllowAlways reports whether the user's "always allow" of the call
// would hold: it allows the call's AllowKeys for the session, so that
// calls like it run without asking; a call without keys asks every time,
// and a front end offers it no "always".
func (c *Confirmation) CanAllowAlways() bool { return len(c.AllowKeys) > 0 }

// EditConfirmation is what every proposed file change needs approved:
// edits are allowed as one kind (EditKey). path is the file changed.
func EditConfirmation(path string) *Confirmation {
	return &Confirmation{Kind: dialog.ConfirmEdit, AllowKeys: []string{EditKey}, AskWithChange: true, Path: path}
}

// Result is a call's two faces: what the model reads and what the user sees.
type Result struct {
	// Output is the llmContent text, sent as {"output": Output}.
	Output string
	// Parts are extra parts for the model (inline images, PDFs).
	Parts []*genai.Part
	// Error, when non-empty, is sent as {"error": Error} instead of output.
	Error string
	// Status defaults to ok, or error when Error is set.
	Status dialog.Status
	// Display is Markdown for the user.
	Display string
	// Found is what a search found, in the order Output lists it, for
	// the user to open (dialog.ToolResult.Found); nil for other calls.
	Found []dialog.Location
	// Outcome says in a few words how an edit the user changed landed
	// (dialog.ToolResult.Outcome); "" otherwise.
	Outcome string
	// Proposal, when set, is an edit's change, not landed yet: the call's
	// result is what Proposal.Settle makes of what became of it. Every
	// other field is then unset.
	Proposal *Proposal
	// Files, when set, is an edit's change across several files
	// (rename_symbol's), landed as one: the result is what Files.Settle
	// makes of what became of each. Every other field is then unset.
	Files *FilesProposal
	// Mode, when set, is the session's approval mode from now on: the
	// planning tools switch it (plan.go), and the agent applies it.
	Mode dialog.ApprovalMode
	// ApprovedPlan, when set, is the plan file the user just approved
	// (exit_plan_mode), which the session keeps for /plan.
	ApprovedPlan string
	// Topic, when set, is the session's topic as update_topic just set
	// it, which front ends show where they show the turn's progress.
	Topic *dialog.Topic
}

// CallInfo identifies the call being executed: the session it belongs
// to, which finds the context files it has not seen yet, and the model's
// id of the call, by which a front end shows the call's progress (ACP's
// terminal).
type CallInfo struct {
	SessionID string
	CallID    string
	// Ask puts a question to the user through the session's front end;
	// nil when the front end has no way to ask.
	Ask AskFunc
	// Confirm asks the user to approve what the call is about to do
	// beyond what its Confirmation covered (starting a language server
	// that may run the workspace's code); nil when nobody can be asked.
	Confirm ConfirmFunc
	// Background is the session's background processes, which
	// run_shell_command's is_background adds to and the background tools
	// read; nil where there is no session to own them (such calls fail,
	// saying so).
	Background *background.Registry
	// Topic is the session's topic, which update_topic sets; nil where
	// there is no session (update_topic then only reports it).
	Topic *TopicState
	// Delegate runs a subagent for invoke_agent; nil where no subagent
	// can run (a subagent's own calls: no recursion).
	Delegate Delegator
	// Progress tells the user how a long call goes (an MCP task's
	// status), as a notice of the turn; nil where nobody is shown.
	Progress func(text string)
}

// EditKey is the permission key of file changes: allowed by auto_edit and
// yolo, or by the user's "always allow" on an edit.
const EditKey = "edit"

// IsShellKey reports whether key can be a shell command's permission key
// (its name): one no other call's key can be. Those are EditKey and keys
// holding a colon (an MCP tool's mcp:SERVER:TOOL, web_fetch:HOST, a
// discovered or background tool's ToolKey); a command whose name is one
// of them asks every time.
func IsShellKey(key string) bool { return key != EditKey && !strings.Contains(key, ":") }

// ShellPrefixKey is the permission key of an "always allow" of the shell
// commands that start with prefix (go test): held apart from the names
// of AllowKeys by its colon (IsShellKey), and allowed as a policy rule's
// commandPrefix (PrefixOfKey).
func ShellPrefixKey(prefix string) string { return shellPrefix + prefix }

// PrefixOfKey is the command prefix of a ShellPrefixKey; ok is false for
// any other key.
func PrefixOfKey(key string) (prefix string, ok bool) { return strings.CutPrefix(key, shellPrefix) }

const shellPrefix = "shell:"

// ToolKey is the permission key of a tool allowed as a whole by "always
// allow" (a discovered tool, a background process's): its name, kept
// apart from the shell commands' keys.
func ToolKey(name string) string { return "tool:" + name }

// LandOnDisk writes an allowed change to disk, for the front ends with no
// editor to land it in: applied, or stale when disk no longer holds what
// the change was made from (workspace.WriteFile's check), with why.
func LandOnDisk(ctx context.Context, change workspace.FileChange) (dialog.Decision, error) {
	if err := workspace.WriteFile(ctx, change, change.After); err != nil {
		if errors.Is(err, workspace.ErrStale) {
			return dialog.Decision{Outcome: dialog.Stale, Reason: err.Error()}, nil
		}
		return dialog.Decision{}, err
	}
	return dialog.Decision{Outcome: dialog.Applied, Content: change.After}, nil
}

// Normalizer is a tool whose calls may name arguments as gemini-ls
// declared them before it followed Gemini CLI 0.61 (a model told the
// older declaration, a saved session, a hook written for it).
// NormalizeArgs returns raw as 0.61 would have had the same call, without
// changing raw: what BeforeTool hooks and policy rules see, and what the
// tool's Build decodes.
type Normalizer interface {
	NormalizeArgs(raw map[string]any) (map[string]any, error)
}

// NormalizeArgs is raw as tool t declares its arguments (Normalizer);
// raw itself for a tool whose arguments have no older names.
func NormalizeArgs(t Tool, raw map[string]any) (map[string]any, error) {
	if n, ok := t.(Normalizer); ok {
		return n.NormalizeArgs(raw)
	}
	return raw, nil
}
