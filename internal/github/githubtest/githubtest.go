package githubtest

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/github"
)

// Request is a request the fake received.
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Body   string
	// Authorized: it carried the token (or a run's).
	Authorized bool
}

// Dispatch is a workflow dispatch the fake accepted.
type Dispatch struct {
	Workflow string            `json:"workflow"`
	Ref      string            `json:"ref"`
	Inputs   map[string]string `json:"inputs"`
	RunID    int64             `json:"runId"` // the run it made
}

// Options are what a Server plays beyond the API's bookkeeping.
type Options struct {
	// User is the login the token belongs to (GET /user, the sender of
	// the runs it starts, the author of the comments posted with it),
	// with write access; the repository's owner when "".
	User string
	// Branches reads the repository's branches (origin's); nil: the
	// default branch is main and no branch is known.
	Branches func(ctx context.Context) (Branches, error)
	// Runner plays the workflow runs, one at a time; nil: a run stays
	// queued until FinishRun.
	Runner Runner
}

// Branches are a repository's branches.
type Branches struct {
	// Default is the default branch (origin's HEAD).
	Default string
	// Heads are the branches' names and commits.
	Heads map[string]string
}

// Runner plays one workflow run, returning how it ended; ctx ends when
// the run is cancelled or the server closed.
type Runner func(ctx context.Context, job Job) Outcome

// Job is a workflow run for a Runner to play: what GitHub's runner
// environment says of it.
type Job struct {
	RunID int64
	// Event is its GITHUB_EVENT_NAME, Payload its GITHUB_EVENT_PATH's
	// content.
	Event   string
	Payload []byte
	// Checkout is the branch the workflow's checkout step takes (a
	// dispatch's base input, else its ref; the default branch for a
	// comment); RefName the branch the run is on (GITHUB_REF_NAME).
	Checkout, RefName string
	// Repo, APIURL and Token are GITHUB_REPOSITORY, GITHUB_API_URL and
	// GITHUB_TOKEN: the run's own token, which the fake accepts and
	// whose comments start no run, as GitHub's GITHUB_TOKEN.
	Repo   github.Repo
	APIURL string
	Token  string
}

// Outcome is how a run ended.
type Outcome struct {
	// Conclusion is success or failure (cancelled when the run was).
	Conclusion string
	// Artifacts are the artifacts the run uploaded, by name.
	Artifacts map[string][]File
}

// File is a file of an artifact.
type File struct {
	Name string
	Data []byte
}

// RunName is the title a run of gemini-ls's workflow gets: its run-name,
// `gemini-ls: ${{ inputs.task || format('#{0}', github.event.issue.number) }}`.
func RunName(task string, issue int) string {
	if task != "" {
		return "gemini-ls: " + task
	}
	if issue == 0 {
		return "gemini-ls: #"
	}
	return fmt.Sprintf("gemini-ls: #%d", issue)
}

// botLogin is the login of a run's token, GitHub's GITHUB_TOKEN's.
const botLogin = "github-actions[bot]"

// Server is the fake API of one repository.
type Server struct {
	// URL is the API root, for GITHUB_API_URL.
	URL   string
	Repo  github.Repo
	token string
	opts  Options

	ctx  context.Context // ends at Close: the runs' context
	stop context.CancelFunc
	wake chan struct{} // a run was queued
	done chan struct{} // the worker ended
	hs   *http.Server

	mu          sync.Mutex
	requests    []Request
	pulls       []github.PullRequest
	comments    map[int][]github.Comment
	permissions map[string]string
	dispatches  []Dispatch
	runs        []*run
	runTokens   map[string]int64
	nextID      int64
}

type run struct {
	github.Run
	workflow  string
	job       Job
	artifacts []artifact
	// cancel ends the run's context while it runs; cancelled says it
	// was asked to.
	cancel    context.CancelFunc
	cancelled bool
}

type artifact struct {
	github.Artifact
	files []File
}

