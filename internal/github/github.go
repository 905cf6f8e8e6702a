package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// DefaultAPI is GitHub's own API root, where GITHUB_API_URL is unset.
const DefaultAPI = "https://api.github.com"

// APIVersion is the REST API version this client was written against.
const APIVersion = "2022-11-28"

// MaxResponse bounds the bytes read of a response's body.
const MaxResponse = 4 << 20

// Client calls GitHub's REST API at one root with one token.
type Client struct {
	api   string
	token string
	http  *http.Client
}

// New is a client of the API at api ("" for DefaultAPI) with token;
// hc nil is http.DefaultClient.
func New(api, token string, hc *http.Client) (*Client, error) {
	if api == "" {
		api = DefaultAPI
	}
	u, err := url.Parse(api)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("the GitHub API address %q is not an http(s) URL", api)
	}
	if token == "" {
		return nil, errors.New("no GitHub token was given (GITHUB_TOKEN)")
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{api: strings.TrimRight(api, "/"), token: token, http: hc}, nil
}

// Repo is a repository, owner/name.
type Repo struct{ Owner, Name string }

// ParseRepo reads owner/name, as GITHUB_REPOSITORY holds it.
func ParseRepo(s string) (Repo, error) {
	owner, name, ok := strings.Cut(s, "/")
	if !ok || owner == "" || name == "" || strings.ContainsAny(name, "/?#") || strings.ContainsAny(owner, "?#") {
		return Repo{}, fmt.Errorf("%q is not a repository's owner/name", s)
	}
	return Repo{Owner: owner, Name: name}, nil
}

func (r Repo) String() string { return r.Owner + "/" + r.Name }

// path is the API path under the repository, its parts escaped.
func (r Repo) path(parts ...string) string {
	p := "/repos/" + url.PathEscape(r.Owner) + "/" + url.PathEscape(r.Name)
	for _, s := range parts {
		p += "/" + url.PathEscape(s)
	}
	return p
}

// Error is GitHub's answer to a request that failed: its status and
// message.
type Error struct {
	Status  int
	Message string
}

func (e *Error) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("GitHub answered %d %s", e.Status, http.StatusText(e.Status))
	}
	return fmt.Sprintf("GitHub answered %d: %s", e.Status, e.Message)
}

// do sends a request with body (nil: none) as JSON and decodes a 2xx
// answer into out (nil: ignored); doing names the errors.
func (c *Client) do(ctx context.Context, doing, method, path string, query url.Values, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("%s: %w", doing, err)
		}
		rd = bytes.NewReader(b)
	}
	u := c.api + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	data, status, err := c.send(ctx, doing, method, u, rd, MaxResponse)
	if err != nil {
		return err
	}
	if out == nil || status == http.StatusNoContent {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s: GitHub's answer is not what was expected: %w", doing, err)
	}
	return nil
}

// send sends a request to u (under the API root) and reads at most max
// bytes of a 2xx answer.
func (c *Client) send(ctx context.Context, doing, method, u string, body io.Reader, max int64) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", doing, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", APIVersion)
	req.Header.Set("User-Agent", "gemini-ls")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", doing, withoutURL(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, 0, fmt.Errorf("%s: reading GitHub's answer: %w", doing, err)
	}
	if int64(len(data)) > max {
		return nil, 0, fmt.Errorf("%s: GitHub's answer is longer than %d bytes", doing, max)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var msg struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(data, &msg)
		return nil, 0, fmt.Errorf("%s: %w", doing, &Error{Status: resp.StatusCode, Message: msg.Message})
	}
	return data, resp.StatusCode, nil
}

// DownloadArtifact is the zip archive of a, at most max bytes. Its
// address must be under the API root: the token goes nowhere else (and
// a redirect to another host, GitHub's storage, takes it no further).
func (c *Client) DownloadArtifact(ctx context.Context, a Artifact, max int64) ([]byte, error) {
	doing := fmt.Sprintf("downloading the artifact %s", a.Name)
	if !strings.HasPrefix(a.ArchiveDownloadURL, c.api+"/") {
		return nil, fmt.Errorf("%s: its address %q is not under the API's, %s", doing, a.ArchiveDownloadURL, c.api)
	}
	data, _, err := c.send(ctx, doing, http.MethodGet, a.ArchiveDownloadURL, nil, max)
	return data, err
}

