package sandbox

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/gitconfig"
)

// What makes git run a program is told from what does not.
func TestGitRunsProgram(t *testing.T) {
	src := `[core]
	repositoryformatversion = 0
	fsmonitor = true
	bare = false
[remote "origin"]
	url = https://example.com/r.git
	fetch = +refs/heads/*:refs/remotes/origin/*
[alias]
	st = status
[user]
	name = t
`
	for _, e := range gitconfig.Parse([]byte(src)) {
		if gitRunsProgram(e) {
			t.Errorf("%s = %s: runs a program", e.Key(), e.Value)
		}
	}
	for _, src := range []string{
		"[core]\n\tfsmonitor = ./x\n", "[core]\n\tsshCommand = x\n", "[core]\n\tpager = x\n",
		"[core]\n\thooksPath = h\n", "[diff \"d\"]\n\ttextconv = x\n", "[filter \"f\"]\n\tsmudge = x\n",
		"[merge \"m\"]\n\tdriver = x\n", "[credential]\n\thelper = x\n", "[alias]\n\tst = !x\n",
		"[include]\n\tpath = x\n", "[includeIf \"gitdir:/\"]\n\tpath = x\n", "[uploadpack]\n\tpackObjectsHook = x\n",
		"[hook \"h\"]\n\tcommand = x\n", "[submodule \"s\"]\n\tupdate = !x\n", "[protocol \"ext\"]\n\tallow = always\n",
	} {
		es := gitconfig.Parse([]byte(src))
		if len(es) != 1 || !gitRunsProgram(es[0]) {
			t.Errorf("%q: runs no program", src)
		}
	}
}
