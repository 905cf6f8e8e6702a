package bench

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// bigPair is a 20,000-line file and a copy with 50 lines changed
// throughout it (the text of workspace.BenchmarkApplyEdits50On20000Lines).
func bigPair() (before, after string) {
	var sb strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&sb, "\tline %d: some code here, x := compute(%d) // 😀 日本\n", i, i)
	}
	before = sb.String()
	lines := strings.SplitAfter(before, "\n")
	for i := range 50 {
		n := 200 + i*390
		lines[n] = strings.Replace(lines[n], "compute", "recompute", 1)
	}
	return before, strings.Join(lines, "")
}

// editSample is one write_file's timing, read off the wire.
type editSample struct {
	total  time.Duration // toolCall update read → toolResult update read
	editor time.Duration // applyEdit request read → the editor's answer written
	before time.Duration // toolCall update read → applyEdit request read
	after  time.Duration // the editor's answer written → toolResult update read
}

// BenchmarkWriteFile50ChangesOn20000Lines is the agent changing 50 lines
// of a 20,000-line document open (and unsaved) in the editor: the model
// calls write_file with the whole new text (1.2 MB), and the server diffs
// it against the buffer, sends workspace/applyEdit with 50 annotated text
// edits (our plugin's capabilities), and reads the outcome from the
// editor's didChange. The editor accepts at once. Iterations alternate
// between the two texts, each a new session.
//
// Two editors, differing in the didChange they send:
//   - didChange=per-edit: VS Code's way, one content change per text edit
//     (perEditEditor).
//   - didChange=one-span: lsptest's scripted editor, one change from the
//     first to the last difference (1.1 MB here).
//
// Metrics, per edit:
//   - edit: toolCall update → toolResult update, as the editor reads them.
//   - editor: applyEdit request read → answer written: the editor's own
//     work (decode, apply the 50 edits, build its didChange).
//   - server: edit − editor: what gemini-ls spends, both sides of the
//     applyEdit round trip included; split into server-before-apply
//     (toolCall → applyEdit read: diffing, building the WorkspaceEdit) and
//     server-after-answer (answer → toolResult: taking in the editor's
//     didChange, reading the outcome, the result's display diff).
func BenchmarkWriteFile50ChangesOn20000Lines(b *testing.B) {
	b.Run("didChange=per-edit", func(b *testing.B) {
		benchmarkWriteFile(b, func(b *testing.B, env []string) *server {
			return spawnEditor(b, env, func(rwc io.ReadWriteCloser) editor { return newPerEditEditor(b, rwc) })
		})
	})
	b.Run("didChange=one-span", func(b *testing.B) {
		benchmarkWriteFile(b, func(b *testing.B, env []string) *server { return spawn(b, env, lsptest.Plugin()) })
	})
}

func benchmarkWriteFile(b *testing.B, start func(*testing.B, []string) *server) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	before, after := bigPair()
	model := newTimedModel(b)
	root := tempRoot(b)
	writeFiles(b, root, map[string]string{"big.go": before})
	path := filepath.Join(root, "big.go")
	s := start(b, env(b, model.URL))
	if _, err := s.editor.Initialize(ctx, []string{root}, nil); err != nil {
		b.Fatalf("initialize: %v", err)
	}
	if err := s.editor.Open(ctx, path, before); err != nil {
		b.Fatal(err)
	}

	texts := [2]string{after, before}
	edit := func(n int) (editSample, error) {
		want := texts[n%2]
		model.Push(
			geminitest.CallTurn(geminitest.Call("write_file", map[string]any{"file_path": "big.go", "content": want})),
			geminitest.TextTurn("Recomputed."),
		)
		mark := s.wire.mark()
		var res promptResult
		if err := s.editor.Call(ctx, "gemini/prompt", map[string]any{"prompt": "recompute"}, &res); err != nil {
			return editSample{}, fmt.Errorf("gemini/prompt: %w", err)
		}
		if res.StopReason != "end_turn" || res.Error != "" {
			return editSample{}, fmt.Errorf("prompt ended %q: %s", res.StopReason, res.Error)
		}
		if got, _ := s.editor.Buffer(path); got != want {
			return editSample{}, fmt.Errorf("the buffer does not hold the written text")
		}
		if out := lastToolOutput(model); !strings.HasPrefix(out, "Successfully overwrote file") {
			return editSample{}, fmt.Errorf("write_file told the model %.200q", out)
		}
		frames, err := s.wire.since(mark)
		if err != nil {
			return editSample{}, err
		}
		call, i, ok := first(frames, 0, isUpdate("toolCall"))
		if !ok {
			return editSample{}, fmt.Errorf("no toolCall update")
		}
		apply, j, ok := first(frames, i+1, isRequest("workspace/applyEdit", fromServer))
		if !ok {
			return editSample{}, fmt.Errorf("no workspace/applyEdit")
		}
		answer, k, ok := first(frames, j+1, isResponse(toServer))
		if !ok {
			return editSample{}, fmt.Errorf("no answer to workspace/applyEdit")
		}
		done, _, ok := first(frames, k+1, isUpdate("toolResult"))
		if !ok {
			return editSample{}, fmt.Errorf("no toolResult update")
		}
		return editSample{
			total:  done.At.Sub(call.At),
			editor: answer.At.Sub(apply.At),
			before: apply.At.Sub(call.At),
			after:  done.At.Sub(answer.At),
		}, nil
	}

	// A first edit warms the connection to the model and the editor's
	// buffers; the iterations that follow alternate texts from there.
	if _, err := edit(0); err != nil {
		b.Fatal(err)
	}
	var total, editor, server, beforeApply, afterAnswer []time.Duration
	n := 1
	for b.Loop() {
		sample, err := edit(n)
		if err != nil {
			b.Fatal(err)
		}
		n++
		total = append(total, sample.total)
		editor = append(editor, sample.editor)
		server = append(server, sample.total-sample.editor)
		beforeApply = append(beforeApply, sample.before)
		afterAnswer = append(afterAnswer, sample.after)
	}
	if err := s.stop(ctx); err != nil {
		b.Fatal(err)
	}
	reportMS(b, "edit", distributionOf(total))
	reportMS(b, "server", distributionOf(server))
	b.ReportMetric(ms(distributionOf(editor).median()), "editor-median-ms")
	b.ReportMetric(ms(distributionOf(beforeApply).median()), "server-before-apply-median-ms")
	b.ReportMetric(ms(distributionOf(afterAnswer).median()), "server-after-answer-median-ms")
}

// lastToolOutput is what the last function response the model received
// said.
func lastToolOutput(model *timedModel) string {
	reqs := model.Requests()
	if len(reqs) == 0 {
		return ""
	}
	contents := reqs[len(reqs)-1].Contents
	if len(contents) == 0 {
		return ""
	}
	for _, p := range contents[len(contents)-1].Parts {
		if fr := p.FunctionResponse; fr != nil {
			if e, ok := fr.Response["error"]; ok {
				return fmt.Sprint("error: ", e)
			}
			return fmt.Sprint(fr.Response["output"])
		}
	}
	return ""
}
