package agent

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// RewindPoints lists the conversation's prompts, from its transcript,
// with the files the agent changed at each.
func (s *Session) RewindPoints() []dialog.RewindPoint {
	s.exchangesMu.Lock()
	defer s.exchangesMu.Unlock()
	out := make([]dialog.RewindPoint, len(s.exchanges))
	for i, ex := range s.exchanges {
		out[i] = dialog.RewindPoint{Prompt: i + 1, Text: ex.Prompt}
		for _, f := range ex.Files {
			out[i].Files = append(out[i].Files, f.Path)
		}
	}
	return out
}

// Rewind goes back to before prompt (numbered from 1): mode says whether
// the conversation (the prompts from it on leave the history, the
// transcript and the saved session), the agent's file changes since
// (each file back to what it held before the agent first changed it at
// or after the prompt) or both. A file changed since the agent last
// changed it is a conflict: the user is asked (through port's Confirm)
// whether to revert it anyway, and it is kept when they say no or
// nobody can be asked. The revert is landed through port's LandFiles, as
// one change the user previews. It waits for a running prompt (or for
// ctx).
func (s *Session) Rewind(ctx context.Context, prompt int, mode dialog.RewindMode, port dialog.Port) (dialog.RewindResult, error) {
	mode, err := dialog.ParseRewindMode(string(mode))
	if err != nil {
		return dialog.RewindResult{}, err
	}
	if err := s.hold(ctx); err != nil {
		return dialog.RewindResult{}, err
	}
	defer s.end()
	s.exchangesMu.Lock()
	exchanges := slices.Clone(s.exchanges)
	s.exchangesMu.Unlock()
	if prompt < 1 || prompt > len(exchanges) {
		return dialog.RewindResult{}, fmt.Errorf("%w %d: the conversation has %d %s", dialog.ErrNoSuchPrompt, prompt, len(exchanges), plural(len(exchanges), "prompt", "prompts"))
	}
	i := prompt - 1
	res := dialog.RewindResult{Prompt: prompt, Mode: mode}
	if mode != dialog.RewindConversation {
		files, err := s.revert(ctx, port, prompt, exchanges[i:])
		if err != nil {
			return res, err
		}
		res.Files = files
		if mode == dialog.RewindCode {
			s.forgetReverted(i, files)
		}
	}
	if mode != dialog.RewindCode {
		res.Removed = len(exchanges) - i
		res.Notes = s.cutConversation(i, exchanges)
		if mode == dialog.RewindConversation && changedFiles(exchanges[i:]) {
			res.Notes = append(res.Notes, "The files the removed prompts changed keep those changes; their journal went with the prompts, so a later rewind cannot revert them.")
		}
	}
	// The whole session is rewritten, as after a compression.
	s.saved = persisted{epoch: -1}
	if err := s.persist(ctx, dialog.Usage{}, nil); err != nil {
		s.agent.cfg.Logger.Warn("saving the rewound session", zap.String("sessionId", s.id), zap.Error(err))
		return res, fmt.Errorf("the session was rewound, but it could not be saved: %w", err)
	}
	return res, nil
}

func changedFiles(exchanges []sessionstore.Exchange) bool {
	return slices.ContainsFunc(exchanges, func(ex sessionstore.Exchange) bool { return len(ex.Files) > 0 })
}

// cutConversation drops the exchanges from i on, and the history from
// prompt i on, and says what could not be rewound exactly.
func (s *Session) cutConversation(i int, exchanges []sessionstore.Exchange) (notes []string) {
	kept, note := historyBefore(s.chat.history, exchanges, i)
	if note != "" {
		notes = append(notes, note)
	}
	s.replaceChat(kept)
	s.exchangesMu.Lock()
	s.exchanges = s.exchanges[:i:i]
	s.exchangesMu.Unlock()
	// How full the window was went with the prompts cut: it is known
	// again at the next answer.
	s.agent.mu.Lock()
	s.context = dialog.ContextFill{}
	s.agent.mu.Unlock()
	return notes
}

// historyBefore is history without prompt i (from 0, of the transcript
// exchanges) and what followed it. The history's prompts (user contents
// that answer no call) are the transcript's last ones; those before them
// were compressed into the summary at its start (CompressedPrefix).
// Before a prompt after the summary the cut is exact. Before a
// compressed prompt the summary cannot stay (it tells of the prompts
// rewound), so, as Gemini CLI rebuilds the history from its recording,
// the history is rebuilt from the transcript of the prompts kept: what
// was asked and answered, without the calls and their results, which
// the note says.
func historyBefore(history []*genai.Content, exchanges []sessionstore.Exchange, i int) ([]*genai.Content, string) {
	if i == 0 {
		return nil, ""
	}
	prefix := CompressedPrefix(history)
	var starts []int
	for j := prefix; j < len(history); j++ {
		if c := history[j]; c.Role == genai.RoleUser && !hasFunctionResponse(c) {
			starts = append(starts, j)
		}
	}
	first := len(exchanges) - len(starts) // the transcript's index of the history's first prompt
	if i >= first {
		return slices.Clone(history[:starts[i-first]]), ""
	}
	var rebuilt []*genai.Content
	for _, ex := range exchanges[:i] {
		// An empty text is refused by the API.
		answer := cmp.Or(ex.Answer, "(no text answer)")
		rebuilt = append(rebuilt, genai.NewContentFromText(ex.Prompt, genai.RoleUser), genai.NewContentFromText(answer, genai.RoleModel))
	}
	return rebuilt, fmt.Sprintf("A compression had summarised the prompts kept, and the summary told of those rewound too, so the model's history of prompts 1 to %d was rebuilt from the transcript: it sees what was asked and answered, but no longer the tool calls and their results.", i)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
