// Package telemetry sends Gemini CLI 0.61's telemetry (docs/cli/telemetry.md
// in its package) through the OpenTelemetry Go SDK: its log events
// (gemini_cli.config, gemini_cli.user_prompt, gemini_cli.tool_call,
// gemini_cli.api_request, gemini_cli.api_response, gemini_cli.api_error,
// gemini_cli.hook_call) and metrics (gemini_cli.session.count,
// gemini_cli.tool.call.count and .latency, gemini_cli.api.request.count and
// .latency, gemini_cli.token.usage, gemini_cli.hook_call.count and
// .latency), with 0.61's attribute names, under 0.61's resource service.name
// "gemini-cli" so that a team's dashboards and queries for Gemini CLI see
// gemini-ls too.
//
// It owns the SDK's providers and exporters (OTLP over grpc or http, or a
// file) and gives the rest of gemini-ls a Recorder: the agent and the hooks
// report what happened, in facts they have, and never touch the SDK. The
// outfile holds what 0.61's holds: the JavaScript SDK's log records and
// metrics, each as JSON.stringify(record, null, 2) and a newline
// (jsfile.go), so that 0.61's integration rig, and any script reading
// 0.61's file, reads gemini-ls's (package outfile reads it as the rig
// does); the OTLP exporters send the Go SDK's, which is the same protocol. setup builds one
// from the settings (New) and shuts it down at exit, which flushes it.
//
// Invariants:
//   - Nothing is sent, and no exporter or connection is made, unless
//     telemetry.enabled is true: New then returns Nop.
//   - The SDK's global providers are never set: each Telemetry has its own,
//     so tests and several builds in one process do not share state.
//   - With logPrompts false no text the user, the model, a file or a
//     server wrote leaves the process: one rule (exports, content.go) lets
//     out only numbers, flags and the strings that are gemini-ls's own
//     facts (ids, names, enumerations), for every event and metric. So
//     prompt, function_args, request_text and response_text are left out
//     as 0.61 leaves them out (and hook_input, hook_output, stdout and
//     stderr, and a hook is named by its program alone), and so are error
//     and error.message (a tool's error quoting a path or a URL, an API
//     error echoing the request), which 0.61 exports whatever logPrompts
//     says.
//   - No credential is ever in an attribute: every string attribute passes
//     through a Redactor that replaces the secrets it was given (the API key,
//     the environment's secret-looking variables) and anything shaped like an
//     API key, an OAuth token or an Authorization header with [REDACTED],
//     whatever logPrompts says.
//   - Recording never blocks on the network and never fails the caller: the
//     SDK batches logs and reads metrics periodically; export errors go to
//     the SDK's error handler.
package telemetry
