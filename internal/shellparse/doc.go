// Package shellparse reads a command line as bash reads it, for the
// parts of gemini-ls that decide whether a line may run unasked (the
// policy's rules, the session's "always allow"): its syntax tree, its
// words after quote removal, the builtins that read a variable name
// from their arguments, and what a command runs through the wrappers at
// its head (Through: sudo, env, xargs, bash -c …). On Windows,
// SplitWindows splits a PowerShell or cmd.exe line into its commands,
// and ThroughWindows looks through cmd /c, powershell -Command and the
// like.
//
// Invariants:
//   - A word is static only when bash passes it unchanged after quote
//     removal: no expansion, glob, brace or tilde, no $"…"; StaticText
//     refuses $'…' too, Text decodes it as bash does.
//   - Through never guesses: an option of a wrapper it does not know, a
//     word it cannot read where an option may be, a script that expands,
//     make what the wrapper runs Unknown, for callers to ask.
//   - A builtin that takes a variable name (read, printf -v, test -v,
//     ...) is reported whenever one of its arguments is, or could expand
//     to, such a name: bash evaluates a subscript in the name as
//     arithmetic, and arithmetic runs the command substitutions of the
//     variables it reads (a[$(cmd)]).
//   - SplitWindows never reads as text what the shell may run: where it
//     is not sure (a substitution, a script block, an escape, a
//     comment, a % expansion), it says the line is unread, and callers
//     ask the user; where the line may run commands that are not among
//     its Commands at all, it says so apart (Hidden). Escapes (` and ^)
//     are read as the shells read them, so that a quote or separator
//     they escape never ends a word. Splitting where the shell would not
//     only asks more.
package shellparse
