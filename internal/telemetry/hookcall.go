package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/attribute"
)

// HookCall records e as 0.61's logHookCall: the event (HookCallEvent's
// attributes and body) and the hook_call count and latency. As in 0.61,
// without logPrompts the hook is named by its command's program alone
// (sanitizeHookName: a command's arguments can hold anything) and its
// input, output, stdout and stderr stay in the process.
func (t *Telemetry) HookCall(e HookCall) {
	ctx := context.Background()
	ms := e.Duration.Milliseconds()
	name := e.Name
	if !t.logPrompts {
		name = sanitizeHookName(name)
	}
	kv := []attribute.KeyValue{
		attribute.String("hook_event_name", e.Event),
		attribute.String("hook_type", cmpOr(e.Type, "command")),
		attribute.String("hook_name", name),
		attribute.Int64("duration_ms", ms),
		attribute.Bool("success", e.Success),
	}
	if e.ExitCode != nil {
		kv = append(kv, attribute.Int("exit_code", *e.ExitCode))
	}
	kv = append(kv, attribute.String("hook_input", jsonText(e.Input)))
	if e.Output != nil {
		kv = append(kv, attribute.String("hook_output", jsonText(e.Output)))
	}
	kv = append(kv, attribute.String("stdout", e.Stdout), attribute.String("stderr", e.Stderr))
	if e.Error != "" {
		kv = append(kv, attribute.String("error", e.Error))
	}
	status := "failed"
	if e.Success {
		status = "succeeded"
	}
	t.emit(ctx, "gemini_cli.hook_call", fmt.Sprintf("Hook call %s.%s %s in %dms", e.Event, name, status, ms), t.attrs(e.SessionID, kv...))
	counted := t.metricAttrs(e.SessionID,
		attribute.String("hook_event_name", e.Event),
		attribute.String("hook_name", sanitizeHookName(e.Name)),
		attribute.Bool("success", e.Success))
	t.hookCalls.Add(ctx, 1, counted)
	t.hookLatency.Record(ctx, ms, counted)
}

// sanitizeHookName is 0.61's: the program of a command (its first word,
// without its directory), "unknown-command" for none.
func sanitizeHookName(name string) string {
	words := strings.Fields(name)
	if len(words) == 0 {
		return "unknown-command"
	}
	program := words[0]
	if i := strings.LastIndexAny(program, `/\`); i >= 0 {
		program = program[i+1:]
	}
	return cmpOr(program, "unknown-command")
}

// jsonText is v as 0.61's safeJsonStringify(v, 2): indented by two
// spaces, nothing escaped that JavaScript leaves as it is.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
