package lsp

import (
	"context"
	"errors"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Actions of the window/showMessageRequest fallback for gemini/confirm.
const (
	actionAllowOnce   = "Allow Once"
	actionAlwaysAllow = "Always Allow"
)

// The presenter asks the user about non-edit calls (shell), switches of
// model and rewinds' conflicts: gemini/confirm when the client implements
// it, else window/showMessageRequest.

// confirmParams are gemini/confirm's params.
type confirmParams struct {
	SessionID string             `json:"sessionId"`
	CallID    string             `json:"callId,omitempty"` // none for model_fallback
	Kind      dialog.ConfirmKind `json:"kind"`
	Title     string             `json:"title"`
	Details   string             `json:"details"`
	// CanAllowAlways says proceed_always would hold for later calls; the
	// client offers it only then.
	CanAllowAlways bool `json:"canAllowAlways"`
	// Permanent, when present, offers proceed_always_and_save under this
	// label (security.enablePermanentToolApproval); saveByDefault says
	// it is the suggested answer (security.autoAddToPolicyByDefault).
	Permanent     string `json:"permanent,omitempty"`
	SaveByDefault bool   `json:"saveByDefault,omitempty"`
}

type confirmResult struct {
	Outcome dialog.ConfirmOutcome `json:"outcome"`
}

func (c presenter) Confirm(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	s := c.s
	if s.features.get().Confirm {
		var res confirmResult
		params := confirmParams{SessionID: req.SessionID, CallID: req.CallID, Kind: req.Kind, Title: req.Title, Details: req.Details,
			CanAllowAlways: req.CanAllowAlways, Permanent: req.Permanent, SaveByDefault: req.SaveByDefault}
		if err := s.askUser(ctx, "gemini/confirm", params, &res); err != nil {
			return dialog.Cancel, fmt.Errorf("gemini/confirm: %w", err)
		}
		switch res.Outcome {
		case dialog.ProceedOnce, dialog.ProceedAlways, dialog.Cancel:
			return res.Outcome, nil
		case dialog.ProceedAlwaysAndSave:
			if req.Permanent == "" {
				return dialog.Cancel, fmt.Errorf("gemini/confirm answered %q, which was not offered", res.Outcome)
			}
			return res.Outcome, nil
		default:
			return dialog.Cancel, fmt.Errorf("gemini/confirm answered an unknown outcome %q", res.Outcome)
		}
	}
	action, err := s.showMessageRequest(ctx, protocol.MessageTypeWarning, req.Title+"\n"+req.Details, confirmActions(req)...)
	switch {
	case errors.Is(err, errNoShowMessageRequest):
		return dialog.Cancel, fmt.Errorf(`%w: this call needs the user's confirmation, but this editor cannot ask; set "approvalMode": "yolo" in gemini-ls's initializationOptions to run such calls (shell commands, web fetches) without asking`, dialog.ErrCannotAsk)
	case err != nil:
		return dialog.Cancel, fmt.Errorf("asking for confirmation: %w", err)
	case action == actionAllowOnce:
		return dialog.ProceedOnce, nil
	case action == actionAlwaysAllow && req.CanAllowAlways:
		return dialog.ProceedAlways, nil
	case action == req.Permanent && req.Permanent != "":
		return dialog.ProceedAlwaysAndSave, nil
	default:
		return dialog.Cancel, nil
	}
}

// confirmActions are the fallback's buttons for req: Always Allow only
// where it would hold, and the answer for all future sessions where it
// is offered, first when it is the suggested one.
func confirmActions(req dialog.ConfirmRequest) []string {
	actions := []string{actionAllowOnce}
	if req.CanAllowAlways {
		actions = append(actions, actionAlwaysAllow)
	}
	switch {
	case req.Permanent == "":
	case req.SaveByDefault:
		actions = append([]string{req.Permanent}, actions...)
	default:
		actions = append(actions, req.Permanent)
	}
	return append(actions, actionReject)
}
