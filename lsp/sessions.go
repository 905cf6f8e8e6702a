package lsp

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/agent"
)

// sessionInfo is what the client's session list shows of a session.
type sessionInfo struct {
	SessionID string    `json:"sessionId"`
	Title     string    `json:"title"`
	Root      string    `json:"root,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	Prompts   int       `json:"prompts"`
	Live      bool      `json:"live"`
}

func sessionInfoOf(i agent.SessionInfo) sessionInfo {
	return sessionInfo{SessionID: i.ID, Title: i.Title, Root: i.Root, CreatedAt: i.CreatedAt, UpdatedAt: i.UpdatedAt, Prompts: i.Prompts, Live: i.Live}
}

// listSessions answers gemini/sessions: the sessions, newest first.
func (s *Server) listSessions() (any, error) {
	ag, _, err := s.state()
	if err != nil {
		return nil, err
	}
	infos := ag.LiveSessions()
	list := make([]sessionInfo, 0, len(infos))
	for _, i := range infos {
		list = append(list, sessionInfoOf(i))
	}
	slices.SortFunc(list, func(a, b sessionInfo) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), strings.Compare(a.SessionID, b.SessionID))
	})
	return map[string]any{"sessions": list}, nil
}