// withoutURL is err without the request's URL, which url.Error repeats
// (the doing already says what was asked).
func withoutURL(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}

// PullRequest is what the client reads of a pull request.
type PullRequest struct {
	Number  int    `json:"number"`
	HTMLURL string `json:"html_url"`
	State   string `json:"state"`
	Draft   bool   `json:"draft"`
	Title   string `json:"title"`
	Body    string `json:"body"`
	Head    Ref    `json:"head"`
	Base    Ref    `json:"base"`
}

// Ref is a pull request's head or base.
type Ref struct {
	Ref string `json:"ref"`
	SHA string `json:"sha"`
	// Repo is the repository the ref is in (a fork's, for a fork's head);
	// nil when that repository was deleted.
	Repo *RefRepo `json:"repo"`
}

// RefRepo is the repository of a pull request's head or base.
type RefRepo struct {
	FullName string `json:"full_name"` // owner/name
}

// NewPullRequest is a pull request to open.
type NewPullRequest struct {
	Title string `json:"title"`
	Head  string `json:"head"`
	Base  string `json:"base"`
	Body  string `json:"body"`
	Draft bool   `json:"draft"`
}

// CreatePullRequest opens a pull request
// (POST /repos/{owner}/{repo}/pulls).
func (c *Client) CreatePullRequest(ctx context.Context, r Repo, pr NewPullRequest) (PullRequest, error) {
	var out PullRequest
	err := c.do(ctx, fmt.Sprintf("opening a pull request of %s into %s in %s", pr.Head, pr.Base, r), http.MethodPost, r.path("pulls"), nil, pr, &out)
	return out, err
}

// OpenPullRequest is the open pull request whose head is branch of r's
// owner, ok false when there is none
// (GET /repos/{owner}/{repo}/pulls?head=owner:branch&state=open).
func (c *Client) OpenPullRequest(ctx context.Context, r Repo, branch string) (pr PullRequest, ok bool, err error) {
	var list []PullRequest
	q := url.Values{"head": {r.Owner + ":" + branch}, "state": {"open"}}
	if err := c.do(ctx, fmt.Sprintf("looking for an open pull request of %s in %s", branch, r), http.MethodGet, r.path("pulls"), q, nil, &list); err != nil {
		return PullRequest{}, false, err
	}
	if len(list) == 0 {
		return PullRequest{}, false, nil
	}
	return list[0], true, nil
}

// PullRequest is pull request number
// (GET /repos/{owner}/{repo}/pulls/{number}).
func (c *Client) PullRequest(ctx context.Context, r Repo, number int) (PullRequest, error) {
	var out PullRequest
	err := c.do(ctx, fmt.Sprintf("reading pull request #%d in %s", number, r), http.MethodGet, r.path("pulls", fmt.Sprint(number)), nil, nil, &out)
	return out, err
}

// PullRequestUpdate is what UpdatePullRequest changes.
type PullRequestUpdate struct {
	Title string `json:"title,omitempty"`
	Body  string `json:"body,omitempty"`
}

// UpdatePullRequest changes pull request number's title and body
// (PATCH /repos/{owner}/{repo}/pulls/{number}).
func (c *Client) UpdatePullRequest(ctx context.Context, r Repo, number int, u PullRequestUpdate) (PullRequest, error) {
	var out PullRequest
	err := c.do(ctx, fmt.Sprintf("updating pull request #%d in %s", number, r), http.MethodPatch, r.path("pulls", fmt.Sprint(number)), nil, u, &out)
	return out, err
}

// Comment is an issue's or pull request's comment.
type Comment struct {
	ID      int64  `json:"id"`
	HTMLURL string `json:"html_url"`
	Body    string `json:"body"`
	User    User   `json:"user"`
}

// User is a GitHub account, as an API object names it.
type User struct {
	Login string `json:"login"`
}