// NewServer is a fake of repo's API (owner/name) that takes token; it
// serves through Handler, or Start. Close ends it and its runs.
func NewServer(repo, token string, opts Options) (*Server, error) {
	r, err := github.ParseRepo(repo)
	if err != nil {
		return nil, err
	}
	if token == "" {
		return nil, errors.New("the fake GitHub needs a token")
	}
	if opts.User == "" {
		opts.User = r.Owner
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &Server{
		Repo: r, token: token, opts: opts, ctx: ctx, stop: stop,
		wake: make(chan struct{}, 1), done: make(chan struct{}),
		comments: map[int][]github.Comment{}, permissions: map[string]string{opts.User: "admin"},
		runTokens: map[string]int64{}, nextID: 1000,
	}
	go s.work()
	return s, nil
}

// New starts a fake of repo's API (owner/name) that takes token, closed
// at the test's end; its runs stay queued (FinishRun ends them).
func New(t testing.TB, repo, token string) *Server {
	t.Helper()
	return NewWith(t, repo, token, Options{})
}

// NewWith is New with opts: a Runner plays its runs.
func NewWith(t testing.TB, repo, token string, opts Options) *Server {
	t.Helper()
	s, err := NewServer(repo, token, opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	s.URL = hs.URL
	t.Cleanup(func() { s.Close(); hs.Close() })
	return s
}

// Handler serves the API.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serve) }

// Start serves on addr (host:port; port 0 for any) and sets URL.
func (s *Server) Start(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	s.URL = "http://" + ln.Addr().String()
	s.hs = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.hs.Serve(ln) }()
	return nil
}

// Close cancels the run under way, waits for it to end and stops
// serving.
func (s *Server) Close() {
	s.stop()
	<-s.done
	if s.hs != nil {
		_ = s.hs.Close()
	}
}

// SetPermission gives user the permission (admin, write, read, none)
// the collaborator permission endpoint answers; an unknown user has none.
func (s *Server) SetPermission(user, permission string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.permissions[user] = permission
}

// Requests are the requests received, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// PullRequests are the pull requests opened, in order, as they are now.
func (s *Server) PullRequests() []github.PullRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pulls)
}

// AddPullRequest is an open pull request made before the test; its
// head is in this repository unless Head.Repo says otherwise.
func (s *Server) AddPullRequest(pr github.PullRequest) github.PullRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addPull(pr)
}

// Comments are the comments on issue or pull request number, in order.
func (s *Server) Comments(number int) []github.Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.comments[number])
}

// Dispatches are the workflow dispatches accepted, in order.
func (s *Server) Dispatches() []Dispatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.dispatches)
}

// Runs are the workflow runs, oldest first, as they are now.
func (s *Server) Runs() []github.Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]github.Run, len(s.runs))
	for i, r := range s.runs {
		out[i] = r.Run
	}
	return out
}

// State is what GET /_fake/state answers: everything the fake holds,
// for a test's assertions.
type State struct {
	Dispatches []Dispatch                  `json:"dispatches"`
	Runs       []github.Run                `json:"runs"`
	Pulls      []github.PullRequest        `json:"pulls"`
	Comments   map[string][]github.Comment `json:"comments"`
}

// State is the fake's state now.
func (s *Server) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state()
}

func (s *Server) state() State {
	st := State{Dispatches: append([]Dispatch{}, s.dispatches...), Runs: []github.Run{}, Pulls: append([]github.PullRequest{}, s.pulls...), Comments: map[string][]github.Comment{}}
	for _, r := range s.runs {
		st.Runs = append(st.Runs, r.Run)
	}
	for n, cs := range s.comments {
		st.Comments[strconv.Itoa(n)] = slices.Clone(cs)
	}
	return st
}

