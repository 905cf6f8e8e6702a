// Package mcp connects gemini-ls to the MCP servers of settings.json's
// "mcpServers" and offers their tools to the model, as Gemini CLI does,
// through the official Go SDK.
//
// Invariants:
//   - Start never blocks on a server: every server connects and lists its
//     tools in its own goroutine, so an editor's initialize is answered at
//     once. A server's tools appear when its listing arrives; Manager.Tools
//     is read at every model request, so each request declares exactly the
//     tools available then. Wait lets a front end with one prompt to run
//     (headless) wait for start-up first, as Gemini CLI does.
//   - A server is spoken to in MCP 2026-07-28 when it offers it (the
//     SDK asks server/discover first), else in 2025-11-25 through
//     initialize, which declares what Gemini CLI 0.61 declares: no
//     elicitation, no extensions (legacyCapabilities). A 2026-07-28
//     request carries the form elicitation capability and the tasks
//     extension in its _meta.
//   - A server's question in answer to a call (input_required, or a
//     task's inputRequests) is put to that call's user through its
//     tools.CallInfo.Ask, ask_user's path, carried to the SDK's
//     elicitation handler in the call's context (elicit.go); no
//     question is ever asked outside a call. An unanswerable question
//     fails the call, not the server.
//   - A call answered with a task (the tasks extension, which go-sdk
//     v1.8 does not speak) is followed to its end (task.go): the task
//     reaches the call in the result's _meta, put there by the one
//     place that reads the answer whole (taskTransport over HTTP, the
//     watching connection over stdio), a server's own entry of that
//     name dropped; tasks/get is polled at the task's interval within
//     bounds, each change of status shown (CallInfo.Progress), and the
//     call's end before the task's sends tasks/cancel.
//   - A tool listing with a ttlMs is listed again when it runs out (at
//     least minListingTTL), never per model request.
//   - A server is asked only for the listings its capabilities (its
//     answer to initialize or server/discover) declare: tools, resources, prompts, as Gemini
//     CLI 0.61 asks. A listing it answers "Method not found" lists
//     nothing, not a failure, as in 0.61; so a server of resources alone
//     starts, with no tools, and its resources are offered.
//   - A server that fails to start, or dies later, is reported once (a
//     warning naming the server and why, with the end of its stderr) and
//     its tools are withdrawn; the other servers keep working. A failure
//     to start is marked for the user (dialog.UserNoticeKey), so a front end shows
//     it where the user looks. A call that
//     lost its server returns only after the withdrawal, so the model's
//     next request never offers a dead server's tools.
//   - A stdio server does not inherit gemini-ls's variables that look like
//     secrets (Gemini CLI's rules); its "env" may name them ($VAR).
//   - A tool is named as Gemini CLI 0.61 names it: mcp_SERVER_TOOL, made
//     a valid function name (letters, digits, _ . : -, at most 63
//     characters, a long one cut to its first and last 30 around "...").
//     Two servers' tools of one name so have two names. Two tools whose
//     names come out the same cannot both be offered: the one named
//     first keeps it, the other is left out with a warning. A name, once
//     given, stays for the life of the server.
//   - Calls ask for confirmation (Kind "mcp", AllowKeys "mcp:SERVER:TOOL":
//     "always allow" covers that tool of that server) unless the server is
//     trusted.
//   - A remote server is reached as Gemini CLI reads its entry: httpUrl is
//     streamable HTTP; url is what its type says ("http", "sse"), and
//     without one streamable HTTP, then SSE if that failed other than
//     with a 401. Every request to the server's origin carries the
//     configured headers and the server's token: the Application Default
//     Credentials' for google_credentials, else the stored OAuth token
//     (package oauth). The Google token goes only to 0.61's Google hosts
//     (*.googleapis.com, luci.app and its subdomains) over https: another
//     host or plain http fails the server before any request, saying
//     which host and why (google.go). The OAuth token goes over https,
//     or over http only to loopback (origin.CheckCleartext); elsewhere
//     it is not sent, no sign-in starts, and the 401 says why. A
//     configured header that carries a credential (origin.CredentialHeader:
//     Authorization, an API key, a cookie) is held to the same: to plain
//     http on another machine the server fails before any request,
//     naming the header and the origin (checkHeaders). A redirect to
//     another origin (scheme, host, port) is followed without them, as a browser's fetch does, and an SSE
//     endpoint on another origin is refused, as in Gemini CLI. A token
//     request's body (refresh token, code, signed assertion) goes to no
//     other origin than its endpoint's.
//   - Every message read from a remote server is bounded (maxMessage, the
//     SDK's bound on an SSE event: an event of a stream, or a whole JSON
//     answer): a server that goes over, as with one endless line, is
//     read no further, disconnected and StateFailed, saying so, and a
//     call it was answering returns that; the session goes on.
//   - A listing (tools/list, resources/list, prompts/list) is read page
//     by page to at most maxListPages pages, maxListItems items and
//     maxListBytes of items, all pages together (paging.go): past any,
//     no page more is asked for, nothing of it is kept, and the user is
//     told which server's listing it was and why (the server failed for
//     its tools; a warning for its resources or prompts).
//   - A server that answers 401 is signed in to at start-up only when its
//     oauth block is enabled; otherwise, or when the sign-in fails or
//     times out, it is StateUnauthenticated with Gemini CLI's words, and
//     Manager.Authenticate (/mcp auth) signs in and restarts it, its tools
//     keeping their names.
//   - A server that says its tools or resources changed (list_changed)
//     has them listed again, the new tools in place of the old; a stdio
//     server that says so before it answers a call has them listed
//     again before the call returns (watchingTransport reads the
//     notification in wire order), so the model's next request offers
//     them.
//   - Reload ends every server and starts anew those it is given, less
//     the disabled ones (Config.Disabled, StateDisabled: listed, never
//     started); a tool keeps the name it was given.
//   - Close ends every server: stdio servers are asked to stop by closing
//     their stdin, then SIGTERM, then SIGKILL, and their whole process
//     group is killed, so no child (npx's node) outlives gemini-ls.
package mcp