// CreateComment comments on issue (or pull request) number
// (POST /repos/{owner}/{repo}/issues/{number}/comments).
func (c *Client) CreateComment(ctx context.Context, r Repo, number int, body string) (Comment, error) {
	var out Comment
	err := c.do(ctx, fmt.Sprintf("commenting on #%d in %s", number, r), http.MethodPost, r.path("issues", fmt.Sprint(number), "comments"), nil, map[string]string{"body": body}, &out)
	return out, err
}

// Permission is a user's base role on a repository, as GitHub's
// permission field names it: admin, write (maintain too), read (triage
// too) or none.
type Permission string

// CanWrite reports whether p lets its holder push: admin or write (which
// GitHub's permission field gives maintainers too).
func (p Permission) CanWrite() bool { return p == "admin" || p == "write" || p == "maintain" }

// UserPermission is user's permission on r
// (GET /repos/{owner}/{repo}/collaborators/{username}/permission).
func (c *Client) UserPermission(ctx context.Context, r Repo, user string) (Permission, error) {
	var out struct {
		Permission Permission `json:"permission"`
	}
	err := c.do(ctx, fmt.Sprintf("asking %s's permission on %s", user, r), http.MethodGet, r.path("collaborators", user, "permission"), nil, nil, &out)
	return out.Permission, err
}

// DispatchWorkflow starts workflow (its file name or id) on ref with
// inputs (POST /repos/{owner}/{repo}/actions/workflows/{id}/dispatches).
func (c *Client) DispatchWorkflow(ctx context.Context, r Repo, workflow, ref string, inputs map[string]string) error {
	body := map[string]any{"ref": ref, "inputs": inputs}
	return c.do(ctx, fmt.Sprintf("starting workflow %s on %s in %s", workflow, ref, r), http.MethodPost, r.path("actions", "workflows", workflow, "dispatches"), nil, body, nil)
}

// Run is a workflow run.
type Run struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	// DisplayTitle is the run's title: the workflow's run-name.
	DisplayTitle string `json:"display_title"`
	Event        string `json:"event"`
	Status       string `json:"status"`     // queued, in_progress, completed…
	Conclusion   string `json:"conclusion"` // success, failure, cancelled… once completed
	HeadBranch   string `json:"head_branch"`
	HTMLURL      string `json:"html_url"`
	CreatedAt    string `json:"created_at"`
	UpdatedAt    string `json:"updated_at"`
}

// Runs lists workflow's runs of event ("" for any), newest first
// (GET /repos/{owner}/{repo}/actions/workflows/{id}/runs).
func (c *Client) Runs(ctx context.Context, r Repo, workflow, event string) ([]Run, error) {
	var out struct {
		Runs []Run `json:"workflow_runs"`
	}
	q := url.Values{}
	if event != "" {
		q.Set("event", event)
	}
	err := c.do(ctx, fmt.Sprintf("listing the runs of workflow %s in %s", workflow, r), http.MethodGet, r.path("actions", "workflows", workflow, "runs"), q, nil, &out)
	return out.Runs, err
}

// Run is workflow run id (GET /repos/{owner}/{repo}/actions/runs/{id}).
func (c *Client) Run(ctx context.Context, r Repo, id int64) (Run, error) {
	var out Run
	err := c.do(ctx, fmt.Sprintf("reading workflow run %d in %s", id, r), http.MethodGet, r.path("actions", "runs", fmt.Sprint(id)), nil, nil, &out)
	return out, err
}

// Artifact is a workflow run's artifact.
type Artifact struct {
	ID                 int64  `json:"id"`
	Name               string `json:"name"`
	SizeInBytes        int64  `json:"size_in_bytes"`
	ArchiveDownloadURL string `json:"archive_download_url"`
	Expired            bool   `json:"expired"`
}

// Artifacts lists run id's artifacts
// (GET /repos/{owner}/{repo}/actions/runs/{id}/artifacts).
func (c *Client) Artifacts(ctx context.Context, r Repo, id int64) ([]Artifact, error) {
	var out struct {
		Artifacts []Artifact `json:"artifacts"`
	}
	err := c.do(ctx, fmt.Sprintf("listing the artifacts of workflow run %d in %s", id, r), http.MethodGet, r.path("actions", "runs", fmt.Sprint(id), "artifacts"), nil, nil, &out)
	return out.Artifacts, err
}
