package lsp

import (
	"context"
	"errors"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/conversation/builtin"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

type rewindParams struct {
	SessionID *string `json:"sessionId"`
	// Prompt, from 1, is the prompt to go back to before; without it the
	// request lists the prompts.
	Prompt *int `json:"prompt,omitempty"`
	// Mode is conversation, code or both (the default).
	Mode string `json:"mode,omitempty"`
}

// rewindResult is gemini/rewind's result: Prompts in list mode, the rest
// after a rewind.
type rewindResult struct {
	Prompts []rewindPoint `json:"prompts,omitempty"`
	Prompt  int           `json:"prompt,omitempty"`
	Mode    string        `json:"mode,omitempty"`
	Removed int           `json:"removed"`
	Files   []rewoundFile `json:"files,omitempty"`
	Notes   []string      `json:"notes,omitempty"`
	// Message is what /rewind shows, in Markdown.
	Message string `json:"message,omitempty"`
}

type rewindPoint struct {
	Prompt int      `json:"prompt"`
	Text   string   `json:"text"`
	Files  []string `json:"files"`
}

type rewoundFile struct {
	Path    string `json:"path"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
}

// rewind answers gemini/rewind: the session's prompts with the files the
// agent changed at each, or, given a prompt, a rewind to before it, as
// /rewind does. It waits for the user to confirm the revert, so it runs
// as a prompt does: one per session at a time.
func (s *Server) rewind(ctx context.Context, p rewindParams) (rewindResult, error) {
	if p.SessionID == nil {
		return rewindResult{}, missingField("sessionId")
	}
	built, _, err := s.state()
	if err != nil {
		return rewindResult{}, err
	}
	live, err := s.host.Resume(ctx, built, *p.SessionID, "", false, struct{}{})
	if err != nil {
		if conversation.IsUnknownSession(err) {
			return rewindResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: sessionId: %v", err)
		}
		return rewindResult{}, jsonrpc2.Errorf(codeRequestFailed, "%v", err)
	}
	if p.Prompt == nil {
		points := live.RewindPoints()
		out := make([]rewindPoint, len(points))
		for i, pt := range points {
			out[i] = rewindPoint{Prompt: pt.Prompt, Text: pt.Text, Files: append([]string{}, pt.Files...)}
		}
		return rewindResult{Prompts: out}, nil
	}
	mode, err := dialog.ParseRewindMode(p.Mode)
	if err != nil {
		return rewindResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: mode %q: conversation, code or both", p.Mode)
	}
	claim, err := s.host.Begin(ctx, live.ID())
	if err != nil {
		return rewindResult{}, unclaimed(err)
	}
	defer claim.End()
	res, err := claim.Rewind(*p.Prompt, mode, quietPort{presenter{s}})
	switch {
	case errors.Is(err, dialog.ErrNoSuchPrompt):
		return rewindResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: prompt: %v", err)
	case err != nil:
		return rewindResult{}, jsonrpc2.Errorf(codeRequestFailed, "%v", err)
	}
	out := rewindResult{Prompt: res.Prompt, Mode: string(res.Mode), Removed: res.Removed, Notes: res.Notes, Message: builtin.RewindReport(res)}
	for _, f := range res.Files {
		out.Files = append(out.Files, rewoundFile{Path: f.Path, Outcome: string(f.Outcome), Reason: f.Reason})
	}
	return out, nil
}