// FinishRun completes run id with conclusion (success, failure…) and the
// named artifacts, each holding no file.
func (s *Server) FinishRun(id int64, conclusion string, artifacts ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.findRun(strconv.FormatInt(id, 10))
	if r == nil {
		return
	}
	outcome := Outcome{Conclusion: conclusion, Artifacts: map[string][]File{}}
	for _, name := range artifacts {
		outcome.Artifacts[name] = nil
	}
	s.complete(r, outcome)
}

// complete ends r as outcome says; s.mu held.
func (s *Server) complete(r *run, outcome Outcome) {
	r.Status, r.Conclusion = "completed", outcome.Conclusion
	if r.cancelled {
		r.Conclusion = "cancelled"
	}
	r.UpdatedAt = now()
	names := make([]string, 0, len(outcome.Artifacts))
	for name := range outcome.Artifacts {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		files := outcome.Artifacts[name]
		size := int64(0)
		for _, f := range files {
			size += int64(len(f.Data))
		}
		s.nextID++
		r.artifacts = append(r.artifacts, artifact{Artifact: github.Artifact{
			ID: s.nextID, Name: name, SizeInBytes: max(size, 1),
			ArchiveDownloadURL: fmt.Sprintf("%s%s/actions/artifacts/%d/zip", s.URL, s.repoPath(), s.nextID),
		}, files: files})
	}
	delete(s.runTokens, r.job.Token)
}

func now() string { return time.Now().UTC().Format(time.RFC3339) }

func (s *Server) repoPath() string { return "/repos/" + s.Repo.Owner + "/" + s.Repo.Name }

func (s *Server) addPull(pr github.PullRequest) github.PullRequest {
	pr.Number = len(s.pulls) + 1
	pr.HTMLURL = fmt.Sprintf("https://github.com/%s/pull/%d", s.Repo, pr.Number)
	if pr.State == "" {
		pr.State = "open"
	}
	if pr.Head.Repo == nil {
		pr.Head.Repo = &github.RefRepo{FullName: s.Repo.String()}
	}
	if pr.Base.Repo == nil {
		pr.Base.Repo = &github.RefRepo{FullName: s.Repo.String()}
	}
	s.pulls = append(s.pulls, pr)
	return pr
}

// maxBody bounds what is read of a request's body.
const maxBody = 1 << 20

// login is whose token req carries: the user's, a run's (GitHub's bot),
// or "" for none the fake gave.
func (s *Server) login(req *http.Request) string {
	auth := req.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok {
		tok, _ = strings.CutPrefix(auth, "token ")
	}
	switch {
	case tok == "":
		return ""
	case tok == s.token:
		return s.opts.User
	case s.runTokens[tok] != 0:
		return botLogin
	}
	return ""
}

