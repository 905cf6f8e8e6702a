// Package checkpoint is Gemini CLI's checkpointing (settings'
// general.checkpointing.enabled), in its places and formats, so either
// program restores the other's checkpoints.
//
// Before an edit lands, the agent (agent.Checkpointer) has the Store
// commit the whole workspace, as the user sees it (an open document's
// unsaved text in place of its file's), to a shadow git repository,
// ~/.gemini/history/<id>/.git, and write the conversation and the call
// to ~/.gemini/tmp/<id>/checkpoints/<timestamp>-<file>-<tool>.json,
// where <id> is the project's id in Gemini CLI's project registry
// (internal/geminidir). /restore lists those files, and restores one:
// Targets says what each file differing from the snapshot (the workspace
// as the user sees it now) goes back to, and whether it was executable,
// which the agent lands as one change the user previews
// (agent.Session.RestoreFiles), and the history is put back.
//
// Invariant: the shadow repository is apart from the project. git runs
// with GIT_DIR in the history directory and the workspace as its work
// tree, its own .gitconfig and an empty system config, and none of the
// user's GIT_* variables; it never runs in, or writes to, the project's
// own .git, and a history directory inside the workspace is refused; an
// unsaved buffer reaches the snapshot as a blob written into the shadow
// repository, never through the workspace.
// Every git run is bounded in time.
//
// Invariant: git never reads a workspace file for a snapshot. A command
// the agent runs may swap a workspace directory for a symbolic link out
// while a snapshot is taken, and git opens files and directories by
// name; so git only names the paths a snapshot holds (ls-files: the
// index's and the untracked ones its ignore rules keep, as git add
// --all takes them), and each is read beneath the root (os.Root, which
// follows no link out of it) and written into the shadow repository by
// this package as git would write it (a loose blob, the index built
// with update-index), in the same format, so Gemini CLI's checkpoints
// and ours restore either way. A symbolic link met on a path's way
// fails the snapshot, unless it is still there (git leaves out what
// lies beyond one); a blob the repository lacks is written from a
// second read of its file, and named for what that read. The buffers a snapshot compares with disk are
// read beneath the root too. A restore reads only the shadow
// repository, and lands through the workspace's beneath-root writes.
package checkpoint
