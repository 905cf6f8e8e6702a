// Package oauth signs gemini-ls in to remote MCP servers that require
// OAuth, as Gemini CLI does, and keeps the tokens where Gemini CLI keeps
// them, so that the two programs share one sign-in.
//
// Invariants:
//   - Tokens live in ~/.gemini/mcp-oauth-tokens.json, Gemini CLI's file and
//     JSON shape (an array of {serverName, token: {accessToken,
//     refreshToken, expiresAt (ms), tokenType, scope}, clientId, tokenUrl,
//     mcpServerUrl, updatedAt}); the file is read and replaced atomically
//     under its lock (internal/sharedlock), mode 0600, and the entries of
//     other servers are kept byte for byte.
//   - A token is used until five minutes before it expires (Gemini CLI's
//     margin), then refreshed with its refresh token; a refresh the
//     server refuses as invalid_grant deletes the entry, so the user is
//     asked to sign in again rather than sent a dead token forever. A
//     refresh that fails otherwise (its context cancelled or timed out,
//     the endpoint down or failing) keeps the entry as it was.
//   - A sign-in (Flow.Run) is the authorization code grant with PKCE
//     (S256) through a loopback redirect: endpoints come from the settings'
//     "oauth" block or are discovered (protected resource metadata, then
//     the authorization server's); a client without a configured id is
//     registered dynamically. It is bounded: a flow nobody completes ends
//     after its timeout with an error saying so.
//   - An authorization response is held to RFC 9207 as Gemini CLI 0.61
//     holds it: where the issuer was discovered, its iss must name it;
//     otherwise its code is not used and the sign-in fails, saying so.
//     The stored entry names its issuer (Credentials.Issuer).
//   - No token, code or secret is ever logged or put in an error, or sent
//     to another origin than the token endpoint's: a redirect that would
//     carry a token request's form elsewhere is refused.
//   - No credential goes over plain http to another machine: a sign-in
//     whose authorization, registration or token endpoint is http
//     elsewhere than loopback is refused before the browser opens, and a
//     token request (the code, a refresh) to such an endpoint is never
//     sent (origin.CheckCleartext).
package oauth
