// Package extensions loads the Gemini CLI extensions a user has installed,
// as Gemini CLI 0.61's ExtensionManager does, so that what `gemini
// extensions install` or `link` put in ~/.gemini/extensions works here
// unchanged; and manages them as `gemini extensions` does (Manager:
// install, link, update, uninstall, enable, disable; New, Validate),
// writing exactly the files Gemini CLI 0.61 writes, so that either tool
// lists, updates and removes what the other installed.
//
// An extension is a directory of ~/.gemini/extensions holding a
// gemini-extension.json manifest, or, when its
// .gemini-extension-install.json says "type": "link", the directory that
// file's "source" names. Load gives each one found as an Extension: what
// its manifest declares (MCP servers, context files, excludeTools), where
// its commands, skills, policies and hooks are, and whether it is enabled
// for the workspace (extension-enablement.json's overrides, as `gemini
// extensions disable --scope` writes them).
//
// Invariants:
//   - Only the user's extensions directory is read: Gemini CLI 0.61 loads
//     no extension from a workspace, so a cloned repository cannot bring
//     one in.
//   - A broken extension (unreadable or invalid manifest, missing name or
//     version, a name other than letters, digits and dashes, a context
//     file outside its directory, a name already loaded) is one *Error
//     naming it, and is left out; every other extension loads.
//   - Every string of the manifest has ${extensionPath}, ${workspacePath},
//     ${/} and ${pathSeparator} replaced first, then $VAR, ${VAR} and
//     ${VAR:-default} from the extension's .env settings, then the
//     environment; a variable nothing defines stays as written. The
//     values variables give are Extension.Redacted, kept out of messages,
//     and may add at most maxGrowth bytes to a manifest.
//   - The manifest, its install record, its hooks file, the enablement
//     file and extension_integrity.json are read as Gemini CLI's
//     JSON.parse reads them: members by exact name, the last of a name
//     winning (jsjson.Decode).
//   - An extension's MCP server never skips confirmations: its "trust" is
//     dropped, as Gemini CLI drops it.
//   - A disabled extension is listed, and contributes nothing (Active
//     leaves it out).
//   - An install or update is built in the user's Gemini directory's tmp
//     (never in the extensions directory, which Gemini CLI loads whole)
//     and renamed into its place, the previous version moved aside until
//     then: a failure leaves what was installed. Consent is asked (Manager.Consent) before
//     anything is written.
//   - gemini-ls never makes Gemini CLI's integrity key; it signs
//     extension_integrity.json only with the key Gemini CLI made, and
//     only a store that key verifies.
//   - The enablement file and extension_integrity.json are read and
//     rewritten only under their locks (internal/sharedlock), so that
//     gemini-ls processes wait for each other's writes (Gemini CLI 0.61
//     takes no lock on them).
package extensions
