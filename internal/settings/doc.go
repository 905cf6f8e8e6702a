// Package settings reads Gemini CLI's settings files, so a Gemini CLI
// user's configuration works in gemini-ls unchanged: the system defaults,
// the user's ~/.gemini/settings.json, each workspace root's
// .gemini/settings.json (only in a folder the user trusts) and the system
// settings, merged in that order as Gemini CLI merges them (load.go,
// merge.go); an editor's options go over them (With). It imports nothing
// of gemini-ls: cmd and the front ends read settings and hand each part to
// what it configures.
//
// Invariants:
//   - Trust is one decision (DecideTrust, trust.go), made from the process
//     environment (with the editor's standing decision a front end adds,
//     EditorTrustVariable) and the non-workspace layers before any .env
//     file is read; Load and LoadDotenv take it and never decide again.
//     Only GEMINI_CLI_TRUST_WORKSPACE=true, the user's yes for a run,
//     trusts a root without checking it against the sandboxes' trail.
//   - An untrusted root's settings file is not read, let alone expanded;
//     nor is its Antigravity .agents/mcp_config.json (antigravity.go),
//     whose servers, like those of the user's Antigravity files, join
//     mcpServers only under names settings.json does not give, each file's
//     fate reported (AntigravityFiles).
//   - Variable expansion is bounded per string and per file (expand.go),
//     and no error shows a value that came from the environment.
//   - Every key of a file Load uses that gemini-ls does not read is
//     listed (UnreadKeys), as Gemini CLI's key or as unknown, against one
//     catalogue of Gemini CLI 0.61's keys (catalogue.go), whose test holds
//     it to Gemini CLI's configuration reference. A key read elsewhere is
//     marked implemented there, in one line. An unknown key carries the
//     key at its place it is likely a typo of (Unread.Meant), if any.
//   - Members are read as Gemini CLI's JSON.parse reads them: by exact
//     name ("excludetools" is not "excludeTools"), the last of a name
//     winning whole, at every depth (jsjson.Decode); every decode of a
//     file's value into a struct goes through fromMap or fromValue.
//   - A file that is not valid JSON, or whose value has the wrong type, is
//     ignored whole, and its error says so, with where and, in plain
//     words, what was expected and found (jsonerror.go).
package settings
