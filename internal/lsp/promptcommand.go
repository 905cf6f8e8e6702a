package lsp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/ellipsis"
)

// gemini.prompt runs the same turn as gemini/prompt for clients that
// cannot send custom requests. It answers the executeCommand request as
// soon as the turn has started: eglot waits for that answer with a 10 s
// limit while Emacs ignores the user, and no client should wait on a
// request for the model. The turn goes on in the background, shown through
// $/progress, and ends with the answer in window/showMessage and the
// session's Markdown transcript (transcript.go).

// commandStarted is gemini.prompt's answer.
type commandStarted struct {
	SessionID string `json:"sessionId"`
	Status    string `json:"status"` // "started"
}

func (s *Server) promptCommand(ctx context.Context, args []json.RawMessage) (commandStarted, error) {
	a, err := promptArg(args)
	if err != nil {
		return commandStarted{}, err
	}
	built, f, err := s.stateFor(ctx, *a.Prompt)
	if err != nil {
		s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: "Gemini: " + err.Error()})
		return commandStarted{}, err
	}
	var pc *promptContext
	if a.URI != "" || a.Range != nil || len(a.Diagnostics) > 0 {
		pc = &promptContext{URI: a.URI, Range: a.Range, Diagnostics: a.Diagnostics}
	}
	// Read now: the selection is what the user had when they asked.
	editor, err := s.editorContext(ctx, pc)
	if err != nil {
		return commandStarted{}, err
	}
	sess, err := s.conversation(ctx, built, s.rootOf(a.URI), a.SessionID)
	if err != nil {
		return commandStarted{}, err
	}

	// The turn outlives this request: it ends with the connection, or when
	// cancelled (gemini.cancel, window/workDoneProgress/cancel).
	claim, err := s.host.Begin(s.life, sess.ID())
	if err != nil {
		return commandStarted{}, unclaimed(err)
	}
	reported := s.reports.begin(sess.ID())
	s.handlers.start()
	go func() {
		defer s.handlers.finish()
		defer s.reports.end(sess.ID(), reported)
		s.commandTurn(claim, dialog.Input{Text: *a.Prompt, Editor: editor}, f, nil)
	}()
	return commandStarted{SessionID: sess.ID(), Status: "started"}, nil
}

// reports are the gemini.prompt turns still showing how they went, by
// session id, each a channel closed when its turn has sent everything it
// shows (its final message, its transcript), for gemini.cancel to wait
// for. The turn's goroutine begins and ends its own; gemini.cancel reads.
type reports struct {
	mu   sync.Mutex
	done map[string]chan struct{}
}

func (r *reports) begin(sessionID string) chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done == nil {
		r.done = map[string]chan struct{}{}
	}
	done := make(chan struct{})
	r.done[sessionID] = done
	return done
}

// end closes done, begun for sessionID.
func (r *reports) end(sessionID string, done chan struct{}) {
	r.mu.Lock()
	// The session is free once the turn ends, so the next prompt's turn
	// may have taken the entry already.
	if r.done[sessionID] == done {
		delete(r.done, sessionID)
	}
	r.mu.Unlock()
	close(done)
}

// of returns the channel of sessionID's turn, nil when none is showing.
func (r *reports) of(sessionID string) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if done, ok := r.done[sessionID]; ok {
		return done
	}
	return nil
}

// sessions are the ids of the turns showing.
func (r *reports) sessions() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []string
	for id := range r.done {
		ids = append(ids, id)
	}
	return ids
}

