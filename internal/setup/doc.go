// Package setup builds the agent the way a Gemini CLI user's setup asks
// for: the environment with its .env file, the layered settings with the
// front end's options over them, the auth mode and its content generator,
// the tools (built-in, discovered, MCP), the policy files' rules, the
// GEMINI.md memory and the session store. It is the one place that turns configuration into an
// agent, so `serve` (the LSP front end) and `run` (headless) cannot drift.
//
// Invariants:
//   - Folder trust is decided once per build, from the process
//     environment, before the .env file is read (Built.Trust); the .env,
//     the settings, the GEMINI.md loader, the agent skills, the MCP
//     servers, the workspace's policy files and the approval mode all take
//     that answer. An untrusted workspace runs in the default approval
//     mode, starts no MCP server and reads or writes nothing of its
//     .gemini/ (settings, .env, commands, agents, skills, policies, and
//     the system.md GEMINI_SYSTEM_MD and GEMINI_WRITE_SYSTEM_MD would
//     name there), and the user is told why, of the .gemini/ in one
//     notice per root and process (tellUntrusted). When what decides it changes
//     (Built.TrustChanged: the trust question's answer, recorded with
//     Built.SetTrust, /permissions, Gemini CLI), the host builds anew
//     (Rebuild, with the settings the front end changed since: Reload)
//     rather than patch a build (trust.go).
//   - The user's installed extensions (package extensions) are read once,
//     after the settings files, as security.allowedExtensions and
//     blockGitExtensions allow; the enabled ones' MCP servers and
//     excludeTools go under the settings (a settings server of the same
//     name wins), their context files into the memory, their skills
//     directories under the agent skills, their policies under the
//     policy engine's extension tier, and Built.Extensions keeps them for
//     their commands and /extensions.
//   - The MCP servers alone are read again in a running build
//     (Built.ReloadMCP, /mcp reload): the settings files, the front
//     end's settings and the extensions as they are now, less the
//     servers the user disabled; the rest of the settings wait for a
//     rebuild.
//   - Nothing here talks to the model or blocks on the network: the
//     generator makes its client on the first request, and MCP servers and
//     the discovery command start in the background.
//   - A problem with the configuration never stops the build: unreadable
//     settings are reported through Options.Warn and left out; missing
//     credentials leave Built.AuthErr set and the rest usable. Replayed
//     answers (Options.Responses) need no credentials; a file of them
//     that cannot be read stops the build, saying which line is wrong.
//   - The settings keys nothing reads are told through Options.Warn
//     (UnreadSettings) once per process (Told), however often the
//     settings are read.
//   - Roots added to the front end's (context.includeDirectories, the
//     front end's IncludeDirectories, /directory add) are not projects:
//     trust is decided and settings, .env and commands are read for the
//     front end's roots alone; their GEMINI.md files count only with
//     context.loadMemoryFromIncludeDirectories in a trusted workspace, and
//     /directory add adds only a trusted folder.
//   - The session store is opened by OpenSessions alone, for a build and
//     for the listings that need none, so every reader and writer agrees
//     where a project's sessions are kept.
package setup
