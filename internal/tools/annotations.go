package tools

import "github.com/gemini-ls/gemini-ls/internal/dialog"

// Annotations say what a tool's calls do, as the MCP Go SDK's
// ToolAnnotations say it of a server's tools (readOnlyHint,
// openWorldHint). The agent's scheduler, plan mode, the approval door,
// settings' filters, the subagents' tool sets and the system prompt
// decide by them, not by lists of tool names: a tool says what it is
// here, on itself (Spec), and nowhere else.
type Annotations struct {
	// Kind is how front ends show the tool's calls (ACP's tool kinds).
	Kind dialog.Kind
	// ReadOnly: the tool changes nothing, as Gemini CLI 0.61 counts its
	// tools (policies/read-only.toml, and plan.toml's ask_user,
	// web_fetch, activate_skill, exit_plan_mode): plan mode runs it,
	// asking first where the call needs approval. 0.61 does not count
	// write_todos or the background tools, which only read too, and
	// neither does gemini-ls, so that plan mode refuses them as 0.61
	// does. An MCP tool is read-only when its server says so
	// (readOnlyHint), and plan mode then asks before it runs, as 0.61's
	// plan.toml does.
	ReadOnly bool
	// EditsFiles: the tool's calls propose changes to the workspace's
	// files (Result.Proposal), approved as edits (EditKey). Plan mode
	// lets them write the plan file and nothing else.
	EditsFiles bool
	// RunsCommands: the tool's calls run commands of the model's making
	// (tools.core's TOOL(PREFIX) restricts them to some).
	RunsCommands bool
	// AsksUser: the tool's calls put questions to the user
	// (CallInfo.Ask).
	AsksUser bool
	// OpenWorld: the tool's calls reach the network (MCP's
	// openWorldHint); auto_edit runs the read-only ones without asking, as
	// 0.61's write.toml runs web_fetch.
	OpenWorld bool
	// Delegates: the tool's calls hand a task to a subagent (0.61's
	// Kind.Agent, invoke_agent). No subagent is given such a tool, and
	// its calls run alongside their neighbours.
	Delegates bool
	// RunsAlone: a call of the tool starts once the calls before it in
	// its model answer have ended, and the later ones once it has, as
	// Gemini CLI 0.61's scheduler runs update_topic (_isParallelizable).
	// A tool that EditsFiles runs alone whatever this says (Alone).
	RunsAlone bool
	// Narrates: the tool's calls tell the user what the main agent is
	// about (update_topic): they run before the other calls of their
	// answer, as 0.61's scheduler sorts them (_startBatch), and no
	// subagent is given the tool.
	Narrates bool
}

// Alone reports whether a call of the tool must run alone: it says so,
// or it edits files, so that edits of one file land in order, each on
// what the one before left (0.61's scheduler runs its edit tools
// alone).
func (a Annotations) Alone() bool { return a.RunsAlone || a.EditsFiles }

// ForSubagents reports whether a subagent may be given the tool: not
// one that delegates (no recursion), nor one that narrates the main
// agent's work, as 0.61's LocalAgentExecutor leaves them out.
func (a Annotations) ForSubagents() bool { return !a.Delegates && !a.Narrates }

// Annotated is a tool that says what it is. A tool that does not is
// taken to do anything: plan mode refuses it.
type Annotated interface {
	Annotations() Annotations
}

// AnnotationsOf is what t says it is; none for a tool that says nothing.
func AnnotationsOf(t Tool) Annotations {
	if a, ok := t.(Annotated); ok {
		return a.Annotations()
	}
	return Annotations{}
}
