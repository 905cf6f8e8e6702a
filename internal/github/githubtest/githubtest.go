package githubtest

import (
	"encoding/json"
	"fmt"
	"io"
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
	// Authorized: it carried the token.
	Authorized bool
}

// Dispatch is a workflow dispatch the fake accepted.
type Dispatch struct {
	Workflow string
	Ref      string
	Inputs   map[string]string
	RunID    int64 // the run it made
}

// Server is the fake API of one repository.
type Server struct {
	// URL is the API root, for GITHUB_API_URL.
	URL   string
	Repo  github.Repo
	token string

	mu          sync.Mutex
	requests    []Request
	pulls       []github.PullRequest
	comments    map[int][]github.Comment
	permissions map[string]string
	dispatches  []Dispatch
	runs        []run
	nextID      int64
}

type run struct {
	github.Run
	workflow  string
	artifacts []github.Artifact
}

// New starts a fake of repo's API (owner/name) that takes token, closed
// at the test's end.
func New(t testing.TB, repo, token string) *Server {
	t.Helper()
	r, err := github.ParseRepo(repo)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Repo: r, token: token, comments: map[int][]github.Comment{}, permissions: map[string]string{}, nextID: 1000}
	hs := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(hs.Close)
	s.URL = hs.URL
	return s
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

// AddPullRequest is an open pull request made before the test.
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

// FinishRun completes run id with conclusion (success, failure…) and the
// named artifacts.
func (s *Server) FinishRun(id int64, conclusion string, artifacts ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.runs {
		r := &s.runs[i]
		if r.ID != id {
			continue
		}
		r.Status, r.Conclusion = "completed", conclusion
		for _, name := range artifacts {
			s.nextID++
			r.artifacts = append(r.artifacts, github.Artifact{
				ID: s.nextID, Name: name, SizeInBytes: 1,
				ArchiveDownloadURL: fmt.Sprintf("%s%s/actions/artifacts/%d/zip", s.URL, s.repoPath(), s.nextID),
			})
		}
	}
}

func (s *Server) repoPath() string { return "/repos/" + s.Repo.Owner + "/" + s.Repo.Name }

func (s *Server) addPull(pr github.PullRequest) github.PullRequest {
	pr.Number = len(s.pulls) + 1
	pr.HTMLURL = fmt.Sprintf("https://github.com/%s/pull/%d", s.Repo, pr.Number)
	if pr.State == "" {
		pr.State = "open"
	}
	s.pulls = append(s.pulls, pr)
	return pr
}

// maxBody bounds what is read of a request's body.
const maxBody = 1 << 20

func (s *Server) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, maxBody))
	authorized := req.Header.Get("Authorization") == "Bearer "+s.token
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, Request{Method: req.Method, Path: req.URL.Path, Query: req.URL.Query(), Body: string(body), Authorized: authorized})
	if !authorized {
		answer(w, http.StatusUnauthorized, message("Bad credentials"))
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
	case "PATCH pulls/N":
		s.updatePull(w, parts[1], body)
	case "POST issues/N/comments":
		s.comment(w, parts[1], body)
	case "GET collaborators/*/permission":
		perm := s.permissions[parts[1]]
		if perm == "" {
			perm = "none"
		}
		answer(w, http.StatusOK, map[string]any{"permission": perm, "role_name": perm, "user": map[string]any{"login": parts[1]}})
	case "POST actions/workflows/*/dispatches":
		s.dispatch(w, parts[2], body)
	case "GET actions/workflows/*/runs":
		s.listRuns(w, parts[2], req.URL.Query().Get("event"))
	case "GET actions/runs/N":
		s.getRun(w, parts[2])
	case "GET actions/runs/N/artifacts":
		s.listArtifacts(w, parts[2])
	default:
		answer(w, http.StatusNotFound, message("Not Found"))
	}
}

// shape is a path's parts with numbers as N, and the names a route takes
// (a user, a workflow) as *.
func shape(parts []string) string {
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
		if head := q.Get("head"); head != "" && head != s.Repo.Owner+":"+pr.Head.Ref {
			continue
		}
		if state != "all" && pr.State != state {
			continue
		}
		out = append(out, pr)
	}
	answer(w, http.StatusOK, out)
}

func (s *Server) updatePull(w http.ResponseWriter, number string, body []byte) {
	n, _ := strconv.Atoi(number)
	if n < 1 || n > len(s.pulls) {
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
	pr := &s.pulls[n-1]
	if in.Title != nil {
		pr.Title = *in.Title
	}
	if in.Body != nil {
		pr.Body = *in.Body
	}
	answer(w, http.StatusOK, pr)
}

func (s *Server) comment(w http.ResponseWriter, number string, body []byte) {
	n, _ := strconv.Atoi(number)
	var in struct {
		Body string `json:"body"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.Body == "" {
		answer(w, http.StatusUnprocessableEntity, message("Validation Failed"))
		return
	}
	s.nextID++
	c := github.Comment{ID: s.nextID, Body: in.Body, HTMLURL: fmt.Sprintf("https://github.com/%s/issues/%d#issuecomment-%d", s.Repo, n, s.nextID)}
	s.comments[n] = append(s.comments[n], c)
	answer(w, http.StatusCreated, c)
}

func (s *Server) dispatch(w http.ResponseWriter, workflow string, body []byte) {
	var in struct {
		Ref    string            `json:"ref"`
		Inputs map[string]string `json:"inputs"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.Ref == "" {
		answer(w, http.StatusUnprocessableEntity, message("Invalid request: ref is required"))
		return
	}
	s.nextID++
	r := run{Run: github.Run{
		ID: s.nextID, Name: workflow, Event: "workflow_dispatch", Status: "queued", HeadBranch: in.Ref,
		HTMLURL:   fmt.Sprintf("https://github.com/%s/actions/runs/%d", s.Repo, s.nextID),
		CreatedAt: time.Now().UTC().Format(time.RFC3339),
	}, workflow: workflow}
	s.runs = append(s.runs, r)
	s.dispatches = append(s.dispatches, Dispatch{Workflow: workflow, Ref: in.Ref, Inputs: in.Inputs, RunID: r.ID})
	answer(w, http.StatusNoContent, nil)
}

func (s *Server) listRuns(w http.ResponseWriter, workflow, event string) {
	out := []github.Run{}
	for i := len(s.runs) - 1; i >= 0; i-- { // newest first
		r := s.runs[i]
		if r.workflow == workflow && (event == "" || r.Event == event) {
			out = append(out, r.Run)
		}
	}
	answer(w, http.StatusOK, map[string]any{"total_count": len(out), "workflow_runs": out})
}

func (s *Server) findRun(id string) *run {
	n, _ := strconv.ParseInt(id, 10, 64)
	for i := range s.runs {
		if s.runs[i].ID == n {
			return &s.runs[i]
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

func (s *Server) listArtifacts(w http.ResponseWriter, id string) {
	r := s.findRun(id)
	if r == nil {
		answer(w, http.StatusNotFound, message("Not Found"))
		return
	}
	out := append([]github.Artifact{}, r.artifacts...)
	answer(w, http.StatusOK, map[string]any{"total_count": len(out), "artifacts": out})
}
