package acp

// The unstable session methods gemini-ls serves (newer.go, declared in
// initialize by capabilities.go): session/set_title, session/archive and
// session/unarchive with session/list's archive filter, session/status,
// and auth/status.

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Archive filters of session/list.
const (
	archivedExclude = "exclude"
	archivedInclude = "include"
	archivedOnly    = "only"
)

// listSessionsV1 is session/list with the archive filter: archived
// sessions are left out unless the filter asks for them, and each
// session listed says whether it is archived.
func (s *server) listSessionsV1(ctx context.Context, raw json.RawMessage) (any, error) {
	var p listSessionsRequest
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	filter := archivedExclude
	if p.Archived != nil {
		filter = *p.Archived
	}
	switch filter {
	case archivedExclude, archivedInclude, archivedOnly:
	default:
		return nil, invalidParams(fmt.Sprintf("archived %q is not a filter gemini-ls knows: exclude, include or only", filter))
	}
	return s.listSessions(ctx, p.Cwd, p.Cursor, filter)
}

// requestedSession is the session id of a request's params; a request
// without one is invalid params, an id no session could have
// resource_not_found.
func requestedSession(raw json.RawMessage) (sdk.SessionId, error) {
	var p sessionRequest
	if err := decodeParams(raw, &p); err != nil {
		return "", err
	}
	if p.SessionID == nil {
		return "", invalidParams("sessionId is required")
	}
	if !conversation.ValidSessionID(string(*p.SessionID)) {
		return "", notFound(*p.SessionID)
	}
	return *p.SessionID, nil
}

// exists reports whether session id is one session/list could list, or
// open here (live, or parked).
func (s *server) exists(ctx context.Context, id sdk.SessionId) (bool, error) {
	if _, ok := s.host.Lookup(string(id)); ok {
		return true, nil
	}
	if s.isParked(string(id)) {
		return true, nil
	}
	return s.saved(ctx, id)
}

// saved reports whether session id is saved.
func (s *server) saved(ctx context.Context, id sdk.SessionId) (bool, error) {
	_, ok, err := s.savedInfo(ctx, id)
	if err != nil {
		return false, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	return ok, nil
}

// savedInfo is saved session id as session/list lists it, in any folder;
// ok false when no session of that id is saved.
func (s *server) savedInfo(ctx context.Context, id sdk.SessionId) (dialog.SessionInfo, bool, error) {
	metas, err := s.host.List(ctx, nil, "")
	if err != nil {
		return dialog.SessionInfo{}, false, err
	}
	for _, m := range metas {
		if m.ID == string(id) {
			return m, true, nil
		}
	}
	return dialog.SessionInfo{}, false, nil
}

// setTitle answers session/set_title: the title, normalized (one line,
// trimmed, at most 80 runes), is kept for the session and is its title
// in session/list and on load from then on; the model's topics no longer
// change it.
func (s *server) setTitle(ctx context.Context, raw json.RawMessage) (any, error) {
	var p setSessionTitleRequest
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.SessionID == nil || p.Title == nil {
		return nil, invalidParams("sessionId and title are required")
	}
	title := normalTitle(*p.Title)
	if title == "" {
		return nil, invalidParams("the title is empty once its spaces are trimmed")
	}
	id := *p.SessionID
	if err := s.mustExist(ctx, id); err != nil {
		return nil, err
	}
	if err := changeLabel(ctx, s.getenv(""), string(id), func(l *sessionLabel) { l.Title = title }); err != nil {
		return nil, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	s.log.Info("the client titled a session", zap.String("sessionId", string(id)))
	return setSessionTitleResponse{Title: title}, nil
}

// mustExist is resource_not_found for a session that does not exist.
func (s *server) mustExist(ctx context.Context, id sdk.SessionId) error {
	if !conversation.ValidSessionID(string(id)) {
		return notFound(id)
	}
	ok, err := s.exists(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		return notFound(id)
	}
	return nil
}

// archiveSession answers session/archive: a session open here is
// closed first, as session/close closes it (its prompt cancelled, its
// build and MCP servers ended, a parked one forgotten), then marked
// archived; session/list leaves it out unless asked for archived ones.
// Its history stays on disk, and session/load opens it still.
func (s *server) archiveSession(ctx context.Context, raw json.RawMessage) (any, error) {
	return s.setArchived(ctx, raw, true)
}

// unarchiveSession answers session/unarchive: the session is listed
// again; it is not opened.
func (s *server) unarchiveSession(ctx context.Context, raw json.RawMessage) (any, error) {
	return s.setArchived(ctx, raw, false)
}

func (s *server) setArchived(ctx context.Context, raw json.RawMessage, archived bool) (any, error) {
	id, err := requestedSession(raw)
	if err != nil {
		return nil, err
	}
	if err := s.mustExist(ctx, id); err != nil {
		return nil, err
	}
	if archived {
		s.host.CloseAndWait(ctx, string(id))
		s.unparkForget(string(id))
	}
	if err := changeLabel(ctx, s.getenv(""), string(id), func(l *sessionLabel) { l.Archived = archived }); err != nil {
		return nil, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	return emptyResponse{}, nil
}

// sessionStatus answers session/status without touching the session:
// open while it is open in this connection (live, or parked: a request
// naming it opens it again unasked, so to the client it never closed),
// saved when it is only on disk.
func (s *server) sessionStatus(ctx context.Context, raw json.RawMessage) (any, error) {
	id, err := requestedSession(raw)
	if err != nil {
		return nil, err
	}
	if _, ok := s.host.Lookup(string(id)); ok {
		return sessionStatusResponse{Status: "open"}, nil
	}
	if s.isParked(string(id)) {
		return sessionStatusResponse{Status: "open"}, nil
	}
	ok, err := s.saved(ctx, id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notFound(id)
	}
	return sessionStatusResponse{Status: "saved"}, nil
}

// authStatus answers auth/status, never with auth_required: after
// logout, unauthenticated; else whether the login authenticate chose
// (or, before it, the one the environment and an open session's
// settings choose) has its credentials here, as Gemini CLI's
// resolution finds them, and which it is.
func (s *server) authStatus(_ context.Context, raw json.RawMessage) (any, error) {
	var p authStatusRequest
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	loggedOut, chosen := s.loggedOut, s.authType
	s.mu.Unlock()
	if loggedOut {
		return authStatusResponse{State: "unauthenticated"}, nil
	}
	report := auth.Status(chosen, s.getenv(""))
	if chosen == "" {
		for _, l := range s.host.Lives() {
			report = l.State.setup().AuthStatus()
			break
		}
	}
	if !report.Usable {
		return authStatusResponse{State: "unauthenticated"}, nil
	}
	label := report.Type
	for _, m := range authMethods() {
		if m.Agent != nil && m.Agent.Id == report.Type {
			label = m.Agent.Name
		}
	}
	return authStatusResponse{State: "authenticated", Accounts: []authAccount{{Label: label, Active: sdk.Ptr(true)}}}, nil
}
