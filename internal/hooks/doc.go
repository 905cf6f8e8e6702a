// Package hooks runs Gemini CLI's hooks: the commands settings' "hooks"
// (and, later, extensions) configure for the points of the agent's loop
// (BeforeTool, AfterTool, BeforeAgent, AfterAgent, SessionStart,
// SessionEnd, PreCompress, BeforeModel, AfterModel, BeforeToolSelection,
// Notification), with Gemini CLI's input on stdin, environment, exit
// codes and output (packages/core/src/hooks). Runner implements
// agent.Hooks and merges what an event's hooks decided (an AfterTool
// hook's tailToolCallRequest, an AfterAgent hook's clearContext among
// it); the agent decides what an outcome does to its turn, and translates
// the model events' llm_request and llm_response
// (internal/agent/hookmodel.go). Every hook that runs is told to
// telemetry as Gemini CLI 0.61's gemini_cli.hook_call, with its output as
// 0.61 reads it (telemetry.go).
//
// Invariants:
//   - A hook never hangs or ends a turn by failing: each runs under its
//     timeout (60 s unless set) and the context of what it hooks, in a
//     process group killed whole when either ends; what it prints is
//     bounded. A hook that fails or times out is told to the user (and
//     logged), and what it hooked goes on as if it had not run; one
//     stopped because what it hooked was cancelled is only logged. Only
//     a decision (deny/block, "continue": false, exit code 2) stops
//     anything.
//   - A hook's output is read as Gemini CLI's JSON.parse reads it: by
//     exact member names, the last of a name winning ({"Decision":
//     "block"} blocks nothing; output.go, jsjson.Decode).
//   - Only what settings decided runs: setup builds a Runner only when
//     hooksConfig.enabled is not false, from the merged settings, which
//     hold no workspace hooks in a folder that is not trusted;
//     hooksConfig.disabled names hooks that do not run. A disabled hook
//     is still listed (Runner.Hooks, for /hooks), and SetDisabled turns
//     hooks off and on from the next event, without a rebuild.
//   - A trusted workspace's own hook is announced to the user before it
//     first runs, and again once its name or command changes: setup asks
//     NoteProjectHooks, which keeps Gemini CLI 0.61's list of the hooks
//     announced (trusted.go).
package hooks
