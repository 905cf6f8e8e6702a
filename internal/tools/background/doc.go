// Package background keeps a session's background shell commands, those
// run_shell_command started with is_background: the session owns them, the
// model lists them (list_background_processes) and reads their output
// (read_background_output), and they end with the session.
//
// Invariants:
//   - A Registry belongs to one session. Close kills every process it
//     holds, whole (the runner kills the process group), and refuses what
//     comes after: nothing the session started outlives it.
//   - A process is refused before it starts, never after: its place is
//     reserved first (Reserve), and a refused command has not run at all.
//   - What is kept is bounded: at most MaxHistory processes (the oldest
//     that ended is forgotten first; a new one is refused while
//     MaxHistory run or are being started), and each process's output is
//     kept by its runner, bounded there (the last bytes, and how many
//     came before).
//   - A process is found by its PID, as Gemini CLI 0.61 finds it, and only
//     in the registry that started it: one session cannot read another's.
package background
