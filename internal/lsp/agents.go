package lsp

import (
	"cmp"
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

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/fleet"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
	"github.com/gemini-ls/gemini-ls/internal/worktree"
)

// Agents are sessions that each run in a git worktree of their own
// (docs/protocol.md 5h): the fleet (internal/fleet) keeps what the
// editors are shown of them, and agentBuilds the agent each runs in,
// built for its worktree: its settings, memory, tools and sandbox are
// the worktree's, and its edits land there, on disk, at once. Only
// gemini/landAgent brings its work to the user's tree, through the
// user's yes.

// agentBuilds are the builds agents run in, by worktree path; one each,
// closed when the agent is discarded or the connection ends.
type agentBuilds struct {
	mu     sync.Mutex
	builds map[string]*conversation.Build
	// making serialises building, so that two prompts to an agent found
	// on disk build it once.
	making sync.Mutex
	// worktrees serialises this server's making and listing of
	// worktrees: git worktree prune, which listing runs, would take the
	// directory of an add still under way.
	worktrees sync.Mutex
}

func (a *agentBuilds) get(path string) (*conversation.Build, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b, ok := a.builds[path]
	return b, ok
}

func (a *agentBuilds) set(path string, b *conversation.Build) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.builds == nil {
		a.builds = map[string]*conversation.Build{}
	}
	a.builds[path] = b
}

func (a *agentBuilds) drop(path string) *conversation.Build {
	a.mu.Lock()
	defer a.mu.Unlock()
	b := a.builds[path]
	delete(a.builds, path)
	return b
}

func (a *agentBuilds) closeAll() {
	a.mu.Lock()
	all := a.builds
	a.builds = nil
	a.mu.Unlock()
	for _, b := range all {
		b.Close()
	}
}

// worktreeParam is gemini/prompt's worktree: a name, or true for one
// the server makes up.
type worktreeParam struct {
	Name string
}

func (w *worktreeParam) UnmarshalJSON(b []byte) error {
	var on bool
	if json.Unmarshal(b, &on) == nil {
		if !on {
			return errors.New(`worktree is a name or true, not false`)
		}
		return nil
	}
	if err := json.Unmarshal(b, &w.Name); err != nil {
		return errors.New(`worktree is a name or true`)
	}
	if w.Name == "" {
		return errors.New(`worktree is empty: give a name, or true for a generated one`)
	}
	return nil
}

func (w worktreeParam) MarshalJSON() ([]byte, error) {
	if w.Name == "" {
		return []byte("true"), nil
	}
	return json.Marshal(w.Name)
}

// agentMode is the approval mode an agent starts in: its edits are its
// worktree's and land without a question (auto_edit) where the user's
// sessions would ask for each; yolo and plan hold as they are.
func agentMode(mode dialog.ApprovalMode) dialog.ApprovalMode {
	switch mode {
	case dialog.ApprovalYolo, dialog.ApprovalPlan, dialog.ApprovalAutoEdit:
		return mode
	}
	return dialog.ApprovalAutoEdit
}

