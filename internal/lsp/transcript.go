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

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// Each session prompted through gemini.prompt has one Markdown transcript
// under <state>/transcripts, named for the user (transcriptname.go) and
// appended to as its prompts run: the prompt when it starts, the rest
// when it ends. It is opened for the user once per session with focus
// (window/showDocument); later prompts show it again without taking
// focus, for clients that refresh it.

// transcripts remembers the sessions' transcripts: where each is and
// whether the client was shown it.
type transcripts struct {
	mu    sync.Mutex
	shown map[string]bool
	paths map[string]string
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

// pathOf is the transcript of session info in dir: the one it has, else
// a new one named for it.
func (t *transcripts) pathOf(dir string, info dialog.SessionInfo, prompt string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if path, ok := t.paths[info.ID]; ok {
		return path
	}
	path := existingTranscript(dir, info.ID)
	if path == "" {
		path = filepath.Join(dir, transcriptName(info, prompt))
	}
	if t.paths == nil {
		t.paths = map[string]string{}
	}
	t.paths[info.ID] = path
	return path
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

// begin appends the prompt to the transcript of the session info tells
// of.
func (t *transcripts) begin(s *Server, info dialog.SessionInfo, prompt string) *transcript {
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
	tr.path = t.pathOf(dir, info, prompt)
	tr.write(fmt.Sprintf("## Prompt\n\n%s\n\n## Gemini\n\n", prompt))
	return tr
}

// The transcript is the main agent's: a subagent's calls, each with how
// it ended, are listed under its invoke_agent call; its text, notices
// and errors are not the answer (its report is the call's result, which
// the model answers from).

// text is a piece of the model's answer.
func (tr *transcript) text(from dialog.Subagent, text string) {
	if from.CallID != "" {
		return
	}
	if strings.HasSuffix(tr.b.String(), "\n\n") {
		text = strings.TrimLeft(text, "\n")
	}
	tr.b.WriteString(text)
}

// toolCall begins a call's line, or keeps a subagent's call's title for
// its line under its invoke_agent call.
func (tr *transcript) toolCall(from dialog.Subagent, c dialog.ToolCall) {
	if from.CallID != "" {
		tr.subagents()
		tr.titles[[2]string{from.CallID, c.CallID}] = c.Title
		return
	}
	tr.paragraph()
	fmt.Fprintf(&tr.b, "- **%s**", c.Title)
}

// toolResult ends a call's line, its subagent's calls listed under it,
// or adds a subagent's call to that list.
func (tr *transcript) toolResult(from dialog.Subagent, r dialog.ToolResult) {
	if from.CallID != "" {
		tr.subagents()
		key := [2]string{from.CallID, r.CallID}
		title, ok := tr.titles[key]
		if !ok {
			title = r.Name
		}
		delete(tr.titles, key)
		tr.nested[from.CallID] = append(tr.nested[from.CallID], fmt.Sprintf("  - %s: **%s** — %s\n", from.Name, title, r.Status))
		return
	}
	fmt.Fprintf(&tr.b, " — %s\n", r.Status)
	for _, l := range tr.nested[r.CallID] {
		tr.b.WriteString(l)
	}
	delete(tr.nested, r.CallID)
	tr.b.WriteString("\n")
}

func (tr *transcript) notice(from dialog.Subagent, text string) {
	if from.CallID != "" {
		return
	}
	tr.paragraph()
	fmt.Fprintf(&tr.b, "> %s\n\n", text)
}

func (tr *transcript) failed(from dialog.Subagent, err error) {
	if from.CallID != "" {
		return
	}
	tr.paragraph()
	fmt.Fprintf(&tr.b, "> **Error:** %v\n\n", err)
}

// subagents makes the maps of the subagents' calls.
func (tr *transcript) subagents() {
	if tr.nested == nil {
		tr.nested, tr.titles = map[string][]string{}, map[[2]string]string{}
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