func (s *Server) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, maxBody))
	s.mu.Lock()
	defer s.mu.Unlock()
	if req.Method == http.MethodGet && req.URL.Path == "/_fake/state" {
		answer(w, http.StatusOK, s.state())
		return
	}
	who := s.login(req)
	s.requests = append(s.requests, Request{Method: req.Method, Path: req.URL.Path, Query: req.URL.Query(), Body: string(body), Authorized: who != ""})
	if who == "" {
		answer(w, http.StatusUnauthorized, message("Bad credentials"))
		return
	}
	if req.Method == http.MethodGet && req.URL.Path == "/user" {
		answer(w, http.StatusOK, map[string]any{"login": who, "type": "User"})
		return
	}
	if req.URL.Path == s.repoPath() && req.Method == http.MethodGet {
		s.getRepo(w, req.Context())
		return
	}
	rest, ok := strings.CutPrefix(req.URL.Path, s.repoPath()+"/")
	if !ok {
		answer(w, http.StatusNotFound, message("Not Found"))
		return
	}
	parts := strings.Split(rest, "/")
	route := req.Method + " " + shape(parts)
	switch route {
	case "POST pulls":
		s.createPull(w, body)
	case "GET pulls":
		s.listPulls(w, req.URL.Query())
	case "GET pulls/N":
		s.getPull(w, parts[1])
	case "PATCH pulls/N":
		s.updatePull(w, parts[1], body)
	case "POST issues/N/comments":
		s.comment(w, req.Context(), parts[1], who, body)
	case "GET issues/N/comments":
		n, _ := strconv.Atoi(parts[1])
		answer(w, http.StatusOK, append([]github.Comment{}, s.comments[n]...))
	case "GET branches/*":
		s.getBranch(w, req.Context(), strings.Join(parts[1:], "/"))
	case "GET collaborators/*/permission":
		perm := s.permissions[parts[1]]
		if perm == "" {
			perm = "none"
		}
		answer(w, http.StatusOK, map[string]any{"permission": perm, "role_name": perm, "user": map[string]any{"login": parts[1]}})
	case "POST actions/workflows/*/dispatches":
		s.dispatch(w, req.Context(), parts[2], who, body)
	case "GET actions/workflows/*/runs":
		s.listRuns(w, parts[2], req.URL.Query().Get("event"))
	case "GET actions/runs":
		s.listRuns(w, "", req.URL.Query().Get("event"))
	case "GET actions/runs/N":
		s.getRun(w, parts[2])
	case "POST actions/runs/N/cancel":
		s.cancelRun(w, parts[2])
	case "GET actions/runs/N/artifacts":
		s.listArtifacts(w, parts[2])
	case "GET actions/artifacts/N/zip":
		s.downloadArtifact(w, parts[2])
	default:
		answer(w, http.StatusNotFound, message("Not Found"))
	}
}

// shape is a path's parts with numbers as N, and the names a route takes
// (a user, a workflow, a branch's, which may hold slashes) as *.
func shape(parts []string) string {
	if len(parts) > 1 && parts[0] == "branches" {
		return "branches/*"
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		switch {
		case i > 0 && isNumber(p):
			out[i] = "N"
		case i == 1 && parts[0] == "collaborators", i == 2 && parts[0] == "actions" && parts[1] == "workflows":
			out[i] = "*"
		default:
			out[i] = p
		}
	}
	return strings.Join(out, "/")
}

func isNumber(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

func message(m string) map[string]string {
	return map[string]string{"message": m, "documentation_url": "https://docs.github.com/rest"}
}

func answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	if v != nil {
		_ = json.NewEncoder(w).Encode(v)
	}
}

// branches are the repository's branches, as Options.Branches reads
// them.
func (s *Server) branches(ctx context.Context) (Branches, error) {
	if s.opts.Branches == nil {
		return Branches{Default: "main"}, nil
	}
	return s.opts.Branches(ctx)
}

func (s *Server) getRepo(w http.ResponseWriter, ctx context.Context) {
	b, err := s.branches(ctx)
	if err != nil {
		answer(w, http.StatusInternalServerError, message(err.Error()))
		return
	}
	answer(w, http.StatusOK, s.repository(b.Default))
}

// repository is the repository as the API and an event's payload give it.
func (s *Server) repository(defaultBranch string) map[string]any {
	return map[string]any{
		"name": s.Repo.Name, "full_name": s.Repo.String(), "owner": map[string]any{"login": s.Repo.Owner},
		"private": false, "html_url": "https://github.com/" + s.Repo.String(), "default_branch": defaultBranch,
		"permissions": map[string]bool{"admin": true, "maintain": true, "push": true, "triage": true, "pull": true},
	}
}

func (s *Server) getBranch(w http.ResponseWriter, ctx context.Context, name string) {
	b, err := s.branches(ctx)
	if err != nil {
		answer(w, http.StatusInternalServerError, message(err.Error()))
		return
	}
	sha, ok := b.Heads[name]
	if !ok {
		answer(w, http.StatusNotFound, message("Branch not found"))
		return
	}
	answer(w, http.StatusOK, map[string]any{"name": name, "commit": map[string]any{"sha": sha}, "protected": false})
}

