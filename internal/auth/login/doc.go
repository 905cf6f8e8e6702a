// Package login signs in with Google as Gemini CLI's "Sign in with Google"
// does (code_assist/oauth2.ts), so that gemini-ls needs no Gemini CLI to
// get the login both use: the same OAuth client, scopes and redirect URIs,
// and the same files, ~/.gemini/oauth_creds.json and
// ~/.gemini/google_accounts.json.
//
// Two flows: Browser, where the browser comes back to a server on a
// loopback port (http://127.0.0.1:PORT/oauth2callback) with the code, and
// Manual, for when the browser runs on another machine: the user opens
// the URL anywhere, Google's page (https://codeassist.google.com/authcode)
// shows a code, and the user pastes it back.
//
// Invariants:
//   - Both flows use PKCE (S256) and a random state; the loopback server
//     takes one answer with the right state, and an answer with another
//     state ends the sign-in with an error, as a cross-site request
//     forgery would be. Requests to other paths get 404 and change nothing.
//   - Every flow ends: with its context, or after Config.Timeout (five
//     minutes, Gemini CLI's), and the loopback server is closed when it
//     does.
//   - The credentials are written only after Google granted them, in the
//     shape Gemini CLI writes (codeassist.SaveLogin: mode 0600, atomically);
//     a failed sign-in leaves the previous login as it was.
//   - oauth_creds.json and google_accounts.json are rewritten (and
//     removed, on sign-out) only under their locks (internal/sharedlock),
//     so that gemini-ls processes signing in and out at once lose nothing
//     another recorded.
//   - The endpoints are Google's. Config.Endpoints changes them for tests
//     only; front ends take them from their own options, never from
//     settings, the environment or a workspace file, since the token
//     endpoint receives the code and its verifier.
package login
