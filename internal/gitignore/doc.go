// Package gitignore reads ignore files (.gitignore, .geminiignore,
// .git/info/exclude, core.excludesFile) and matches paths against their
// rules as git does:
// dir.c's reading of a rule and wildmatch.c's glob, tested against git
// check-ignore itself (the workspace's TestIgnoreMatchesGit and
// FuzzIgnoreMatchesGit).
//
// A rule: '!' re-includes; a trailing '/' matches directories only; a
// rule with no other '/' matches a name at any depth below its file's
// directory, one with a '/' (leading or in the middle) the path from
// that directory; '*' and '?' never match '/', "**/" at the start and
// "/**/" in the middle match any number of directories, "/**" at the end
// everything inside, and any other "**" is a '*'. Later rules win over
// earlier ones: a caller gives the rules of every file in force in order,
// lowest first (git: core.excludesFile, .git/info/exclude, then each
// directory's .gitignore from the work tree's top down, the directories
// above a workspace root too: package workspace finds and reads them),
// each parsed with its base relative to the one directory the paths
// given to Ignored are relative to (the top).
//
// Paths and rules are bytes: text that is not UTF-8 is compared byte by
// byte. Matching is case-sensitive unless a Parse asks to fold ASCII
// letters, as git does under core.ignorecase (which git init sets on a
// case-insensitive file system).
//
// Git's matcher backtracks, and over some rules ("a/**/**/…/**/c"
// against a deep path) takes time exponential in the stars: git itself
// does not answer. This one remembers what each position of a rule came
// to once a match grows costly, which answers those in polynomial time,
// and gives up on a match past a bound (a million steps, some tens of
// milliseconds): such a rule ignores the path, whether it ignores or
// re-includes, so that what the user hid is never shown for want of an
// answer.
//
// Where git changed its mind, this package is today's git: git before
// 2.52 cut a pattern's literal start off before globbing the rest, so
// "foo**/bar" matched "foobar"; git 2.52 (commit 1940a02dc1) made "**"
// after a literal an ordinary '*', as git's documentation always said.
package gitignore
