package lsp

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
)

// conversations are the sessions gemini.prompt continues: one per
// workspace root, so that a stock client's successive prompts are one
// conversation (the model sees the earlier turns, and "Always Apply"
// holds) until gemini.newSession starts another. gemini/prompt, whose
// clients name their sessions, does not use them.
type conversations struct {
	mu      sync.Mutex
	current map[string]string // workspace root → session id
}

func (c *conversations) get(root string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.current[root]
}

func (c *conversations) set(root, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current == nil {
		c.current = map[string]string{}
	}
	c.current[root] = id
}

// rootOf is the workspace root a command is about: the one holding uri's
// file (the innermost, for nested roots), else the first.
func (s *Server) rootOf(uri string) string {
	ws := s.agentState.workspace()
	if path, err := uriToPath(uri); err == nil {
		if root := ws.RootOf(path); root != "" {
			return root
		}
	}
	return ws.Roots()[0]
}

// conversation is the session a gemini.prompt in root continues: the one
// it names, else the root's current one, else a new one; it becomes the
// root's current conversation.
func (s *Server) conversation(ctx context.Context, built *conversation.Build, root, sessionID string) (*conversation.Live[struct{}], error) {
	if sessionID == "" {
		sessionID = s.conversations.get(root)
		if sessionID != "" {
			// Resumed from disk if it was dropped from memory meanwhile.
			if l, err := s.host.ResumeForPrompt(ctx, built, sessionID, "", false, struct{}{}); err == nil {
				return l, nil
			}
			s.log.Info("the root's conversation is gone; starting a new one", zap.String("session", sessionID))
		}
		l, err := s.host.OpenForPrompt(ctx, built, false, struct{}{})
		if err != nil {
			return nil, err
		}
		s.conversations.set(root, l.ID())
		return l, nil
	}
	l, err := s.session(ctx, built, sessionID)
	if err != nil {
		return nil, err
	}
	s.conversations.set(root, l.ID())
	return l, nil
}

// session is the live session id names (resumed from disk when the
// agent holds it no more), or a new one when id is empty, for a prompt
// that claims it next (Host.ResumeForPrompt).
func (s *Server) session(ctx context.Context, built *conversation.Build, id string) (*conversation.Live[struct{}], error) {
	if id == "" {
		return s.host.OpenForPrompt(ctx, built, false, struct{}{})
	}
	l, err := s.host.ResumeForPrompt(ctx, built, id, "", false, struct{}{})
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: sessionId: %v", err)
	}
	return l, nil
}

// newSessionResult is gemini.newSession's result.
type newSessionResult struct {
	SessionID string `json:"sessionId"`
}

// cancelResult is gemini.cancel's result: whether a prompt was running.
type cancelResult struct {
	Cancelled bool `json:"cancelled"`
}

// newSessionCommand runs gemini.newSession: the next gemini.prompt in the
// root (of the argument's uri, else the first) starts a new conversation.
func (s *Server) newSessionCommand(ctx context.Context, args []json.RawMessage) (newSessionResult, error) {
	sc, err := scopeArg(args)
	if err != nil {
		return newSessionResult{}, err
	}
	built, _, err := s.state()
	if err != nil {
		return newSessionResult{}, err
	}
	sess := s.host.Open(built, false, struct{}{})
	root := s.rootOf(sc.URI)
	s.conversations.set(root, sess.ID())
	s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo,
		Message: "Gemini: a new conversation; the next prompt starts it"})
	return newSessionResult{SessionID: sess.ID()}, nil
}

// cancelCommand runs gemini.cancel: the prompt of the session named, or
// of the conversation of the file named, or with no argument every prompt
// running for this client.
//
// It answers once the cancelled gemini.prompt turns have shown how they
// ended (or after cancelWait): Emacs 28's jsonrpc can leave a message that
// arrives in the same read as the answer to its synchronous request unread
// until the server sends more, so the answer comes last.
func (s *Server) cancelCommand(ctx context.Context, args []json.RawMessage) (cancelResult, error) {
	sc, err := scopeArg(args)
	if err != nil {
		return cancelResult{}, err
	}
	var cancelled bool
	var ids []string
	switch {
	case sc.SessionID != "":
		ids = []string{sc.SessionID}
		cancelled = s.host.Cancel(sc.SessionID)
	case sc.URI != "":
		if id := s.conversations.get(s.rootOf(sc.URI)); id != "" {
			ids = []string{id}
			cancelled = s.host.Cancel(id)
		}
	default:
		ids = s.reports.sessions()
		cancelled = s.host.CancelAll() > 0
	}
	wait, stop := context.WithTimeout(ctx, cancelWait)
	defer stop()
	for _, id := range ids {
		reported := s.reports.of(id)
		if reported == nil {
			continue
		}
		select {
		case <-reported:
		case <-wait.Done():
		}
	}
	return cancelResult{Cancelled: cancelled}, nil
}

// cancelWait bounds how long gemini.cancel waits for the turns it
// cancelled to report their end.
const cancelWait = 2 * time.Second

// unclaimed is the wire's error for a turn that Host.Begin did not claim
// (err): a session gone meanwhile is the params' fault; a busy one is
// refused in the host's words (busyError), as anything else.
func unclaimed(err error) error {
	if conversation.IsUnknownSession(err) {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: sessionId: %v", err)
	}
	return busyError(err)
}

// cancelHow is how an LSP client cancels a running prompt, which the
// host's busy error names: gemini.prompt's clients read "still
// answering" and the command that cancels it, gemini/prompt's "is
// already running a prompt" and gemini/cancel (dialog.BusyError).
const cancelHow = CommandCancel + " (gemini/cancel)"

// busyError is the wire's error for a prompt or a rewind the host
// refused (a session running one), in the host's words.
func busyError(err error) error { return requestFailed(err) }

// requestFailed is RequestFailed saying err, with its kind in the
// error's data ({"errorKind": …}) where it has one, so the editor offers
// the fix (enter a key, sign in) without reading the message.
func requestFailed(err error) error {
	e := jsonrpc2.NewError(codeRequestFailed, err.Error())
	if kind := conversation.ErrorKind(err); kind != "" {
		e.Data = jsonrpc2.RawMessage(mustJSON(errorData{ErrorKind: errorKind(kind)}))
	}
	return e
}

// errorData is the data of a RequestFailed error of a known kind.
type errorData struct {
	ErrorKind errorKind `json:"errorKind"`
}

// errorKind is a failure's kind, one of conversation.ErrorKinds: the
// word an editor picks its fix from (docs/protocol.md, 14).
type errorKind string
