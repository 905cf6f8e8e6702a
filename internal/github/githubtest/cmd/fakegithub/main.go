// Command fakegithub serves a fake of GitHub's REST API for one
// repository (package githubtest) and plays the Actions runner for it,
// for editor tests and demos where GitHub is unreachable.
//
//	fakegithub -repo ada/proj -token TOKEN -origin /path/origin.git -runner /path/gemini-ls -addr-file F [-user LOGIN]
//
// It writes its URL (http://127.0.0.1:PORT) to F once listening, logs to
// stderr and exits on SIGTERM or SIGINT, cancelling the run under way.
//
// A workflow dispatch, or a comment naming @gemini-ls posted with TOKEN
// on a pull request, queues a run; runs are played one at a time: ORIGIN
// is cloned into a temporary directory, the run's branch checked out,
// the event's payload written, and `RUNNER action` run there with
// GitHub's runner environment (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH,
// GITHUB_REPOSITORY, GITHUB_API_URL = this fake, GITHUB_TOKEN = the
// run's own token, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP,
// GITHUB_WORKSPACE, GITHUB_REF_NAME) over fakegithub's own environment,
// which it inherits (so the API key and the fake model's URL given to
// fakegithub reach the agent). Its exit status is the run's conclusion;
// the session file it leaves in RUNNER_TEMP/gemini-ls-session is the
// run's gemini-ls-session artifact. GET /_fake/state answers everything
// the fake holds, as JSON.
//
// fakegithub is a test program, never linked into gemini-ls: it starts
// git and the runner with os/exec, as GitHub's runner would, not through
// gemini-ls's door.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/gemini-ls/gemini-ls/internal/github/githubtest"
)