// commandTurn runs a gemini.prompt turn and shows how it went. The turn
// ends (its session free for the next prompt) as soon as the model is
// done, so that a prompt sent on seeing the answer is not refused as
// busy.
func (s *Server) commandTurn(claim *conversation.Claim[struct{}], in dialog.Input, f clientFeatures, agent *agentTurn) {
	defer claim.End()
	id := claim.Live().ID()
	prog := s.beginProgress(claim.Context(), f, in.Text, claim.Cancel)
	defer prog.forget()
	tr := s.transcripts.begin(s, claim.Live().Info(), in.Text)
	var v conversation.View = commandView{presenter: presenter{s}, tr: tr, prog: prog, plans: &shownPlans{}}
	if agent != nil {
		v = agent.view(v)
	}
	s.settleTrust(claim, in, v)
	if agent != nil {
		agent.began()
		agent.setUp(claim, v)
	}
	o := claim.Prompt(in, v)
	claim.End()
	if agent != nil {
		agent.ended(s.life, o, claim.Live())
	}
	ctx := s.life // the turn's own context is done
	if _, err := answer(id, o); err != nil {
		// Refused before it ran (another prompt of the session got there
		// first).
		tr.refused(err)
		prog.end("Gemini: " + err.Error())
		s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: "Gemini: " + err.Error()})
		return
	}
	tr.end(o)
	prog.end(summary(o))

	typ := protocol.MessageTypeInfo
	if o.Ending == conversation.Failed {
		typ = protocol.MessageTypeError
	}
	msg := answerMessage(o)
	if !f.ShowDocument && tr.path != "" {
		// Neovim 0.7 and eglot 1.9 cannot open it for the user.
		msg += "\n\nTranscript: " + tr.path
	}
	if f.ShowDocument {
		// Before the answer, so that an editor (or a script) that acts
		// on the answer finds the transcript already shown.
		s.showTranscript(ctx, id, tr.path)
	}
	s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: typ, Message: spaceBeforeBreaks(msg)})
}

// commandView is a gemini.prompt turn's: the transcript and the
// progress show what each shows of it, the plan exit_plan_mode presents
// is opened in the editor, and the presenter puts its questions, whose
// answers the transcript records.
type commandView struct {
	presenter
	tr    *transcript
	prog  *progress
	plans *shownPlans
}

// Show shows ev in the transcript, the progress or both, and opens a
// plan a call presents; neither shows thoughts, usage, compressions, a
// model's switch or the command list's change.
func (v commandView) Show(ctx context.Context, from dialog.Subagent, ev dialog.Event) {
	switch ev := ev.(type) {
	case dialog.TextEvent:
		v.tr.text(from, ev.Text)
		v.prog.text(from, ev.Text)
	case dialog.ToolCallEvent:
		v.tr.toolCall(from, ev.Call)
		v.prog.toolCall(from, ev.Call)
		if v.s.showPlan(ctx, ev.Call) {
			v.plans.shown(ev.Call.CallID, ev.Call.Path)
		}
	case dialog.ToolResultEvent:
		v.tr.toolResult(from, ev.Result)
	case dialog.ErrorEvent:
		v.tr.failed(from, ev.Err)
	case dialog.NoticeEvent:
		v.tr.notice(from, ev.Text)
	case dialog.ModeEvent:
		v.tr.mode(from, ev.Mode)
	case dialog.RetryEvent:
		v.prog.retry(from, ev.Retry)
	case dialog.TopicEvent:
		v.prog.topic(from, ev.Topic)
	case dialog.ThoughtEvent, dialog.UsageEvent, dialog.CompressedEvent, dialog.ModelEvent, dialog.PlanEvent, dialog.CommandsEvent:
	}
}

// summary is the one line that ends the progress: how the turn ended
// when it ended early, else the first line of the answer's last
// paragraph, which is what the model said last.
func summary(o conversation.Outcome) string {
	if h := o.Headline(); h != "" {
		return "Gemini: " + h
	}
	return "Gemini: " + ellipsis.Cut(firstLine(lastParagraph(o.Text)), 80)
}

// spaceBeforeBreaks ends each line that ends in a word with a space: a
// client that drops line breaks (Helix's status line) then shows
// "…a greeting. Done: …" rather than "…a greeting.Done: …", and the others
// show nothing of it.
func spaceBeforeBreaks(msg string) string {
	lines := strings.Split(msg, "\n")
	for i, l := range lines[:len(lines)-1] {
		if l != "" && !strings.HasSuffix(l, " ") {
			lines[i] = l + " "
		}
	}
	return strings.Join(lines, "\n")
}

// lastParagraph is the text after text's last blank line.
func lastParagraph(text string) string {
	text = strings.TrimSpace(text)
	if i := strings.LastIndex(text, "\n\n"); i >= 0 {
		return text[i+2:]
	}
	return text
}

// answerMessage is the turn's answer for window/showMessage: how it
// ended when it ended early, then what the model said.
func answerMessage(o conversation.Outcome) string {
	text := strings.TrimSpace(o.Text)
	h := o.Headline()
	switch {
	case h == "":
		return "Gemini: " + text
	case text == "":
		return "Gemini: " + h + "."
	}
	return "Gemini: " + h + ". " + text
}

func (s *Server) notifyClient(method string, params any) {
	if err := s.conn.Notify(context.Background(), method, params); err != nil {
		s.log.Debug("notifying client", zap.String("method", method), zap.Error(err))
	}
}
