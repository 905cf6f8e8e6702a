package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Repository is what the client reads of a repository.
type Repository struct {
	FullName      string `json:"full_name"`
	DefaultBranch string `json:"default_branch"`
	HTMLURL       string `json:"html_url"`
}

// Repository is r (GET /repos/{owner}/{repo}).
func (c *Client) Repository(ctx context.Context, r Repo) (Repository, error) {
	var out Repository
	err := c.do(ctx, fmt.Sprintf("reading the repository %s", r), http.MethodGet, r.path(), nil, nil, &out)
	return out, err
}

// HasBranch reports whether r has branch
// (GET /repos/{owner}/{repo}/branches/{branch}: 404 is no).
func (c *Client) HasBranch(ctx context.Context, r Repo, branch string) (bool, error) {
	err := c.do(ctx, fmt.Sprintf("looking for the branch %s in %s", branch, r), http.MethodGet, r.path("branches", branch), nil, nil, nil)
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusNotFound {
		return false, nil
	}
	return err == nil, err
}

// CancelRun asks GitHub to cancel workflow run id
// (POST /repos/{owner}/{repo}/actions/runs/{id}/cancel).
func (c *Client) CancelRun(ctx context.Context, r Repo, id int64) error {
	return c.do(ctx, fmt.Sprintf("cancelling workflow run %d in %s", id, r), http.MethodPost, r.path("actions", "runs", fmt.Sprint(id), "cancel"), nil, nil, nil)
}

// RepoOfRemote is the GitHub repository a git remote's URL names, ok
// false for one that is not on github.com: https://github.com/o/n(.git),
// git@github.com:o/n(.git), ssh://git@github.com/o/n(.git).
func RepoOfRemote(remote string) (r Repo, ok bool) {
	remote = strings.TrimSpace(remote)
	var path string
	switch {
	case strings.HasPrefix(remote, "git@github.com:"):
		path = strings.TrimPrefix(remote, "git@github.com:")
	default:
		u, err := url.Parse(remote)
		if err != nil || !strings.EqualFold(u.Hostname(), "github.com") || (u.Scheme != "https" && u.Scheme != "ssh" && u.Scheme != "http" && u.Scheme != "git") {
			return Repo{}, false
		}
		path = strings.TrimPrefix(u.Path, "/")
	}
	path = strings.TrimSuffix(strings.TrimSuffix(path, "/"), ".git")
	r, err := ParseRepo(path)
	return r, err == nil
}
