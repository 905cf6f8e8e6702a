package hooks

import (
	"reflect"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/jsjson/jsjsontest"
)

// readsAsGeminiCLI is what Gemini CLI 0.61 makes of a hook's output
// (hookRunner's JSON.parse, read again when a string, then
// DefaultHookOutput's isBlockingDecision, shouldStopExecution and its
// members by name), for the documents on stdin.
const readsAsGeminiCLI = `
const docs = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = docs.map(text => {
  let o = JSON.parse(text);
  if (typeof o === 'string') o = JSON.parse(o);
  const own = (v, k) => v !== null && typeof v === 'object' && Object.prototype.hasOwnProperty.call(v, k) ? v[k] : undefined;
  const h = own(o, 'hookSpecificOutput');
  return {
    blocks: own(o, 'decision') === 'deny' || own(o, 'decision') === 'block',
    stops: own(o, 'continue') === false,
    reason: own(o, 'reason') ?? '',
    stopReason: own(o, 'stopReason') ?? '',
    systemMessage: own(o, 'systemMessage') ?? '',
    suppressOutput: own(o, 'suppressOutput') === true,
    additionalContext: typeof own(h, 'additionalContext') === 'string' ? own(h, 'additionalContext') : '',
    toolInput: own(h, 'tool_input') ?? null,
  };
});
process.stdout.write(JSON.stringify(out));
`

// Hook output is read by exact member names, the last of a name winning,
// as node's JSON.parse reads it: {"Decision":"block"} does not block, a
// later "Decision" does not undo a "decision", a "CONTINUE" does not
// undo a "continue".
func TestOutputReadAsNode(t *testing.T) {
	docs := []string{
		`{"decision":"deny","Decision":"allow"}`,
		`{"continue":false,"CONTINUE":true}`,
		`{"Decision":"block"}`,
		`{"DECISION":"deny","Continue":false,"Reason":"r","StopReason":"s","SystemMessage":"m","SuppressOutput":true}`,
		`{"decision":"block","decision":"allow"}`,
		`{"decision":"allow","decision":"block"}`,
		`{"continue":true,"continue":false,"stopReason":"stop"}`,
		`{"\u0064ecision":"deny"}`,
		`"{\"decision\":\"deny\",\"Decision\":\"allow\"}"`,
		`"{\"Decision\":\"deny\"}"`,
		`{"hookSpecificOutput":{"additionalContext":"a","AdditionalContext":"b"}}`,
		`{"hookSpecificOutput":{"additionalContext":"a"},"HookSpecificOutput":{"additionalContext":"b"}}`,
		`{"hookSpecificOutput":{"tool_input":{"path":"a","x":1}},"hookSpecificOutput":{"tool_input":{"path":"b"}}}`,
		`{"hookSpecificOutput":{"tool_input":{"path":"a","Path":"b","path":"c"}}}`,
		`{"reason":"one","reason":"two","Reason":"three"}`,
		`{"systemMessage":"m","SYSTEMMESSAGE":7,"decision":"deny","decisioN":null}`,
	}
	want := nodeReads(t, docs)
	for i, doc := range docs {
		o, ok := parseOutput(doc)
		if !ok {
			t.Errorf("parseOutput(%s) read no output", doc)
			continue
		}
		got := map[string]any{
			"blocks": o.blocks(), "stops": o.stops(), "reason": o.Reason, "stopReason": o.StopReason,
			"systemMessage": o.SystemMessage, "suppressOutput": o.SuppressOutput,
			"additionalContext": o.additionalContext(), "toolInput": o.HookSpecificOutput["tool_input"],
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("parseOutput(%s) reads\n%v\nGemini CLI (node's JSON.parse) reads\n%v", doc, got, want[i])
		}
	}
}

func nodeReads(t *testing.T, docs []string) []any {
	t.Helper()
	return jsjsontest.NodeReads(t, readsAsGeminiCLI, docs)
}
