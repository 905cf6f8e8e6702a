package lsp

import (
	"context"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
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
	// Worktree is the agent's worktree the session runs in (5h); absent
	// for the workspace's own sessions.
	Worktree *worktreeInfo `json:"worktree,omitempty"`
}

func sessionInfoOf(i dialog.SessionInfo) sessionInfo {
	return sessionInfo{SessionID: i.ID, Title: i.Title, Root: i.Root, CreatedAt: i.CreatedAt, UpdatedAt: i.UpdatedAt, Prompts: i.Prompts, Live: i.Live}
}

// listSessionsResult is gemini/listSessions' result.
type listSessionsResult struct {
	Sessions []sessionInfo `json:"sessions"`
}

type listSessionsParams struct {
	// Root filters by workspace root (a path or a file URI); "" lists the
	// sessions of every root.
	Root string `json:"root,omitempty"`
}

// listSessions answers gemini/listSessions (and gemini/sessions, its older
// name): the sessions live and saved, the most recently updated first.
func (s *Server) listSessions(ctx context.Context, p listSessionsParams) (listSessionsResult, error) {
	root := p.Root
	if root != "" {
		if path, err := uriToPath(root); err == nil {
			root = path
		}
	}
	built, _, err := s.state()
	if err != nil {
		return listSessionsResult{}, err
	}
	infos, err := s.host.List(ctx, built, root)
	if err != nil {
		return listSessionsResult{}, jsonrpc2.Errorf(codeRequestFailed, "%v", err)
	}
	list := make([]sessionInfo, 0, len(infos))
	for _, i := range infos {
		list = append(list, sessionInfoOf(i))
	}
	list = append(list, s.agentSessions(ctx, root)...)
	return listSessionsResult{Sessions: list}, nil
}

type resumeSessionParams struct {
	SessionID *string `json:"sessionId"`
}

// resumeSessionResult is gemini/resumeSession's result.
type resumeSessionResult struct {
	Session   sessionInfo `json:"session"`
	Exchanges []exchange  `json:"exchanges"`
	// Mode is the approval mode the session continues in, as a
	// gemini/update of kind "mode" names it: its own, saved with it.
	Mode string `json:"mode"`
	// Usage is what the session has cost, a gemini/update of kind
	// "usage" as one tells it after an answer: its tokens so far
	// (sessionUsage) and how full the model's window was at its last
	// answer, saved with it; none for a session that never answered.
	Usage update `json:"usage,omitempty"`
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
func (s *Server) resumeSession(ctx context.Context, p resumeSessionParams) (resumeSessionResult, error) {
	if p.SessionID == nil {
		return resumeSessionResult{}, missingField("sessionId")
	}
	built, _, err := s.state()
	if err != nil {
		return resumeSessionResult{}, err
	}
	if built, err = s.buildFor(ctx, *p.SessionID, built); err != nil {
		return resumeSessionResult{}, err
	}
	info, tr, err := s.host.Replay(ctx, built, *p.SessionID)
	if err != nil {
		if conversation.IsUnknownSession(err) {
			return resumeSessionResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: sessionId: %v", err)
		}
		return resumeSessionResult{}, jsonrpc2.Errorf(codeRequestFailed, "%v", err)
	}
	sess, err := s.host.Resume(ctx, built, info.ID, "", false, struct{}{})
	if err != nil {
		return resumeSessionResult{}, jsonrpc2.Errorf(codeRequestFailed, "%v", err)
	}
	out := make([]exchange, len(tr))
	for i, e := range tr {
		x := &out[i]
		*x = exchange{Prompt: e.Prompt, Answer: e.Answer, StopReason: e.Reason(), Updates: []update{}}
		e.Show(ctx, updates{info.ID, func(u update) { x.Updates = append(x.Updates, u) }, s.agentState.workspace()})
	}
	res := resumeSessionResult{Session: sessionInfoOf(info), Exchanges: out, Mode: string(sess.Mode())}
	if info.Usage != (dialog.Usage{}) || info.Context.Size > 0 {
		u := usageUpdateOf(dialog.UsageReport{Session: info.Usage, Context: info.Context})
		*u.head() = updateHead{SessionID: info.ID, UpdateKind: u.kind()}
		res.Usage = u
	}
	return res, nil
}

type deleteSessionParams struct {
	SessionID *string `json:"sessionId"`
}

// deleteSession answers gemini/deleteSession: the session, live or
// saved, is deleted, as `gemini --delete-session` deletes one, and a
// later gemini/listSessions does not list it. A session running a
// prompt is refused, as a second prompt would be.
func (s *Server) deleteSession(ctx context.Context, p deleteSessionParams) (struct{}, error) {
	if p.SessionID == nil {
		return struct{}{}, missingField("sessionId")
	}
	built, _, err := s.state()
	if err != nil {
		return struct{}{}, err
	}
	if built, err = s.buildFor(ctx, *p.SessionID, built); err != nil {
		return struct{}{}, err
	}
	if err := s.host.Delete(ctx, built, *p.SessionID); err != nil {
		return struct{}{}, unclaimed(err)
	}
	return struct{}{}, nil
}

// authStatus answers gemini/authStatus: the auth mode chosen, why, whether
// it is usable and what is missing; never a secret.
func (s *Server) authStatus(context.Context, noParams) (auth.Report, error) {
	built := s.agentState.setup()
	if built == nil {
		return auth.Report{}, jsonrpc2.Errorf(codeRequestFailed, "the agent could not be set up; see the server's log")
	}
	return built.AuthStatus(), nil
}
