package github_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/github"
	"github.com/gemini-ls/gemini-ls/internal/github/githubtest"
)

const token = "ghs_test-token"

func client(t *testing.T, api, tok string) *github.Client {
	t.Helper()
	c, err := github.New(api, tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A pull request is opened as a draft, found by its head branch while
// open, and updated in place; the fake saw the token on every request.
func TestPullRequestOpenedFoundAndUpdated(t *testing.T) {
	ctx := context.Background()
	fake := githubtest.New(t, "octo/repo", token)
	c := client(t, fake.URL, token)
	repo := fake.Repo
	if _, ok, err := c.OpenPullRequest(ctx, repo, "gemini/fix"); err != nil || ok {
		t.Fatalf("before any: ok %v, err %v; want none", ok, err)
	}
	pr, err := c.CreatePullRequest(ctx, repo, github.NewPullRequest{Title: "Fix", Head: "gemini/fix", Base: "main", Body: "the body", Draft: true})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Number != 1 || !pr.Draft || pr.HTMLURL == "" {
		t.Errorf("opened %+v, want #1, a draft with its URL", pr)
	}
	found, ok, err := c.OpenPullRequest(ctx, repo, "gemini/fix")
	if err != nil || !ok || found.Number != 1 {
		t.Fatalf("found %+v ok %v err %v; want #1", found, ok, err)
	}
	if _, err := c.UpdatePullRequest(ctx, repo, 1, github.PullRequestUpdate{Body: "new body"}); err != nil {
		t.Fatal(err)
	}
	if got := fake.PullRequests(); len(got) != 1 || got[0].Body != "new body" || got[0].Title != "Fix" {
		t.Errorf("pull requests now %+v; want one, its body updated, its title kept", got)
	}
	for _, r := range fake.Requests() {
		if !r.Authorized {
			t.Errorf("%s %s went without the token", r.Method, r.Path)
		}
	}
}

// A second pull request of the same head is refused with GitHub's
// message, and the error says what was being done.
func TestErrorsSayWhatWasDoneAndGitHubsMessage(t *testing.T) {
	ctx := context.Background()
	fake := githubtest.New(t, "octo/repo", token)
	c := client(t, fake.URL, token)
	pr := github.NewPullRequest{Title: "Fix", Head: "gemini/fix", Base: "main"}
	if _, err := c.CreatePullRequest(ctx, fake.Repo, pr); err != nil {
		t.Fatal(err)
	}
	_, err := c.CreatePullRequest(ctx, fake.Repo, pr)
	var ge *github.Error
	if !errors.As(err, &ge) || ge.Status != http.StatusUnprocessableEntity {
		t.Fatalf("err = %v, want GitHub's 422", err)
	}
	for _, want := range []string{"opening a pull request of gemini/fix into main in octo/repo", "A pull request already exists"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err %q lacks %q", err, want)
		}
	}

	bad := client(t, fake.URL, "wrong-token")
	_, err = bad.UserPermission(ctx, fake.Repo, "someone")
	if err == nil || !strings.Contains(err.Error(), "Bad credentials") || strings.Contains(err.Error(), "wrong-token") {
		t.Errorf("with a wrong token: %v; want Bad credentials, without the token", err)
	}
	if _, err := c.UserPermission(ctx, github.Repo{Owner: "other", Name: "repo"}, "x"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("another repository: %v; want 404", err)
	}
}

// The permission endpoint's answer: write and admin may push, read and
// none may not.
func TestUserPermission(t *testing.T) {
	ctx := context.Background()
	fake := githubtest.New(t, "octo/repo", token)
	fake.SetPermission("maintainer", "admin")
	fake.SetPermission("dev", "write")
	fake.SetPermission("reader", "read")
	c := client(t, fake.URL, token)
	for user, want := range map[string]bool{"maintainer": true, "dev": true, "reader": false, "stranger": false} {
		p, err := c.UserPermission(ctx, fake.Repo, user)
		if err != nil {
			t.Fatal(err)
		}
		if p.CanWrite() != want {
			t.Errorf("%s: permission %q CanWrite %v, want %v", user, p, p.CanWrite(), want)
		}
	}
}

// A dispatch makes a run, listed newest first, read by id, and its
// artifacts listed once it finished.
func TestDispatchRunsAndArtifacts(t *testing.T) {
	ctx := context.Background()
	fake := githubtest.New(t, "octo/repo", token)
	c := client(t, fake.URL, token)
	if err := c.DispatchWorkflow(ctx, fake.Repo, "gemini-ls.yml", "main", map[string]string{"prompt": "fix it"}); err != nil {
		t.Fatal(err)
	}
	d := fake.Dispatches()
	if len(d) != 1 || d[0].Inputs["prompt"] != "fix it" || d[0].Ref != "main" || d[0].Workflow != "gemini-ls.yml" {
		t.Fatalf("dispatches %+v", d)
	}
	runs, err := c.Runs(ctx, fake.Repo, "gemini-ls.yml", "workflow_dispatch")
	if err != nil || len(runs) != 1 || runs[0].ID != d[0].RunID || runs[0].Status != "queued" {
		t.Fatalf("runs %+v err %v", runs, err)
	}
	fake.FinishRun(runs[0].ID, "success", "gemini-ls-session")
	r, err := c.Run(ctx, fake.Repo, runs[0].ID)
	if err != nil || r.Status != "completed" || r.Conclusion != "success" {
		t.Fatalf("run %+v err %v", r, err)
	}
	arts, err := c.Artifacts(ctx, fake.Repo, r.ID)
	if err != nil || len(arts) != 1 || arts[0].Name != "gemini-ls-session" {
		t.Fatalf("artifacts %+v err %v", arts, err)
	}
}

// An answer longer than MaxResponse is refused, not read whole.
func TestLongAnswerRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`[`))
		chunk := []byte(strings.Repeat(" ", 1<<16))
		for range github.MaxResponse/len(chunk) + 2 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	_, _, err := client(t, srv.URL, token).OpenPullRequest(context.Background(), github.Repo{Owner: "o", Name: "r"}, "b")
	if err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("err = %v, want the answer refused as too long", err)
	}
}