func main() {
	repo := flag.String("repo", "", "the repository, owner/name (required)")
	token := flag.String("token", "", "the token the API takes (required)")
	user := flag.String("user", "", "the login the token belongs to, with write access (default the repository's owner)")
	origin := flag.String("origin", "", "the repository's git directory, a local bare repository (required)")
	runner := flag.String("runner", "", "the program a run runs, as RUNNER action (required)")
	addrFile := flag.String("addr-file", "", "write the API's URL to this file once listening (required)")
	addr := flag.String("addr", "127.0.0.1:0", "the address to listen on")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("fakegithub: ")
	for name, v := range map[string]string{"repo": *repo, "token": *token, "origin": *origin, "runner": *runner, "addr-file": *addrFile} {
		if v == "" {
			log.Fatalf("-%s is required", name)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, *repo, *token, *user, *origin, *runner, *addr, *addrFile); err != nil {
		log.Fatal(err)
	}
}

func serve(ctx context.Context, repo, token, user, origin, runner, addr, addrFile string) error {
	origin, err := filepath.Abs(origin)
	if err != nil {
		return err
	}
	if strings.ContainsRune(runner, filepath.Separator) { // else a name on PATH
		if runner, err = filepath.Abs(runner); err != nil {
			return err
		}
	}
	o := originRepo{dir: origin}
	if _, err := o.branches(ctx); err != nil {
		return fmt.Errorf("the origin %s: %w", origin, err)
	}
	r := &actionsRunner{origin: origin, program: runner, log: log.Default()}
	s, err := githubtest.NewServer(repo, token, githubtest.Options{User: user, Branches: o.branches, Runner: r.run})
	if err != nil {
		return err
	}
	if err := s.Start(addr); err != nil {
		return err
	}
	defer s.Close()
	if err := writeAtomically(addrFile, s.URL+"\n"); err != nil {
		return fmt.Errorf("writing the address file: %w", err)
	}
	log.Printf("serving %s's API at %s (origin %s, runner %s)", repo, s.URL, origin, runner)
	<-ctx.Done()
	log.Printf("stopping")
	return nil
}

// writeAtomically writes text to path whole: a reader sees no half URL.
func writeAtomically(path, text string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// originRepo is the bare repository playing the GitHub repository's git.
type originRepo struct{ dir string }

func (o originRepo) branches(ctx context.Context) (githubtest.Branches, error) {
	head, err := gitOutput(ctx, o.dir, "symbolic-ref", "--short", "HEAD")
	if err != nil {
		return githubtest.Branches{}, err
	}
	out, err := gitOutput(ctx, o.dir, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads")
	if err != nil {
		return githubtest.Branches{}, err
	}
	b := githubtest.Branches{Default: head, Heads: map[string]string{}}
	for line := range strings.SplitSeq(out, "\n") {
		if name, sha, ok := strings.Cut(line, " "); ok {
			b.Heads[name] = sha
		}
	}
	return b, nil
}

func gitOutput(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// actionsRunner plays a run as GitHub's runner does the workflow's job:
// a checkout of origin, then `program action`.
type actionsRunner struct {
	origin, program string
	log             *log.Logger
}

// sessionArtifact is the artifact action.yml keeps the session file in.
const sessionArtifact = "gemini-ls-session"

// maxArtifact bounds the bytes of a session file kept.
const maxArtifact = 64 << 20

func (a *actionsRunner) run(ctx context.Context, job githubtest.Job) githubtest.Outcome {
	failed := githubtest.Outcome{Conclusion: "failure"}
	dir, err := os.MkdirTemp("", fmt.Sprintf("fakegithub-run-%d-", job.RunID))
	if err != nil {
		a.log.Printf("run %d: %v", job.RunID, err)
		return failed
	}
	defer os.RemoveAll(dir)
	ws, temp := filepath.Join(dir, "workspace"), filepath.Join(dir, "runner-temp")
	if err := os.Mkdir(temp, 0o700); err != nil {
		a.log.Printf("run %d: %v", job.RunID, err)
		return failed
	}
	a.log.Printf("run %d (%s): checking out %s", job.RunID, job.Event, job.Checkout)
	if _, err := gitOutput(ctx, dir, "clone", "--quiet", "--branch", job.Checkout, a.origin, ws); err != nil {
		a.log.Printf("run %d: the checkout failed: %v", job.RunID, err)
		return failed
	}
	files := map[string]string{"event.json": string(job.Payload), "output": "", "summary.md": ""}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			a.log.Printf("run %d: %v", job.RunID, err)
			return failed
		}
	}
	cmd := exec.CommandContext(ctx, a.program, "action")
	cmd.Dir = ws
	cmd.Env = append(without(os.Environ(), "GITHUB_", "RUNNER_", "INPUT_"),
		"GITHUB_ACTIONS=true", "CI=true",
		"GITHUB_EVENT_NAME="+job.Event, "GITHUB_EVENT_PATH="+filepath.Join(dir, "event.json"),
		"GITHUB_REPOSITORY="+job.Repo.String(), "GITHUB_API_URL="+job.APIURL, "GITHUB_TOKEN="+job.Token,
		"GITHUB_OUTPUT="+filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY="+filepath.Join(dir, "summary.md"),
		"RUNNER_TEMP="+temp, "GITHUB_WORKSPACE="+ws, "GITHUB_REF_NAME="+job.RefName,
		"GITHUB_REF=refs/heads/"+job.RefName, fmt.Sprintf("GITHUB_RUN_ID=%d", job.RunID),
	)
	prefix := fmt.Sprintf("run %d: ", job.RunID)
	out := &prefixed{log: a.log, prefix: prefix}
	cmd.Stdout, cmd.Stderr = out, out
	err = cmd.Run()
	out.flush()
	if summary, _ := os.ReadFile(filepath.Join(dir, "summary.md")); len(summary) > 0 {
		a.log.Printf("%sthe step summary:\n%s", prefix, summary)
	}
	outcome := githubtest.Outcome{Conclusion: "success", Artifacts: map[string][]githubtest.File{}}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		outcome.Conclusion = "failure"
		a.log.Printf("%s%s action exited %d", prefix, a.program, exit.ExitCode())
	case err != nil:
		outcome.Conclusion = "failure"
		a.log.Printf("%s%v", prefix, err)
	}
	sessions, _ := filepath.Glob(filepath.Join(temp, sessionArtifact, "*"))
	for _, path := range sessions {
		data, err := readBounded(path, maxArtifact)
		if err != nil {
			a.log.Printf("%skeeping %s: %v", prefix, path, err)
			continue
		}
		outcome.Artifacts[sessionArtifact] = append(outcome.Artifacts[sessionArtifact], githubtest.File{Name: filepath.Base(path), Data: data})
	}
	a.log.Printf("%sconcluded %s", prefix, outcome.Conclusion)
	return outcome
}

// without is env without the variables whose names start with one of
// prefixes: the run's own are set anew.
func without(env []string, prefixes ...string) []string {
	var out []string
	for _, kv := range env {
		keep := true
		for _, p := range prefixes {
			if strings.HasPrefix(kv, p) {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("longer than %d bytes", limit)
	}
	return data, err
}

// prefixed logs what a run writes, a line at a time, each line prefixed.
type prefixed struct {
	log    *log.Logger
	prefix string
	buf    []byte
}

func (p *prefixed) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		p.print(string(p.buf[:i]))
		p.buf = p.buf[i+1:]
	}
}

// print logs line, but not a mask command: Actions reads those and
// shows them to nobody.
func (p *prefixed) print(line string) {
	if !strings.HasPrefix(line, "::add-mask::") {
		p.log.Print(p.prefix + line)
	}
}

func (p *prefixed) flush() {
	if len(p.buf) > 0 {
		p.print(string(p.buf))
		p.buf = nil
	}
}
