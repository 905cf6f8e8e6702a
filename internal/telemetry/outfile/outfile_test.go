package outfile_test

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/telemetry/outfile"
)

// A file as Gemini CLI 0.61 writes it (JSON.stringify(record, null, 2)
// and a newline each), with an object the rig cannot parse among them.
const file = `{
  "hrTime": [
    1795857491,
    321000000
  ],
  "attributes": {
    "event.name": "gemini_cli.hook_call",
    "hook_event_name": "BeforeTool",
    "hook_name": "bt",
    "duration_ms": 23,
    "success": true,
    "exit_code": 0,
    "hook_input": "{\n  \"tool_name\": \"read_file\"\n}",
    "stdout": "{\"decision\":\"allow\"}\n",
    "stderr": ""
  },
  "_body": "Hook call BeforeTool.bt succeeded in 23ms"
}
{
  "not json": 
}
{
  "attributes": {
    "event.name": "gemini_cli.tool_call",
    "function_name": "read_file",
    "success": true
  }
}
{
  "resource": {},
  "scopeMetrics": [
    {
      "scope": {"name": "gemini-cli", "version": ""},
      "metrics": [
        {
          "descriptor": {"name": "gemini_cli.tool.call.count", "type": "COUNTER"},
          "dataPoints": [{"attributes": {"function_name": "read_file"}, "value": 1}]
        }
      ]
    }
  ]
}
`

// TestParseAsTheRig: the records are cut at "}\n{" and parsed one by
// one, the one that does not parse skipped; the readers find the hook
// call, the tool call (its missing attributes defaulted as the rig
// defaults them) and the metric.
func TestParseAsTheRig(t *testing.T) {
	f := outfile.Parse(file)
	if len(f) != 3 {
		t.Fatalf("%d records, want 3 (one skipped)", len(f))
	}
	hooks := f.HookLogs()
	if len(hooks) != 1 || hooks[0].HookName != "bt" || !hooks[0].Success || hooks[0].DurationMS != 23 || hooks[0].HookInput != "{\n  \"tool_name\": \"read_file\"\n}" {
		t.Errorf("HookLogs = %+v", hooks)
	}
	tools := f.ToolLogs()
	if len(tools) != 1 || tools[0].Name != "read_file" || tools[0].Args != "{}" || !tools[0].Success {
		t.Errorf("ToolLogs = %+v", tools)
	}
	m, ok := f.Metric("gemini_cli.tool.call.count")
	if !ok || len(m.DataPoints) != 1 || m.DataPoints[0]["value"] != 1.0 {
		t.Errorf("Metric = %+v, %v", m, ok)
	}
	if _, ok := f.Metric("gemini_cli.hook_call.count"); ok {
		t.Error("a metric that is not there was found")
	}
}
