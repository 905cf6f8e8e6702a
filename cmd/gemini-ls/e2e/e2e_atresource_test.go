package e2e

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// resourceServers is a workspace's settings naming the test MCP server
// with its two resources (file:///notes.txt, text; db://users, binary) as
// "docs".
func resourceServers(t *testing.T) string {
	return settingsJSON(t, map[string]any{"docs": map[string]any{"command": mcpServerBinary(t), "args": []string{"-resources"}}})
}

// The resources a prompt's @SERVER:URI names are read from their server
// (resources/read) and reach the model with the prompt, laid out as
// Gemini CLI 0.61's readMcpResources lays them out, ahead of the files;
// an @SERVER:URI no running server lists is a path, and one that leads
// nowhere stays as typed.
func TestAtResourceInHeadlessRun(t *testing.T) {
	h := newHeadless(t, map[string]string{"a.go": "package a\n"}, geminitest.TextTurn("Read."), geminitest.TextTurn("Nothing."))
	writeFiles(t, h.root, map[string]string{".gemini/settings.json": resourceServers(t)})
	h.runIn(h.root, trusted(t, h), "run", "-p", "see @docs:file:///notes.txt and @docs:db://users with @a.go").wantExit(t, 0)
	wantUserParts(t, userParts(t, h.model), []string{
		"see @docs:file:///notes.txt and @docs:db://users with @a.go",
		"\n--- Content from referenced files ---",
		"\nContent from @file:///notes.txt:\n", "contents of file:///notes.txt",
		"\nContent from @db://users:\n", "[Binary resource content application/x-sqlite3, 3 bytes]",
		"\nContent from @a.go:\n", "package a",
		"\n--- End of content ---",
	})

	const unknown = "see @other:file:///notes.txt and @docs:file:///gone.txt"
	h.runIn(h.root, trusted(t, h), "run", "-p", unknown).wantExit(t, 0)
	reqs := h.model.Requests()
	// As typed, the model told which were not attached.
	if got := partTexts(reqs[len(reqs)-1].Contents[0].Parts); len(got) != 2 || got[0] != unknown || !strings.Contains(got[1], "- @other:file:///notes.txt (Reason: no file or directory in the workspace matches it)") {
		t.Errorf("the model's request for unknown resources: %q, want the prompt as typed and what was not attached", got)
	}
}

// Through the editor (gemini/prompt), once the server is ready.
func TestAtResourceInLSPPrompt(t *testing.T) {
	h := start(t, setup{profile: lsptest.VSCode(), env: trustTheWorkspace(), files: map[string]string{
		".gemini/settings.json": resourceServers(t),
	}}, geminitest.TextTurn("Read."))
	h.waitLog("MCP server ready")
	if res := h.prompt(map[string]any{"prompt": "summarise @docs:file:///notes.txt"}); res.StopReason != "end_turn" {
		t.Fatalf("prompt = %+v", res)
	}
	got := userParts(t, h.model)
	want := []string{
		"summarise @docs:file:///notes.txt",
		"\n--- Content from referenced files ---",
		"\nContent from @file:///notes.txt:\n", "contents of file:///notes.txt",
		"\n--- End of content ---",
	}
	// An editor context part may come first.
	if len(got) > len(want) && strings.HasPrefix(got[0], fullContextIntro) {
		got = got[1:]
	}
	wantUserParts(t, got, want)
}

// A resource its server fails to read stops the run before the model is
// asked, in Gemini CLI 0.61's words, with its FatalInputError's status.
func TestAtResourceReadFailureHeadless(t *testing.T) {
	h := newHeadless(t, map[string]string{}, geminitest.TextTurn("never asked"))
	writeFiles(t, h.root, map[string]string{".gemini/settings.json": settingsJSON(t, map[string]any{
		"docs": map[string]any{"command": mcpServerBinary(t), "args": []string{"-unreadable-resources"}},
	})})
	r := h.run("run", "-p", "see @docs:file:///notes.txt")
	r.wantExit(t, 42)
	const want = "gemini-ls: Exiting due to an error processing the @ command: Error reading resource file:///notes.txt: "
	if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "the archive is offline") {
		t.Errorf("stderr:\n%s\nwant it to say %q and the server's error", r.stderr, want)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("the model was asked %d times, want none", n)
	}
}

// The npm reference server's document resource, read both ways the issue
// names: by @SERVER:URI in a headless prompt, and by the model's
// read_mcp_resource call.
func TestMCPReferenceServerResource(t *testing.T) {
	const ref = "everything:demo://resource/static/document/architecture.md"
	h := newHeadless(t, map[string]string{".gemini/settings.json": everythingSettings(t)},
		call("read_mcp_resource", map[string]any{"uri": ref}),
		geminitest.TextTurn("Read."),
	)
	h.runIn(h.root, trusted(t, h), "run", "-p", "summarise @"+ref).wantExit(t, 0)
	parts := userParts(t, h.model)
	if len(parts) < 4 || parts[0] != "summarise @"+ref || parts[2] != "\nContent from @demo://resource/static/document/architecture.md:\n" ||
		!strings.HasPrefix(parts[3], "# Everything Server – Architecture") {
		t.Errorf("the prompt's parts: %.300q", parts)
	}
	if got := responseOutput(h.responses(1)[0]); !strings.Contains(got, "# Everything Server – Architecture") {
		t.Errorf("read_mcp_resource answered %.300q", got)
	}
}