func TestNewRefusesBadInput(t *testing.T) {
	if _, err := github.New("ftp://x", token, nil); err == nil {
		t.Error("an ftp API root was taken")
	}
	if _, err := github.New("", "", nil); err == nil || !strings.Contains(err.Error(), "GITHUB_TOKEN") {
		t.Errorf("no token: %v", err)
	}
	for _, s := range []string{"", "noslash", "/x", "x/", "a/b/c"} {
		if _, err := github.ParseRepo(s); err == nil {
			t.Errorf("ParseRepo(%q) took it", s)
		}
	}
}

func TestRepoOfRemote(t *testing.T) {
	for _, c := range []struct {
		remote string
		want   string
	}{
		{"https://github.com/ada/proj.git", "ada/proj"},
		{"https://github.com/ada/proj", "ada/proj"},
		{"git@github.com:ada/proj.git", "ada/proj"},
		{"ssh://git@github.com/ada/proj.git", "ada/proj"},
		{"https://gitlab.com/ada/proj.git", ""},
		{"/srv/git/proj.git", ""},
		{"https://github.com/ada", ""},
		{"https://github.com/ada/proj/extra", ""},
	} {
		r, ok := github.RepoOfRemote(c.remote)
		got := ""
		if ok {
			got = r.String()
		}
		if got != c.want {
			t.Errorf("RepoOfRemote(%q) = %q, want %q", c.remote, got, c.want)
		}
	}
}

// The token goes with an artifact's download only to the API's own host.
func TestDownloadArtifactOnlyFromTheAPI(t *testing.T) {
	fake := githubtest.New(t, "octo/repo", "tok")
	c, err := github.New(fake.URL, "tok", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.DownloadArtifact(t.Context(), github.Artifact{Name: "x", ArchiveDownloadURL: "https://elsewhere.example/x.zip"}, 1<<20)
	if err == nil || !strings.Contains(err.Error(), "is not under the API's") {
		t.Errorf("a download from another host: %v", err)
	}
	if len(fake.Requests()) != 0 {
		t.Errorf("the fake got %+v", fake.Requests())
	}
}
