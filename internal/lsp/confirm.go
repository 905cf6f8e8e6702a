package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"

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

// confirmParams are gemini/confirm's params: the request as its json
// tags name it (what is tagged "-" is not sent).
type confirmParams struct {
	dialog.ConfirmRequest
}

type confirmResult struct {
	Outcome dialog.ConfirmOutcome `json:"outcome"`
}

func (c presenter) Confirm(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	s := c.s
	if s.features.get().Confirm {
		var res confirmResult
		if err := s.askUser(ctx, "gemini/confirm", confirmParams{req}, &res); err != nil {
			return dialog.Cancel, fmt.Errorf("gemini/confirm: %w", err)
		}
		switch res.Outcome {
		case dialog.ProceedOnce, dialog.ProceedAlways, dialog.Cancel:
			return res.Outcome, nil
		case dialog.ProceedAlwaysPrefix:
			if len(req.AlwaysPrefixes) == 0 {
				return dialog.Cancel, fmt.Errorf("gemini/confirm answered %q, which was not offered", res.Outcome)
			}
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
	case action == prefixAction(req) && len(req.AlwaysPrefixes) > 0:
		return dialog.ProceedAlwaysPrefix, nil
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
	if len(req.AlwaysPrefixes) > 0 {
		actions = append(actions, prefixAction(req))
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

// prefixAction is the fallback's button for ProceedAlwaysPrefix: the
// prefixes it allows, each followed by what may follow it.
func prefixAction(req dialog.ConfirmRequest) string {
	return "Always Allow " + strings.Join(req.AlwaysPrefixes, " …, ") + " …"
}
