// Package auth decides how gemini-ls reaches the model, as Gemini CLI
// decides it, and makes the content generator for that choice.
//
// The auth type is the user's security.auth.selectedType, else the one the
// environment implies (GOOGLE_GENAI_USE_GCA, GOOGLE_GENAI_USE_VERTEXAI,
// GEMINI_API_KEY, CLOUD_SHELL, in Gemini CLI's order), else the cached
// Google login when there is one (gemini-ls's sign-in writes no settings),
// else the Gemini API key, reported missing. Four types are
// served, named as Gemini CLI names them: gemini-api-key and vertex-ai
// through the genai SDK, oauth-personal (Gemini CLI's cached "Sign in with
// Google") and cloud-shell (Application Default Credentials) through the
// Code Assist server (package codeassist).
//
// Invariants:
//   - Missing credentials are an *Error whose Message is Gemini CLI's
//     wording, shown to the user as it is, with how to sign in (the
//     sign-in is package internal/auth/login's, run by the front ends on request).
//   - Nothing is read from the network, and no credential file beyond a
//     stat, until the first request: a front end makes its generator while
//     the editor waits.
//   - A variable that becomes part of an endpoint is held to its form by
//     Resolve, wherever it came from (the process, a .env file an
//     untrusted workspace may write): GOOGLE_CLOUD_LOCATION a region name,
//     GOOGLE_CLOUD_PROJECT(_ID) a project ID, the base URLs https URLs, or
//     http ones to this machine only (a key or token goes with every
//     request to them; origin.CheckCleartext) (vars.go). The Vertex AI host genai makes of the location, which
//     the user's Application Default Credentials token goes to, is thus
//     always Google's; the generator checks the location again before it
//     mints that token. Errors name the variable, never its value, but
//     for the origin (scheme, host, port) of a base URL refused as plain
//     http, which says what was refused.
//   - Status never carries a secret: a key or token is reported as "set".
//   - The key an editor keeps for the user comes in EditorKeyVar, not
//     GEMINI_API_KEY: TakeEditorKey takes it out of the process's
//     environment before anything starts, a front end reads it as
//     GEMINI_API_KEY, and no child gets it (package spawn). A
//     GEMINI_API_KEY of the user's own environment reaches commands as in
//     Gemini CLI 0.61.
//   - Every request of every backend goes through one transport: the proxy
//     the environment names, the User-Agent gemini-ls/<version>, and an
//     HTTP Retry-After turned into the RetryInfo detail the agent's retry
//     obeys (transport.go). A front end's generators of one credential
//     share that transport (Transports), and the last to close closes its
//     idle connections (transports.go).
//   - No credential (API key, token, a token request's body) follows a
//     redirect to another origin (scheme, host, port): a redirect that
//     drops the body is followed without the credential headers, one
//     that would resend the body there is refused (internal/origin).
//     Nor does a key or token header go over plain http to another
//     machine, whatever made the Auth: the transport refuses the request
//     unsent (origin.RefuseCleartext).
//   - The genai backend encodes each function declaration, system
//     instruction and content of a conversation's history once, as genai
//     would, and sends it as it was encoded then (encoded.go): what was
//     sent is taken as unchanging, as the agent's is.
//   - Recorded answers are Gemini CLI 0.61's file of them, a JSON line per
//     model call (responses.go): NewReplay answers every call from one
//     and reaches no model, so it needs no credentials; NewRecorder
//     appends each answer a generator gave, once the call ended, keeping
//     what 0.61 keeps (candidates, usage), so either program replays the
//     other's recordings. A recorder passes on to the generator it
//     records what is asked of that generator (Close, ForgetConversation,
//     CodeAssistClient).
package auth
