package e2e

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// initLine is one package's line of GODEBUG=inittrace=1.
var initLine = regexp.MustCompile(`^init github\.com/gemini-ls/gemini-ls/(\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// TestNoInitWorkAtStartUp: no package of gemini-ls allocates at package
// initialisation, so a run pays only for what it uses: regular
// expressions are compiled on first use (internal/lazyregexp), schemas
// and tables derived when asked for (issue 44). An allocation is the
// sign of init work that GODEBUG=inittrace=1 reports reliably; its clock
// figure is too noisy to test.
func TestNoInitWorkAtStartUp(t *testing.T) {
	cmd := exec.Command(binary, "--version")
	cmd.Env = []string{"GODEBUG=inittrace=1"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gemini-ls --version: %v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		m := initLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		seen++
		bytes, _ := strconv.Atoi(m[2])
		allocs, _ := strconv.Atoi(m[3])
		if bytes == 0 && allocs == 0 {
			continue
		}
		t.Errorf("package %s allocates at start-up (%d bytes, %d allocs): build what it needs on first use", m[1], bytes, allocs)
	}
	if seen == 0 {
		t.Fatalf("no init line of gemini-ls's packages in:\n%s", out)
	}
}
