package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A tools/call answered with a task reaches the call in _meta; a server
// that writes that _meta entry itself, in a complete result, has it
// dropped, so it cannot make gemini-ls poll a task it never made.
func TestTaskMetaKeyIsGeminiLSOwn(t *testing.T) {
	id, _ := jsonrpc.MakeID(float64(7))
	rewrite := func(result string) map[string]any {
		t.Helper()
		out := rewriteTaskResult(&jsonrpc.Response{ID: id, Result: json.RawMessage(result)})
		var got map[string]any
		if err := json.Unmarshal(out.(*jsonrpc.Response).Result, &got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	got := rewrite(`{"resultType":"task","taskId":"t1","status":"working"}`)
	meta, _ := got["_meta"].(map[string]any)
	task, _ := meta[taskMetaKey].(map[string]any)
	if got["resultType"] != "complete" || task["taskId"] != "t1" {
		t.Errorf("a task: %v", got)
	}
	got = rewrite(`{"resultType":"complete","content":[],"_meta":{"gemini-ls/task":{"taskId":"forged"},"other":1}}`)
	meta, _ = got["_meta"].(map[string]any)
	if _, ok := meta[taskMetaKey]; ok || meta["other"] != float64(1) {
		t.Errorf("a forged task: %v", got)
	}
}

// An SSE stream that carries no task passes through byte for byte,
// whatever it holds.
func FuzzRewrittenEventsPassOthersThrough(f *testing.F) {
	f.Add([]byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n"))
	f.Add([]byte("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\r\n\r\ndata: x\n"))
	f.Add([]byte("id: 3\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"id\":2,\"result\":{}}\n\n: comment\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if bytes.Contains(in, []byte("task")) {
			return
		}
		body := io.NopCloser(bytes.NewReader(in))
		out, err := io.ReadAll(&rewrittenEvents{body: body, lines: newLines(body)})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, in) {
			t.Errorf("rewritten:\n%q\nfrom\n%q", out, in)
		}
	})
}

// A task on an SSE stream, in an event of several data lines, is
// rewritten into one data line.
func TestRewrittenEventsCarryTheTask(t *testing.T) {
	in := "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\ndata: \"result\":{\"resultType\":\"task\",\"taskId\":\"t9\",\"status\":\"working\"}}\n\n"
	body := io.NopCloser(strings.NewReader(in))
	out, err := io.ReadAll(&rewrittenEvents{body: body, lines: newLines(body)})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) != 4 || lines[0] != "id: 1" || !strings.HasPrefix(lines[1], "data: ") || !strings.Contains(lines[1], `"gemini-ls/task":{"resultType":"task","taskId":"t9"`) || lines[2] != "" {
		t.Errorf("rewritten: %q", out)
	}
}
