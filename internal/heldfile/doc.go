// Package heldfile makes files that say, by a lock, whether the process
// that made them still runs: a process id may be another's by the time
// it is read (after a crash and a reboot, low ids come back within
// seconds), but a lock goes when its holder ends, however it ends.
//
// Create makes a file and takes its lock; the maker holds it until it
// closes the file or ends. A reader opens it (Open) and asks
// (HeldElsewhere): held, its maker lives; free, the file was left
// behind; an error, the file system cannot say (one without locks).
//
// The lock is flock(2) on Unix, an open file's, not a process's, so
// another file of the same process that holds it counts as held too. On
// Windows it is LockFileEx on one byte at 2^62, past any file's text,
// since Windows' locks keep others from reading what they cover; the
// files are opened to share renaming and deletion, so a held file can
// still be renamed into place and removed.
package heldfile
