// Package conversation is the layer every front end (LSP, ACP, headless)
// drives a conversation through, between them and the agent. It owns,
// once:
//
//   - the running prompts (Turns): one per session at a time, and the
//     cancel that ends it, whatever front end asked;
//   - how a turn ended, in words (Headline, Explanation);
//   - a saved session as a replayable sequence of agent events (Replay),
//     which LSP's gemini/resumeSession and ACP's session/load both show;
//   - finding a saved session to continue (Resume);
//   - the commands: Commands lists them (internal/conversation/builtin's built-ins,
//     then the user's: custom commands read under the one trust decision,
//     MCP servers' prompts), and a prompt "/name args" runs a built-in or
//     sends the prompt one of the user's commands expands to (Turn.Run);
//   - shell mode: a prompt "!command" runs command, decided as a
//     run_shell_command call of it, and records its result for the
//     model's next request, with no model request of its own (shell.go).
//
// The contract with a front end is the Host (host.go). The host owns the
// front end's live sessions end to end: it builds their agents through
// the one setup.Build (Build, from the front end's Config and a Place)
// and hands the front end an opaque handle on each (a *Build: what the
// front end reads of it, auth, trust, the model, what completion and the
// command list need, and nothing that reaches the agent or its tools),
// makes the agent anew under a handle while its sessions live (Rebuild:
// each moves at its next turn, and the agent replaced is closed once no
// turn runs in it), opens, resumes, looks up, lists (saved ones
// included) and closes them, gates each once (Prompt: one prompt per
// session, one busy error, in one wording that names how the front end
// cancels: Config.Cancel; the agent's own lock only orders), runs a
// prompt or a command through the view the front end makes for that
// turn (View: the turn's dialog.Port, events and questions alike, and
// the folder trust question)
// and returns one typed Outcome, the only ending a front end reads: how
// the turn ended (Ending, and its Reason in the wires' word), its
// Headline and Explanation, the model's text and tokens, a command's
// error (NotRun), or why nothing ran (Busy, Unknown, Refused). Begin
// splits Prompt in two for a
// front end whose turn outlives the request that starts it (LSP's
// gemini.prompt answers "started" once the turn is claimed) or runs
// something else in the turn (a rewind): the Claim holds the session's
// turn, runs its prompt or its rewind (Claim.Rewind), and is cancelled
// and ended like a prompt. The host also changes what a live session
// runs with: SetMode its approval mode (refused beyond default and plan
// in a folder not trusted, saved with the session, the build's too when
// the build is the session's own) and SetModel its model (the build's,
// so every session of a shared build). One build may be shared by many sessions (Open and Resume with own false:
// LSP's); the host then keeps no session the build's agent dropped from
// memory. A front end supplies two things and nothing else:
//   - a codec: it decodes its wire's request, calls the host, and encodes
//     the Outcome in its wire's words (ACP's stop reasons, headless's exit
//     statuses);
//   - a View of each turn, made for it and handed the host with its
//     prompt (view.go), which the host hands the agent with the call
//     that runs the turn, as the MCP Go SDK hands a handler its
//     request's session: the turn's events reach its Show, each with
//     the subagent it is of, and the front end switches on dialog's
//     kinds (TestSwitchesOverClosedSetsAreExhaustive holds every such
//     switch to every kind); Land and LandFiles land edits, Confirm and
//     Ask put the agent's questions and the commands', AskTrust the
//     folder trust question (trust.go: Claim.AskTrust before a prompt,
//     Claim.Move to continue it in a build made anew when the folder's
//     trust changed). Every question the agent asks leaves through the
//     agent's approval door (the session's), reverts and switches of
//     model included, and reaches the port of the call that started the
//     turn: no port is set for a build, and nothing routes a question
//     by session id. A rewind's questions go to the port its claim is
//     handed (Claim.Rewind).
//
// It keeps only what its wire alone needs (LSP's progress tokens, ACP's
// tool-call contents), as the host's per-session State. The in-process
// front end of host_test.go is the whole of one, over Go channels.
//
// Headless (cmd/gemini-ls run), ACP and LSP all run on the host; none of
// them calls setup.Build, gates a turn, or changes a session (its mode,
// its model, a rewind, a cancel, its end) but through it, and none
// imports agent, setup or the tools (cmd, which wires the process, may
// import the tools but not the tool set), nor can reach them through
// what the host hands it (layers_test.go): a session's state is read through
// Live (its id, mode, info, stats, rewind points), the host (Model,
// Replay, List) and the Build, and the words they exchange with it (the
// events' contents, the requests a view answers, the Input a prompt
// takes) are package dialog's, which the agent speaks too; the agent's
// events as values (dialog.Event) reach a front end only through the
// Show of the port it handed with the turn, and a saved session's only
// through Exchange.Show (a ReplayView: the same Show).
// LandRevertOnDisk (disk.go) lands a revert's file on disk for a view
// with no editor, as LandOnDisk an edit; RunLocally and StartLocally
// (local.go) run a shell command on this machine for a front end whose
// client's terminal cannot. They are the tools', which a front end
// reaches only through the host, as it implements the tools' ports
// (dialog's CommandRunner, DiagnosticsReader) without importing them.
//
// It sits between the front ends and setup: cmd → lsp, acp →
// conversation → setup → agent → tools → dialog → workspace, and no
// package imports against that direction. A front end is any package
// outside the host that imports it, read from go list's graph, not
// listed (TestLayering), so a new one is held to the rule too.
//
// Invariants:
//   - A host's Prompt runs only in a live session of its own; one closed
//     or resumed again while the prompt waited for its turn is Unknown.
//   - A session runs one prompt at a time. A prompt for a session whose
//     prompt is running is refused with an *dialog.BusyError, unless that
//     prompt was cancelled: then the new one waits for it to end, so that
//     "cancel and send again" (ACP's clients do it in one step) never
//     meets a busy session.
//   - A Turn ends at its first End (later calls do nothing), which
//     cancels what it still runs and frees the session; Cancel only asks
//     it to stop.
//   - Replay shows a prompt as the user typed it (the transcript's text,
//     never the files or editor state the model was sent with it), the
//     model's text and each call with its result; exchanges a compression
//     summarised away are shown from the transcript alone.
package conversation