// startAgent makes a worktree (named name, generated when "") of the
// repository of the workspace's first root, builds an agent for it and
// opens its session, for a prompt to claim next.
func (s *Server) startAgent(ctx context.Context, name, prompt string) (*conversation.Live[struct{}], fleet.Agent, error) {
	ws := s.agentState.workspace()
	if ws == nil {
		return nil, fleet.Agent{}, requestFailed(errors.New("the server is not initialized"))
	}
	if name != "" {
		if err := worktree.CheckName(name); err != nil {
			return nil, fleet.Agent{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: worktree: %v", err)
		}
	}
	s.agentBuilds.worktrees.Lock()
	wt, err := worktree.Create(ctx, ws.Roots()[0], name, time.Now())
	s.agentBuilds.worktrees.Unlock()
	if err != nil {
		return nil, fleet.Agent{}, requestFailed(fmt.Errorf("making the agent's worktree: %w", err))
	}
	b, err := s.buildAgent(ctx, wt.Path)
	if err != nil {
		if rmErr := wt.Remove(context.WithoutCancel(ctx)); rmErr != nil {
			s.log.Warn("removing the worktree of an agent that could not start", zap.Error(rmErr))
		}
		return nil, fleet.Agent{}, err
	}
	live, err := s.host.OpenForPrompt(ctx, b, false, struct{}{})
	if err != nil {
		return nil, fleet.Agent{}, requestFailed(err)
	}
	a := fleet.Agent{SessionID: live.ID(), Title: fleet.Title(prompt), State: fleet.Working, Worktree: *wt, StartedAt: time.Now()}
	s.fleet.Add(a)
	return live, a, nil
}

// buildAgent builds the agent of the worktree at path, as initialize
// built the workspace's, with the worktree as its only root.
func (s *Server) buildAgent(ctx context.Context, path string) (*conversation.Build, error) {
	s.agentBuilds.making.Lock()
	defer s.agentBuilds.making.Unlock()
	if b, ok := s.agentBuilds.get(path); ok {
		return b, nil
	}
	place, ok := s.agentState.placeTemplate()
	if !ok {
		return nil, requestFailed(errors.New("the server is not initialized"))
	}
	ws, err := workspace.New([]string{path}, s.docs)
	if err != nil {
		return nil, requestFailed(fmt.Errorf("the agent's workspace: %w", err))
	}
	place.Workspace = ws
	place.ApprovalMode = agentMode(place.ApprovalMode)
	place.WithoutCredentials = false
	b, err := s.host.Build(ctx, place)
	if err == nil {
		err = b.AuthErr()
	}
	if err != nil {
		b.Close()
		return nil, requestFailed(fmt.Errorf("building the agent: %w", err))
	}
	s.agentBuilds.set(path, b)
	return b, nil
}

// agentOf is the agent whose session is id, and the build it runs in
// (built now for one found on disk).
func (s *Server) agentOf(ctx context.Context, id string) (fleet.Agent, *conversation.Build, bool, error) {
	a, ok := s.fleet.BySession(id)
	if !ok {
		return a, nil, false, nil
	}
	b, err := s.buildAgent(ctx, a.Worktree.Path)
	return a, b, true, err
}

// buildFor is the build session id runs in: its agent's, or the
// workspace's.
func (s *Server) buildFor(ctx context.Context, id string, main *conversation.Build) (*conversation.Build, error) {
	_, b, ok, err := s.agentOf(ctx, id)
	if !ok {
		return main, nil
	}
	return b, err
}

// agentTurn follows one turn of the agent of the worktree at path;
// fresh says the turn is the first in a worktree just made for it.
type agentTurn struct {
	s     *Server
	path  string
	fresh bool
}

// setUp runs the worktree setup command the settings name
// (experimental.worktreeSetupCommand) before a fresh agent's first
// prompt, as the agent's own run_shell_command call: asked of the user
// as any command would be, sandboxed, shown, and recorded so the model
// is told what ran. What it did is the model's to read: a failure does
// not stop the prompt.
func (t agentTurn) setUp(claim *conversation.Claim[struct{}], v conversation.View) {
	if !t.fresh {
		return
	}
	b, ok := t.s.agentBuilds.get(t.path)
	if !ok {
		return
	}
	command := b.WorktreeSetupCommand()
	if command == "" {
		return
	}
	if _, err := claim.RunShell(command, "Set up the new worktree (experimental.worktreeSetupCommand)", v); err != nil {
		t.s.log.Info("the worktree setup command", zap.String("worktree", t.path), zap.Error(err))
	}
}

// view is inner, landing the turn's edits in the worktree and telling
// the fleet while the turn waits for the user.
func (t agentTurn) view(inner conversation.View) conversation.View {
	return agentView{View: inner, t: t}
}

// editorContext is the editor's context with the paths of the user's
// tree that the worktree has too as the worktree's: the agent reads and
// edits its own copy of the file the user is looking at.
func (t agentTurn) editorContext(ec *dialog.EditorContext) *dialog.EditorContext {
	a, ok := t.s.fleet.ByPath(t.path)
	if ec == nil || !ok {
		return ec
	}
	mapped := *ec
	into := func(path string) string {
		rel, err := filepath.Rel(a.Worktree.Project, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			return path
		}
		return filepath.Join(a.Worktree.Path, rel)
	}
	if ec.ActiveFile != nil {
		f := *ec.ActiveFile
		f.Path = into(f.Path)
		mapped.ActiveFile = &f
	}
	mapped.OpenFiles = make([]string, len(ec.OpenFiles))
	for i, p := range ec.OpenFiles {
		mapped.OpenFiles[i] = into(p)
	}
	return &mapped
}

// name is the agent's worktree's name, which the user knows it by.
func (t agentTurn) name() string { return filepath.Base(t.path) }

// began marks the agent working.
func (t agentTurn) began() {
	t.s.fleet.Update(t.path, func(a *fleet.Agent) {
		a.State, a.EndedAt, a.Question, a.Err, a.ErrKind = fleet.Working, time.Time{}, "", "", ""
	})
}

// ended records how the turn ended, the session's tokens and the
// worktree's work.
func (t agentTurn) ended(ctx context.Context, o conversation.Outcome, l *conversation.Live[struct{}]) {
	files := t.s.agentFiles(ctx, t.path)
	tokens := 0
	if l != nil {
		tokens = sessionTokens(l.Stats())
	}
	t.s.fleet.Update(t.path, func(a *fleet.Agent) {
		a.EndedAt, a.Question, a.Tokens = time.Now(), "", tokens
		if files != nil {
			a.Files = files
		}
		switch o.Ending {
		case conversation.Done:
			a.State = fleet.Done
		case conversation.Cancelled:
			a.State = fleet.Stopped
		default:
			a.State = fleet.Failed
			a.Err = o.Ending.Reason()
			if o.Err != nil {
				a.Err, a.ErrKind = o.Err.Error(), string(o.ErrorKind())
			}
		}
	})
}

// sessionTokens is every token a session's requests used.
func sessionTokens(st dialog.Stats) int {
	n := 0
	for _, m := range st.Models {
		n += int(m.Tokens.TotalTokens)
	}
	return n
}

// agentFiles is the work of the agent of the worktree at path, file by
// file; nil when git could not tell.
func (s *Server) agentFiles(ctx context.Context, path string) []fleet.File {
	a, ok := s.fleet.ByPath(path)
	if !ok {
		return nil
	}
	changes, err := a.Worktree.Work(context.WithoutCancel(ctx), workspace.MaxFileSize)
	if err != nil {
		s.log.Info("reading an agent's work", zap.String("worktree", path), zap.Error(err))
		return nil
	}
	files := make([]fleet.File, 0, len(changes))
	for _, c := range changes {
		added, removed := workspace.DiffLines(c.Base, c.Now).Stat()
		files = append(files, fleet.File{Path: c.Path, Status: c.Status, Added: added, Removed: removed})
	}
	return files
}

// agentView is an agent turn's view: the questions go to the user as
// the inner view puts them, the agent shown waiting meanwhile; edits
// land in the worktree, on disk.
type agentView struct {
	conversation.View
	t agentTurn
}

// waiting marks the agent waiting on question until the returned func.
func (v agentView) waiting(question string) func() {
	v.t.s.fleet.Update(v.t.path, func(a *fleet.Agent) { a.State, a.Question = fleet.Waiting, question })
	return func() {
		v.t.s.fleet.Update(v.t.path, func(a *fleet.Agent) {
			if a.State == fleet.Waiting {
				a.State, a.Question = fleet.Working, ""
			}
		})
	}
}

func (v agentView) Confirm(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	defer v.waiting(confirmQuestion(req))()
	return v.View.Confirm(ctx, req)
}

func (v agentView) Ask(ctx context.Context, req dialog.AskRequest) (dialog.Answer, error) {
	defer v.waiting("a question")()
	return v.View.Ask(ctx, req)
}

// Land writes an edit of the agent's into its worktree, asking first
// only where the session did not allow it.
func (v agentView) Land(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
	var landing dialog.Landing
	if req.Ask {
		s := v.t.s
		name := filepath.Base(req.Change.Path)
		base := req.Change.Before
		if !req.Change.Exists {
			base = ""
		}
		added, removed := workspace.DiffLines(base, req.Change.After).Stat()
		summary := fmt.Sprintf("%s (+%d −%d) in the agent %q's worktree", name, added, removed, v.t.name())
		done := v.waiting("edit " + summary)
		action, err := s.askToEdit(ctx, s.features.get(), name, base, req.Change.After, summary, req.CanAllowAlways)
		done()
		switch {
		case err != nil:
			d, err := s.unasked(err, dialog.Refused, "to edit "+name)
			return dialog.Landing{Decision: d}, err
		case action == actionReject || action == "":
			return dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Declined, Reason: "the user declined the edit"}}, nil
		}
		landing.AllowAlways = action == actionAlwaysApply && req.CanAllowAlways
	}
	d, err := conversation.LandOnDisk(ctx, req.Change)
	landing.Decision = d
	return landing, err
}

