package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/conversation"
	"github.com/gemini-ls/gemini-ls/dialog"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// Each session prompted through gemini.prompt has one Markdown transcript,
// <state>/transcripts/<session>.md, appended to as its prompts run: the
// prompt when it starts, the rest when it ends. It is opened for the user
// once per session with focus (window/showDocument); later prompts show it
// again without taking focus, for clients that refresh it.

// transcripts remembers which sessions' transcripts the client was shown.
type transcripts struct {
	mu    sync.Mutex
	shown map[string]bool
}

// firstShow records that id's transcript is shown and reports whether it
// is the first time.
func (t *transcripts) firstShow(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.shown[id] {
		return false
	}
	if t.shown == nil {
		t.shown = map[string]bool{}
	}
	t.shown[id] = true
	return true
}

// stateDir is where the server keeps files for the user to open
// (transcripts, diffs): never inside the workspace.
func (s *Server) stateDir() (string, error) {
	if s.opts.StateDir != "" {
		return s.opts.StateDir, nil
	}
	if dir := conversation.StateDir(s.getenv); dir != "" {
		return dir, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding a directory for transcripts: XDG_STATE_HOME and HOME are unset, and %w", err)
	}
	return filepath.Join(cache, "gemini-ls"), nil
}

// transcript is one prompt's part of a session's transcript.
type transcript struct {
	s    *Server
	path string // "" when it cannot be written
	b    strings.Builder
	// nested are the subagents' calls, by their invoke_agent call's id,
	// each a line indented under it, written after its status: the
	// invoke_agent call's own line ends only when the subagent is done.
	nested map[string][]string
	// titles are the subagents' running calls' titles, by invoke_agent
	// call id and call id: each subagent numbers its calls its own way.
	titles map[[2]string]string
}

// begin appends the prompt to the session's transcript.
func (t *transcripts) begin(s *Server, sessionID, prompt string) *transcript {
	tr := &transcript{s: s}
	dir, err := s.stateDir()
	if err == nil {
		dir = filepath.Join(dir, "transcripts")
		err = os.MkdirAll(dir, 0o700)
	}
	if err != nil {
		s.log.Warn("transcripts are not written", zap.Error(err))
		return tr
	}
	tr.path = filepath.Join(dir, sessionID+".md")
	tr.write(fmt.Sprintf("## Prompt\n\n%s\n\n## Gemini\n\n", prompt))
	return tr
}

func (tr *transcript) event(e dialog.Event) {
	if e.Subagent.CallID != "" {
		tr.subagentEvent(e)
		return
	}
	switch e.Kind {
	case dialog.EventText:
		text := e.Text
		if strings.HasSuffix(tr.b.String(), "\n\n") {
			text = strings.TrimLeft(text, "\n")
		}
		tr.b.WriteString(text)
	case dialog.EventToolCall:
		tr.paragraph()
		fmt.Fprintf(&tr.b, "- **%s**", e.ToolCall.Title)
	case dialog.EventToolResult:
		fmt.Fprintf(&tr.b, " — %s\n", e.ToolResult.Status)
		for _, l := range tr.nested[e.ToolResult.CallID] {
			tr.b.WriteString(l)
		}
		delete(tr.nested, e.ToolResult.CallID)
		tr.b.WriteString("\n")
	case dialog.EventNotice:
		tr.paragraph()
		fmt.Fprintf(&tr.b, "> %s\n\n", e.Text)
	case dialog.EventError:
		tr.paragraph()
		fmt.Fprintf(&tr.b, "> **Error:** %v\n\n", e.Err)
	}
}

// subagentEvent keeps a subagent's call, with how it ended, for the
// list under its invoke_agent call; its text and thoughts are not the
// answer (its report is the call's result, which the model answers from).
func (tr *transcript) subagentEvent(e dialog.Event) {
	if tr.nested == nil {
		tr.nested, tr.titles = map[string][]string{}, map[[2]string]string{}
	}
	switch e.Kind {
	case dialog.EventToolCall:
		tr.titles[[2]string{e.Subagent.CallID, e.ToolCall.CallID}] = e.ToolCall.Title
	case dialog.EventToolResult:
		key := [2]string{e.Subagent.CallID, e.ToolResult.CallID}
		title, ok := tr.titles[key]
		if !ok {
			title = e.ToolResult.Name
		}
		delete(tr.titles, key)
		parent := e.Subagent.CallID
		tr.nested[parent] = append(tr.nested[parent], fmt.Sprintf("  - %s: **%s** — %s\n", e.Subagent.Name, title, e.ToolResult.Status))
	}
}

// paragraph ends what was written with a blank line, unless it ends so.
func (tr *transcript) paragraph() {
	tr.b.WriteString(dialog.ParagraphBreak(tr.b.String()))
}

// refused records that the prompt did not run.
func (tr *transcript) refused(err error) {
	tr.paragraph()
	fmt.Fprintf(&tr.b, "_not run: %v_\n\n---\n\n", err)
	tr.write(tr.b.String())
}

// end appends the rest of the prompt: what the model said and did, and,
// in words, why the turn stopped early; a turn that simply ended says
// nothing more, as a protocol's stop reason means nothing to a reader.
func (tr *transcript) end(o conversation.Outcome) {
	tr.paragraph()
	if why := o.Explanation(); why != "" {
		fmt.Fprintf(&tr.b, "_%s_\n\n", why)
	}
	tr.b.WriteString("---\n\n")
	tr.write(tr.b.String())
}

func (tr *transcript) write(text string) {
	if tr.path == "" {
		return
	}
	f, err := safefile.Append(tr.path)
	if err == nil {
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		tr.s.log.Warn("writing the transcript", zap.String("path", tr.path), zap.Error(err))
		tr.path = ""
	}
}

// showTranscript opens the session's transcript: with focus the first
// time; later without, so a prompt does not pull the user away from the
// code they are working on, and not at all while the client has it open
// (Helix, which syncs it, replaces the current view whatever takeFocus
// says, and does not reload it: :reload shows the new turns).
func (s *Server) showTranscript(ctx context.Context, sessionID, path string) {
	if path == "" {
		return
	}
	focus := s.transcripts.firstShow(sessionID)
	if _, open := s.docs.Get(path); open && !focus {
		return
	}
	var res protocol.ShowDocumentResult
	if err := s.call(ctx, "window/showDocument", &protocol.ShowDocumentParams{URI: uri.File(path), TakeFocus: &focus}, &res); err != nil {
		s.log.Info("window/showDocument", zap.Error(err))
	}
}
