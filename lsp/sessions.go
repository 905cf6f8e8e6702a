package lsp

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// maxSessions is how many sessions a connection keeps. A session holds its
// whole history (every file read, every command's output), and an editor
// may stay open for days: beyond this, the least recently used idle
// session is closed.
const maxSessions = 32

// sessionInfo is what the client's session list shows of a session.
type sessionInfo struct {
	SessionID string    `json:"sessionId"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	Prompts   int       `json:"prompts"`

	lastUse uint64 // orders sessions by use; clocks may tie
}

// recordPrompt notes a prompt sent to a session: the first one titles it.
// The session is running, so it is never the one closed to make room.
func (s *Server) recordPrompt(sessionID, prompt string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now().UTC()
	info, ok := s.sessions[sessionID]
	if !ok {
		line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
		info = &sessionInfo{SessionID: sessionID, Title: shorten(line, 80), CreatedAt: now}
		s.sessions[sessionID] = info
	}
	info.Prompts++
	info.UpdatedAt = now
	s.uses++
	info.lastUse = s.uses
	for len(s.sessions) > maxSessions && s.closeLeastRecentSession() {
	}
}

func errSessionClosed(id string) error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "session %q was closed to bound memory: gemini-ls keeps the %d most recently used sessions; start a new session", id, maxSessions)
}

// closeLeastRecentSession closes the idle session used longest ago, and
// reports whether there was one; s.mu is held.
func (s *Server) closeLeastRecentSession() bool {
	var oldest *sessionInfo
	for id, info := range s.sessions {
		if _, busy := s.running[id]; busy {
			continue
		}
		if oldest == nil || info.lastUse < oldest.lastUse {
			oldest = info
		}
	}
	if oldest == nil {
		return false
	}
	delete(s.sessions, oldest.SessionID)
	s.closed[oldest.SessionID] = true
	if s.agent != nil {
		s.agent.EndSession(oldest.SessionID)
	}
	s.log.Info("closed the least recently used session", zap.String("sessionId", oldest.SessionID), zap.Int("kept", maxSessions))
	return true
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