func (s *Server) createPull(w http.ResponseWriter, body []byte) {
	var in github.NewPullRequest
	if err := json.Unmarshal(body, &in); err != nil || in.Head == "" || in.Base == "" || in.Title == "" {
		answer(w, http.StatusUnprocessableEntity, message("Validation Failed"))
		return
	}
	for _, pr := range s.pulls {
		if pr.State == "open" && pr.Head.Ref == in.Head && pr.Base.Ref == in.Base {
			answer(w, http.StatusUnprocessableEntity, message("A pull request already exists for "+s.Repo.Owner+":"+in.Head+"."))
			return
		}
	}
	pr := s.addPull(github.PullRequest{Title: in.Title, Body: in.Body, Draft: in.Draft, Head: github.Ref{Ref: in.Head}, Base: github.Ref{Ref: in.Base}})
	answer(w, http.StatusCreated, pr)
}

func (s *Server) listPulls(w http.ResponseWriter, q url.Values) {
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	out := []github.PullRequest{}
	for _, pr := range s.pulls {
		if head := q.Get("head"); head != "" && (pr.Head.Repo == nil || head != ownerOf(pr.Head.Repo.FullName)+":"+pr.Head.Ref) {
			continue
		}
		if state != "all" && pr.State != state {
			continue
		}
		out = append(out, pr)
	}
	answer(w, http.StatusOK, out)
}

func ownerOf(fullName string) string {
	owner, _, _ := strings.Cut(fullName, "/")
	return owner
}

func (s *Server) pull(number string) *github.PullRequest {
	n, _ := strconv.Atoi(number)
	if n < 1 || n > len(s.pulls) {
		return nil
	}
	return &s.pulls[n-1]
}

func (s *Server) getPull(w http.ResponseWriter, number string) {
	pr := s.pull(number)
	if pr == nil {
		answer(w, http.StatusNotFound, message("Not Found"))
		return
	}
	answer(w, http.StatusOK, pr)
}

func (s *Server) updatePull(w http.ResponseWriter, number string, body []byte) {
	pr := s.pull(number)
	if pr == nil {
		answer(w, http.StatusNotFound, message("Not Found"))
		return
	}
	var in struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		answer(w, http.StatusBadRequest, message("Problems parsing JSON"))
		return
	}
	if in.Title != nil {
		pr.Title = *in.Title
	}
	if in.Body != nil {
		pr.Body = *in.Body
	}
	answer(w, http.StatusOK, pr)
}

// mention is what a comment must hold to start a run, as the
// workflow's if: tests it (contains, any case).
const mention = "@gemini-ls"

