package workspace

// This file pins the types other packages build on. Behaviour lives in the
// files beside it.

import "errors"

// Encoding is the unit LSP positions count characters in.
type Encoding int

const (
	UTF16 Encoding = iota // LSP's default
	UTF8
	UTF32
)

// Position is a zero-based line and character offset in some Encoding.
type Position struct {
	Line      int
	Character int
}

// Range is a half-open span between two positions.
type Range struct {
	Start, End Position
}

// TextEdit replaces Range with NewText.
type TextEdit struct {
	Range   Range
	NewText string
}

// ContentChange is one entry of didChange: a ranged change, or the whole
// text when Range is nil.
type ContentChange struct {
	Range *Range
	Text  string
}

// Document is an open editor buffer. Text never holds a byte-order mark
// (editors strip it); Version is the client's version number.
type Document struct {
	Path       string // absolute, cleaned
	URI        string
	LanguageID string
	Version    int32
	Text       string
}

// File is what a read sees: the open document when there is one, else disk.
type File struct {
	Path string
	// Real is the file read: Path with its symlinks resolved when it was
	// read, another file's name when Path is a symlink or one was swapped
	// into it since it was resolved. The file was opened by this name
	// beneath its root (beneath.go), so what holds of a file but is told
	// by its name (the ignore rules) is to be told of Real, not of Path.
	Real    string
	Content []byte // without a UTF-8 byte-order mark
	BOM     bool   // the file on disk starts with a UTF-8 BOM
	Open    bool   // Content came from an open document
	Version int32  // the document's version when Open
}

// FileChange is a whole-file change proposed by a tool: the text the tool
// saw (Before, from the overlay when open) and the text it wants (After).
// Both are in the file's own line endings and without a BOM.
type FileChange struct {
	Path   string
	Exists bool
	Before string
	After  string
	BOM    bool // re-add a BOM when writing to disk
	// HadBOM: the file held a BOM before the change. BOM may differ: a
	// BOM the tool writes is kept, and one the file has is never lost.
	HadBOM  bool
	Open    bool // Before came from an open document at Version
	Version int32
	// base is the root (or allowed directory) PrepareChange found Path
	// beneath: WriteFile reaches the file from it and from nowhere else.
	base string
	// writes are the write locks of the workspace that prepared it.
	writes *WriteLocks
}

var (
	// ErrOutsideRoots is returned for any path that resolves outside every root.
	ErrOutsideRoots = errors.New("path is outside the workspace")
	// ErrNotExist is returned when neither an open document nor disk has the path.
	ErrNotExist = errors.New("no such file or directory")
)
