package agent

// A session's approval mode, the plan mode it may be in, and its plans.

import (
	"cmp"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// ApprovalMode is what runs without asking in the session now.
func (s *Session) ApprovalMode() dialog.ApprovalMode {
	if s.parent != nil {
		return s.parent.ApprovalMode()
	}
	s.modeMu.Lock()
	mode := s.mode
	s.modeMu.Unlock()
	// The agent's lock is taken after the session's is let go: the agent
	// takes them in the other order (Agent.SetApprovalMode).
	return cmp.Or(mode, s.agent.approvalMode())
}

// ownMode is the mode the session chose, "" when it follows the agent's.
func (s *Session) ownMode() dialog.ApprovalMode {
	s.modeMu.Lock()
	defer s.modeMu.Unlock()
	return s.mode
}

// SetApprovalMode changes what runs without asking in this session
// alone, from its next call on, until the agent's mode is set anew.
// Switching into plan mode remembers the mode it leaves (modeBeforePlan).
func (s *Session) SetApprovalMode(mode dialog.ApprovalMode) {
	if s.parent != nil {
		s.parent.SetApprovalMode(mode)
		return
	}
	was := s.ApprovalMode() // before modeMu: it may take the agent's lock
	s.modeMu.Lock()
	defer s.modeMu.Unlock()
	switch {
	case mode != dialog.ApprovalPlan:
		s.beforePlan = ""
	case was != dialog.ApprovalPlan:
		s.beforePlan = was
	}
	s.mode = mode
}

// followAgent makes the session follow the agent's mode again; the
// agent calls it holding its lock (Agent.SetApprovalMode).
func (s *Session) followAgent() {
	s.modeMu.Lock()
	defer s.modeMu.Unlock()
	s.mode, s.beforePlan = "", ""
}

// modeBeforePlan is the mode the session leaves plan mode for where
// nobody can choose one: the mode it had when it switched itself into
// plan mode, else the agent's (a session that started in plan mode, or
// was resumed in it, came from there); plan when that is plan too.
func (s *Session) modeBeforePlan() dialog.ApprovalMode {
	if s.parent != nil {
		return s.parent.modeBeforePlan()
	}
	s.modeMu.Lock()
	before := s.beforePlan
	s.modeMu.Unlock()
	return cmp.Or(before, s.agent.approvalMode())
}

// ApprovedPlan is the plan file the user last approved in the session
// (exit_plan_mode), "" when none.
func (s *Session) ApprovedPlan() string {
	s.modeMu.Lock()
	defer s.modeMu.Unlock()
	return s.approvedPlan
}

func (s *Session) setApprovedPlan(path string) {
	if s.parent != nil {
		s.parent.setApprovedPlan(path)
		return
	}
	s.modeMu.Lock()
	defer s.modeMu.Unlock()
	s.approvedPlan = path
}

// PlansDir is the session's plans directory, found on first use
// (Config.PlansDir) and made reachable through the workspace, then kept:
// the session's plans stay where it wrote them.
func (s *Session) PlansDir() (string, error) {
	if s.parent != nil {
		return s.parent.PlansDir()
	}
	s.plansMu.Lock()
	defer s.plansMu.Unlock()
	if s.plansDir != "" {
		return s.plansDir, nil
	}
	find := s.agent.cfg.PlansDir
	if find == nil {
		return "", errors.New("plan mode has no plans directory")
	}
	dir, err := find(s.id)
	if err != nil {
		return "", fmt.Errorf("finding the session's plans directory: %w", err)
	}
	if ws := s.agent.cfg.Workspace; ws != nil {
		if dir, err = ws.Allow(dir); err != nil {
			return "", fmt.Errorf("opening the session's plans directory: %w", err)
		}
	}
	s.plansDir = dir
	return dir, nil
}

// plansDirOrNone is PlansDir, "" when it has none (logged): plan mode
// then lets no plan be written.
func (s *Session) plansDirOrNone() string {
	dir, err := s.PlansDir()
	if err != nil && s.agent.cfg.PlansDir != nil {
		s.agent.cfg.Logger.Warn("plan mode has no plans directory", zap.String("sessionId", s.id), zap.Error(err))
	}
	return dir
}

// requestMode is the approval mode the session's next request is made
// in, with plan mode's plans directory ("" in the other modes).
func (s *Session) requestMode() (dialog.ApprovalMode, string) {
	mode := s.ApprovalMode()
	if mode != dialog.ApprovalPlan {
		return mode, ""
	}
	return mode, s.plansDirOrNone()
}
