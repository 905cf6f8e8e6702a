package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Every question the agent asks leaves through one door, the session's,
// which puts them to the port of the call that started the turn (the
// front end's, handed with Prompt, Rewind, RestoreFiles, RunCall or
// AllowShell): a call's
// approval (approve), an edit's landing (land), a call's question
// (question), and those about no call (a switch of model, a rewind's
// conflict and its revert).

// ask puts req to the user through port. err is why nobody answered
// (the outcome is then Cancel): errNoConfirmer (no port), the port's
// error, or ctx's.
func (s *Session) ask(ctx context.Context, port dialog.Port, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	if port == nil {
		return dialog.Cancel, errNoConfirmer
	}
	req.SessionID = s.id
	outcome, err := port.Confirm(ctx, req)
	switch {
	case ctx.Err() != nil:
		return dialog.Cancel, ctx.Err()
	case err != nil:
		return dialog.Cancel, err
	}
	return outcome, nil
}

// errNoFilesLander: nobody lands several changes as one.
var errNoFilesLander = errors.New("this front end cannot land a revert")

// landAll hands port changes to land as one (a rewind's revert),
// asking the user once; each change's decision, in order.
func (s *Session) landAll(ctx context.Context, port dialog.Port, title string, changes []dialog.RevertChange) ([]dialog.Decision, error) {
	if port == nil {
		return nil, errNoFilesLander
	}
	ds, err := port.LandFiles(ctx, dialog.LandFilesRequest{SessionID: s.id, Title: title, Changes: changes})
	s.landedFiles(ctx, changes, ds)
	return ds, err
}

// errNoLander: no front end lands file changes.
var errNoLander = errors.New("no front end lands file changes; the change was not applied")

// canLand is errNoLander when nobody can land an edit.
func canLand(port dialog.Port) error {
	if port == nil {
		return errNoLander
	}
	return nil
}

// land hands the front end an edit call's change to land, asking the
// user first where req.Ask says so. A change whose folder left the
// workspace since the call prepared it (the editor removed it mid-turn)
// is refused, for the model to read why.
func (s *Session) land(ctx context.Context, port dialog.Port, req dialog.LandRequest) (dialog.Landing, error) {
	if err := canLand(port); err != nil {
		return dialog.Landing{}, err
	}
	if ws := s.agent.cfg.Workspace; ws != nil {
		if err := ws.StillHolds(req.Change); err != nil {
			return dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Refused, Reason: err.Error()}}, nil
		}
	}
	req.SessionID = s.id
	landing, err := port.Land(ctx, req)
	if err == nil && landed(landing.Decision) {
		s.tellLanded(ctx, req.Change.Path)
	}
	return landing, err
}

// landedFiles tells Config.Landed of the changes decisions say landed.
func (s *Session) landedFiles(ctx context.Context, changes []dialog.RevertChange, decisions []dialog.Decision) {
	var paths []string
	for i, d := range decisions {
		if i < len(changes) && landed(d) {
			paths = append(paths, changes[i].Path)
		}
	}
	s.tellLanded(ctx, paths...)
}

// tellLanded tells Config.Landed of the files a landing changed.
func (s *Session) tellLanded(ctx context.Context, paths ...string) {
	if len(paths) > 0 && s.agent.cfg.Landed != nil {
		s.agent.cfg.Landed(ctx, paths)
	}
}

// landed reports whether d changed the file.
func landed(d dialog.Decision) bool {
	return d.Outcome == dialog.Applied || d.Outcome == dialog.Modified || d.Outcome == dialog.Stale
}

// question puts call callID's question q to the user through port.
func (s *Session) question(ctx context.Context, port dialog.Port, callID string, q dialog.Question) (dialog.Answer, error) {
	if port == nil {
		return dialog.Answer{}, fmt.Errorf("%w: this front end cannot put a question", dialog.ErrCannotAsk)
	}
	return port.Ask(ctx, dialog.AskRequest{SessionID: s.id, CallID: callID, Question: q})
}
