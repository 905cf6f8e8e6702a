package githubtest

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/github"
)

const token = "gho_test"

// get answers GET path with token, decoded into out.
func get(t *testing.T, s *Server, path, tok string, out any) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	return resp.StatusCode
}

func branches(context.Context) (Branches, error) {
	return Branches{Default: "trunk", Heads: map[string]string{"trunk": "aaa", "gemini/x-1": "bbb"}}, nil
}

// The repository, its branches (slashes and all), a pull request and
// the token's user answer as GitHub's API does; another token is 401.
func TestRepositoryBranchesPullAndUser(t *testing.T) {
	s := NewWith(t, "ada/proj", token, Options{User: "ada-dev", Branches: branches})
	var repo struct {
		DefaultBranch string `json:"default_branch"`
		FullName      string `json:"full_name"`
	}
	if code := get(t, s, "/repos/ada/proj", token, &repo); code != 200 || repo.DefaultBranch != "trunk" || repo.FullName != "ada/proj" {
		t.Errorf("the repository: %d %+v", code, repo)
	}
	var branch struct {
		Name   string `json:"name"`
		Commit struct {
			SHA string `json:"sha"`
		} `json:"commit"`
	}
	if code := get(t, s, "/repos/ada/proj/branches/gemini%2Fx-1", token, &branch); code != 200 || branch.Name != "gemini/x-1" || branch.Commit.SHA != "bbb" {
		t.Errorf("the branch: %d %+v", code, branch)
	}
	if code := get(t, s, "/repos/ada/proj/branches/gemini/none", token, nil); code != 404 {
		t.Errorf("a missing branch answered %d, want 404", code)
	}
	var user struct {
		Login string `json:"login"`
	}
	if code := get(t, s, "/user", token, &user); code != 200 || user.Login != "ada-dev" {
		t.Errorf("the user: %d %+v", code, user)
	}
	if code := get(t, s, "/user", "gho_other", nil); code != 401 {
		t.Errorf("another token answered %d, want 401", code)
	}
	s.AddPullRequest(github.PullRequest{Title: "From a fork", Head: github.Ref{Ref: "main", Repo: &github.RefRepo{FullName: "eve/proj"}}, Base: github.Ref{Ref: "trunk"}})
	c, err := github.New(s.URL, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := c.PullRequest(t.Context(), s.Repo, 1)
	if err != nil || pr.Head.Repo == nil || pr.Head.Repo.FullName != "eve/proj" || pr.Base.Repo.FullName != "ada/proj" || pr.Base.Ref != "trunk" {
		t.Errorf("pull request 1: %+v %v", pr, err)
	}
	if _, err := c.PullRequest(t.Context(), s.Repo, 2); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a missing pull request: %v", err)
	}
}

// played is a Runner that records its jobs, and ends each as told (or
// when cancelled), after its start is seen.
type played struct {
	jobs    chan Job
	release chan Outcome
}

func newPlayed() *played { return &played{jobs: make(chan Job, 10), release: make(chan Outcome)} }

func (p *played) run(ctx context.Context, job Job) Outcome {
	p.jobs <- job
	select {
	case o := <-p.release:
		return o
	case <-ctx.Done():
		return Outcome{Conclusion: "failure"}
	}
}

func runStatus(t *testing.T, s *Server, i int) (status, conclusion string) {
	t.Helper()
	runs := s.Runs()
	if len(runs) <= i {
		t.Fatalf("runs %+v, want run %d", runs, i)
	}
	return runs[i].Status, runs[i].Conclusion
}

