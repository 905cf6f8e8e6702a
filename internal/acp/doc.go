// Package acp is gemini-ls's second front door: the Agent Client Protocol
// (JSON-RPC 2.0, one message per line on stdio), which Zed, JetBrains IDEs
// and the agent plugins of Neovim and Emacs use to run coding agents. It
// talks to the same agent, sessions, approvals and tools as the lsp
// package; no tool knows which front end confirms it.
//
// The protocol's types and its connection come from
// github.com/coder/acp-go-sdk; wire.go stands in front of that connection
// so that a line that is not a JSON-RPC message is answered with the error
// JSON-RPC asks for, and the connection lives on; so is a request the
// SDK's connection cannot read (an error member that is not a JSON-RPC
// error), which it would drop: every request gets an answer. The SDK's connection
// serves the client's requests; the requests gemini-ls sends the client
// go through wire (calls.go), which matches their answers itself.
//
// The server is a front end of conversation's Host: the host holds the
// live sessions (their wire state, session, as each one's State), builds
// each one's agent, resumes, lists and closes them, runs each prompt,
// and changes a session's mode and model (session/set_mode,
// session/set_config_option, session/set_model: Host.SetMode,
// Host.SetModel). Each prompt's turn is shown and asked through a view
// the session makes for it (turn, presenter.go): its events as
// session/updates, its questions as session/request_permission. The
// server is the codec that maps a prompt's Outcome to ACP's stop
// reasons.
//
// Invariants:
//   - Each ACP session is one agent built for its cwd (Host.Build), with
//     the MCP servers the client passed over those of settings, as Gemini
//     CLI builds one config per session. The agent session's id is the
//     ACP session id, so a saved session loads by the id the client knows.
//     A session loaded or resumed is shown its saved title and last
//     activity (session_info_update), as session/list lists it.
//   - A session/new whose _meta asks for a worktree (worktree.go) is
//     built in a new one, made by internal/worktree before the build and
//     removed again when the build fails; its cwd is the worktree's from
//     then on. The answer's _meta names the worktree of any session
//     whose cwd lies in one. Nothing of a refused request is made.
//   - A connection keeps at most MaxIdleSessions idle sessions built
//     (park.go): clients leave sessions open (Zed's archived threads),
//     and each holds a build and its MCP servers. Past the bound the least
//     recently used idle one is parked: its build is closed, and the next
//     request naming it opens it again from disk, in its mode and with its
//     model, as if it had never left. A session is idle only with nothing
//     running in it (no request holding it, no prompt, no background
//     process) and everything of it on disk; when sessions are not saved,
//     none is parked.
//   - The client's capabilities decide where things happen: files are read
//     through fs/read_text_file and changes land through
//     fs/write_text_file when the client declares them (so the editor's
//     buffer is the truth), shell commands run in the client's terminal
//     when it declares one; else on this machine, as headless does.
//   - Nothing reaches a file unconfirmed: an edit is offered through
//     session/request_permission with its diff unless the session's
//     approvals allow edits, and the model is told what became of it. A
//     rewind's revert (revert.go) is offered once, with every file's diff,
//     as is an edit call's change across files (a rename), under the
//     call's own id and only where the approvals ask.
//   - session/cancel ends everything the session's prompt started (model
//     request, questions, terminals), and the prompt answers "cancelled".
//     So does a permission request answered "cancelled", which in ACP
//     means the client cancelled the turn.
//   - Every answer of the client's ends the wait for it: a null result,
//     a malformed answer or the connection's end included; what it lacks
//     is an error the model is told. Answers are never answered.
//   - The slash commands are one table (commands.go): the built-ins and
//     the user's commands (internal/conversation/commands: custom commands, MCP
//     prompts), from which both available_commands_update and the
//     dispatch of a "/name" prompt come; a !{…} of a custom command is
//     asked about through session/request_permission before any runs.
//   - Every message is one the protocol's own schema allows (v1.34,
//     stable and unstable, pinned in testdata/acpschema, held by the
//     tests; session/set_model, Gemini CLI 0.61's, is the one method
//     outside it, named so by the check). What the SDK's types lack
//     (newer.go: session/delete, the unstable methods, systemPrompt, the
//     archive filter, the capabilities) wire answers itself
//     (wire_own.go), and the session updates they lack (notice,
//     compaction_update, the tool call's name) go out through wire's
//     writer at once, in their place among the SDK's.
//   - Each stable update and unstable method is behind its capability,
//     as the schema gives it: notices and compaction updates only to a
//     client that declared clientCapabilities.session.notices or
//     .compaction (else what they say goes where it went before: the
//     agent's message, a thought), and initialize declares each unstable
//     method and field gemini-ls serves, and no other.
//   - A client's system prompt never removes the agent's rules about
//     approvals: override replaces the built-in instructions, and the
//     rules follow it (agent's approvalRules).
//   - A title the client set, and an archive mark, are kept per user
//     (labels.go) and win over what gemini-ls makes: session/list,
//     session_info_update and the model's topics follow the client's
//     title. Archiving closes the session as session/close does; parking
//     stays invisible (session/status says open). A call's question is asked as a form
//     (elicitation/create) where the client declares forms, else as a
//     permission request; after logout no session opens until
//     authenticate.
//   - Nothing is written to stdout but protocol messages; logs go to the
//     logger. So the sign-in authenticate runs for oauth-personal with no
//     cached login (signin.go) opens the browser and logs the URL, and
//     the sign-in's endpoints come from Options alone.
package acp
