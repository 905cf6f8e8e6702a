// Package codeassist is the client of Google's Code Assist server, the
// backend Gemini CLI uses when the user chose "Sign in with Google"
// (oauth-personal) or Cloud Shell credentials (cloud-shell). It speaks the
// wire format of Gemini CLI's code_assist/server.ts and converter.ts: the
// Gemini API request moved under "request" beside the model, the project
// and a prompt id; each answer wrapped as {"response": ..., "traceId"}.
//
// Invariants:
//   - The project is set up once per Client (loadCodeAssist, onboardUser
//     and its operation when the account has no tier yet), on the first
//     request, never while the Client is made; a failed setup is not kept,
//     so the next request tries again. An individual account the server
//     no longer serves (UNSUPPORTED_CLIENT, since 2026-06-18) fails setup
//     with IndividualRefusedError, whose text says what works instead and
//     keeps the server's message word for word.
//   - Every error the server answers is a genai.APIError (code, message,
//     status, details), as the genai SDK reports it for the Gemini API, so
//     the agent's retry treats both backends alike.
//   - The cached login (Login) is Gemini CLI's own ~/.gemini/oauth_creds.json:
//     read on use (again whenever the file changed, so a new sign-in is
//     used at once), refreshed when expired, written back atomically with
//     the fields it holds then kept, unless it holds another login by then.
//     The sign-in itself is package internal/auth/login's, which writes
//     the file through SaveLogin, and signing out removes it through
//     RemoveLogin. Every rewrite and removal is made under the file's lock
//     (internal/sharedlock), so that gemini-ls processes wait for each
//     other's.
//   - Every call takes a context and ends with it.
package codeassist
