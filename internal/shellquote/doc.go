// Package shellquote makes a value one word of a POSIX shell command (bash
// or sh, run with -c), as Gemini CLI's escapeShellArg quotes a custom
// command's {{args}} and a hook's variables.
//
// Invariant: the word, read by the shell, is the value as it was, byte
// for byte (NUL, which no command line holds, aside), bytes that are not
// UTF-8 too, in any locale (FuzzQuote runs bash and sh on it). Gemini CLI 0.61's
// shell-quote breaks this in two places, which Quote does not copy: it
// escapes ! inside double quotes, where a shell run with -c keeps the
// backslash (history expansion is off), and it leaves a ~ starting the word
// bare, which the shell expands.
package shellquote
