package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/background"
	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/fleet"
	"github.com/gemini-ls/gemini-ls/internal/worktree"
)

// Background agents run on GitHub Actions (docs/protocol.md 5h): each is
// in the fleet from its dispatch, keyed by the worktree its branch is
// fetched to when its run ends well, and reviewed from there as any
// agent's work.

// delegateParams is gemini/delegate's.
type delegateParams struct {
	Prompt string `json:"prompt"`
	Base   string `json:"base,omitempty"`
	Model  string `json:"model,omitempty"`
	// Token is the editor's GitHub login's, "" for the server to find
	// one (gh, GITHUB_TOKEN).
	Token string `json:"token,omitempty"`
}

// remote is the GitHub repository of the workspace's first root that is
// in a git repository.
func (s *Server) remote(ctx context.Context, token string) (*background.Remote, error) {
	ws := s.agentState.workspace()
	if ws == nil {
		return nil, errors.New("the server is not initialized")
	}
	var first error
	for _, root := range ws.Roots() {
		r, err := background.Open(ctx, background.Where{Dir: root, Getenv: s.getenv, Token: token})
		if err == nil {
			if s.backgroundPoll > 0 {
				r.Poll = s.backgroundPoll
			}
			return r, nil
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		first = errors.New("the workspace has no folder")
	}
	return nil, first
}

// delegate answers gemini/delegate: the task dispatched to GitHub
// Actions, the agent in the fleet at once (queued) and followed.
func (s *Server) delegate(ctx context.Context, p delegateParams) (agentInfo, error) {
	if strings.TrimSpace(p.Prompt) == "" {
		return agentInfo{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, `invalid params: "prompt" is empty: say what the agent is to do`)
	}
	r, err := s.remote(ctx, p.Token)
	if err != nil {
		return agentInfo{}, requestFailed(err)
	}
	started, err := r.Dispatch(ctx, background.Task{Prompt: p.Prompt, Base: p.Base, Model: p.Model})
	if err != nil {
		return agentInfo{}, requestFailed(err)
	}
	a := fleet.Agent{
		Title: fleet.Title(p.Prompt), State: fleet.Queued, StartedAt: time.Now(),
		Worktree:   worktree.Worktree{Name: started.Name, Path: r.WorktreePath(started.Name), Branch: started.Branch(), Project: r.Project},
		Background: &fleet.Background{ID: "bg-" + started.Name, Repository: r.Repo.String()},
	}
	s.fleet.Add(a)
	s.keepBackground(a, started.Watch)
	if started.Note != "" {
		s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: "Gemini: " + started.Note})
	}
	s.follow(r, a.Worktree.Path, started.Watch)
	return agentInfoOf(a), nil
}

// follow follows the run w watches in the background until it ends,
// keeping the agent of the worktree at path up to date, then fetches
// its branch for review and tells the user.
func (s *Server) follow(r *background.Remote, path string, w *background.Watch) {
	s.handlers.start()
	go func() {
		defer s.handlers.finish()
		ctx := s.life
		a, _ := s.fleet.ByPath(path)
		ended, err := r.Follow(ctx, w, a.Worktree.Branch, func(st background.Step) {
			s.fleet.Update(path, func(x *fleet.Agent) {
				// A run that ended is told once its work is here (or
				// why not), below.
				if st.State == fleet.Queued || st.State == fleet.Working {
					x.State = st.State
				}
				if st.Run.ID != 0 {
					x.Background.RunID, x.Background.RunURL = st.Run.ID, st.Run.HTMLURL
				}
			})
		})
		if ctx.Err() != nil {
			return // the server ends; GitHub goes on
		}
		if err != nil {
			s.endBackground(path, fleet.Failed, fmt.Sprintf("following the run on GitHub: %v", err))
			return
		}
		s.fleet.Update(path, func(x *fleet.Agent) {
			if ended.Pull.Number != 0 {
				x.Background.PullNumber, x.Background.PullURL = ended.Pull.Number, ended.Pull.HTMLURL
			}
		})
		if ended.State != fleet.Done {
			s.endBackground(path, ended.State, ended.Err)
			return
		}
		if _, ok := s.fleet.ByPath(path); !ok {
			return // discarded meanwhile
		}
		if ended.Pull.Number == 0 {
			s.endBackground(path, fleet.Done, "the agent changed nothing, so there is no pull request")
			return
		}
		s.agentBuilds.worktrees.Lock()
		wt, err := r.Fetch(ctx, a.Worktree.Name, a.Worktree.Branch)
		s.agentBuilds.worktrees.Unlock()
		if err != nil {
			s.endBackground(path, fleet.Failed, fmt.Sprintf("pull request #%d is ready (%s), but fetching its branch failed: %v", ended.Pull.Number, ended.Pull.HTMLURL, err))
			return
		}
		s.fleet.Update(path, func(x *fleet.Agent) { x.Worktree, x.Background.Fetched = *wt, true })
		if id := s.importRunSession(ctx, r, ended.Run.ID, wt.Path); id != "" {
			s.fleet.Update(path, func(x *fleet.Agent) { x.SessionID = id })
		}
		files := s.agentFiles(ctx, path)
		s.fleet.Update(path, func(x *fleet.Agent) {
			x.State, x.EndedAt, x.Files, x.Err = fleet.Done, time.Now(), files, ""
		})
		s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo,
			Message: fmt.Sprintf("Gemini: background agent “%s” is done: pull request #%d (%s); its work is in %s/%s for review.",
				a.Title, ended.Pull.Number, ended.Pull.HTMLURL, worktree.Dir, wt.Name)})
	}()
}

