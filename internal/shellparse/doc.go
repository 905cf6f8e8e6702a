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
//   - Parse reads a line only within bounds (CheckBounds): at most
//     MaxLineBytes (1 MiB), and at most MaxNesting (8192) of the bytes and
//     keywords that can open a level of the parser's recursion, counted
//     quoted or not and never closed (an upper bound no quoting or line
//     continuation lowers). mvdan.cc/sh recurses once a level, up to 5 KB
//     of stack, and a Go stack overflow ends the process. Every parse of
//     a shell line in gemini-ls goes through Parse (or CheckBounds, before
//     mvdan.cc/sh's shell.Fields); SplitWindows does not recurse.
//   - Through reads through the wrappers that start their argument:
//     those of env's family, sudo, doas, flock, watch, script, nsenter,
//     unshare, chroot, su, runuser, systemd-run, firejail, parallel,
//     xargs, find -exec (and the wrappers its command starts), eval,
//     trap and the POSIX shells. A shell reading /dev/stdin, or started
//     with no command (sudo -s, chroot /, su), reads its input (Stdin).
//     ReadsThrough names them; RunsNoArgument names the programs known
//     never to run what their arguments name (ls, cat, grep …, git with
//     a subcommand and options that start nothing); a program that is
//     neither is one the policy's judge does not know.
//   - An assignment to a variable bash runs as code (IsCodeVariable:
//     PS0…PS4, PROMPT_COMMAND, BASH_ENV, ENV, SHELLOPTS, BASH_FUNC_…)
//     cannot be judged, also through env and sudo.
//   - A word is static only when bash passes it unchanged after quote
//     removal: no expansion, glob, brace or tilde, no $"…"; StaticText
//     refuses $'…' too, Text decodes it as bash does, and refuses what
//     it cannot decode exactly (\c, \x{HH}, an octal above \377).
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
