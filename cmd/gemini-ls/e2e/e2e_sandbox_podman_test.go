//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// A headless run sandboxed by a real podman (sandboxtest.Podman), in an
// image without the host's C library whose bash is /bin/bash alone: the
// run's commands share one container, where gemini-ls, static, is the
// supervisor; each command starts afresh (its environment, directory and
// background children do not reach the next); the workspace is written,
// the network is off; a command that kills the supervisor ends the
// container, its call says so, and the next command runs in a new one;
// no container is left after the run.
func TestRunPodmanSandboxKeepsOneContainerARun(t *testing.T) {
	image, podmanEnv := sandboxtest.Podman(t)
	h := newHeadless(t, nil,
		shellCall(`echo "in $SANDBOX"; echo "host=$(hostname)"; echo w > w.txt; export LEAK=1; cd /; sleep 300 & echo started`, nil),
		shellCall(`echo "leak=${LEAK-none} pwd=$PWD"; echo "host=$(hostname)"; pgrep sleep || echo no sleep; ls -d /usr/bin/bash 2>/dev/null || echo no /usr/bin/bash; exec 3<>/dev/tcp/1.1.1.1/53 2>/dev/null || echo network off`, nil),
		shellCall(`kill -9 $PPID; sleep 5`, nil),
		shellCall(`echo "host=$(hostname)"; echo again`, nil),
		geminitest.TextTurn("Done."))
	env := append(append(h.env, trustTheWorkspace()...), podmanEnv...)
	env = append(env, "GEMINI_SANDBOX=podman", "GEMINI_SANDBOX_IMAGE="+image)
	r := h.runIn(h.root, env, "run", "--approval-mode", "yolo", "-p", "run them")
	r.wantExit(t, 0)
	if !strings.Contains(r.stderr, "gemini-ls: sandbox: podman") {
		t.Errorf("stderr does not say the run is sandboxed by podman:\n%s", r.stderr)
	}
	outputs := make([]string, 5)
	for i := 1; i <= 4; i++ {
		fr := h.responses(i)
		if len(fr) != 1 {
			t.Fatalf("request %d: %d function responses, want 1", i, len(fr))
		}
		outputs[i] = responseOutput(fr[0]) + responseError(fr[0])
	}
	// A container's host name is its id.
	host := regexp.MustCompile(`host=\w+`)
	first, second, fourth := host.FindString(outputs[1]), host.FindString(outputs[2]), host.FindString(outputs[4])
	if first == "" || first != second {
		t.Errorf("the first two commands ran in containers %q and %q, want one:\n%s\n%s", first, second, outputs[1], outputs[2])
	}
	if fourth == "" || fourth == first {
		t.Errorf("the command after the container's end ran in %q, want a new one, not %q:\n%s", fourth, first, outputs[4])
	}
	for i, want := range map[int][]string{
		1: {"in gemini-ls-podman", "started"},
		2: {"leak=none pwd=" + h.root + "\n", "no sleep", "no /usr/bin/bash", "network off"},
		3: {`in the sandbox: the sandbox ended (exit status 137)`},
		4: {"again"},
	} {
		for _, w := range want {
			if !strings.Contains(outputs[i], w) {
				t.Errorf("command %d's result lacks %q:\n%s", i, w, outputs[i])
			}
		}
	}
	if !strings.HasSuffix(outputs[3], "(exit status 137)") {
		t.Errorf("the killed container's call says more than how it ended: %q", outputs[3])
	}
	if got := h.disk("w.txt"); got != "w\n" {
		t.Errorf("w.txt = %q, want the container's write", got)
	}
	ps, err := exec.CommandContext(t.Context(), "podman", "ps", "--all", "--quiet", "--filter", "ancestor="+image).CombinedOutput()
	if err != nil || strings.TrimSpace(string(ps)) != "" {
		t.Errorf("containers left after the run: %v %q", err, ps)
	}
}

// A headless run, by a user whose podman runs rootless, as most users'
// does, and as the docker command (podman-docker's): the sandbox's
// commands run as that user, and what they write in the workspace is the
// user's, the files and directories they make and the ones they remove.
// Without --userns=keep-id, the container's user is one of the user's
// subordinate ids, which may not write the workspace (0.61's
// google-gemini/gemini-cli#29338).
func TestRunRootlessPodmanSandboxWritesAsTheUser(t *testing.T) {
	r := sandboxtest.RootlessPodman(t)
	bin := filepath.Join(r.Dir, "gemini-ls")
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	// podman-docker's docker.
	shim := filepath.Join(r.Dir, "podman-docker")
	writeFiles(t, shim, map[string]string{"docker": "#!/bin/sh\nexec podman \"$@\"\n"})
	if err := os.Chmod(filepath.Join(shim, "docker"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"podman", "docker"} {
		t.Run(name, func(t *testing.T) {
			ws := filepath.Join(r.Dir, "ws-"+name)
			writeFiles(t, ws, map[string]string{"old.txt": "old\n"})
			trustFolder(t, filepath.Join(r.Dir, "home"), ws)
			r.Chown(t, r.Dir)
			model := geminitest.NewTestServer(t,
				shellCall(`echo "uid=$(id -u) in $SANDBOX"; echo w > w.txt && mkdir d && echo f > d/f && rm old.txt && echo wrote`, nil),
				geminitest.TextTurn("Done."))
			cmd := r.Command(t, bin, "run", "--approval-mode", "yolo", "-p", "write them")
			cmd.Dir = ws
			cmd.Env = append(cmd.Env, "GOOGLE_GEMINI_BASE_URL="+model.URL, "GEMINI_API_KEY=test-key", pinnedModel,
				"GEMINI_SANDBOX="+name, "GEMINI_SANDBOX_IMAGE="+r.Image)
			if name == "docker" {
				cmd.Env = append(cmd.Env, "PATH="+shim+string(os.PathListSeparator)+sandboxtest.RealPath())
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("gemini-ls run as %s: %v\n%s", sandboxtest.RootlessUser, err, out)
			}
			h := &headless{t: t, model: model}
			fr := h.responses(1)
			if len(fr) != 1 {
				t.Fatalf("%d function responses, want 1", len(fr))
			}
			result := responseOutput(fr[0]) + responseError(fr[0])
			for _, want := range []string{fmt.Sprintf("uid=%d in gemini-ls-%s\n", r.UID, name), "wrote"} {
				if !strings.Contains(result, want) {
					t.Errorf("the command's result lacks %q:\n%s", want, result)
				}
			}
			for _, file := range []string{"w.txt", "d", "d/f"} {
				info, err := os.Stat(filepath.Join(ws, file))
				if err != nil {
					t.Errorf("%s: %v", file, err)
					continue
				}
				if st := info.Sys().(*syscall.Stat_t); int(st.Uid) != r.UID || int(st.Gid) != r.GID {
					t.Errorf("%s is owned by %d:%d, want the user's %d:%d", file, st.Uid, st.Gid, r.UID, r.GID)
				}
			}
			if _, err := os.Stat(filepath.Join(ws, "old.txt")); !os.IsNotExist(err) {
				t.Errorf("old.txt was not removed: %v", err)
			}
		})
	}
}
