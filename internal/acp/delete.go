package acp

// session/delete: a saved session goes, as Gemini CLI's --delete-session
// and the LSP front end's gemini/deleteSession delete one, and
// session/list no longer lists it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// deleteSession answers session/delete. A session live in this
// connection is closed and deleted (Host.Delete); one running a prompt
// is refused, for the client to cancel it first. A parked one, or one
// saved and not open here, is deleted from the folder it was saved
// under. An id that names no session is ACP's resource_not_found.
func (s *server) deleteSession(ctx context.Context, raw json.RawMessage) (any, error) {
	var p struct {
		SessionID *sdk.SessionId `json:"sessionId"`
	}
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.SessionID == nil {
		return nil, invalidParams("sessionId is required")
	}
	id := *p.SessionID
	if !conversation.ValidSessionID(string(id)) {
		return nil, notFound(id)
	}
	s.parkMu.Lock()
	defer s.parkMu.Unlock()
	s.parked.Delete(string(id))
	var err error
	if sess, lerr := s.lookup(id); lerr == nil {
		err = s.host.Delete(ctx, sess.setup(), string(id))
	} else {
		err = s.deleteSaved(ctx, id)
	}
	if _, busy := errors.AsType[*dialog.BusyError](err); busy {
		return nil, &sdk.RequestError{Code: codeInvalidRequest, Message: "Invalid request", Data: map[string]any{
			"error": fmt.Sprintf("session %q is running a prompt: cancel it (session/cancel) before deleting it", id),
		}}
	}
	if conversation.IsUnknownSession(err) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, sdk.NewInternalError(map[string]any{"error": fmt.Sprintf("deleting session %q: %v", id, err)})
	}
	if err := changeLabel(ctx, s.getenv(""), string(id), func(l *sessionLabel) { *l = sessionLabel{} }); err != nil {
		s.log.Warn("forgetting a deleted session's title and archive", zap.Error(err))
	}
	s.log.Info("deleted a session", zap.String("sessionId", string(id)))
	return struct{}{}, nil
}

// deleteSaved deletes saved session id, which is not open here, from the
// folder session/list lists it under.
func (s *server) deleteSaved(ctx context.Context, id sdk.SessionId) error {
	m, ok, err := s.savedInfo(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		return &dialog.UnknownSessionError{SessionID: string(id)}
	}
	return conversation.DeleteSaved(s.getenv(""), m.Root, m.ID)
}
