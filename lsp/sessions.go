package lsp

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// sessionInfo is what the client's session list shows of a session.
type sessionInfo struct {
	SessionID string    `json:"sessionId"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"createdAt"`
	Prompts   int       `json:"prompts"`
}

// recordPrompt notes a prompt sent to a session: the first one titles it.
func (s *Server) recordPrompt(sessionID, prompt string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	info, ok := s.sessions[sessionID]
	if !ok {
		line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
		info = &sessionInfo{SessionID: sessionID, Title: shorten(line, 80), CreatedAt: time.Now().UTC()}
		s.sessions[sessionID] = info
	}
	info.Prompts++
}

// listSessions answers gemini/sessions: the sessions of this connection,
// newest first.
func (s *Server) listSessions() any {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := make([]sessionInfo, 0, len(s.sessions))
	for _, info := range s.sessions {
		list = append(list, *info)
	}
	slices.SortFunc(list, func(a, b sessionInfo) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), strings.Compare(a.SessionID, b.SessionID))
	})
	return map[string]any{"sessions": list}
}
