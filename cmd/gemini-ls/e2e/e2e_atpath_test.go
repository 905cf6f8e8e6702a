package e2e

import (
	"fmt"
	"slices"

	sdk "github.com/coder/acp-go-sdk"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// userParts is the text of each part of the user's message in the model's
// first request; inline data shows as "<mime>".
func userParts(t *testing.T, model *geminitest.Server) []string {
	t.Helper()
	reqs := model.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model saw no request")
	}
	c := reqs[0].Contents
	if len(c) != 1 || c[0].Role != genai.RoleUser {
		t.Fatalf("first request contents = %s", reqs[0].Body)
	}
	return partTexts(c[0].Parts)
}

// partTexts are the parts' texts (a stand-in for others), the session
// context that begins a conversation left out.
func partTexts(parts []*genai.Part) []string {
	var out []string
	for _, p := range parts {
		switch {
		case isSessionContext(p):
		case p.InlineData != nil:
			out = append(out, "<"+p.InlineData.MIMEType+">")
		case p.FunctionResponse != nil:
			out = append(out, "<functionResponse>")
		default:
			out = append(out, p.Text)
		}
	}
	return out
}

func wantUserParts(t *testing.T, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("the model's first request:\n%q\nwant:\n%q", got, want)
	}
}

// The files a gemini/prompt's @paths name reach the model with it, an open
// file as the editor has it.
func TestAtPathInLSPPrompt(t *testing.T) {
	h := start(t, setup{profile: lsptest.VSCode(), files: map[string]string{
		"src/a.go": "package a // on disk\n",
		// A file named like the domain of the address below, which is
		// still no reference.
		"example.com": "domain notes\n",
	}}, geminitest.TextTurn("It declares package a."))
	if err := h.client.Open(h.ctx, h.path("src/a.go"), "package a // unsaved\n"); err != nil {
		t.Fatal(err)
	}
	res := h.prompt(map[string]any{"prompt": "explain @src/a.go and mail user@example.com"})
	if res.StopReason != "end_turn" {
		t.Fatalf("prompt = %+v", res)
	}
	wantUserParts(t, userParts(t, h.model), []string{
		// The open file is one the editor has open.
		fullContextIntro + "\n```json\n{\n  \"otherOpenFiles\": [\n    \"" + h.path("src/a.go") + "\"\n  ]\n}\n```",
		"explain @src/a.go and mail user@example.com",
		"\n--- Content from referenced files ---",
		"\nContent from @src/a.go:\n", "package a // unsaved",
		"\n--- End of content ---",
	})
}

// gemini.prompt through workspace/executeCommand expands @paths too, after
// the editor context.
func TestAtPathInExecuteCommand(t *testing.T) {
	h := start(t, setup{profile: lsptest.Eglot(), files: map[string]string{
		"pkg/b.go":    "package b\n",
		"pkg/c.go":    "package c\n",
		"pkg/img.png": "\x89PNG\r\n\x1a\n",
	}}, geminitest.TextTurn("Two packages."))
	h.command(map[string]any{"prompt": "summarise @pkg", "uri": "file://" + h.path("pkg/b.go")})
	wantUserParts(t, userParts(t, h.model), []string{
		fullContextIntro + "\n```json\n{\n  \"activeFile\": {\n    \"path\": \"" + h.path("pkg/b.go") + "\"\n  }\n}\n```",
		"summarise @pkg/**",
		"\n--- Content from referenced files ---",
		"\nContent from @pkg/b.go:\n", "package b",
		"\nContent from @pkg/c.go:\n", "package c",
		"\nSkipped 1 item(s):\n- pkg/img.png (Reason: asset file (image/pdf/audio) was not explicitly requested by name or extension)",
		"\n--- End of content ---",
	})
}

