package telemetry_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/telemetry"
	"github.com/gemini-ls/gemini-ls/internal/telemetry/outfile"
)

// TestOutfileReadAsGeminiCLIsRigReadsIt: two runs append to one outfile,
// which is read as Gemini CLI 0.61's integration rig reads 0.61's
// (outfile: split at "}\n{", each object parsed, attributes under
// "attributes", metrics under "scopeMetrics"): every record of both runs
// parses, the events' attributes have their JSON types (numbers, flags),
// readToolLogs, readHookLogs and readMetric find what was recorded.
func TestOutfileReadAsGeminiCLIsRigReadsIt(t *testing.T) {
	out := filepath.Join(t.TempDir(), "telemetry.log")
	for range 2 {
		s := newSink(t, telemetry.Config{Outfile: out, LogPrompts: true})
		record(t, s)
		shutdown(t, s)
	}
	f, err := outfile.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	// Each run: 9 log records (two tool calls, two hook calls), then the
	// metrics at shutdown.
	if len(f) != 2*10 {
		t.Fatalf("the rig's reader parses %d records, want %d", len(f), 2*10)
	}
	for _, name := range wantEvents {
		if got := len(f.Events(name)); got < 2 {
			t.Errorf("%s: %d records, want one a run", name, got)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	resp := f.Events("gemini_cli.api_response")[0].Attributes()
	for key, want := range map[string]any{"input_token_count": 100.0, "duration_ms": 1200.0, "session.id": "s-1", "interactive": false, "model": "gemini-2.5-pro"} {
		if resp[key] != want {
			t.Errorf("api_response %s = %#v, want %#v", key, resp[key], want)
		}
	}
	checkToolLogs(t, f.ToolLogs())
	checkHookLogs(t, f.HookLogs())
	checkMetrics(t, f)
}

func checkToolLogs(t *testing.T, calls []outfile.ToolCall) {
	t.Helper()
	if len(calls) != 4 || calls[0].Name != "web_fetch" || calls[0].Success || calls[0].DurationMS != 10 ||
		calls[1].Name != "run_shell_command" || !calls[1].Success || calls[1].DurationMS != 30 {
		t.Fatalf("readToolLogs = %+v", calls)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(calls[0].Args), &args); err != nil || !strings.Contains(args["prompt"].(string), "private-notes") {
		t.Errorf("function_args %q is not the call's arguments (%v)", calls[0].Args, err)
	}
}

func checkHookLogs(t *testing.T, hooks []outfile.HookCall) {
	t.Helper()
	if len(hooks) != 4 {
		t.Fatalf("readHookLogs = %+v", hooks)
	}
	ran, slow := hooks[0], hooks[1]
	if ran.HookEventName != "BeforeTool" || !strings.HasPrefix(ran.HookName, "/home/u/hooks/check.sh --token ") ||
		ran.ExitCode != 0 || !ran.Success || ran.DurationMS != 23 || !strings.Contains(ran.Stdout, promptText) {
		t.Errorf("the hook that ran: %+v", ran)
	}
	input := parseJSONText(t, ran.HookInput)
	if input["tool_name"] != "run_shell_command" || input["hook_event_name"] != "BeforeTool" {
		t.Errorf("hook_input = %v", input)
	}
	if out := parseJSONText(t, ran.HookOutput); out["decision"] != "allow" {
		t.Errorf("hook_output = %v", out)
	}
	if slow.HookEventName != "AfterAgent" || slow.Success || slow.Error == "" || !strings.Contains(slow.Stderr, "still thinking") {
		t.Errorf("the hook that timed out: %+v", slow)
	}
}

// parseJSONText parses a hook_input or hook_output as the rig's tests
// do: JSON text, which 0.61 writes.
func parseJSONText(t *testing.T, v any) map[string]any {
	t.Helper()
	text, ok := v.(string)
	if !ok {
		t.Fatalf("%#v is not JSON text", v)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	return m
}

func checkMetrics(t *testing.T, f outfile.File) {
	t.Helper()
	for _, name := range wantMetrics {
		if _, ok := f.Metric(name); !ok {
			t.Errorf("readMetric(%s) finds nothing", name)
		}
	}
	count, _ := f.Metric("gemini_cli.hook_call.count")
	if count.Descriptor["type"] != "COUNTER" || len(count.DataPoints) != 2 {
		t.Fatalf("hook_call.count = %+v", count.Raw)
	}
	names := map[any]bool{}
	for _, dp := range count.DataPoints {
		attrs, _ := dp["attributes"].(map[string]any)
		names[attrs["hook_name"]] = true
		if dp["value"] != 1.0 {
			t.Errorf("a hook_call.count point's value is %v", dp["value"])
		}
	}
	if !names["check.sh"] || !names["slow-check"] {
		t.Errorf("hook_call.count's hook names %v: the metric names a hook by its program alone", names)
	}
	latency, _ := f.Metric("gemini_cli.tool.call.latency")
	if latency.Descriptor["type"] != "HISTOGRAM" || latency.Descriptor["unit"] != "ms" || len(latency.DataPoints) == 0 {
		t.Fatalf("tool.call.latency = %+v", latency.Raw)
	}
	v, _ := latency.DataPoints[0]["value"].(map[string]any)
	if v["count"] != 1.0 || v["buckets"] == nil {
		t.Errorf("a tool.call.latency point's value is %v", latency.DataPoints[0]["value"])
	}
}

// TestHookCallWithoutLogPrompts: without logPrompts, a hook is named by
// its program alone, as 0.61's sanitizeHookName names it, and what it
// read, printed and decided stays in the process; its facts go out.
func TestHookCallWithoutLogPrompts(t *testing.T) {
	out := filepath.Join(t.TempDir(), "telemetry.log")
	s := newSink(t, telemetry.Config{Outfile: out})
	recordHooks(s)
	shutdown(t, s)
	f, err := outfile.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	hooks := f.Events("gemini_cli.hook_call")
	if len(hooks) != 2 {
		t.Fatalf("%d hook_call records", len(hooks))
	}
	a := hooks[0].Attributes()
	if a["hook_name"] != "check.sh" || a["exit_code"] != 0.0 || a["success"] != true || a["hook_event_name"] != "BeforeTool" || a["hook_type"] != "command" {
		t.Errorf("attributes %v", a)
	}
	for _, key := range []string{"hook_input", "hook_output", "stdout", "stderr", "error"} {
		if _, ok := a[key]; ok {
			t.Errorf("%s is exported without logPrompts", key)
		}
	}
	if body := hooks[0]["_body"]; body != "Hook call BeforeTool.check.sh succeeded in 23ms" {
		t.Errorf("body %q", body)
	}
}
