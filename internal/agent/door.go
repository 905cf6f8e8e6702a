package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Every question the agent asks leaves through one door, the session's,
// which alone holds the front end's Confirmer, Lander and Asker: a call's
// approval (approve), an edit's landing (land), a call's question
// (question), and those about no call (a switch of model, a rewind's
// conflict and its revert).

// ask puts req to the user through the front end's Confirmer. err is why
// nobody answered (the outcome is then Cancel): errNoConfirmer, the
// Confirmer's error, or ctx's.
func (s *Session) ask(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	confirmer := s.agent.cfg.Confirmer
	if confirmer == nil {
		return dialog.Cancel, errNoConfirmer
	}
	req.SessionID = s.id
	outcome, err := confirmer.Confirm(ctx, req)
	switch {
	case ctx.Err() != nil:
		return dialog.Cancel, ctx.Err()
	case err != nil:
		return dialog.Cancel, err
	}
	return outcome, nil
}

// errNoFilesLander: the front end cannot land several changes as one.
var errNoFilesLander = errors.New("this front end cannot land a revert")

// landAll hands the front end changes to land as one (a rewind's revert),
// asking the user once; each change's decision, in order.
func (s *Session) landAll(ctx context.Context, title string, changes []dialog.RevertChange) ([]dialog.Decision, error) {
	lander, ok := s.agent.cfg.Lander.(dialog.FilesLander)
	if !ok {
		return nil, errNoFilesLander
	}
	return lander.LandFiles(ctx, dialog.LandFilesRequest{SessionID: s.id, Title: title, Changes: changes})
}

// errNoLander: no front end lands file changes.
var errNoLander = errors.New("no front end lands file changes; the change was not applied")

// canLand is errNoLander when the front end cannot land an edit.
func (s *Session) canLand() error {
	if s.agent.cfg.Lander == nil {
		return errNoLander
	}
	return nil
}

// land hands the front end an edit call's change to land, asking the
// user first where req.Ask says so. A change whose folder left the
// workspace since the call prepared it (the editor removed it mid-turn)
// is refused, for the model to read why.
func (s *Session) land(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
	if err := s.canLand(); err != nil {
		return dialog.Landing{}, err
	}
	if ws := s.agent.cfg.Workspace; ws != nil {
		if err := ws.StillHolds(req.Change); err != nil {
			return dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Refused, Reason: err.Error()}}, nil
		}
	}
	req.SessionID = s.id
	return s.agent.cfg.Lander.Land(ctx, req)
}

// canQuestion reports whether the front end can put a call's question.
func (s *Session) canQuestion() bool { return s.agent.cfg.Asker != nil }

// question puts call callID's question q to the user through the front
// end's Asker.
func (s *Session) question(ctx context.Context, callID string, q dialog.Question) (dialog.Answer, error) {
	if !s.canQuestion() {
		return dialog.Answer{}, fmt.Errorf("%w: this front end cannot put a question", dialog.ErrCannotAsk)
	}
	return s.agent.cfg.Asker.Ask(ctx, dialog.AskRequest{SessionID: s.id, CallID: callID, Question: q})
}