// comment adds who's comment to issue or pull request number; one on a
// pull request naming @gemini-ls, by the user (not a run: GitHub's
// GITHUB_TOKEN starts no workflow), starts an issue_comment run.
func (s *Server) comment(w http.ResponseWriter, ctx context.Context, number, who string, body []byte) {
	n, _ := strconv.Atoi(number)
	var in struct {
		Body string `json:"body"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.Body == "" {
		answer(w, http.StatusUnprocessableEntity, message("Validation Failed"))
		return
	}
	s.nextID++
	c := github.Comment{ID: s.nextID, Body: in.Body, User: github.User{Login: who}, HTMLURL: fmt.Sprintf("https://github.com/%s/issues/%d#issuecomment-%d", s.Repo, n, s.nextID)}
	s.comments[n] = append(s.comments[n], c)
	if pr := s.pull(number); pr != nil && who != botLogin && strings.Contains(strings.ToLower(in.Body), mention) {
		if err := s.commentRun(ctx, *pr, c); err != nil {
			answer(w, http.StatusInternalServerError, message(err.Error()))
			return
		}
	}
	answer(w, http.StatusCreated, c)
}

func (s *Server) commentRun(ctx context.Context, pr github.PullRequest, c github.Comment) error {
	b, err := s.branches(ctx)
	if err != nil {
		return err
	}
	payload, err := json.Marshal(map[string]any{
		"action": "created",
		"issue": map[string]any{
			"number": pr.Number, "title": pr.Title, "body": pr.Body, "state": pr.State,
			"pull_request": map[string]any{"url": fmt.Sprintf("%s%s/pulls/%d", s.URL, s.repoPath(), pr.Number), "html_url": pr.HTMLURL},
		},
		"comment":    map[string]any{"id": c.ID, "body": c.Body, "html_url": c.HTMLURL, "author_association": "OWNER", "user": map[string]any{"login": c.User.Login}},
		"repository": s.repository(b.Default),
		"sender":     map[string]any{"login": c.User.Login},
	})
	if err != nil {
		return err
	}
	s.queue("gemini-ls.yml", RunName("", pr.Number), Job{Event: "issue_comment", Payload: payload, Checkout: b.Default, RefName: b.Default})
	return nil
}

func (s *Server) dispatch(w http.ResponseWriter, ctx context.Context, workflow, who string, body []byte) {
	var in struct {
		Ref    string            `json:"ref"`
		Inputs map[string]string `json:"inputs"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.Ref == "" {
		answer(w, http.StatusUnprocessableEntity, message("Invalid request: ref is required"))
		return
	}
	b, err := s.branches(ctx)
	if err != nil {
		answer(w, http.StatusInternalServerError, message(err.Error()))
		return
	}
	ref := strings.TrimPrefix(in.Ref, "refs/heads/")
	if _, ok := b.Heads[ref]; s.opts.Branches != nil && !ok {
		answer(w, http.StatusUnprocessableEntity, message("No ref found for: "+in.Ref))
		return
	}
	inputs := in.Inputs
	if inputs == nil {
		inputs = map[string]string{}
	}
	payload, err := json.Marshal(map[string]any{
		"inputs": inputs, "ref": "refs/heads/" + ref, "workflow": ".github/workflows/" + workflow,
		"repository": s.repository(b.Default), "sender": map[string]any{"login": who},
	})
	if err != nil {
		answer(w, http.StatusInternalServerError, message(err.Error()))
		return
	}
	checkout := ref
	if base := strings.TrimSpace(inputs["base"]); base != "" {
		checkout = base
	}
	r := s.queue(workflow, RunName(strings.TrimSpace(inputs["task"]), 0), Job{Event: "workflow_dispatch", Payload: payload, Checkout: checkout, RefName: ref})
	s.dispatches = append(s.dispatches, Dispatch{Workflow: workflow, Ref: in.Ref, Inputs: in.Inputs, RunID: r.ID})
	answer(w, http.StatusNoContent, nil)
}

// queue adds a queued run of workflow titled title for job, and wakes
// the worker; s.mu held.
func (s *Server) queue(workflow, title string, job Job) *run {
	s.nextID++
	id := s.nextID
	job.RunID, job.Repo = id, s.Repo
	job.Token = fmt.Sprintf("ghs_fakerun%d_%s", id, rand.Text()) // not the user's: a test may look for that in what the run wrote
	s.runTokens[job.Token] = id
	at := now()
	r := &run{Run: github.Run{
		ID: id, Name: title, DisplayTitle: title, Event: job.Event, Status: "queued", HeadBranch: job.RefName,
		HTMLURL:   fmt.Sprintf("https://github.com/%s/actions/runs/%d", s.Repo, id),
		CreatedAt: at, UpdatedAt: at,
	}, workflow: workflow, job: job}
	s.runs = append(s.runs, r)
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return r
}

// work plays the queued runs, oldest first, one at a time, until Close.
func (s *Server) work() {
	defer close(s.done)
	for {
		r := s.nextQueued()
		if r == nil {
			select {
			case <-s.ctx.Done():
				return
			case <-s.wake:
				continue
			}
		}
		ctx, cancel := context.WithCancel(s.ctx)
		s.mu.Lock()
		r.cancel = cancel
		job := r.job
		job.APIURL = s.URL
		s.mu.Unlock()
		outcome := s.opts.Runner(ctx, job)
		stopped := ctx.Err() != nil // by a cancel or by Close
		cancel()
		s.mu.Lock()
		r.cancelled = r.cancelled || stopped
		s.complete(r, outcome)
		s.mu.Unlock()
	}
}

// nextQueued marks the oldest queued run in progress and returns it;
// nil when none is queued or no Runner plays them.
func (s *Server) nextQueued() *run {
	if s.opts.Runner == nil || s.ctx.Err() != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		if r.Status == "queued" {
			r.Status, r.UpdatedAt = "in_progress", now()
			return r
		}
	}
	return nil
}

