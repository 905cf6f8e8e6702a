package mcp

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/mcptest"
)

// A remote server that sends a message with no end (one endless line),
// over SSE or streamable HTTP, as an SSE event or a JSON answer, at
// start-up or in answer to a call, is read no further than maxMessage: it
// is failed with a status saying so, its tools withdrawn, the call that
// met it told the same, and the other server keeps working.
func TestEndlessMessageFailsTheServer(t *testing.T) {
	for _, opts := range []mcptest.FloodOptions{
		{SSE: true, In: "initialize"},
		{SSE: true, In: "tools/list"},
		{SSE: true, In: "tools/call"},
		{In: "initialize"},
		{In: "tools/list"},
		{In: "tools/call"},
		{JSON: true, In: "initialize"},
		{JSON: true, In: "tools/list"},
		{JSON: true, In: "tools/call"},
	} {
		t.Run(fmt.Sprintf("%+v", opts), func(t *testing.T) {
			flood := mcptest.NewFlood(t, opts)
			entry := settings.MCPServer{URL: flood.URL, Type: settings.MCPTypeHTTP, IncludeTools: []string{"flood"}}
			if opts.SSE {
				entry.Type = settings.MCPTypeSSE
			}
			m, logs := startedWith(t, Config{Servers: map[string]settings.MCPServer{
				"flood": entry,
				"other": {URL: mcptest.NewSSE(t).URL, Type: settings.MCPTypeSSE, IncludeTools: []string{"echo"}},
			}})
			const why = "the server sent a message of more than 16 MiB: gemini-ls stopped reading it and disconnected the server"
			if opts.In == "tools/call" {
				_, err := execute(find(t, m, "mcp_flood_flood"), nil)
				if err == nil || !strings.Contains(err.Error(), `calling tool "flood" of MCP server "flood": `+why) {
					t.Errorf("the call: %v", err)
				}
				if got := names(m); len(got) != 1 || got[0] != "mcp_other_echo" {
					t.Errorf("tools after the flood: %v, want the flood server's withdrawn", got)
				}
			}
			if st := m.Servers()[0]; st.State != StateFailed || st.Error != why {
				t.Errorf("status: %+v", st)
			}
			if w := warnings(logs); len(w) != 1 || !strings.Contains(w[0], why) {
				t.Errorf("warnings: %q, want one saying why", w)
			}
			if got := run(t, find(t, m, "mcp_other_echo"), map[string]any{"message": "still here"}); got.Output != "sse echo: still here" {
				t.Errorf("the other server's echo: %+v", got)
			}
		})
	}
}

// execute runs tool's call and returns what it returned.
func execute(tool tools.Tool, args map[string]any) (tools.Result, error) {
	call, err := tool.Build(args)
	if err != nil {
		return tools.Result{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return call.Execute(ctx, tools.CallInfo{})
}

// The bound is per event on an SSE stream, an event ending at a blank line
// (a line of nothing but '\r', as the SDK reads them): any number of
// events under it pass, one over it fails, its lines together; any other
// answer is bounded whole.
func TestBoundIsPerEventOnAStream(t *testing.T) {
	read := func(events bool, input string) (string, error) {
		var exceeded []error
		b := &boundedBody{body: io.NopCloser(iotest.OneByteReader(strings.NewReader(input))), events: events, limit: 16,
			exceeded: func(err error) { exceeded = append(exceeded, err) }, blank: true}
		got, err := io.ReadAll(b)
		if (err == nil) != (len(exceeded) == 0) || len(exceeded) > 1 {
			t.Errorf("read %q: error %v, told %v", input, err, exceeded)
		}
		return string(got), err
	}
	under := strings.Repeat("data: 0123456\n\n", 50) + strings.Repeat("id: 1\r\ndata:\r\n\r\n", 50) + strings.Repeat(": 0123456789a\n\n", 50)
	if got, err := read(true, under); err != nil || got != under {
		t.Errorf("events under the bound: %v", err)
	}
	for _, over := range []string{"data: 0123456789abcdef\n\n", "data: 0123\ndata: 4567\ndata: 89ab\n\n", "data: 0123456\r\n\rdata: 0123456\n\n"} {
		if _, err := read(true, over); err == nil || !strings.Contains(err.Error(), "more than 0 MiB") {
			t.Errorf("an event over the bound, %q: %v", over, err)
		}
	}
	if _, err := read(false, "{\"a\":\n\n\"0123456789\"}"); err == nil {
		t.Error("a JSON answer over the bound was read whole")
	}
	if _, err := read(false, "{\"a\":\"01234\"}"); err != nil {
		t.Errorf("a JSON answer under the bound: %v", err)
	}
}
