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
// repository (hash-object, update-index), never through the workspace.
// Every git run is bounded in time.
package checkpoint