func (s *Server) listRuns(w http.ResponseWriter, workflow, event string) {
	out := []github.Run{}
	for i := len(s.runs) - 1; i >= 0; i-- { // newest first
		r := s.runs[i]
		if (workflow == "" || r.workflow == workflow) && (event == "" || r.Event == event) {
			out = append(out, r.Run)
		}
	}
	answer(w, http.StatusOK, map[string]any{"total_count": len(out), "workflow_runs": out})
}

func (s *Server) findRun(id string) *run {
	n, _ := strconv.ParseInt(id, 10, 64)
	for _, r := range s.runs {
		if r.ID == n {
			return r
		}
	}
	return nil
}

func (s *Server) getRun(w http.ResponseWriter, id string) {
	r := s.findRun(id)
	if r == nil {
		answer(w, http.StatusNotFound, message("Not Found"))
		return
	}
	answer(w, http.StatusOK, r.Run)
}

// cancelRun cancels a queued run at once, a run in progress by ending
// its Runner's context; a completed run cannot be, as GitHub says.
func (s *Server) cancelRun(w http.ResponseWriter, id string) {
	r := s.findRun(id)
	switch {
	case r == nil:
		answer(w, http.StatusNotFound, message("Not Found"))
		return
	case r.Status == "completed":
		answer(w, http.StatusConflict, message("Cannot cancel a workflow run that is completed."))
		return
	}
	r.cancelled = true
	if r.Status == "queued" {
		s.complete(r, Outcome{})
	} else if r.cancel != nil {
		r.cancel()
	}
	answer(w, http.StatusAccepted, map[string]any{})
}

func (s *Server) listArtifacts(w http.ResponseWriter, id string) {
	r := s.findRun(id)
	if r == nil {
		answer(w, http.StatusNotFound, message("Not Found"))
		return
	}
	out := []github.Artifact{}
	for _, a := range r.artifacts {
		out = append(out, a.Artifact)
	}
	answer(w, http.StatusOK, map[string]any{"total_count": len(out), "artifacts": out})
}

// downloadArtifact answers the artifact's files as a zip archive, as
// GitHub's download (past its redirect) does.
func (s *Server) downloadArtifact(w http.ResponseWriter, id string) {
	n, _ := strconv.ParseInt(id, 10, 64)
	for _, r := range s.runs {
		for _, a := range r.artifacts {
			if a.ID != n {
				continue
			}
			var buf bytes.Buffer
			zw := zip.NewWriter(&buf)
			for _, f := range a.files {
				fw, err := zw.Create(f.Name)
				if err == nil {
					_, err = fw.Write(f.Data)
				}
				if err != nil {
					answer(w, http.StatusInternalServerError, message(err.Error()))
					return
				}
			}
			if err := zw.Close(); err != nil {
				answer(w, http.StatusInternalServerError, message(err.Error()))
				return
			}
			w.Header().Set("Content-Type", "application/zip")
			_, _ = w.Write(buf.Bytes())
			return
		}
	}
	answer(w, http.StatusNotFound, message("Not Found"))
}
