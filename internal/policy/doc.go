// Package policy is Gemini CLI's policy engine: the [[rule]]s of the TOML
// policy files (reference/policy-engine.md) and the decision they make on
// a tool call: allow, deny or ask_user.
//
// Invariants:
//   - A rule's final priority is its tier plus its priority/1000, as Gemini
//     CLI computes it: Default 1, Extension 2, Workspace 3, User 4, Admin
//     5, each file's priorities 0..999. The matching rule of the highest
//     final priority decides; of equal ones, the first loaded.
//   - A rule matches a call as Gemini CLI's ruleMatches does: modes,
//     interactive, mcpName, toolName (exact, "*", "mcp_*", "mcp_SERVER_*",
//     "mcp_*_TOOL"), toolAnnotations, and argsPattern against the
//     arguments stringified as Gemini CLI's stableStringify does (keys
//     sorted, each top-level pair between NUL bytes). commandPrefix and
//     commandRegex are argsPatterns, built as Gemini CLI builds them.
//   - A shell command is decided as a whole and as each of the commands
//     it runs (bash parsed, command substitutions and the scripts of
//     shells' -c, eval and here-documents included): a deny of any
//     part denies, an ask of any part asks; an allow that covers the line
//     but not every part lists the parts no rule decided (Verdict.Undecided)
//     for the caller's own logic, and asks instead when the line
//     redirects (unless allowRedirection, or in autoEdit and yolo) or
//     cannot be parsed.
//   - An allow rule covers exactly the commands it names. Every part of a
//     line is a command some rule must allow: each simple command with
//     the assignments before it (PATH=x git status is not git status),
//     each bare assignment, declaration (export, declare, typeset, local,
//     readonly), [[ ]] test and arithmetic command, with the commands of
//     the substitutions in their values. What the parts do not show makes
//     a line allowed by a rule that names commands (commandPrefix,
//     commandRegex, argsPattern) ask, in every mode but yolo, saying why
//     (Verdict.Why): ${x@P} and the other expansions that evaluate or
//     assign (${!x}, computed subscripts and slices, ${x:=v}), arithmetic
//     on variables, eval, source, ., trap and the builtins that take code
//     or variable names, functions, coprocesses, for loops' variables,
//     here-documents that expand. Gemini CLI 0.61 skips bare assignments
//     (tree-sitter's variable_assignment is no command); this does not.
//   - An allow rule's commandPrefix ends where the shell ends a word:
//     git status"x" (git statusx) is not git status. Deny and ask_user
//     rules match on their pattern alone, so that they only match more.
//   - A deny or ask_user rule whose pattern may match a shell line is
//     judged too against every command the line runs (runs.go), as the
//     program it starts receives its words: quotes, escapes, line
//     continuations and blanks removed, the program also named as the
//     system finds it (/bin/rm, RM, C:\x\Git.EXE), through the wrappers
//     that start another command (shellparse.Through, ThroughWindows),
//     inside substitutions, scripts and here-documents fed to shells;
//     PowerShell and cmd.exe commands in any case. Where such a command
//     is not all known before it runs (a word that expands, a wrapper or
//     script that cannot be read, a line that runs what it does not
//     show, or cannot be parsed), a rule that may match it asks, saying
//     why (Verdict.Why), unless a rule of higher priority decides it
//     first; in yolo a deny rule refuses it instead. Files a line runs (bash x.sh, source) are not
//     judged.
//   - The judge reads a bash line by an allow-list of grammar
//     (judge.go): simple commands and the wrappers shellparse.Through
//     reads, pipelines, lists, subshells, blocks, if, while, for-in,
//     case, redirections, assignments, declarations, [[ ]], arithmetic,
//     quoting it computes exactly, substitutions. Any other construct (a
//     function, a coprocess, a node it does not name), a program that
//     is neither a wrapper it reads nor one known to run no argument
//     whose static arguments name a program (mytool rm x; not ls rm), an
//     assignment to a variable bash runs as code, source of input or of
//     a substitution, cannot be judged. A restricting rule that could
//     match a word of such a line (the first word of its command prefix
//     among the tokens of the words known before it runs, or, but for an
//     unknown program's arguments, a word not known; any rule of another
//     pattern) decides it as a command not known before it runs: it asks;
//     in yolo, where nobody is asked, a deny rule refuses, with Why.
//   - A line longer than shellparse.MaxLineBytes or nesting deeper than
//     shellparse.MaxNesting is not parsed (the parser's stack): it is
//     judged as a line that cannot be parsed, saying why.
//   - Judging a shell line is linear in its length: it is parsed once,
//     where its words end is computed once, and a line whose parts (which
//     repeat the substitutions they hold) outgrow 32 bytes a byte is not
//     judged part by part: it asks, as a line that cannot be parsed does.
//   - A commandPrefix is encoded as the command it is matched against is
//     (stableStringify's JSON), so that >, <, &, U+2028 ... match.
//   - Loading never fails: a file or rule that cannot be used is reported
//     (Problem: the file, the rule's number, why) and skipped; the rest is
//     kept. Extensions may not allow, nor speak for yolo mode: such rules
//     are reported and dropped, as Gemini CLI drops them.
//   - The engine holds no state that changes: a Load's result is read by
//     any number of sessions at once.
//
// The built-in Default tier is mostly not files here: the agent's approval
// door (internal/agent/approvals.go) is Gemini CLI's default policies in Go, and
// ranks below every loaded rule, as tier 1 does. The default rules that
// depend on the session's interactivity (yolo's refusal of plan mode) are
// rules, in defaults/, which Load always reads. Which tools the model is
// told of is decided as 0.61 decides it (Excludes), over 0.61's default
// policy files whole, kept in listing/ for that alone, and the loaded
// rules. The files in defaults/ and listing/ are not parsed at run time:
// their tables are generated into tables.go (go generate), which a test
// holds to what the TOML decoder makes of them. [[safety_checker]]
// tables are read but not run: they are reported once, as a warning.
package policy
