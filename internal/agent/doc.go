// Package agent runs Gemini agent turns: a content generator over genai
// (streaming), a chat that keeps curated history, a turn loop that executes
// tool calls and feeds their results back until the model stops, retry on
// transient API errors, and structured api_request/api_response/api_error
// logging. Front ends observe a turn through Events; the agent never knows
// which front end it serves.
//
// Invariant: one approval door. Before any call runs, built-in, edit,
// discovered or MCP, the turn asks the session's approval service
// (approvals.go) whether it may run at all (plan mode refuses all but
// reading and the plan file, in Gemini CLI's words) and whether it may
// run without asking: the policy files' rules (Config.Policy), ranked
// as Gemini CLI ranks them against settings' tools.allowed (keys and
// whole tools), an MCP server's trust and what the user allowed for
// good, then the approval mode. A rule's deny refuses in Gemini CLI's
// words; its ask_user asks in every mode, and refuses where the policy
// engine is headless. Nothing else decides. When the user
// must be asked, the turn asks the front end through the port handed
// with the call that started the turn (dialog.Port, as the MCP Go SDK
// hands a handler its request's session): Confirm for a call, or, for
// an edit, Land with the proposed change and Ask set; no port is set for
// the build, and no question is routed by session id. The front end
// presents the question, lands only what was allowed, and
// reports the user's "always allow", which the turn records in the
// service. Front ends never look permissions up. A shell command a front
// end runs for the user (a custom command's !{…}) passes the same door as
// a run_shell_command call of it (Session.AllowShell).
//
// Invariant: an edit of a protected file (internal/protected: what
// decides what the agent may run or read) asks a person whatever else
// would allow it, in every mode but yolo, with no "always" offered, and
// is refused where nobody can be asked (protect.go, the end of decide).
// In yolo too when it lies in a directory included from outside the
// project (Config.ProjectRoots): the user's own configuration there
// (~/.gemini, the shell's startup files) outlives the session.
//
// Invariant: the tools offered are made once per change of the tool set
// (Agent.offeredTools): for each approval mode (the policy's denials) and
// plans directory, from one slice of the ToolSet's declarations, and shared
// by every request, so no request and no hook changes them: a
// BeforeToolSelection hook's choice makes new ones, plan mode's write_file
// and replace are copies.
//
// Invariant: a model's call runs only if it names a tool the request it
// answers declared (undeclared.go): any other is answered in Gemini CLI
// 0.61's words (`Tool "NAME" not found. …`), asks nobody and runs
// nothing, and the user is told why.
//
// Invariant: every file change the agent lands (applied, or modified by
// the user on the way) is journaled with its prompt's exchange (journal.go):
// the file's exact bytes before the prompt's first change and after its
// last, bounded (a change past the bounds keeps only its path and why),
// saved with the session. Session.Rewind (rewind.go) takes back the
// conversation from a prompt on, the journaled changes since, or both; a
// revert never overwrites a file changed since the agent's last change
// without the user's yes, and is landed through the port of the call
// (LandFiles) as one change the user previews.
//
// The approval mode is the agent's, unless a session chose its own (the
// planning tools through Result.Mode, /plan): then the session's, until
// the agent's is set anew. A call that switches it is a ModeEvent. The
// session's mode, and the plan last approved in it, are saved with it and
// restored on resume, within what the agent allows (persist.go,
// restoredMode: an untrusted folder lowers auto_edit and yolo to default).
// A session is titled by its first prompt's first line until the model
// names a new topic (update_topic): then by that topic's title, saved
// with it, so its list shows what it is about now (Session.retitle).
//
// Invariant: only a person raises the approval mode. A call's switch of
// it (Result.Mode) never makes the session more permissive than the
// mode it was in, or, leaving plan mode, than the mode it had before it
// entered plan mode (Session.modeBeforePlan; the agent's when it started
// in plan mode), unless the user answered that call's own question
// (turn.switchMode: exit_plan_mode's approval, where a person picks the
// mode); the model is told what was refused. So an unattended plan
// approval (headless) goes back to the run's own mode, or stays in plan
// mode, where Gemini CLI 0.61 approves into yolo. The other ways the
// mode changes are the user's: a front end's mode menu and /plan
// (conversation.Host.SetMode), the settings a client sends (setup's
// Reload), a resumed session's saved mode, which a headless run takes
// only when it is no more permissive than its own (cmd/gemini-ls run).
// A subagent has no mode of its own: its calls switch its main
// session's, under the same rule. Policy rules with modes only match
// the mode in force; none sets it.
//
// Each session has its own plans directory (Config.PlansDir, by session
// id, found on first use): the workspace is told to allow it
// (workspace.Workspace.Allow), the approval door lets plan mode write plan
// files in it alone, and the planning tools build their calls in it
// (tools.SessionTool).
//
// With a Checkpointer (internal/agent/checkpoint, settings'
// general.checkpointing.enabled), every edit's change is preceded by a
// checkpoint: the workspace and the history, which ends with the call.
// A failed checkpoint is a notice; the edit goes on. Session.RestoreFiles
// lands a checkpoint's files through the same LandFiles, then puts
// their executable bits back.
//
// The system instruction is read for every prompt: the system prompt and
// the enabled agent skills (Config.Skills, listed as Gemini CLI lists
// them). Invariant: no memory in it, so an edit of GEMINI.md changes no
// byte of it or of the tools: the memory is a part of a main session's
// first user content, a change of it a part of the next prompt's, both
// kept in the history (memoryturn.go). Invariant: the main conversation's
// old tool outputs are masked in the history itself before each request
// (masking.go), before compression, routing and the loop check, so every
// request and utility call sees them masked, and the session file holds
// them masked: a session resumed sends its history byte for byte. With
// Config.SessionContext, a main session's
// requests begin with Gemini CLI's <session_context> (envcontext.go),
// made at its first request and joined to its first user content, the
// same content for every request after (the cache-friendly prefix); it
// is not part of the history but saved with the session, once
// (Snapshot.Context): invariant, a session resumed sends it as it was
// first sent, so its requests repeat the ones before from their first
// byte whatever the date and the tree became; a session cleared gets a
// new one. What a model answer keeps of its stream
// is what 0.61 keeps: no thoughts, and no empty text without a thought
// signature (a stream's last chunk), which would go back as {}.
//
// Config.Hooks runs the user's hooks (hooks.go) at the session's events.
// BeforeTool hooks run after the approval door let a call through and
// before it runs: a call they rewrite is built anew from the new
// arguments and passes the door again; the model's call stays in the
// history as the model made it. A hook never ends a turn by failing; a
// block or a stop is told to the model (the call's result) and the user
// (a notice). BeforeModel hooks run once per model request (not per
// retry), AfterModel hooks on each streamed chunk, each only when one is
// configured (Hooks.Handles); what they change of a request is for that
// request only, and is merged back so that the parts hooks do not see
// (calls, their responses, signatures) are kept (hookmodel.go). A
// response they replace or give is what the user sees and the history
// keeps. An AfterTool hook may ask for a call to run in the place of the
// one it hooked (tailcall.go): it goes through everything a model's call
// does, and the model reads its result under its own call's id and name;
// ten in a row at most. An AfterAgent hook that stops or blocks the agent
// and asks to clear the context empties the history, as /clear does. The
// PreCompress hooks run before every model request of a prompt, as in
// Gemini CLI 0.61, whether or not the history is then compressed.
//
// Subagents (subagent.go): with Config.Agents, the model is offered
// invoke_agent while an agent is enabled, and told of the agents. A local
// agent's run is a turn of this package's own in a session of its own
// (Session.parent): its own system instruction, first message, model and
// tools (its definition's of the main agent's, never invoke_agent, plus
// complete_task), no main history; its calls pass the main session's
// approval door (mode, rules, "always allow"), land through the same
// front end, wait in the main turn's question line, are journaled with
// the main prompt and counted in its Stats. Every event of a run carries
// dialog.Subagent; the main history gets the invoke_agent call and its
// answer alone.
//
// Session.RunCall runs one call for the user outside a model turn (a
// client-initiated call: /restore proposes the checkpoint's call again)
// by the turn's own code, so it passes the same door, lands, checkpoints
// and journals (with the last prompt) as the model's calls do; the call
// and its answer are recorded as a model turn and a user turn.
package agent