// importRunSession brings run id's session into the worktree at dir's
// sessions and returns its id: the user goes on with it here, in the
// worktree, as with a local agent's. "" when the run kept none or it
// could not be had (logged: the work is here all the same).
func (s *Server) importRunSession(ctx context.Context, r *background.Remote, id int64, dir string) string {
	tmp, err := os.MkdirTemp("", "gemini-ls-session-")
	if err != nil {
		s.log.Info("importing a run's session", zap.Error(err))
		return ""
	}
	defer os.RemoveAll(tmp)
	file, err := r.Session(ctx, id, tmp)
	if err == nil && file != "" {
		var sid string
		if sid, err = conversation.ImportSession(ctx, s.getenv, dir, file); err == nil {
			return sid
		}
	}
	if err != nil {
		s.log.Info("importing a run's session", zap.Int64("run", id), zap.Error(err))
	}
	return ""
}

// endBackground ends the background agent at path in state, why being
// what the user is told.
func (s *Server) endBackground(path string, state fleet.State, why string) {
	var title, url string
	s.fleet.Update(path, func(x *fleet.Agent) {
		x.State, x.EndedAt, x.Err = state, time.Now(), why
		title, url = x.Title, x.Background.RunURL
	})
	kind := protocol.MessageTypeWarning
	msg := fmt.Sprintf("Gemini: background agent “%s” ended: %s", title, why)
	if state == fleet.Done {
		kind, msg = protocol.MessageTypeInfo, fmt.Sprintf("Gemini: background agent “%s” is done: %s (%s).", title, why, url)
	}
	s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: kind, Message: msg})
}

// followUpParams is gemini/followUpAgent's.
type followUpParams struct {
	ID     string `json:"id"`
	Prompt string `json:"prompt"`
	Token  string `json:"token,omitempty"`
}

