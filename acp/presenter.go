package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/conversation"
	"github.com/gemini-ls/gemini-ls/dialog"
	"github.com/gemini-ls/gemini-ls/tools"
)

// The server is its host's presenter: each event and question goes to
// the session it is of, shown with session/update and asked with
// session/request_permission.

// Emit shows one event of l's running turn. The turn's first event starts
// the message the turn's notes are paragraphs of afresh.
func (s *server) Emit(ctx context.Context, l *conversation.Live[*session], e dialog.Event) {
	sess := l.State
	if sess.tailOf != ctx {
		sess.tailOf, sess.tail = ctx, ""
	}
	sess.emit(ctx, e)
}

func (s *server) Land(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
	sess, err := s.lookup(sdk.SessionId(req.SessionID))
	if err != nil {
		return dialog.Landing{}, err
	}
	return lander{sess}.Land(ctx, req)
}

func (s *server) LandFiles(ctx context.Context, req dialog.LandFilesRequest) ([]tools.Decision, error) {
	sess, err := s.lookup(sdk.SessionId(req.SessionID))
	if err != nil {
		return nil, err
	}
	return lander{sess}.LandFiles(ctx, req)
}

func (s *server) Confirm(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	sess, err := s.lookup(sdk.SessionId(req.SessionID))
	if err != nil {
		return dialog.Cancel, err
	}
	return sess.confirm.Confirm(ctx, req)
}

func (s *server) Ask(ctx context.Context, req dialog.AskRequest) (tools.Answer, error) {
	sess, err := s.lookup(sdk.SessionId(req.SessionID))
	if err != nil {
		return tools.Answer{}, err
	}
	return asker{sess}.Ask(ctx, req)
}