// Headless `run -p` expands @paths: a file, and an image named explicitly.
func TestAtPathInHeadlessRun(t *testing.T) {
	h := newHeadless(t, map[string]string{"a.go": "package a\n\nfunc A() {}\n", "shot.png": "\x89PNG\r\n\x1a\n"},
		geminitest.TextTurn("A does nothing."))
	r := h.run("run", "-p", "explain @a.go, see @shot.png")
	r.wantExit(t, 0)
	wantUserParts(t, userParts(t, h.model), []string{
		"explain @a.go, see @shot.png",
		"\n--- Content from referenced files ---",
		"\nContent from @a.go:\n", "package a\n\nfunc A() {}",
		"<image/png>",
		"\n--- End of content ---",
	})
}

// Two @files of a headless prompt send both files' text, as Gemini CLI
// 0.61 reads them, while the model is told of no read_many_files (0.61
// offers none): a call of it is answered that there is no such tool.
func TestAtFilesWithoutReadManyFiles(t *testing.T) {
	h := newHeadless(t, map[string]string{"a.go": "package a\n", "b.go": "package b\n"},
		call("read_many_files", map[string]any{"include": []any{"*.go"}}),
		geminitest.TextTurn("Both are packages."))
	r := h.run("run", "--approval-mode", "yolo", "-p", "compare @a.go @b.go")
	r.wantExit(t, 0)
	wantUserParts(t, userParts(t, h.model), []string{
		"compare @a.go @b.go",
		"\n--- Content from referenced files ---",
		"\nContent from @a.go:\n", "package a",
		"\nContent from @b.go:\n", "package b",
		"\n--- End of content ---",
	})
	reqs := h.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model saw %d requests, want 2", len(reqs))
	}
	if names := declaredNames(reqs[0]); slices.Contains(names, "read_many_files") {
		t.Errorf("read_many_files declared: %q", names)
	}
	answer := reqs[1].Contents[len(reqs[1].Contents)-1]
	if got := fmt.Sprint(answer.Parts[0].FunctionResponse.Response); !strings.Contains(got, `Tool "read_many_files" not found`) {
		t.Errorf("a call of read_many_files answered %q", got)
	}
}

// "@file#L3-5" sends exactly those lines, in every front end: gemini/prompt,
// the gemini.prompt command, headless run and ACP.
func TestAtPathLineRangeInEveryFrontEnd(t *testing.T) {
	files := map[string]string{"lines.go": "package lines\n\nfunc One() {}\nfunc Two() {}\nfunc Three() {}\n\nfunc Four() {}\n"}
	const prompt = "explain @lines.go#L3-5"
	want := []string{
		prompt,
		"\n--- Content from referenced files ---",
		"\nContent from @lines.go#L3-5 (lines 3-5 of 7):\n", "func One() {}\nfunc Two() {}\nfunc Three() {}",
		"\n--- End of content ---",
	}
	// wantTail checks the user's message ends with want: an editor
	// context part may come first.
	wantTail := func(t *testing.T, got []string) {
		t.Helper()
		if len(got) < len(want) {
			wantUserParts(t, got, want)
			return
		}
		wantUserParts(t, got[len(got)-len(want):], want)
	}
	t.Run("gemini/prompt", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.VSCode(), files: files}, geminitest.TextTurn("Three functions."))
		if res := h.prompt(map[string]any{"prompt": prompt}); res.StopReason != "end_turn" {
			t.Fatalf("prompt = %+v", res)
		}
		wantTail(t, userParts(t, h.model))
	})
	t.Run("gemini.prompt", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.Eglot(), files: files}, geminitest.TextTurn("Three functions."))
		h.command(map[string]any{"prompt": prompt})
		wantTail(t, userParts(t, h.model))
	})
	t.Run("run", func(t *testing.T) {
		h := newHeadless(t, files, geminitest.TextTurn("Three functions."))
		h.run("run", "-p", prompt).wantExit(t, 0)
		wantTail(t, userParts(t, h.model))
	})
	t.Run("acp", func(t *testing.T) {
		h := startACP(t, acpSetup{files: files}, geminitest.TextTurn("Three functions."))
		h.mustPrompt(prompt, sdk.StopReasonEndTurn)
		wantTail(t, userParts(t, h.model))
	})
}
