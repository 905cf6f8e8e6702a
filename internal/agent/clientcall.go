package agent

// A call the user has run outside a model turn.

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// RunCall runs one call of tool name with args for the user, outside a
// model turn: Gemini CLI's client-initiated call, which its /restore
// schedules for the call a checkpoint was taken before. It is run as the
// model's calls are, by the same code: through the session's approval
// door (the user is asked, through port's Confirm or with the edit's
// change, wherever they would be), an edit landed through port and
// checkpointed and journaled as any. port (nil: nobody is told or asked)
// is shown its ToolCallEvent and ToolResultEvent; the result is returned
// too.
//
// The call and its answer are recorded in the history as Gemini CLI
// records the client-initiated calls it keeps: the call as the model's
// turn, its answer as the user's, so the model is told what ran (or was
// declined). A file it changed is journaled with the conversation's last
// prompt, which a rewind to that prompt takes back. It waits for a
// running prompt (or for ctx).
func (s *Session) RunCall(ctx context.Context, name string, args map[string]any, port dialog.Port) (dialog.ToolResult, error) {
	if err := s.hold(ctx); err != nil {
		return dialog.ToolResult{}, err
	}
	defer s.end()
	fc := &genai.FunctionCall{Name: name, Args: maps.Clone(args)}
	if fc.Args == nil {
		fc.Args = map[string]any{}
	}
	fc.ID = s.chat.callID(fc)
	var result dialog.ToolResult
	show := showing(ctx, port)
	t := &turn{
		s:    s,
		ctx:  ctx,
		port: port,
		show: func(from dialog.Subagent, ev dialog.Event) {
			if r, ok := ev.(dialog.ToolResultEvent); ok {
				result = r.Result
			}
			show(from, ev)
		},
		promptID: fmt.Sprintf("%s########%d", s.id, s.promptCount()),
		journal:  s.lastPromptJournal(),
	}
	// Recorded before it runs, as the model's call is: a checkpoint
	// taken before its edit holds the history ending with it.
	s.chat.record(&genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: fc}}})
	s.chat.record(&genai.Content{Role: genai.RoleUser, Parts: t.runCall(&toolRun{fc: fc, start: s.agent.cfg.Now()})})
	s.keepJournal(t.journal)
	if err := s.persist(ctx, dialog.Usage{}, nil); err != nil {
		show(dialog.Subagent{}, dialog.NoticeEvent{Text: fmt.Sprintf("This session could not be saved, so it will not survive a restart: %v", err)})
	}
	return result, nil
}

// lastPromptJournal is a journal going on from the conversation's last
// prompt's; a fresh one when there is none.
func (s *Session) lastPromptJournal() journal {
	j := newJournal(s.journalSize())
	s.exchangesMu.Lock()
	defer s.exchangesMu.Unlock()
	if n := len(s.exchanges); n > 0 {
		j.files = slices.Clone(s.exchanges[n-1].Files)
	}
	return j
}

// keepJournal makes j the last prompt's journal, and has the session's
// file rewritten with it. With no prompt, there is none to keep it with.
func (s *Session) keepJournal(j journal) {
	s.exchangesMu.Lock()
	defer s.exchangesMu.Unlock()
	n := len(s.exchanges)
	if n == 0 || slices.EqualFunc(j.files, s.exchanges[n-1].Files, sameEdit) {
		return
	}
	s.exchanges[n-1].Files = j.files
	// An exchange saved already changed: the whole session is rewritten.
	s.saved = persisted{epoch: -1}
}

func sameEdit(a, b sessionstore.FileEdit) bool {
	return a.Path == b.Path && a.Unjournaled == b.Unjournaled && string(a.After) == string(b.After)
}

// RecordExchange records a prompt the user ran without the model (shell
// mode's "!command"): prompt as the transcript's prompt and answer as
// what the user was shown, and content as what the model reads with the
// next prompt, as Gemini CLI's addHistory adds it. It is one of the
// session's prompts like any (it may title the session, and a rewind to
// it takes content back), so that the history's prompts stay the
// transcript's. It waits for a running prompt (or for ctx). An error
// after the session was claimed is that it could not be saved; content
// is in the conversation all the same.
func (s *Session) RecordExchange(ctx context.Context, prompt string, content *genai.Content, answer string) error {
	if err := s.begin(ctx, prompt); err != nil {
		return err
	}
	defer s.end()
	s.chat.record(content)
	ex := sessionstore.Exchange{Prompt: prompt, Answer: answer, StopReason: string(dialog.StopEndTurn)}
	s.exchangesMu.Lock()
	s.exchanges = append(s.exchanges, ex)
	s.exchangesMu.Unlock()
	if err := s.persist(ctx, dialog.Usage{}, &ex); err != nil {
		return fmt.Errorf("saving the session: %w", err)
	}
	return nil
}
