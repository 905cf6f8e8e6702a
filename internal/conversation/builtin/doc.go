// Package builtin declares gemini-ls's built-in slash commands once, for
// every front end, as Gemini CLI 0.61 spells them where they make sense
// outside a terminal, each with 0.61's other names for it (/usage is
// /stats, /mcp ls is /mcp list); Table lists them. Adding one is a file
// with its Run and a line in Table: /help, the editors' completions and
// ACP's available commands all read Table. A front end lists Table (with
// the user's commands after it) and runs a "/name args" prompt naming
// one, or one of its other names, with its Run, then shows the Reply's
// Markdown, or sends its Input to the model, or shows the error.
//
// Invariants:
//   - A built-in calls the model only when it is a prompt (/init, whose
//     Reply.Input the front end sends) or asks for a summary (/compress);
//     every other answers from what the process knows.
//   - A built-in changes the conversation only through agent.Session
//     (Clear, Delete, ReplaceHistory, Compress, Rewind, RestoreFiles, RunCall), which refuses while a prompt
//     runs and saves the session as a prompt does; nothing here writes
//     the session store, and only /export-session reads it (its Record).
//   - A file the user names (/export-session, /chat share) is written where the
//     user said and nowhere else (writeUserFile): a regular file there
//     is replaced, a directory, symbolic link or special file refused.
//   - /memory add writes the global GEMINI.md through memory.AddFact
//     (0.61 has no add any more, nor save_memory: the model edits the
//     memory files itself); /memory inbox reviews what 0.61's auto memory
//     proposed (internal/memory's Inbox), and only with
//     experimental.autoMemory on, as 0.61 does.
//   - /chat keeps checkpoints where Gemini CLI does and as it writes them
//     (checkpoint.go, internal/geminidir): either resumes the other's. A tag
//     with a path separator, no tag, or a file over maxCheckpointSize is
//     refused with an error, and a checkpoint is never overwritten.
//   - /restore reads the checkpoints internal/agent/checkpoint takes before
//     edits (Gemini CLI's, in its places); it puts the files back only
//     through Session.RestoreFiles, one change the user previews, and
//     the conversation only when some file was restored or none differed;
//     then it proposes the checkpoint's call again (Session.RunCall),
//     which the user confirms or declines as any call.
//   - /setup-github writes only under the top of the workspace's git
//     repository (.github/workflows, .github/commands, .gitignore): 0.61's
//     files and gemini-ls's own workflow (workflows/gemini-ls.yml, which
//     asks no token scope at the top and each job only what it needs;
//     TestGeminiLSWorkflow holds it to that), and
//     directly, as /export-session does: the user named these files by
//     running it. It downloads everything before writing anything, and
//     refuses a symbolic link or non-directory on the way, or anything
//     but a regular file in a file's place, before writing anything.
//     GitHub is reached at gitHub()'s endpoints, which only a
//     gemini_ls_e2e build takes from its environment.
//   - /directory add adds only a trusted folder (setup's
//     AddTrustedDirectory), as Gemini CLI asks before it adds another;
//     the roots grow, never shrink.
//   - /model set takes any model name, as Gemini CLI does (the API
//     refuses one it does not know at the next request), for every
//     session of the agent (Agent.SetModel), as Gemini CLI sets its one
//     config's; --persist saves it as model.name in the user's settings
//     first, and sets nothing when that fails.
//   - /agents works on the session's catalogue of subagents (Env.Agents,
//     which the composition root fills); enable and disable go through
//     it to the settings, and the agents are found again at once.
//   - /permissions trust puts the front end's folder trust question
//     (Env.Trust) and records the answer through setup (Built.SetTrust),
//     the one writer of trustedFolders.json; it rebuilds nothing: the
//     front end builds anew before the next prompt when the workspace's
//     trust changed.
//   - /extensions install, uninstall, link and update, and /skills link,
//     run package manage's code, the command line's (manage.Chat); their
//     questions go through Env.Port, the turn's port the agent asks on,
//     and nobody to answer refuses (--consent, typed by the user, is
//     the consent). A change to the installed extensions, and
//     /extensions reload, mark the build stale
//     (setup.Built.ExtensionsChanged): the front end builds anew before
//     the next prompt, as for a change of the folders' trust.
//   - /hooks disable, enable, disable-all and enable-all write
//     hooksConfig.disabled where Gemini CLI 0.61 writes it (the
//     workspace's settings, else the user's; enable takes a name out of
//     both) with settings.SetValue, then have the hooks read the settings
//     again (Built.ReloadHooks): a change counts from the next event, in
//     every session, and in the next process.
//   - A name is looked up before the other names, at each level (Find,
//     then a command's subcommands), as Gemini CLI's parseSlashCommand
//     does; no name is two built-ins'.
//   - /mcp enable and disable write only Gemini CLI's
//     mcp-server-enablement.json (package mcp/enablement; --session
//     writes nothing), then /mcp reload's path, setup's
//     Built.ReloadMCP, starts the servers anew from the settings read
//     again; the next model request offers what they list.
//   - /auth signout touches only the cached Google login's two files
//     (auth/login.SignOut) and security.auth.selectedType in the user's
//     settings; /bug and /docs only read.
//   - /privacy and /upgrade only read, but for /privacy optin and optout,
//     which change nothing but the Code Assist server's opt-in of the
//     signed-in account (setCodeAssistGlobalUserSetting), on the free
//     tier only, as 0.61's dialog offers it.
//   - /quit runs nothing (there is no terminal to exit); /quit --delete
//     deletes the conversation through Session.Delete.
//   - A usage error (an unknown subcommand or option, a missing tag)
//     names the command's usage.
//   - A command or subcommand that changes what the agent may do or
//     runs with (trust, settings, extensions, MCP servers, hooks,
//     skills, subagents, the roots, the memory, the model, the account)
//     declares it (Builtin.Changes), and runs only through Invoke, which
//     refuses it, before it does anything, where no person typed it
//     (Env.Unattended: text from a pipe or -p). What only reads, the
//     reloads (they read again what the user configured), /plan (it
//     allows less) and the conversation's own commands declare nothing.
package builtin
