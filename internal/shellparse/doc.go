// Package shellparse reads a command line as bash reads it, for the
// parts of gemini-ls that decide whether a line may run unasked (the
// policy's rules, the session's "always allow"): its syntax tree, its
// words after quote removal, and the builtins that read a variable name
// from their arguments. On Windows, SplitWindows splits a PowerShell or
// cmd.exe line into its commands.
//
// Invariants:
//   - A word is static only when bash passes it unchanged after quote
//     removal: no expansion, glob, brace or tilde, no $'…' or $"…".
//   - A builtin that takes a variable name (read, printf -v, test -v,
//     ...) is reported whenever one of its arguments is, or could expand
//     to, such a name: bash evaluates a subscript in the name as
//     arithmetic, and arithmetic runs the command substitutions of the
//     variables it reads (a[$(cmd)]).
//   - SplitWindows never reads as text what the shell may run: where it
//     is not sure (a substitution, a script block, an escape, a
//     comment, a % expansion), it says the line is unread, and callers
//     ask the user. Splitting where the shell would not only asks more.
package shellparse
