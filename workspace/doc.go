// Package workspace is the agent's view of the files it works on: the roots
// it may touch, the editor's open documents (overlays) that take precedence
// over disk, ignore rules, text and position math in every LSP position
// encoding, and whole-file changes turned into minimal text edits.
//
// Paths: Resolve turns a tool's path into an absolute one with symlinks
// resolved and refuses anything outside the roots (ErrOutsideRoots); the
// reading and listing methods expect resolved paths. Documents are keyed by
// resolved path too, so the editor's spelling of a path and the resolved
// one reach the same buffer.
//
// Reads (ReadFile, Stat, ReadDir, Walk) see open documents first, including
// ones not yet saved. Writes are proposed as a FileChange (PrepareChange,
// keeping the file's BOM and \r\n line endings) and reach disk only through
// WriteFile, atomically, and only if disk still holds what the change was
// prepared from (ErrStale).
//
// Nothing here knows about LSP wire types or the model; the lsp package
// translates, the tools package reads and proposes through it.
package workspace
