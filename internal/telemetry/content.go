package telemetry

import "go.opentelemetry.io/otel/attribute"

// Withheld stands, in a record's body, for text that logPrompts false
// keeps in the process.
const Withheld = "[withheld: telemetry.logPrompts is false]"

// exports is the one rule of logPrompts: with it, every attribute leaves
// the process; without it, only numbers, flags and the string attributes
// that are facts gemini-ls states itself (isFact). Any other string can
// hold what the user, the model, a file or a server wrote: a prompt, a
// tool's arguments, a tool's error quoting a path or a URL from them, an
// API error echoing the request. So a new attribute stays in unless it is
// named a fact, rather than leaking until someone remembers it.
func (t *Telemetry) exports(kv attribute.KeyValue) bool {
	if t.logPrompts {
		return true
	}
	switch kv.Value.Type() {
	case attribute.STRING, attribute.STRINGSLICE:
		return isFact(kv.Key)
	}
	return true
}

// isFact reports whether key's string values are gemini-ls's own: ids,
// names from the configuration, the API's and the tools' enumerations.
func isFact(key attribute.Key) bool {
	switch key {
	case "event.name", "event.timestamp", "session.id", "installation.id", "auth_type", "prompt_id",
		"model", "model_name", "function_name", "decision", "tool_type", "mcp_server_name",
		"error_type", "error.type", "status_code", "finish_reasons", "type",
		// hook_name is the program alone without logPrompts (HookCall).
		"hook_event_name", "hook_type", "hook_name",
		"approval_mode", "core_tools_enabled", "mcp_servers", "output_format", "extensions", "extension_ids":
		return true
	}
	return false
}

// shown is kv's value for a record's body, or Withheld when the
// attribute would not be exported.
func (t *Telemetry) shown(kv attribute.KeyValue) string {
	if !t.exports(kv) {
		return Withheld
	}
	return kv.Value.String()
}
