package acp

// The requests gemini-ls sends the client. They go through wire.call, not
// the SDK's connection, so that every answer ends the wait: each answer
// is checked for what its request needs of it, and one that lacks it is
// an error that says so, told to the model.

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
)

// callClient sends method and decodes the result into a T: JSON null is
// T's zero value (ACP's empty answers are objects, but a null result is
// a JSON-RPC success all the same).
func callClient[T any](ctx context.Context, w *wire, method string, params any) (T, error) {
	var out T
	raw, err := w.call(ctx, method, params)
	if err != nil {
		return out, err
	}
	if isNull(raw) {
		return out, nil
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, &malformedAnswerError{fmt.Sprintf("its result is not %s's: %v", method, err)}
	}
	return out, nil
}

func isNull(raw json.RawMessage) bool {
	s := string(raw)
	return s == "" || s == "null"
}

// permissionOutcome is the answer to session/request_permission: the
// option the user selected, or cancelled.
type permissionOutcome struct {
	cancelled bool
	option    sdk.PermissionOptionId
}

// requestPermission sends session/request_permission. An answer without
// an outcome ({"result": null} say), or with one ACP does not define, is
// malformed: the call is not allowed.
func (s *server) requestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (permissionOutcome, error) {
	res, err := callClient[struct {
		Outcome *struct {
			Outcome  string                 `json:"outcome"`
			OptionID sdk.PermissionOptionId `json:"optionId"`
		} `json:"outcome"`
	}](ctx, s.wire, sdk.ClientMethodSessionRequestPermission, p)
	switch {
	case err != nil:
		return permissionOutcome{}, err
	case res.Outcome == nil:
		return permissionOutcome{}, &malformedAnswerError{"its result has no outcome"}
	case res.Outcome.Outcome == "cancelled":
		return permissionOutcome{cancelled: true}, nil
	case res.Outcome.Outcome == "selected":
		return permissionOutcome{option: res.Outcome.OptionID}, nil
	}
	return permissionOutcome{}, &malformedAnswerError{fmt.Sprintf("its outcome %q is none ACP defines", res.Outcome.Outcome)}
}

// readTextFile sends fs/read_text_file; an answer without content is an
// error, not an empty file.
func (s *server) readTextFile(ctx context.Context, p sdk.ReadTextFileRequest) (string, error) {
	res, err := callClient[struct {
		Content *string `json:"content"`
	}](ctx, s.wire, sdk.ClientMethodFsReadTextFile, p)
	switch {
	case err != nil:
		return "", err
	case res.Content == nil:
		return "", &malformedAnswerError{"its result has no content"}
	}
	return *res.Content, nil
}

// writeTextFile sends fs/write_text_file; any result is success (ACP's is
// an empty object; some clients answer null).
func (s *server) writeTextFile(ctx context.Context, p sdk.WriteTextFileRequest) error {
	_, err := s.wire.call(ctx, sdk.ClientMethodFsWriteTextFile, p)
	return err
}

// createTerminal sends terminal/create and returns the terminal's id.
func (s *server) createTerminal(ctx context.Context, p sdk.CreateTerminalRequest) (string, error) {
	res, err := callClient[sdk.CreateTerminalResponse](ctx, s.wire, sdk.ClientMethodTerminalCreate, p)
	switch {
	case err != nil:
		return "", err
	case res.TerminalId == "":
		return "", &malformedAnswerError{"its result has no terminalId"}
	}
	return res.TerminalId, nil
}

func (s *server) waitForTerminalExit(ctx context.Context, p sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return callClient[sdk.WaitForTerminalExitResponse](ctx, s.wire, sdk.ClientMethodTerminalWaitForExit, p)
}

func (s *server) terminalOutput(ctx context.Context, p sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return callClient[sdk.TerminalOutputResponse](ctx, s.wire, sdk.ClientMethodTerminalOutput, p)
}

func (s *server) killTerminal(ctx context.Context, p sdk.KillTerminalRequest) error {
	_, err := s.wire.call(ctx, sdk.ClientMethodTerminalKill, p)
	return err
}

func (s *server) releaseTerminal(ctx context.Context, p sdk.ReleaseTerminalRequest) error {
	_, err := s.wire.call(ctx, sdk.ClientMethodTerminalRelease, p)
	return err
}
