// Package spawn is the one door through which gemini-ls starts a program.
//
// Every process gemini-ls starts is a Cmd this package made, for a Reason
// that says why it may start. The reasons are a closed set, each its own
// type:
//
//   - UserCommand: a command line the approval door let run, for the
//     model or the user (run_shell_command in the foreground and the
//     background, the prompt's !command, a custom command's !{…}, a
//     remote agent's auth command, the sandbox's supervisor relaying a
//     command inside). It runs in the Door's sandbox whenever the Door
//     has one.
//   - Configured: a program the user's settings name (a hook, a stdio
//     MCP server, tools.discoveryCommand and the tools it finds), from
//     settings gemini-ls read only where the folder is trusted. A
//     discovered tool the model calls runs in the sandbox whenever there
//     is one; hooks, MCP servers and the discovery command where the
//     rules ask (tools.sandboxHooksAndMCPServers).
//   - LanguageServer: a language server gemini-ls starts itself for
//     code intelligence: a program that may run the workspace's code
//     (a workspace's TypeScript, build scripts, an interpreter found in
//     the project). It runs in the sandbox whenever there is one, and
//     starts only Confined (with switches that keep the workspace's code
//     from running, and found outside the workspace) or with the user's
//     yes, which Door.Allow asks for once a session (the yolo approval
//     mode answers yes). Nobody to ask (headless) is a refusal.
//   - Helper: one of gemini-ls's own fixed programs with fixed
//     arguments (git for checkpoints, clones and the setup of GitHub,
//     ripgrep and git grep for search, the browser for sign-in,
//     taskkill, bubblewrap and docker for the sandbox itself, gh for the
//     user's GitHub token). It is
//     never confined, so it is never one found in the workspace's roots
//     nor in the directory it runs in (its Cmd's Dir).
//
// The editor's own language servers (the gemini/languageFeature route)
// are the user's, started by the editor, and need no door.
//
// Invariants:
//   - No other package linked into gemini-ls imports os/exec or starts a
//     process by any other road (os.StartProcess, syscall's ForkExec and
//     Exec): TestOneDoor reads the binary's packages and fails on one.
//     The dependencies that can start a program are listed there, each
//     with why it may.
//   - The rule of a Cmd's Reason is applied when it starts (Start, Run,
//     Output, CombinedOutput, or Ready for a library that starts it
//     itself), never by its caller: the sandbox's rewriting, the
//     language server's consent, the helper's origin.
//   - Every Cmd starts in a process group of its own (on Windows a
//     console group, and its tree ended with taskkill), and the end of its
//     context kills that whole group, not its process alone, so what a
//     command started ends with it (Kill, Members).
//   - A nil *Door confines nothing and can ask nobody: it starts
//     commands, configured programs and helpers as they are, and refuses
//     a language server that is not Confined.
//   - A helper or language server is found, and starts, with a PATH
//     that holds no relative directory and none in the workspace: the
//     rules' roots and the directory it runs in, links followed (for a
//     nil door that directory is the only root it knows).
//   - No program starts with EditorKeyVar in its environment, whatever
//     its reason and whoever built its environment: the API key an
//     editor keeps for the user is gemini-ls's alone.
package spawn
