// Package workspace is the agent's view of the files it works on: the roots
// it may touch, the editor's open documents (overlays) that take precedence
// over disk, ignore rules, text and position math in every LSP position
// encoding, and whole-file changes turned into minimal text edits.
//
// Positions: a character is what utf8.DecodeRuneInString reads, so in
// text that is not UTF-8 each bad byte (a stray continuation byte too) is
// one, the same to OffsetAt, PositionAt and every walk (in UTF-16 one
// code unit, as the U+FFFD it decodes to is); an offset inside a
// character or between \r and \n moves back to its start, and a
// position past a line's end or the text's clamps to it. A didChange's
// changes mean each applied to the text the last one left: applied in
// runs, they give that text on any bytes.
//
// Paths: Resolve turns a tool's path into an absolute one with symlinks
// resolved and refuses anything outside the roots (ErrOutsideRoots); the
// reading and listing methods expect resolved paths. Documents are keyed by
// resolved path too, so the editor's spelling of a path and the resolved
// one reach the same buffer.
//
// Beneath the roots (beneath.go): a resolved path is a name, and names
// change; a command the agent runs (sandboxed, but free to write in the
// roots) can swap a directory with a symlink leading out between the
// check and the use. So every operation on the file system (read, stat,
// listing, each directory of a walk, directory creation, the temporary
// file and its rename, a deletion, a mode change) reaches what it
// touches from a handle on the outermost root (or allowed directory)
// holding the path, opened by name, the rest of the path resolved by the
// kernel beneath that handle: openat2 with RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS on Linux, os.Root elsewhere (and where openat2 is
// missing), which follows a symlink only while it stays beneath. On
// Unix that handle is kept open for the workspace's life (bases.go),
// checked by one lstat of its name at each use and opened again when
// the name names another directory; Close lets the handles go. On
// Windows each use opens it and closes it after: a directory held open
// there could not be renamed or removed. A path is never used by name
// from / after its check. A resolved path holds no
// symlink, so one met on the way was swapped in, and the operation fails
// saying so (errSwapped); symlinks present when the path is resolved are
// followed as Resolve says, inside the roots. Whether a file may be seen
// (inside the roots, regular, ignored by a listing) is decided of the
// file the handle opened or the directory it listed, never of a name
// looked up again: WriteFile's check, temporary file and rename go
// through one handle on the file's directory, which it reaches (making
// what is missing) a directory at a time from the root's handle,
// following no symbolic link at all, not even one staying beneath the
// root, each directory opened confirmed to be the one lstat saw: a link
// to .git/hooks or .gemini swapped into a path the approval door
// checked would land the write in a protected file the door never saw
// (issue 94), so the file written is the path checked; a walk's file is opened
// beneath the root and fstat-ed before a byte is read. A read says which
// file it read (File.Real: the path as the read resolved it), so that
// what holds of a file but is told by its name (the ignore rules, .git)
// is checked of the file read, not of the name asked for: a symlink, one
// listed or one swapped in since the name was checked, may lead to a
// file the name does not show (the tools refuse such a read). Programs
// that open files by name themselves (ripgrep, git grep) only say which
// files match; the result is read again through the workspace.
//
// Roots grow and never shrink: AddRoot makes a directory a root while the
// workspace is in use (Gemini CLI's --include-directories, /directory
// add), resolved and checked as New checks the first ones, and from then
// on it is a root like them. The first root never changes.
//
// Allowed directories (Allow) are the one way past the roots: a directory
// outside them (a session's plans directory, under ~/.gemini/tmp) that
// Resolve, the reads and PrepareChange reach as if it were inside, its
// symlinks followed and checked the same way. It is never a root: Roots
// and RootOf do not name it, so nothing lists or searches it by default
// (a relative path is still the first root's); a listing or walk goes in
// only when it is asked for that directory by name. Only what a caller
// allows is reachable, never a parent of it.
//
// An allowed file (AllowFile: Gemini CLI's global GEMINI.md) is one file
// outside the roots made reachable the same way, and nothing else of its
// directory: no file beside it, no listing. Its symlinks are followed
// when it is allowed, as Gemini CLI compares real paths, and from then
// on it is its real path. Its directory is the base it is reached from
// (opened and kept as a root's handle is), by its one name, so a
// symlink put in its place later is refused as anywhere beneath a
// root; a missing file and directory are made by the first write. A
// base is only ever a directory: Allow refuses a file, AllowFile a
// directory.
//
// Reads (ReadFile, Stat, ReadDir, Walk) see open documents first, including
// ones not yet saved.
//
// A front end whose editor keeps buffers the workspace is not told about
// (ACP's fs/read_text_file) gives the workspace a Buffers (SetBuffers).
// Single-file reads, ReadFile and the read PrepareChange makes, then take
// the editor's text of a file with no open document, so the agent's
// read_file, @paths and edits see unsaved changes. The editor is
// asked only after disk passed every check below (inside the roots, a
// regular file, within the size limit), and only for a file disk holds as
// text (valid UTF-8, no NUL byte): binary files are disk's. Its answer is
// held to the same size limit, and its error fails the read rather than
// falling back to disk, so the model never takes disk's text for the
// user's. Listings, walks and ReadEntry (glob, grep_search, the files an
// @path's glob matches) keep reading disk: asking the editor
// about every file of a tree would cost a round trip each. Stat and
// existence are disk's (or an open document's) alone.
//
// File content comes from disk only through read.go: the path's symlinks
// are followed and the target must be inside the roots; only a regular
// file is opened (never a device, FIFO or socket), without blocking, and
// confirmed by fstat to be the file that was checked; its size from stat
// is checked against the caller's limit before reading (ErrTooLarge), no
// read holds more than the limit, and ctx is checked between chunks. A
// file a walk or listing typed a regular file (ReadEntry, ReadEntryInto:
// a search's reads) is not stat-ed again by path before it is opened:
// the listing was that check, the open neither blocks nor follows a
// symlink, and the fstat refuses, before a byte is read, anything swapped
// in since.
//
// Listings (ReadDir, Walk) hold only directories and regular files inside
// the roots, symlinks followed; a symlink leading outside, nowhere or to a
// special file is left out and counted in Omitted, and so is an unreadable
// directory, so one bad entry never fails a listing. Nothing else is left
// out, however big a directory: ReadDir reads it whole and sorts it; Walk
// streams, reading a directory a batch (dirBatch entries) at a time and
// visiting each batch in name order, so that it holds no more than a
// batch of any directory's names, and runs until it ends, its callback
// stops it or its ctx is done. A caller bounds a search by time (a ctx
// deadline), never by an entry count. Entries carry Ignored, from ignore
// files read once per directory per listing, never per entry (Ignored
// tells it of one path without a listing). Every ignore file's rules
// mean what they mean to git (package gitignore): a path of a root is
// ignored by git's rules exactly when git check-ignore run in the root
// says so (TestIgnoreMatchesGit, FuzzIgnoreMatchesGit,
// TestIgnoreBelowTheTopMatchesGit, FuzzIgnoreBelowTheTopMatchesGit ask
// git), and nothing below an ignored directory is re-included. A root in
// a git repository (the nearest work tree's top from the root up,
// gitmark's: not a sandbox's empty .git) starts with git's rules from
// above it, read as git reads them from the top down (ignore_repo.go):
// core.excludesFile (by default $XDG_CONFIG_HOME/git/ignore, else
// ~/.config/git/ignore), the common directory's info/exclude (a linked
// worktree's .git file names its git directory, whose commondir names the
// main repository's), the .gitignore of the top and of every directory
// down to the root, none below a directory they ignore (the root
// ignored, all of it is); letters match in any case as the repository's
// core.ignorecase says, else on Windows and macOS (foldIgnoreCase). Git's
// configuration is read from its files (package gitconfig; include.path
// followed, includeIf not), never asked of git: nothing the repository
// configures runs. Above a root nothing is read but what git reads there
// (the top's .git, commondir, the configuration files, the excludes
// file, info/exclude, the .gitignore files on the way down: regular
// files, at most 1 MiB, a .gitignore no symlink, as git 2.32 on), and
// what was read is stat-ed again at each use, read again when changed.
// These files are opened by name as git opens them, symlinks followed,
// not beneath a root's handle, a top's .git inside the root too: the
// one exception to the rule above, for files that only ever add or take
// back ignore rules, and that the agent's writes (package protected) and
// sandboxed commands (package sandbox) cannot change unasked.
// An allowed directory reads nothing above itself; a root outside any
// repository reads its own .git/info/exclude. The rules of every
// root (and allowed directory) holding a path count, each read from its
// own root down: a root nested in another (AddRoot, an editor's /proj and
// /proj/pkg) never lifts the outer root's rules. Which ignore files count is
// the workspace's one choice (SetIgnoreFiles: the settings'
// context.fileFiltering; IgnoreFiles tells it, for another workspace over
// the same files to make), the same for every listing, walk and Ignored;
// IgnoredByAny counts every file whatever was chosen, for what must not
// leave the machine. A tool's argument may lift .gitignore's rules for
// one walk or check (WalkOptions.LiftGitIgnore, IgnoredLiftingGit), never
// .geminiignore's or the custom ignore files': those are the user's
// word on what the agent may read, which only settings change. Entries are typed from the
// listing without a stat (symlinks aside); a caller asks Info for the
// sizes and times it needs (WalkOptions.Stat has a walk take them as it
// lists), and a read checks the size when it opens the file. Walk runs
// on every core: its callback runs on several goroutines at once, for
// different directories in no set order, and a caller whose result must
// not depend on that order orders what it found (ComparePaths: as a walk
// of directories in name order would meet it).
//
// Writes are proposed as a FileChange (PrepareChange,
// keeping the file's BOM and \r\n line endings) and reach disk only through
// WriteFile (RemoveFile, for a revert deleting a file), atomically, and only
// if disk still holds what the change was prepared from (ErrStale), beneath
// the root PrepareChange found the file in: a change it did not make is
// refused. That check runs just before the rename (the new text already
// in its temporary file), and the path's write lock (HoldPath: one per
// resolved path in the workspace's WriteLocks, which the workspaces over
// the same files share: ACP makes one per session) is held from before the check to after the rename, so of two
// changes prepared from the same text and written at once the second is
// ErrStale, never a silent undoing of the first. A front end that checks
// and writes another way (ACP's fs/write_text_file) holds it across both.
//
// Nothing here knows about LSP wire types or the model; the lsp package
// translates, the tools package reads and proposes through it.
package workspace