// A dispatch queues a run titled by the task; the Runner plays it with
// the dispatch's event (inputs, default branch, sender) on its base, the
// run in progress meanwhile, then completed with the Runner's conclusion
// and artifacts (downloadable as a zip). A second dispatch waits for the
// first. Cancelling ends a queued run at once and a running one through
// its context; a completed one cannot be.
func TestRunsArePlayedOneAtATime(t *testing.T) {
	p := newPlayed()
	s := NewWith(t, "ada/proj", token, Options{Branches: branches, Runner: p.run})
	c, err := github.New(s.URL, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := c.DispatchWorkflow(ctx, s.Repo, "gemini-ls.yml", "trunk", map[string]string{"prompt": "Add a flag", "task": "add-a-flag-3f9a", "base": "gemini/x-1"}); err != nil {
		t.Fatal(err)
	}
	if err := c.DispatchWorkflow(ctx, s.Repo, "gemini-ls.yml", "trunk", map[string]string{"prompt": "Second"}); err != nil {
		t.Fatal(err)
	}
	if err := c.DispatchWorkflow(ctx, s.Repo, "gemini-ls.yml", "nowhere", nil); err == nil || !strings.Contains(err.Error(), "No ref found for: nowhere") {
		t.Errorf("a dispatch on a missing branch: %v", err)
	}
	job := <-p.jobs
	if job.Event != "workflow_dispatch" || job.Checkout != "gemini/x-1" || job.RefName != "trunk" || job.APIURL != s.URL || job.Token == token || job.Token == "" {
		t.Errorf("the job is %+v", job)
	}
	var ev struct {
		Inputs     map[string]string `json:"inputs"`
		Repository struct {
			DefaultBranch string `json:"default_branch"`
		} `json:"repository"`
		Sender struct {
			Login string `json:"login"`
		} `json:"sender"`
	}
	if err := json.Unmarshal(job.Payload, &ev); err != nil || ev.Inputs["prompt"] != "Add a flag" || ev.Repository.DefaultBranch != "trunk" || ev.Sender.Login != "ada" {
		t.Errorf("the event is %s (%v)", job.Payload, err)
	}
	runs, err := c.Runs(ctx, s.Repo, "gemini-ls.yml", "workflow_dispatch")
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %+v %v", runs, err)
	}
	if first, second := runs[1], runs[0]; first.Status != "in_progress" || first.DisplayTitle != "gemini-ls: add-a-flag-3f9a" || second.Status != "queued" || second.DisplayTitle != "gemini-ls: #" {
		t.Errorf("the runs, newest first: %+v", runs)
	}
	// The run's own token is taken, as GITHUB_TOKEN is.
	var user struct {
		Login string `json:"login"`
	}
	if code := get(t, s, "/user", job.Token, &user); code != 200 || user.Login != "github-actions[bot]" {
		t.Errorf("the run's token: %d %+v", code, user)
	}

	p.release <- Outcome{Conclusion: "success", Artifacts: map[string][]File{"gemini-ls-session": {{Name: "s.jsonl", Data: []byte("{}\n")}}}}
	second := <-p.jobs // played only once the first ended
	if st, concl := runStatus(t, s, 0); st != "completed" || concl != "success" {
		t.Errorf("the first run is %s %s", st, concl)
	}
	if code := get(t, s, "/user", job.Token, nil); code != 401 {
		t.Errorf("a finished run's token answered %d, want 401", code)
	}
	arts, err := c.Artifacts(ctx, s.Repo, s.Runs()[0].ID)
	if err != nil || len(arts) != 1 || arts[0].Name != "gemini-ls-session" {
		t.Fatalf("artifacts %+v %v", arts, err)
	}
	req, err := http.NewRequest(http.MethodGet, arts[0].ArchiveDownloadURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	zipped, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
	if err != nil || len(zr.File) != 1 || zr.File[0].Name != "s.jsonl" {
		t.Errorf("the artifact's zip: %v", err)
	}

	// Cancelling: the second in progress ends through its context; a
	// third, queued, at once.
	if err := c.DispatchWorkflow(ctx, s.Repo, "gemini-ls.yml", "trunk", map[string]string{"prompt": "Third"}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{s.Runs()[2].ID, second.RunID} {
		if code := post(t, s, "/repos/ada/proj/actions/runs/"+itoa(id)+"/cancel", ""); code != http.StatusAccepted {
			t.Errorf("cancelling run %d answered %d", id, code)
		}
	}
	if st, concl := runStatus(t, s, 2); st != "completed" || concl != "cancelled" {
		t.Errorf("the cancelled queued run is %s %s", st, concl)
	}
	s.Close() // waits for the second to end
	if st, concl := runStatus(t, s, 1); st != "completed" || concl != "cancelled" {
		t.Errorf("the cancelled running run is %s %s", st, concl)
	}
	if code := post(t, s, "/repos/ada/proj/actions/runs/"+itoa(second.RunID)+"/cancel", ""); code != http.StatusConflict {
		t.Errorf("cancelling a completed run answered %d, want 409", code)
	}
}

// waitCompleted waits for run i to complete.
func waitCompleted(t *testing.T, s *Server, i int) {
	t.Helper()
	for {
		if st, _ := runStatus(t, s, i); st == "completed" {
			return
		}
		select {
		case <-t.Context().Done():
			t.Fatal("the test ended first")
		case <-time.After(time.Millisecond):
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func post(t *testing.T, s *Server, path, body string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A comment naming @gemini-ls on a pull request, by the user, starts an
// issue_comment run on the default branch whose event names the pull
// request and the user as its OWNER author; one by a run (its token),
// one without the mention, or one on an issue starts nothing. The state
// holds it all.
func TestAMentionOnAPullRequestStartsARun(t *testing.T) {
	p := newPlayed()
	s := NewWith(t, "ada/proj", token, Options{User: "ada-dev", Branches: branches, Runner: p.run})
	c, err := github.New(s.URL, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	pr := s.AddPullRequest(github.PullRequest{Title: "Add a flag", Head: github.Ref{Ref: "gemini/x-1"}, Base: github.Ref{Ref: "trunk"}})
	for _, body := range []string{"looks good", "@Gemini-LS also document it"} {
		if _, err := c.CreateComment(ctx, s.Repo, pr.Number, body); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.CreateComment(ctx, s.Repo, 9, "@gemini-ls on an issue"); err != nil {
		t.Fatal(err)
	}
	job := <-p.jobs
	if job.Event != "issue_comment" || job.Checkout != "trunk" || job.RefName != "trunk" {
		t.Errorf("the job is %+v", job)
	}
	var ev struct {
		Issue struct {
			Number      int             `json:"number"`
			PullRequest json.RawMessage `json:"pull_request"`
		} `json:"issue"`
		Comment struct {
			Body              string `json:"body"`
			AuthorAssociation string `json:"author_association"`
			User              struct {
				Login string `json:"login"`
			} `json:"user"`
		} `json:"comment"`
	}
	if err := json.Unmarshal(job.Payload, &ev); err != nil || ev.Issue.Number != pr.Number || len(ev.Issue.PullRequest) == 0 ||
		ev.Comment.Body != "@Gemini-LS also document it" || ev.Comment.AuthorAssociation != "OWNER" || ev.Comment.User.Login != "ada-dev" {
		t.Errorf("the event is %s (%v)", job.Payload, err)
	}
	// The run comments with its own token: that starts nothing.
	bot, err := github.New(s.URL, job.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bot.CreateComment(ctx, s.Repo, pr.Number, "@gemini-ls was here"); err != nil {
		t.Fatal(err)
	}
	p.release <- Outcome{Conclusion: "failure"}
	waitCompleted(t, s, 0)
	st := s.State()
	if len(st.Runs) != 1 || st.Runs[0].DisplayTitle != "gemini-ls: #1" || st.Runs[0].Conclusion != "failure" {
		t.Errorf("runs %+v, want the one comment's", st.Runs)
	}
	if cs := st.Comments["1"]; len(cs) != 3 || cs[1].User.Login != "ada-dev" || cs[2].User.Login != "github-actions[bot]" {
		t.Errorf("the pull request's comments %+v", cs)
	}
	if len(st.Pulls) != 1 || len(st.Dispatches) != 0 {
		t.Errorf("state %+v", st)
	}
}

// GET /_fake/state needs no token and answers every list, empty ones
// as [] and {}.
func TestStateIsJSON(t *testing.T) {
	s := New(t, "ada/proj", token)
	var raw map[string]json.RawMessage
	if code := get(t, s, "/_fake/state", "", &raw); code != 200 {
		t.Fatalf("state answered %d", code)
	}
	for k, want := range map[string]string{"dispatches": "[]", "runs": "[]", "pulls": "[]", "comments": "{}"} {
		if string(raw[k]) != want {
			t.Errorf("%s is %s, want %s", k, raw[k], want)
		}
	}
}
