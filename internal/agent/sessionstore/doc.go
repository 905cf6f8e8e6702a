// Package sessionstore keeps each agent session on disk so it survives a
// restart: its history, the approvals the user gave for good, its token
// usage and its metadata (id, workspace root, title, model, times, prompt
// count, approval mode, approved plan). A running prompt is saved as it
// happens (Recorder, recorder.go): Begin writes the prompt before the
// first model request, Record each content the history gains as it
// completes (a model answer; its calls' results, again under one id as
// each ends), Commit the prompt's end (approvals, usage, exchange,
// metadata). A prompt saved whole at once (Append) is one that was not
// recorded, or a change between prompts.
//
// # What a killed prompt leaves
//
// A prompt whose end is not in the file is interrupted (its process died
// during it). Load reads it back with everything recorded of it: its
// exchange last in the transcript, stopped StopInterrupted with the
// answer it had; its tokens counted; its history closed so the model
// accepts it (Snapshot.close): a call with no recorded result answered
// with InterruptedCall, a last input answered with InterruptedNote (a
// model turn, Gemini CLI 0.61's placeholder). Snapshot.Saved says which
// of the contents are on disk: the closing ones are written by the
// session's next save, before its prompt.
//
// # Shared with Gemini CLI (Open)
//
// A store opened with Gemini CLI's directory (~/.gemini) and a project
// root keeps each session where Gemini CLI 0.61 keeps its own, in its
// format (shared.go states it), so either program lists and resumes the
// other's: ~/.gemini/tmp/<project>/chats/session-<start>-<id[:8]>.jsonl,
// <project> named by internal/geminidir as 0.61's project registry names
// it. A prompt is a line 0.61 reads as metadata carrying the messages not
// yet saved, the prompt's last, and under "$geminiLs" step "begin"; a
// message line per content (marked "$geminiLs" too; the answers of one
// answer's calls under one id, re-written as each ends, as 0.61 re-writes
// a message); a line 0.61 reads as metadata with, under "$geminiLs", step
// "end" and what 0.61 has no place for: the metadata, the approvals, the
// usage, the exchange with its file-edit journal; and, once (with the
// prompt it was made for, and in a rewrite), the session context the
// conversation's requests begin with (Snapshot.Context), which 0.61 does
// not read: it leaves a <session_context> message out of a resumed
// history and makes its own. A prompt's text is
// written once, in its message: the running prompt and the exchange
// name that message ("promptOf") rather than repeat a text it holds
// (storeonce.go). Each gemini-ls record and message mark carries the
// session format's version ("v", sharedVersion: 4 brought promptOf);
// 0.61 ignores it. Files of versions 2 (one line per prompt) and 3 are
// still read; a record or mark of a later version is a newer
// gemini-ls's, and Load refuses the file saying so and which formats
// it reads (*NewerFormatError, ErrNewerFormat), wherever the line is,
// rather than read the session without it (a prompt read back as
// empty). A promptOf naming no message reads as a prompt whose text is
// missing, never as an empty one. A file is read as
// 0.61 reads it (messages by
// id, "$set", "$rewindTo"); the model's history is rebuilt as 0.61's
// --resume rebuilds it, each call's result once. Record gives a session
// as 0.61's /export-session writes it (record.go): read as 0.61 reads
// the file, its lines and messages as written, in 0.61's bytes.
//
// Invariants of shared files:
//   - Begin, Record, Commit and Append write their lines (whole lines, one
//     write) before they return, so a process killed after keeps them;
//     the fsync (and a new file's directory's) follows off the caller's
//     path: Append's on a goroutine, a Recorder's on one per file, one
//     fsync at a time covering every write before it. A failed fsync is
//     told by the next save, and Wait (at a clean exit) waits for those
//     under way. A write that fails is returned and ends the recording:
//     the rest of the prompt goes whole in Commit's line.
//   - A line is committed when it ends with '\n'. A last line without one
//     is a torn write: Load ignores it, the next Begin or Append cuts it
//     off before writing; every whole line before it is kept. A line that
//     is not JSON before the last is corruption (ErrCorrupt, naming the
//     line). Records 0.61 ignores are ignored.
//   - A "begin" with no "end" after it, before the next "begin", a line
//     with no step or the file's end, is an interrupted prompt.
//   - gemini-ls's files are 0600 (0.61's keep their mode); Replace writes
//     a temp file and renames it over the old one, keeping its name.
//   - Only regular files are read, never through a symlink, never in a
//     way that blocks; at most MaxFileSize bytes; List considers the
//     MaxListed newest files of a project and, as 0.61 does, reads each
//     whole. Expire (retention.go) reads whole only a file of at most
//     1 MiB; a larger one, by its first and last lines. Both read only
//     the files changed since one of them last read them, keeping what
//     they read of each (its summary) in chats/.gemini-ls-summaries
//     (summaries.go; a line per file, a field holding a tab or a line's
//     end never kept), by the file's size, modification time and file
//     number, and for one modified within 2 s of its reading by its
//     content's digest too: a cache, written unsynced, whose loss or
//     damage costs only a read of every file.
//   - Ids are those ValidateID allows; new ones are UUIDs, as 0.61's are.
//   - The old directory (below) is still read: Load and List fall back to
//     it, a session in both places is listed once (the shared one), and
//     the first Append of an old session writes it whole to the shared
//     place, leaving the old file as it was.
//
// # The old directory (New)
//
// A session is ONE JSON-lines file, <dir>/<id>.jsonl (file 0600, directory
// 0700, whatever the umask: a session holds everything the user, the model
// and the tools said, secrets read from files included, so it is private
// as the cached tokens are). Every line is one record:
//
//	{"kind":"meta","v":1,"meta":{…}}            first line: the header
//	{"kind":"prompt","history":[…],"allow":[…],"usage":{…}}
//	{"kind":"meta","meta":{…}}                   commits the prompt above
//	{"kind":"begin","meta":{…},"running":{…},"history":[…]}   a recorded prompt
//	{"kind":"content","history":[…],"usage":{…}}           each content
//	{"kind":"content","history":[…],"partial":true}        results so far
//	{"kind":"prompt","ends":true,…}
//	{"kind":"meta",…}
//
// A begin, prompt or replace record may hold "context", the session
// context (Snapshot.Context), written once as in a shared file.
//
// History is genai's own JSON encoding of []*genai.Content, so function
// calls and responses, inline data and thought signatures round-trip.
//
// Invariants:
//   - A prompt is saved by Append as its prompt line and a meta line in one
//     write on an O_APPEND file, or by a Recorder line by line, its end
//     the same two lines; fsyncs follow off the caller's path
//     (durable.go, recorder.go), and a failed one is told by the next
//     save. A meta line after the header commits what came before it (a
//     file holding only a header holds no session: ErrNotFound); a file
//     whose last prompt ended ends with a small meta line, so List reads
//     a session's metadata from the file's last few KiB (the header
//     stands in otherwise).
//   - The whole lines after the last meta line are a prompt that did not
//     end (its process died; or a prompt line whose meta line never made
//     it): Load reads them, up to a bad line, as the interrupted prompt
//     above. A torn last line, or a bad line and what follows, Load
//     ignores and the next save truncates away first, so the file stays
//     valid.
//   - A bad line before a later meta line is corruption in the middle. Load
//     reports it (ErrCorrupt, naming the file and line) rather than skip it:
//     a history with a hole (a function call without its response) is one
//     the model rejects, and the user should know their session is damaged.
//   - Replace (after the history was compressed) writes the whole session —
//     header, one replace record, meta — to a temp file in the same
//     directory and renames it over the old one.
//   - Ids are letters, digits, '-' and '_', at most MaxIDLength bytes, so an
//     id never names a file outside the directory (ErrInvalidID).
//   - Only regular files are read or appended to: a FIFO, symlink or
//     directory named like a session is refused by Load and Append, skipped
//     by List, and never opened in a way that blocks. A file is at most
//     MaxFileSize bytes (ErrTooLarge).
//   - List reads about 64 KiB at most from each file's end (and the header
//     line, bounded likewise, when an interrupted append left a long line
//     there: the header's metadata, dated by the file's time, stands in),
//     never a whole history, and considers only the MaxListed most recently
//     modified files.
//   - An exchange carries the journal of the agent's file changes during
//     its prompt (FileEdit: exact bytes before and after, or why they were
//     not kept); the caller bounds it, the store keeps what it is given.
//   - The caller sets the metadata (times, title, prompt count); the store
//     records what it is given.
//
// Concurrency: a Store has no mutable state but its fsyncs under way;
// appends to different sessions may run concurrently, and a Recorder's
// Record from several goroutines. One writer per session is assumed — the
// agent runs one prompt at a time per session. Appends are whole lines
// in one write and take no lock; Replace of a shared file rewrites it
// under the lock of the files shared with Gemini CLI (internal/sharedlock),
// so two processes never rename over each other's rewrite.
package sessionstore
