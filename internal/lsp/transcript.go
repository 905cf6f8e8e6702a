package lsp

import (
	"cmp"
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
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// Each session prompted through gemini.prompt has one Markdown transcript
// under <state>/transcripts, named for the user (transcriptname.go) and
// appended to as its prompts run: the prompt when it starts, the rest
// when it ends. It is opened for the user once per session with focus
// (window/showDocument); later prompts show it again without taking
// focus, for clients that refresh it.
//
// Editors without a plugin show it as the file it is (Helix, eglot,
// Neovim's own client), so it is Markdown that reads as plain text: no
// HTML, no line broken but where the model or the user broke it (the
// editor wraps it), each question once with the user's answer after it.

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
		return "", fmt.Errorf("finding a directory for transcripts: XDG_STATE_HOME and %s are unset, and %w", settings.HomeVariable, err)
	}
	return filepath.Join(cache, "gemini-ls"), nil
}

// transcript is one prompt's part of a session's transcript, kept as
// parts and written when the prompt ends: a call's line is complete only
// once its result came, and calls run at once end in any order.
type transcript struct {
	s    *Server
	path string // "" when it cannot be written

	// mu guards the rest: the turn's events come one at a time, but its
	// questions are answered on the goroutines of the calls that ask.
	mu    sync.Mutex
	parts []transcriptPart
	// calls are the main agent's calls, by id, from their call to their
	// result.
	calls map[string]*callEntry
	// subTitles are the subagents' running calls' titles, by invoke_agent
	// call id and call id: each subagent numbers its calls its own way.
	subTitles map[[2]string]string
	// answers are the user's answers to the questions of the subagents'
	// running calls, by call id, written under the call's line when it
	// ends.
	answers map[string][]string
}

// transcriptPart is one piece of a prompt's transcript: the model's text
// as it came, a paragraph of its own, or a call.
type transcriptPart struct {
	text      string
	paragraph string
	call      *callEntry
}

// callEntry is a call of the main agent: its line, the user's answers to
// what it asked, and for an invoke_agent call its subagent's calls and
// report.
type callEntry struct {
	title   string
	status  string // its dialog.Status, or an edit's Outcome; "" until it ends
	answers []string
	nested  []string // lines
	// delegates: the call runs a subagent (dialog.KindAgent), whose
	// report is its result, kept as report: Markdown, indented under the
	// line.
	delegates bool
	report    string
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
// it ended, are listed under its invoke_agent call, then its report; its
// text, notices and errors are not the answer (its report is the call's
// result, which the model answers from).

// text is a piece of the model's answer.
func (tr *transcript) text(from dialog.Subagent, text string) {
	if from.CallID != "" {
		return
	}
	tr.add(transcriptPart{text: text})
}

// toolCall begins a call's entry, or keeps a subagent's call's title for
// its line under its invoke_agent call.
func (tr *transcript) toolCall(from dialog.Subagent, c dialog.ToolCall) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if from.CallID != "" {
		if tr.subTitles == nil {
			tr.subTitles = map[[2]string]string{}
		}
		tr.subTitles[[2]string{from.CallID, c.CallID}] = c.Title
		return
	}
	e := &callEntry{title: c.Title, delegates: c.Kind == dialog.KindAgent}
	if tr.calls == nil {
		tr.calls = map[string]*callEntry{}
	}
	tr.calls[c.CallID] = e
	tr.parts = append(tr.parts, transcriptPart{call: e})
}

// toolResult ends a call's entry, keeping an invoke_agent call's result,
// its subagent's report; or adds a subagent's call, with the answers
// given to it, under its invoke_agent call.
func (tr *transcript) toolResult(from dialog.Subagent, r dialog.ToolResult) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if from.CallID != "" {
		answers := tr.answers[r.CallID]
		delete(tr.answers, r.CallID)
		key := [2]string{from.CallID, r.CallID}
		title, ok := tr.subTitles[key]
		if !ok {
			title = r.Name
		}
		delete(tr.subTitles, key)
		parent := tr.calls[from.CallID]
		if parent == nil {
			return
		}
		parent.nested = append(parent.nested, fmt.Sprintf("  - **%s** — %s", title, r.Status))
		for _, a := range answers {
			parent.nested = append(parent.nested, "    → "+a)
		}
		return
	}
	e := tr.calls[r.CallID]
	if e == nil {
		return
	}
	delete(tr.calls, r.CallID)
	e.status = cmp.Or(r.Outcome, string(r.Status))
	if e.delegates {
		e.report = r.Display
	}
}

