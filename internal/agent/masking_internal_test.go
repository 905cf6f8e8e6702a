package agent

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/genai"
)

// The scan before each request encodes a tool output once, the first time
// it sees it, not again before every later request of the session, and
// allocates nothing for outputs it saw before; the estimate is the same.
func TestMaskScanEncodesEachOutputOnce(t *testing.T) {
	var contents []*genai.Content
	for i := range 20 {
		fr := &genai.FunctionResponse{ID: fmt.Sprint(i), Name: "grep_search", Response: map[string]any{"output": strings.Repeat("match\n", 1000)}}
		contents = append(contents, &genai.Content{Role: "user", Parts: []*genai.Part{{FunctionResponse: fr}}})
	}
	contents = append(contents, &genai.Content{Role: "model", Parts: []*genai.Part{{Text: "latest"}}})
	var m masker
	found, total := m.prunables(contents)
	allocs := testing.AllocsPerRun(10, func() {
		again, againTotal := m.prunables(contents)
		if len(again) != len(found) || againTotal != total {
			t.Fatalf("a second scan found %d outputs, %d tokens; the first %d, %d", len(again), againTotal, len(found), total)
		}
	})
	if allocs > 0 {
		t.Errorf("a scan of 20 outputs seen before made %.0f allocations, want none", allocs)
	}
	if want := (len("grep_search") + len(`{"output":"`) + 6000 + 1000 + len(`"}`)) / 4; m.tokens[contents[0].Parts[0].FunctionResponse] != want {
		t.Errorf("estimated %d tokens, want %d", m.tokens[contents[0].Parts[0].FunctionResponse], want)
	}
}
