package mcp

import (
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// A server's tool is read-only when the server says so (readOnlyHint),
// as Gemini CLI 0.61 reads it; its other hints, the server's word only,
// make it nothing else. Its kind is execute: it can do anything.
func TestToolAnnotationsFollowReadOnlyHint(t *testing.T) {
	open := true
	for _, tc := range []struct {
		hints *sdk.ToolAnnotations
		want  tools.Annotations
	}{
		{nil, tools.Annotations{Kind: dialog.KindExecute}},
		{&sdk.ToolAnnotations{ReadOnlyHint: true}, tools.Annotations{Kind: dialog.KindExecute, ReadOnly: true}},
		{&sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &open}, tools.Annotations{Kind: dialog.KindExecute, ReadOnly: true}},
		{&sdk.ToolAnnotations{OpenWorldHint: &open, IdempotentHint: true}, tools.Annotations{Kind: dialog.KindExecute}},
	} {
		if got := tools.AnnotationsOf(&tool{remote: &sdk.Tool{Name: "t", Annotations: tc.hints}}); got != tc.want {
			t.Errorf("hints %+v: %+v, want %+v", tc.hints, got, tc.want)
		}
	}
}
