// Package geminitest fakes the Gemini REST API on a loopback port, for
// tests that drive the real genai client (and the binary, through
// GOOGLE_GEMINI_BASE_URL) without a network.
//
//	srv := geminitest.NewTestServer(t,
//		geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"path": "a.go"})),
//		geminitest.TextTurn("Done."),
//	)
//	client, _ := genai.NewClient(ctx, &genai.ClientConfig{
//		APIKey: "test", Backend: genai.BackendGeminiAPI,
//		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
//	})
//
// The server answers POST .../models/{model}:streamGenerateContent?alt=sse
// (Server-Sent Events, one "data: {GenerateContentResponse}" per chunk),
// :generateContent (the chunks merged into one response) and :countTokens (a
// rough count: a token per four characters). Each generate request consumes
// the next scripted Turn; countTokens consumes none. A request the script does
// not cover is answered 500 with a message naming the problem and recorded in
// Request.Problem; Err reports them, and NewTestServer fails the test.
//
// A Turn with Err and no Chunks answers with that HTTP status and a
// google.rpc.Status body ({"error":{"code","message","status","details"}}),
// with a RetryInfo detail when RetryDelay is set and a Retry-After header
// when RetryAfter is. A Turn with Err and Chunks streams the chunks and then
// the error as an in-stream event (generateContent answers the HTTP error).
// InvalidAPIKey, ExpiredAPIKey, ModelNotFound, RateLimited,
// DailyQuotaExhausted, PermissionDenied and LocationUnsupported are such
// turns with the API's real bodies (errors.go): its ErrorInfo reasons,
// QuotaFailure, RetryInfo and wording, ListModels advice included.
//
// # Script format
//
// LoadScript and the fakegemini command read a JSON array of turns:
//
//	[
//	  {"text": "hello"},
//	  {"chunks": [
//	    {"thought": true, "text": "**Plan** reading"},
//	    {"call": {"name": "read_file", "args": {"path": "a.go"}}, "thoughtSignature": "c2lnbmF0dXJl"}
//	  ]},
//	  {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "quota", "retryDelay": "1s"}}
//	]
//
// Turn fields:
//   - "text": shorthand for one text chunk ("" answers with no parts at all);
//     exclusive with "chunks".
//   - "chunks": parts streamed in order, each
//     {"text", "template", "thought", "thoughtSignature" (base64), "call" {"id"?, "name", "args"}, "delay"}.
//     A "template" (in place of "text") is a Go text/template made into
//     the chunk's text from each request the turn answers: .Result is
//     the last function response's result as text (its "output", or its
//     "error", when a string; else its JSON; "" when there is none),
//     .Tool that function's name, and {{head N .Result}} its first N
//     lines, then how many more there were. A script model can so say
//     what a real tool found, which it cannot know in advance (the demo's
//     grep_search on the checkout it runs in). A template that does not
//     parse fails the script at load.
//   - "error": {"code" (400-599), "status" (derived from code when omitted),
//     "message", "retryDelay" (RetryInfo detail), "retryAfter" (header),
//     "details" (more google.rpc details, e.g. a QuotaFailure, as Gemini
//     spells them)}.
//   - "delay": wait before the response headers.
//   - "usage": usageMetadata as Gemini spells it ({"promptTokenCount",
//     "candidatesTokenCount", "thoughtsTokenCount", "totalTokenCount"});
//     a rough count when omitted.
//   - "finishReason": sent with the last chunk; "STOP" when omitted.
//   - "hang": stream the chunks, then keep the stream open until the client
//     goes away.
//   - "noCandidates": with no chunks, answer with usage metadata and no
//     candidates at all.
//   - "noFinishReason": end the stream normally after the chunks, but with
//     no finish reason (and no usage), as a truncated answer does.
//   - "cut": stream the chunks, then drop the connection without ending
//     the stream; the client reads an unexpected EOF.
//   - "groundingMetadata": the candidate's grounding, as Gemini spells it
//     ({"groundingChunks": [{"web": {"uri", "title"}}], "groundingSupports":
//     [{"segment": {"startIndex", "endIndex", "text"},
//     "groundingChunkIndices": [0]}], "webSearchQueries": [...]}); sent
//     with the last chunk.
//
// A script may instead be an object {"turns": [...], "rules": [...]}: each
// rule {"contains": "TEXT", "turn": {...}} answers, with its turn, every
// request whose system instruction or contents' text holds TEXT, as often
// as they come, without taking a scripted turn (ReadScript; LoadScript
// reads arrays of turns only). Editor tests answer completions so, which
// come as the user types, among a conversation's turns.
//
// Durations are Go duration strings ("1s", "250ms"). Unknown fields are
// errors, so a typo in a script fails loudly.
package geminitest
