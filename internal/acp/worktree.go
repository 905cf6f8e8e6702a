package acp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/worktree"
)

// metaKey is gemini-ls's own key in a request's or answer's _meta: ACP
// keeps _meta for extensions, each under a name of its own.
const metaKey = "gemini-ls"

// askedWorktree is the worktree session/new's _meta asks for
// ({"gemini-ls": {"worktree": "name"}}, or true for a generated name):
// ok is false when it asks for none (absent, or false).
func askedWorktree(meta map[string]any) (name string, ok bool, err error) {
	ours, found := meta[metaKey]
	if !found || ours == nil {
		return "", false, nil
	}
	fields, isMap := ours.(map[string]any)
	if !isMap {
		return "", false, fmt.Errorf("_meta.%s must be an object, such as {\"worktree\": \"fix-login\"}", metaKey)
	}
	switch w := fields["worktree"].(type) {
	case nil:
		return "", false, nil
	case bool:
		return "", w, nil
	case string:
		if strings.TrimSpace(w) == "" {
			return "", false, fmt.Errorf("_meta.%s.worktree is empty: give a name, or true for a generated one", metaKey)
		}
		return w, true, nil
	default:
		return "", false, fmt.Errorf("_meta.%s.worktree must be a name (letters, digits, '.', '_', '-') or true for a generated one, not %v", metaKey, w)
	}
}

// newWorktree makes the worktree session/new asks for, in the
// repository of cwd: nil when it asks for none. A name git or
// internal/worktree refuses, or a cwd in no repository, is invalid
// params saying why.
func newWorktree(ctx context.Context, p sdk.NewSessionRequest, now time.Time) (*worktree.Worktree, error) {
	name, ok, err := askedWorktree(p.Meta)
	if err != nil {
		return nil, invalidParams(err.Error())
	}
	if !ok {
		return nil, nil
	}
	if !filepath.IsAbs(p.Cwd) {
		return nil, invalidParams(fmt.Sprintf("cwd must be an absolute path, not %q", p.Cwd))
	}
	if name != "" {
		if err := worktree.CheckName(name); err != nil {
			return nil, invalidParams(err.Error())
		}
	}
	w, err := worktree.Create(ctx, p.Cwd, name, now)
	if err != nil {
		return nil, invalidParams(fmt.Sprintf("cannot make a worktree for %s: %v", p.Cwd, err))
	}
	return w, nil
}

// sessionWorktree is the worktree a session's cwd lies in, when it is
// one of its project's (.gemini/worktrees/<name>): a session opened
// there, or made there by newWorktree. git is asked only for a cwd
// whose path holds .gemini/worktrees.
func sessionWorktree(ctx context.Context, cwd string) (*worktree.Worktree, bool) {
	if !strings.Contains(filepath.ToSlash(cwd), "/"+worktree.Dir+"/") {
		return nil, false
	}
	return worktree.Of(ctx, cwd)
}

// worktreeMeta is session/new's answer's _meta naming the session's
// worktree.
func worktreeMeta(w *worktree.Worktree) map[string]any {
	return map[string]any{metaKey: map[string]any{"worktree": map[string]any{
		"name": w.Name, "path": w.Path, "branch": w.Branch, "base": w.Base,
	}}}
}