// LandFiles writes changes of several files (a rename's, a rewind's)
// into the worktree, asking once first where an edit call was not
// allowed.
func (v agentView) LandFiles(ctx context.Context, req dialog.LandFilesRequest) ([]dialog.Decision, error) {
	out := make([]dialog.Decision, len(req.Changes))
	if req.CallID != "" && req.Ask {
		done := v.waiting(req.Title)
		question := fmt.Sprintf("Gemini wants to %s in the agent %q's worktree?", lowerFirst(req.Title), v.t.name())
		action, err := v.t.s.showMessageRequest(ctx, protocol.MessageTypeInfo, question, actionApply, actionReject)
		done()
		if err != nil {
			d, err := v.t.s.unasked(err, dialog.Refused, "whether to apply the edit")
			return fill(out, d), err
		}
		if action != actionApply {
			return fill(out, dialog.Decision{Outcome: dialog.Declined, Reason: "the user declined the edit"}), nil
		}
	}
	for i, c := range req.Changes {
		d, err := conversation.LandRevertOnDisk(ctx, c)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// agentsResult is gemini/agents' result.
type agentsResult struct {
	Agents []agentInfo `json:"agents"`
}

// agentInfo is an agent on the wire (docs/protocol.md 5h).
type agentInfo struct {
	// Kind is "background" for an agent on GitHub Actions, absent for
	// one of this machine.
	Kind       string          `json:"kind,omitempty"`
	SessionID  string          `json:"sessionId"`
	Title      string          `json:"title"`
	State      string          `json:"state"`
	Background *backgroundInfo `json:"background,omitempty"`
	// Worktree is absent only for a background agent whose work is not
	// fetched yet.
	Worktree  *worktreeInfo `json:"worktree,omitempty"`
	StartedAt time.Time     `json:"startedAt"`
	EndedAt   *time.Time    `json:"endedAt,omitempty"`
	Tokens    int           `json:"tokens"`
	Files     []agentFile   `json:"files"`
	Question  string        `json:"question,omitempty"`
	Error     string        `json:"error,omitempty"`
	ErrorKind string        `json:"errorKind,omitempty"`
}

type worktreeInfo struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Branch string `json:"branch"`
	Base   string `json:"base"`
}

type agentFile struct {
	Path    string `json:"path"`
	Status  string `json:"status"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// backgroundInfo is where a background agent is on GitHub.
type backgroundInfo struct {
	// ID names it in gemini/followUpAgent and gemini/discardAgent.
	ID          string    `json:"id"`
	Repository  string    `json:"repository"`
	RunID       int64     `json:"runId,omitempty"`
	RunURL      string    `json:"runUrl,omitempty"`
	Branch      string    `json:"branch"`
	PullRequest *pullInfo `json:"pullRequest,omitempty"`
}

type pullInfo struct {
	Number int    `json:"number"`
	URL    string `json:"url"`
}

func agentInfoOf(a fleet.Agent) agentInfo {
	out := agentInfo{
		SessionID: a.SessionID, Title: a.Title, State: string(a.State),
		StartedAt: a.StartedAt, Tokens: a.Tokens, Files: agentFilesOf(a.Files),
		Question: a.Question, Error: a.Err, ErrorKind: a.ErrKind,
	}
	if b := a.Background; b != nil {
		out.Kind = "background"
		out.Background = &backgroundInfo{ID: b.ID, Repository: b.Repository, RunID: b.RunID, RunURL: b.RunURL, Branch: a.Worktree.Branch}
		if b.PullNumber != 0 {
			out.Background.PullRequest = &pullInfo{Number: b.PullNumber, URL: b.PullURL}
		}
	}
	if a.Background == nil || a.Background.Fetched {
		out.Worktree = &worktreeInfo{Name: a.Worktree.Name, Path: a.Worktree.Path, Branch: a.Worktree.Branch, Base: a.Worktree.Base}
	}
	if !a.EndedAt.IsZero() {
		t := a.EndedAt
		out.EndedAt = &t
	}
	return out
}

func agentFilesOf(files []fleet.File) []agentFile {
	out := make([]agentFile, len(files))
	for i, f := range files {
		out[i] = agentFile{Path: f.Path, Status: string(f.Status), Added: f.Added, Removed: f.Removed}
	}
	return out
}

// agentChanged tells the client of a change of an agent (gemini/agent).
func (s *Server) agentChanged(a fleet.Agent) {
	s.notifyClient("gemini/agent", agentInfoOf(a))
}

// listAgents answers gemini/agents: the fleet, with the worktrees found
// on disk first added to it.
func (s *Server) listAgents(ctx context.Context, _ struct{}) (agentsResult, error) {
	if err := s.discoverAgents(ctx); err != nil {
		return agentsResult{}, requestFailed(err)
	}
	list := s.fleet.List()
	out := agentsResult{Agents: make([]agentInfo, len(list))}
	for i, a := range list {
		out.Agents[i] = agentInfoOf(a)
	}
	return out, nil
}

// discoverAgents adds to the fleet each worktree of the workspace's
// repositories that it does not hold (a server killed mid-task, another
// connection's agents), with its newest saved session, and drops those
// whose worktree is gone.
func (s *Server) discoverAgents(ctx context.Context) error {
	ws := s.agentState.workspace()
	if ws == nil {
		return errors.New("the server is not initialized")
	}
	seen := map[string]bool{}
	for _, root := range ws.Roots() {
		project, err := worktree.ProjectRoot(ctx, root)
		if err != nil || seen[project] {
			continue // not a repository: no agents there
		}
		seen[project] = true
		s.agentBuilds.worktrees.Lock()
		list, err := worktree.List(ctx, project)
		s.agentBuilds.worktrees.Unlock()
		if err != nil {
			return fmt.Errorf("listing the worktrees of %s: %w", project, err)
		}
		present := map[string]bool{}
		for _, wt := range list {
			present[wt.Path] = true
			if _, ok := s.fleet.ByPath(wt.Path); ok {
				continue
			}
			s.fleet.Add(s.foundAgent(ctx, wt))
		}
		for _, a := range s.fleet.List() {
			if a.Worktree.Project == project && !present[a.Worktree.Path] && (a.Background == nil || a.Background.Fetched) {
				s.forgetAgent(a, "its worktree is gone")
			}
		}
	}
	return nil
}

// foundAgent is the agent of a worktree found on disk: its newest saved
// session, stopped.
func (s *Server) foundAgent(ctx context.Context, wt *worktree.Worktree) fleet.Agent {
	a := fleet.Agent{Title: wt.Name, State: fleet.Stopped, Worktree: *wt}
	if info, err := os.Stat(wt.Path); err == nil {
		a.StartedAt = info.ModTime()
	}
	sessions, err := s.host.List(ctx, nil, wt.Path)
	if err != nil {
		s.log.Info("listing a worktree's sessions", zap.String("worktree", wt.Path), zap.Error(err))
	}
	if len(sessions) > 0 {
		newest := sessions[0]
		a.SessionID, a.Title, a.StartedAt, a.EndedAt = newest.ID, newest.Title, newest.CreatedAt, newest.UpdatedAt
		a.Tokens = int(newest.Usage.TotalTokens)
	}
	return a
}

// forgetAgent tells the client the agent is gone, and closes its build.
func (s *Server) forgetAgent(a fleet.Agent, why string) {
	if a.SessionID != "" {
		s.host.Close(a.SessionID)
	}
	if b := s.agentBuilds.drop(a.Worktree.Path); b != nil {
		b.Close()
	}
	s.fleet.Update(a.Worktree.Path, func(x *fleet.Agent) { x.State, x.Question = fleet.Discarded, why })
}

// agentRef names an agent: by its session, its worktree's name, or (a
// background agent) its id.
type agentRef struct {
	SessionID string `json:"sessionId,omitempty"`
	Worktree  string `json:"worktree,omitempty"`
	ID        string `json:"id,omitempty"`
}

// find is the agent ref names.
func (s *Server) findAgent(ctx context.Context, ref agentRef) (fleet.Agent, error) {
	if ref.SessionID == "" && ref.Worktree == "" && ref.ID == "" {
		return fleet.Agent{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, `invalid params: name the agent by "sessionId", "worktree" or "id"`)
	}
	if err := s.discoverAgents(ctx); err != nil {
		return fleet.Agent{}, requestFailed(err)
	}
	a, ok := s.fleet.BySession(ref.SessionID)
	if !ok && ref.Worktree != "" {
		a, ok = s.fleet.ByName(ref.Worktree)
	}
	if !ok && ref.ID != "" {
		a, ok = s.fleet.ByBackground(ref.ID)
	}
	if !ok {
		return fleet.Agent{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: no agent %s", strings.Join(strings.Fields(ref.SessionID+" "+ref.Worktree+" "+ref.ID), " "))
	}
	return a, nil
}

// busyAgent refuses what needs an agent at rest.
func busyAgent(a fleet.Agent, what string) error {
	if b := a.Background; b != nil {
		switch {
		case a.State == fleet.Queued || a.State == fleet.Working:
			return requestFailed(fmt.Errorf("the background agent %q still runs on GitHub (%s): wait for it to end before you %s", a.Title, b.RunURL, what))
		case !b.Fetched:
			return requestFailed(fmt.Errorf("the background agent %q has no work here to %s: %s", a.Title, what, cmp.Or(a.Err, "its branch was not fetched")))
		}
		return nil
	}
	if a.State == fleet.Working || a.State == fleet.Waiting {
		return requestFailed(fmt.Errorf("the agent %q is still working: stop it (gemini/cancel) or wait for it before you %s", a.Worktree.Name, what))
	}
	return nil
}

type discardAgentParams struct {
	agentRef
}

type discardAgentResult struct {
	Discarded bool `json:"discarded"`
}

// Actions of a discard's question.
const (
	actionDiscard = "Discard"
	actionKeep    = "Keep"
)

// discardAgent answers gemini/discardAgent: after the user's yes, the
// agent's session stops and its worktree and branch are deleted.
func (s *Server) discardAgent(ctx context.Context, p discardAgentParams) (discardAgentResult, error) {
	a, err := s.findAgent(ctx, p.agentRef)
	if err != nil {
		return discardAgentResult{}, err
	}
	question := fmt.Sprintf("Discard the agent %q (%s)? Its worktree %s and its branch %s are deleted, with any change nobody landed.",
		a.Worktree.Name, a.Title, a.Worktree.Path, a.Worktree.Branch)
	if b := a.Background; b != nil {
		question = fmt.Sprintf("Discard the background agent %q? gemini-ls stops following it and deletes its worktree %s and local branch %s; its run and pull request stay on GitHub (%s).",
			a.Title, a.Worktree.Path, a.Worktree.Branch, cmp.Or(b.PullURL, b.RunURL, b.Repository))
	}
	action, err := s.showMessageRequest(ctx, protocol.MessageTypeWarning, question, actionDiscard, actionKeep)
	if err != nil {
		return discardAgentResult{}, requestFailed(fmt.Errorf("asking whether to discard the agent: %w", err))
	}
	if action != actionDiscard {
		return discardAgentResult{}, nil
	}
	if a.SessionID != "" {
		s.host.CloseAndWait(ctx, a.SessionID)
	}
	if b := s.agentBuilds.drop(a.Worktree.Path); b != nil {
		b.Close()
	}
	wt := a.Worktree
	if err := wt.Remove(ctx); err != nil {
		return discardAgentResult{}, requestFailed(fmt.Errorf("discarding the agent %q: %w", a.Worktree.Name, err))
	}
	s.fleet.Update(a.Worktree.Path, func(x *fleet.Agent) { x.State = fleet.Discarded })
	return discardAgentResult{Discarded: true}, nil
}

// confirmQuestion is a confirmation in one line, for the agents view.
func confirmQuestion(req dialog.ConfirmRequest) string {
	if req.Subject != "" {
		return req.Title + ": " + req.Subject
	}
	return req.Title
}

// agentSessions are the sessions of the agents' worktrees (those below
// root, when root is not ""), each naming its worktree, for
// gemini/listSessions: a server killed mid-task finds them again.
func (s *Server) agentSessions(ctx context.Context, root string) []sessionInfo {
	if err := s.discoverAgents(ctx); err != nil {
		s.log.Info("finding the agents' worktrees", zap.Error(err))
	}
	var out []sessionInfo
	for _, a := range s.fleet.List() {
		if root != "" && root != a.Worktree.Path && root != a.Worktree.Project {
			continue
		}
		infos, err := s.host.List(ctx, nil, a.Worktree.Path)
		if err != nil {
			s.log.Info("listing an agent's sessions", zap.String("worktree", a.Worktree.Path), zap.Error(err))
			continue
		}
		wt := worktreeInfo{Name: a.Worktree.Name, Path: a.Worktree.Path, Branch: a.Worktree.Branch, Base: a.Worktree.Base}
		for _, i := range infos {
			info := sessionInfoOf(i)
			if _, live := s.host.Lookup(i.ID); live {
				info.Live = true
			}
			info.Worktree = &wt
			out = append(out, info)
		}
	}
	return out
}
