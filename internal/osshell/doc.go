// Package osshell decides which shell runs a command line: the one every
// command gemini-ls runs for the model or the user goes through
// (run_shell_command, its background commands, the prompt's !command,
// custom commands' !{…}, hooks, the ACP client's terminal, a remote
// agent's auth command), so that what runs, how an argument is quoted
// for it and what the model is told of it always agree.
//
// It does what Gemini CLI 0.61's getShellConfiguration does: bash -c
// everywhere but Windows; on Windows PowerShell, as %ComSpec% names it,
// else pwsh.exe, else Windows PowerShell. Where PowerShell is missing
// altogether it falls back to cmd.exe, which 0.61 does not.
//
// Invariants:
//   - Detect is a pure function of its arguments: no package state, no
//     work at init, so tests drive every branch on any OS.
//   - A Shell's Kind says how its command lines are read (quoting,
//     separators, substitutions); Quote produces words that Kind reads
//     back as one literal argument.
package osshell
