// Package memory loads the user's context files (GEMINI.md then AGENTS.md,
// or the names settings' context.fileName lists) as Gemini CLI does, for
// the model. AGENTS.md by default is gemini-ls's own choice: 0.61 reads
// GEMINI.md alone unless context.fileName names more; the memory's
// heading names AGENTS.md only once one was read, so without one the
// model gets 0.61's words.
//
//   - SystemMemory is the section appended to the system instruction: the
//     global files in the user's Gemini directory (~/.gemini), then the
//     enabled extensions' (Config.Extensions, each read in its extension's
//     directory), then for each workspace root the files from the root's git root (the nearest
//     ancestor holding .git; the root itself outside git) down to the root,
//     each directory's names in the configured order. Each file appears
//     once (by its resolved path), wrapped in "--- Context from: <path> ---"
//     and "--- End of Context from: <path> ---", blocks joined by a blank
//     line. The agent calls it every turn: a file is read again only when
//     its stat (or its editor buffer's version) or one of its imports'
//     changed, so the model's and the user's edits reach the next turn.
//   - The private project memory (Config.PrivateDir, Gemini CLI 0.61's
//     ~/.gemini/tmp/<project>/memory) gives its index, MEMORY.md (or,
//     without one, the context files older versions kept there), never
//     its sibling notes, which the model reads when the index points to
//     them. Once it has text, SystemMemory takes 0.61's object form: a
//     tag per tier (<global_context>, <user_project_memory> framed as a
//     private index, <extension_context>, <project_context>) instead of
//     the heading and precedence rules.
//   - Each trusted root's Antigravity rules (.agents/rules/*.md, rules.go)
//     follow its context files, by name, their front matter dropped:
//     those whose trigger is always_on or unset; a rule Antigravity
//     applies on a judgement (glob, model_decision, manual) is not read,
//     and RulesReport says why.
//   - Discover is the just-in-time part: when a tool touches a path, the
//     context files in its directory and in the parents below its root
//     (the root and above are SystemMemory's) are returned once per
//     session, for the tool to append to what the model reads.
//   - "@path" imports are expanded as Gemini CLI's memoryImportProcessor
//     does (tree format, its HTML-comment markers), relative to the
//     importing file, 5 levels deep, never re-expanding a file already in
//     the chain, never inside code spans or blocks, and only inside the
//     file's scope: the git root (or workspace root) for project files, the
//     Gemini directory for global ones. A project's imports also follow
//     the rules of what the agent may read (bounds.go), since the model is
//     shown them: a file inside the workspace roots imports only inside
//     them (a file between the git root and the roots, which the agent
//     cannot write, keeps the git root), and no project import brings an
//     ignored file or one in .git; a cached expansion is kept only while
//     those verdicts hold. Discover skips a context file the agent may not
//     read. A failed import stays in the text as a comment saying why; it
//     is never an error.
//   - No file that may hold credentials or settings reaches the model,
//     whoever names it, an import or context.fileName (the guard,
//     secrets.go): a .env or .env.* anywhere, and in the user's Gemini
//     directory or any .gemini directory everything but Markdown and the
//     configured context file names (and never a .json among those). It
//     is an allowlist, so files later Gemini CLI versions add there are
//     refused too. A symlink is judged by its name and by its target. A
//     refused import is a comment saying so, never the content; a refused
//     context file is skipped and logged.
//   - The inbox (inbox.go) holds what 0.61's auto memory, a model,
//     proposes: its patches are read and placed as jsdiff places them
//     (patch.go), in work linear in the file and the patch however they
//     are made (place.go): a hunk is looked for from its line clamped into
//     the file, and a patch costing more, only one whose hunks are out of
//     order or name lines far past the file's end, is refused saying so.
//
// Reading never blocks and never leaves its scope: every file is read
// through a workspace.Workspace rooted at the scope (sharing the editor's
// buffers), so only regular files are opened, without blocking, symlinks
// must stay inside the scope, and each file is size-checked before being
// read (MaxFileSize).
// A FIFO, device, symlink leading out, or oversized file is skipped and
// logged; the expansion of one file stops adding imports once MaxFileSize
// of text is reached. The global file may be a symlink anywhere (the
// user's own dotfiles); its target's directory then joins the global
// scope.
package memory