// answered records the user's answer to a question: after the line of
// the call that asked it, once the call ends; a question no call of the
// transcript asked (the folder's trust, a switch of model) is quoted
// with its answer.
func (tr *transcript) answered(callID, question, answer string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	switch {
	case callID == "":
	case tr.calls[callID] != nil:
		e := tr.calls[callID]
		e.answers = append(e.answers, answer)
		return
	case tr.subagentRunning(callID):
		if tr.answers == nil {
			tr.answers = map[string][]string{}
		}
		tr.answers[callID] = append(tr.answers[callID], answer)
		return
	}
	tr.parts = append(tr.parts, transcriptPart{paragraph: blockQuote(question + " → " + answer)})
}

// subagentRunning reports whether a subagent's call id is running.
func (tr *transcript) subagentRunning(id string) bool {
	for key := range tr.subTitles {
		if key[1] == id {
			return true
		}
	}
	return false
}

func (tr *transcript) notice(from dialog.Subagent, text string) {
	if from.CallID != "" {
		return
	}
	tr.add(transcriptPart{paragraph: blockQuote(text)})
}

func (tr *transcript) failed(from dialog.Subagent, err error) {
	if from.CallID != "" {
		return
	}
	tr.add(transcriptPart{paragraph: blockQuote(fmt.Sprintf("**Error:** %v", err))})
}

// mode records a switch of the session's approval mode, named as Gemini
// CLI 0.61 names it to its users.
func (tr *transcript) mode(from dialog.Subagent, mode dialog.ApprovalMode) {
	if from.CallID != "" {
		return
	}
	tr.add(transcriptPart{paragraph: blockQuote("Approval mode: " + mode.Name())})
}

func (tr *transcript) add(p transcriptPart) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.parts = append(tr.parts, p)
}

// blockQuote is text as a block quote, each of its lines quoted.
func blockQuote(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n")
}

// refused records that the prompt did not run.
func (tr *transcript) refused(err error) {
	tr.add(transcriptPart{paragraph: fmt.Sprintf("_not run: %v_", err)})
	tr.add(transcriptPart{paragraph: "---"})
	tr.write(tr.render())
}

// end appends the rest of the prompt: what the model said and did, and,
// in words, why the turn stopped early; a turn that simply ended says
// nothing more, as a protocol's stop reason means nothing to a reader.
func (tr *transcript) end(o conversation.Outcome) {
	if why := o.Explanation(); why != "" {
		tr.add(transcriptPart{paragraph: "_" + why + "_"})
	}
	tr.add(transcriptPart{paragraph: "---"})
	tr.write(tr.render())
}

// render is the prompt's part of the transcript after its prompt.
func (tr *transcript) render() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var b strings.Builder
	for _, p := range tr.parts {
		switch {
		case p.call != nil:
			b.WriteString(dialog.ParagraphBreak(b.String()))
			p.call.render(&b)
		case p.paragraph != "":
			b.WriteString(dialog.ParagraphBreak(b.String()))
			b.WriteString(p.paragraph + "\n\n")
		default:
			text := p.text
			if strings.HasSuffix(b.String(), "\n\n") {
				text = strings.TrimLeft(text, "\n")
			}
			b.WriteString(text)
		}
	}
	return b.String()
}

// render writes the call's line, then what the user answered it, its
// subagent's calls and report, then a blank line.
func (e *callEntry) render(b *strings.Builder) {
	fmt.Fprintf(b, "- **%s**", e.title)
	if e.status != "" {
		fmt.Fprintf(b, " — %s", e.status)
	}
	b.WriteString("\n")
	for _, a := range e.answers {
		b.WriteString("  → " + a + "\n")
	}
	for _, l := range e.nested {
		b.WriteString(l + "\n")
	}
	if report := reportMarkdown(e.report); report != "" {
		b.WriteString("\n" + indentLines(report, "  ") + "\n")
	}
	b.WriteString("\n")
}

// indentLines is text with each line that is not empty after prefix.
func indentLines(text, prefix string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
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
