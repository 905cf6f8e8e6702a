// Package sharedlock takes the lock Gemini CLI 0.61 takes on a file it
// shares with gemini-ls before a read-modify-write of it: proper-lockfile's
// lock (v4, bundled in 0.61; its trusted folders and project registry
// writers call lock(file, {retries}) with the other options left at their
// defaults). Both programs then wait for each other, and several
// gemini-ls processes for one another, on any file the two rewrite.
//
// The protocol, step for step as proper-lockfile does it:
//
//   - The file's canonical path is its real path (every symbolic link
//     resolved; proper-lockfile's realpath option, on by default); for a
//     file not there yet, its directory's real path and its name.
//   - The lock is the directory "<canonical path>.lock", taken by creating
//     it (mkdir, which only one creator wins, on every file system).
//   - A lock directory already there is stale when its modification time
//     is more than Stale (10 s, proper-lockfile's default) in the past.
//     A stale one is removed (rmdir) and the lock taken by one more
//     mkdir; a taker that loses that race waits as for a fresh lock.
//   - A fresh one is waited for: the attempt is made again after a
//     growing delay. proper-lockfile's callers in 0.61 retry 10 times
//     from 100 ms, doubling; gemini-ls retries from 25 ms, doubling with
//     jitter up to 1 s between attempts, so that a lock gone stale is
//     seen soon and 40 processes do not retry in step, and gives up after
//     MaxWait (or when its context ends): a live holder keeps its lock
//     fresh, so waiting longer than a stale lock takes to expire means
//     one is holding it, and the caller gets an error naming the file and
//     the lock directory, the file unchanged.
//   - While held, the lock directory's modification time is set to now
//     every Update (Stale/2, proper-lockfile's default), so that it never
//     looks stale to another taker.
//   - Before each refresh the directory is checked to be still ours: the
//     same directory (proper-lockfile compares the modification time it
//     last set; gemini-ls compares that and the directory's identity). A
//     lock removed or replaced is compromised: it is no longer refreshed,
//     and Held says so, so a write checks Held just before its rename and
//     changes nothing when the lock was lost.
//   - Release removes the directory, if it is still ours.
//
// A process killed while holding a lock leaves the directory behind; it
// goes stale Stale after its last refresh, and the next taker removes
// it. proper-lockfile also removes its locks on exit; gemini-ls releases
// every lock before the function that took it returns.
//
// Invariant: a file shared with Gemini CLI is rewritten only while its
// lock is held and Held reports it held, and always by writing a
// temporary file and renaming it over the file (internal/safefile).
package sharedlock
