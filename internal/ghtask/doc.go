// Package ghtask is what gemini-ls's two sides on GitHub agree on: the
// runner (package action, in a GitHub Actions step) and the editor's
// side that starts and follows it (package background). A task's name
// gives its branch, gemini/<name>; a comment naming Mention asks the
// agent for more.
//
// Invariants:
//   - A name is a slug: lower-case ASCII letters and digits in runs
//     joined by single dashes, at most MaxSlug bytes (a suffix after),
//     never empty: git takes it as one part of a branch name.
//   - No state, no dependencies beyond the standard library: both sides
//     link it.
package ghtask