// followUpAgent answers gemini/followUpAgent: the prompt goes to the
// background agent as a comment on its pull request, which runs it
// again on its branch; the agent is followed again.
func (s *Server) followUpAgent(ctx context.Context, p followUpParams) (agentInfo, error) {
	if strings.TrimSpace(p.Prompt) == "" {
		return agentInfo{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, `invalid params: "prompt" is empty: say what the agent is to do`)
	}
	a, ok := s.fleet.ByBackground(p.ID)
	if !ok {
		return agentInfo{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: no background agent %q", p.ID)
	}
	switch {
	case a.State == fleet.Queued || a.State == fleet.Working:
		return agentInfo{}, requestFailed(fmt.Errorf("the background agent %q is still running on GitHub (%s): wait for it to end", a.Title, a.Background.RunURL))
	case a.Background.PullNumber == 0:
		return agentInfo{}, requestFailed(fmt.Errorf("the background agent %q has no pull request to comment on: start a new one with the follow-up as its task", a.Title))
	}
	r, err := s.remote(ctx, p.Token)
	if err != nil {
		return agentInfo{}, requestFailed(err)
	}
	w, err := r.FollowUp(ctx, a.Background.PullNumber, p.Prompt)
	if err != nil {
		return agentInfo{}, requestFailed(err)
	}
	s.fleet.Update(a.Worktree.Path, func(x *fleet.Agent) {
		x.State, x.EndedAt, x.Err = fleet.Queued, time.Time{}, ""
	})
	if a, ok := s.fleet.ByPath(a.Worktree.Path); ok {
		s.keepBackground(a, w)
	}
	s.follow(r, a.Worktree.Path, w)
	a, _ = s.fleet.ByPath(a.Worktree.Path)
	return agentInfoOf(a), nil
}

// Background agents' commands, for stock clients.
const (
	CommandDelegate      = "gemini.delegate"
	CommandFollowUpAgent = "gemini.followUpAgent"
)

// delegateCommand runs gemini.delegate: ["the task"] or [{"prompt": …}].
func (s *Server) delegateCommand(ctx context.Context, args []json.RawMessage) (agentInfo, error) {
	var p delegateParams
	if len(args) > 0 && json.Unmarshal(args[0], &p.Prompt) != nil {
		if err := decodeParams(args[0], &p); err != nil {
			return agentInfo{}, err
		}
	}
	a, err := s.delegate(ctx, p)
	s.tellCommandResult("", err)
	return a, err
}

// followUpAgentCommand runs gemini.followUpAgent: [{"id": …, "prompt": …}].
func (s *Server) followUpAgentCommand(ctx context.Context, args []json.RawMessage) (agentInfo, error) {
	var p followUpParams
	if len(args) == 0 {
		return agentInfo{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, `invalid params: gemini.followUpAgent needs {"id": "bg-…", "prompt": "…"}`)
	}
	if err := decodeParams(args[0], &p); err != nil {
		return agentInfo{}, err
	}
	return s.followUpAgent(ctx, p)
}

// backgroundKept is the stores of the background agents' records, by
// project, and which projects' records this server has read.
type backgroundKept struct {
	mu       sync.Mutex
	stores   map[string]background.Store
	recalled map[string]bool
}

// store is project's store, "" dir for none (no state directory).
func (k *backgroundKept) store(dir, project string) background.Store {
	k.mu.Lock()
	defer k.mu.Unlock()
	if st, ok := k.stores[project]; ok {
		return st
	}
	if k.stores == nil {
		k.stores = map[string]background.Store{}
	}
	st := background.OpenStore(dir, project)
	k.stores[project] = st
	return st
}

// keepBackground keeps the record of background agent a (a local agent
// is not kept here), with the run it waits for when w is not nil; a
// discarded one is forgotten.
func (s *Server) keepBackground(a fleet.Agent, w *background.Watch) {
	b := a.Background
	if b == nil {
		return
	}
	dir, err := s.stateDir()
	if err != nil {
		return
	}
	st := s.backgroundKept.store(dir, a.Worktree.Project)
	if a.State == fleet.Discarded {
		err = st.Delete(b.ID)
	} else {
		err = st.Put(background.Record{
			ID: b.ID, Name: a.Worktree.Name, Title: a.Title, Repository: b.Repository,
			State: a.State, StartedAt: a.StartedAt, EndedAt: a.EndedAt,
			RunID: b.RunID, RunURL: b.RunURL, PullNumber: b.PullNumber, PullURL: b.PullURL, Err: a.Err, Watch: w,
		})
	}
	if err != nil {
		s.log.Info("keeping a background agent's record", zap.String("id", b.ID), zap.Error(err))
	}
}

// recallBackground puts in the fleet, once a server, the background
// agents an earlier server of project started, and follows on those
// whose run had not ended (with the token gh or the environment gives:
// an editor's own login is not kept).
func (s *Server) recallBackground(ctx context.Context, project string) {
	k := &s.backgroundKept
	k.mu.Lock()
	done := k.recalled[project]
	if k.recalled == nil {
		k.recalled = map[string]bool{}
	}
	k.recalled[project] = true
	k.mu.Unlock()
	dir, err := s.stateDir()
	if done || err != nil {
		return
	}
	records, err := k.store(dir, project).Load()
	if err != nil {
		s.log.Info("reading the background agents' records", zap.Error(err))
		return
	}
	// The repository and token, found once for every run followed on.
	var r *background.Remote
	var remoteErr error
	for _, rec := range records {
		if _, ok := s.fleet.ByBackground(rec.ID); ok {
			continue
		}
		a := fleet.Agent{
			Title: rec.Title, State: rec.State, StartedAt: rec.StartedAt, EndedAt: rec.EndedAt, Err: rec.Err,
			Worktree:   worktree.Worktree{Name: rec.Name, Path: filepath.Join(project, filepath.FromSlash(worktree.Dir), rec.Name), Branch: background.BranchPrefix + rec.Name, Project: project},
			Background: &fleet.Background{ID: rec.ID, Repository: rec.Repository, RunID: rec.RunID, RunURL: rec.RunURL, PullNumber: rec.PullNumber, PullURL: rec.PullURL},
		}
		if wt, ok := worktree.Of(ctx, a.Worktree.Path); ok && wt.Branch == a.Worktree.Branch {
			a.Worktree, a.Background.Fetched = *wt, true
			if head, err := worktree.MergeBase(ctx, project, wt.Path); err == nil {
				a.Worktree.Base = head
			}
		}
		s.fleet.Add(a)
		if a.Background.Fetched {
			files := s.agentFiles(ctx, a.Worktree.Path)
			s.fleet.Update(a.Worktree.Path, func(x *fleet.Agent) { x.Files = files })
		}
		if rec.Ended() {
			continue
		}
		w := rec.Watch
		if w == nil {
			w = &background.Watch{}
		}
		if rec.RunID != 0 {
			w.Run.ID = rec.RunID
		}
		if r == nil && remoteErr == nil {
			r, remoteErr = s.remote(ctx, "")
		}
		if remoteErr != nil {
			s.fleet.Update(a.Worktree.Path, func(x *fleet.Agent) {
				x.Err = fmt.Sprintf("not followed since gemini-ls started again: %v", remoteErr)
			})
			continue
		}
		s.follow(r, a.Worktree.Path, w)
	}
}
