package lsp

import (
	"context"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/agent"
	"github.com/gemini-ls/gemini-ls/conversation"
)

// sessionInfo is what the client's session list shows of a session.
type sessionInfo struct {
	SessionID string    `json:"sessionId"`
	Title     string    `json:"title"`
	Root      string    `json:"root,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	Prompts   int       `json:"prompts"`
	// Live: in the server's memory now; else saved on disk, and resumed
	// when the client prompts it or asks gemini/resumeSession.
	Live bool `json:"live"`
}

func sessionInfoOf(i agent.SessionInfo) sessionInfo {
	return sessionInfo{SessionID: i.ID, Title: i.Title, Root: i.Root, CreatedAt: i.CreatedAt, UpdatedAt: i.UpdatedAt, Prompts: i.Prompts, Live: i.Live}
}

type listSessionsParams struct {
	// Root filters by workspace root (a path or a file URI); "" lists the
	// sessions of every root.
	Root string `json:"root,omitempty"`
}

// listSessions answers gemini/listSessions (and gemini/sessions, its older
// name): the sessions live and saved, the most recently updated first.
func (s *Server) listSessions(ctx context.Context, raw []byte) (any, error) {
	var p listSessionsParams
	if len(raw) > 0 && string(raw) != "null" {
		if err := decodeParams(raw, &p); err != nil {
			return nil, err
		}
	}
	root := p.Root
	if root != "" {
		if path, err := uriToPath(root); err == nil {
			root = path
		}
	}
	ag, _, err := s.state()
	if err != nil {
		return nil, err
	}
	infos, err := ag.Sessions(ctx, root)
	if err != nil {
		return nil, jsonrpc2.Errorf(codeRequestFailed, "%v", err)
	}
	list := make([]sessionInfo, 0, len(infos))
	for _, i := range infos {
		list = append(list, sessionInfoOf(i))
	}
	return map[string]any{"sessions": list}, nil
}

type resumeSessionParams struct {
	SessionID *string `json:"sessionId"`
}

// exchange is one prompt of a resumed session's transcript.
type exchange struct {
	Prompt     string `json:"prompt"`
	Answer     string `json:"answer"`
	StopReason string `json:"stopReason,omitempty"`
	// Updates are the turn as gemini/update showed it live: the model's
	// text, each call and its result (thoughts are not saved).
	Updates []update `json:"updates"`
}

// resumeSession answers gemini/resumeSession: it makes a saved session
// live again and returns what the user saw of it, so the client can show
// the conversation before the next prompt continues it.
func (s *Server) resumeSession(ctx context.Context, raw []byte) (any, error) {
	var p resumeSessionParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.SessionID == nil {
		return nil, missingField("sessionId")
	}
	ag, _, err := s.state()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	built := s.built
	s.mu.Unlock()
	info, tr, err := conversation.Replay(ctx, ag, *p.SessionID, conversation.Describer(built.Tools.Registry))
	if err != nil {
		if conversation.IsUnknownSession(err) {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: sessionId: %v", err)
		}
		return nil, jsonrpc2.Errorf(codeRequestFailed, "%v", err)
	}
	out := make([]exchange, len(tr))
	for i, e := range tr {
		out[i] = exchange{Prompt: e.Prompt, Answer: e.Answer, StopReason: string(e.StopReason), Updates: []update{}}
		for _, ev := range e.Events {
			out[i].Updates = append(out[i].Updates, updateFor(info.ID, ev))
		}
	}
	return map[string]any{"session": sessionInfoOf(info), "exchanges": out}, nil
}

// authStatus answers gemini/authStatus: the auth mode chosen, why, whether
// it is usable and what is missing; never a secret.
func (s *Server) authStatus() (any, error) {
	s.mu.Lock()
	built := s.built
	s.mu.Unlock()
	if built == nil {
		return nil, jsonrpc2.Errorf(codeRequestFailed, "the agent could not be set up; see the server's log")
	}
	return built.AuthStatus(), nil
}
