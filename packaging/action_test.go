package packaging

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// The GitHub Action at the repository's top (action.yml), which `uses:
// gemini-ls/gemini-ls@vX.Y.Z` runs, and the workflow /setup-github writes
// (workflowTemplate). actionlint lints workflows, not an action's
// metadata: make actionlint (scripts/actionlint.sh) checks the template
// alone and its `with:` against action.yml's inputs; these tests check
// action.yml's shape by GitHub's rules for a composite action, and run its
// scripts with bash against fakes: a release, gh, the server.

// workflowTemplate is the workflow /setup-github writes, in the checkout.
const workflowTemplate = "internal/conversation/builtin/workflows/gemini-ls.yml"

// actionMetadata is action.yml as GitHub reads a composite action's
// (every key GitHub's metadata syntax gives one: a key it lacks is a typo).
type actionMetadata struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Author      string `yaml:"author"`
	Branding    struct {
		Icon  string `yaml:"icon"`
		Color string `yaml:"color"`
	} `yaml:"branding"`
	Inputs  map[string]actionInput  `yaml:"inputs"`
	Outputs map[string]actionOutput `yaml:"outputs"`
	Runs    struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionInput struct {
	Description string  `yaml:"description"`
	Required    bool    `yaml:"required"`
	Default     *string `yaml:"default"`
}

type actionOutput struct {
	Description string `yaml:"description"`
	Value       string `yaml:"value"`
}

type actionStep struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Shell string            `yaml:"shell"`
	Run   string            `yaml:"run"`
	Uses  string            `yaml:"uses"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
	// The other keys GitHub reads in a composite step, for KnownFields.
	WorkingDirectory string `yaml:"working-directory"`
	ContinueOnError  string `yaml:"continue-on-error"`
}

// The steps the tests run, by name.
const (
	forkStep    = "Refuse a pull request from a fork"
	installStep = "Install gemini-ls"
	runStep     = "Run gemini-ls"
)

// The runner's contract (cmd/gemini-ls's `action`): what it writes to
// GITHUB_OUTPUT, which the action passes on as its own outputs.
var runnerOutputs = []string{"pr-url", "branch", "session-file"}

func readAction(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func parseAction(t *testing.T) actionMetadata {
	t.Helper()
	var a actionMetadata
	if err := yaml.Unmarshal(readAction(t), &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

func (a actionMetadata) step(t *testing.T, name string) actionStep {
	t.Helper()
	for _, s := range a.Runs.Steps {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("action.yml has no step %q", name)
	return actionStep{}
}

var (
	pinnedAction = regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40}$`)
	inputRef     = regexp.MustCompile(`\binputs\.([\w-]+)`)
	stepRef      = regexp.MustCompile(`\bsteps\.([\w-]+)\.outputs\.([\w-]+)`)
)

// actionErrors is what is wrong with action.yml's bytes by GitHub's rules
// for a composite action and this project's: each step a run with its
// shell or a uses pinned by commit, no expression spliced into a script,
// every input used declared and every one declared used, a step's outputs
// read only after it ran, the key given to the step that runs gemini-ls
// alone and masked there before it runs, releases downloaded from this
// repository, and the runner's outputs passed on and its session file
// kept.
func actionErrors(data []byte) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	var a actionMetadata
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&a); err != nil {
		return []string{fmt.Sprintf("action.yml is not an action's metadata: %v", err)}
	}
	if a.Name == "" || a.Description == "" {
		fail("name and description are required")
	}
	if a.Runs.Using != "composite" {
		fail("runs.using is %q, not composite", a.Runs.Using)
	}
	for name, in := range a.Inputs {
		if in.Description == "" {
			fail("input %s has no description", name)
		}
		if in.Required && in.Default != nil {
			fail("input %s is required yet has a default", name)
		}
	}
	ran := map[string]bool{}
	for i, s := range a.Runs.Steps {
		where := fmt.Sprintf("step %d (%s)", i+1, s.Name)
		if s.Name == "" {
			fail("%s has no name", where)
		}
		switch {
		case (s.Run == "") == (s.Uses == ""):
			fail("%s must have either run or uses", where)
		case s.Run != "" && s.Shell != "bash":
			// A composite step must name its shell; bash is the one that
			// reads alike on Linux, macOS and Windows (Git Bash).
			fail("%s runs with shell %q, not bash", where, s.Shell)
		case s.Run != "" && strings.Contains(s.Run, "${{"):
			fail("%s splices an expression into its script: pass it through env", where)
		case s.Uses != "" && !pinnedAction.MatchString(s.Uses):
			fail("%s uses %s, not pinned by a full commit", where, s.Uses)
		}
		text := s.If
		for _, v := range s.Env {
			text += "\n" + v
		}
		for _, v := range s.With {
			text += "\n" + v
		}
		for _, m := range stepRef.FindAllStringSubmatch(text, -1) {
			if !ran[m[1]] {
				fail("%s reads steps.%s before that step ran", where, m[1])
			}
		}
		if s.ID != "" {
			ran[s.ID] = true
		}
	}
	used := map[string]bool{}
	for _, m := range inputRef.FindAllStringSubmatch(string(data), -1) {
		used[m[1]] = true
		if _, ok := a.Inputs[m[1]]; !ok {
			fail("inputs.%s is used but not declared", m[1])
		}
	}
	for name := range a.Inputs {
		if !used[name] {
			fail("input %s is declared but never used", name)
		}
	}

	key, ok := a.Inputs["gemini_api_key"]
	if !ok || !key.Required {
		fail("gemini_api_key must be a required input")
	}
	var keyed []string
	for _, s := range a.Runs.Steps {
		for name, v := range s.Env {
			if strings.Contains(v, "inputs.gemini_api_key") {
				keyed = append(keyed, s.Name+"'s "+name)
			}
		}
		for name, v := range s.With {
			if strings.Contains(v, "inputs.gemini_api_key") {
				keyed = append(keyed, s.Name+"'s "+name)
			}
		}
		if s.Name == runStep {
			mask := strings.Index(s.Run, `echo "::add-mask::$GEMINI_API_KEY"`)
			run := strings.Index(s.Run, `"$GEMINI_LS" action`)
			if mask < 0 || run < 0 || mask > run {
				fail("%s must mask GEMINI_API_KEY, then run \"$GEMINI_LS\" action", runStep)
			}
		}
	}
	if !slices.Equal(keyed, []string{runStep + "'s GEMINI_API_KEY"}) {
		fail("the key must reach %s's GEMINI_API_KEY alone, and reaches %v", runStep, keyed)
	}

	var install, run, keep *actionStep
	for i, s := range a.Runs.Steps {
		switch {
		case s.Name == installStep:
			install = &a.Runs.Steps[i]
		case s.Name == runStep:
			run = &a.Runs.Steps[i]
		case strings.HasPrefix(s.Uses, "actions/upload-artifact@"):
			keep = &a.Runs.Steps[i]
		}
	}
	if install == nil || run == nil || keep == nil {
		return append(errs, "action.yml must install gemini-ls, run it and upload its session")
	}
	if got, want := install.Env["GEMINI_LS_RELEASES"], repository+"/releases/download"; got != want {
		fail("%s downloads from %q, not %q", installStep, got, want)
	}
	if run.ID != "run" || run.Env["GEMINI_LS"] != "${{ steps."+install.ID+".outputs.path }}" {
		fail("%s must have id run and run the server %s installed", runStep, installStep)
	}
	for _, name := range runnerOutputs {
		if got, want := a.Outputs[name].Value, "${{ steps.run.outputs."+name+" }}"; got != want {
			fail("output %s is %q, not %q", name, got, want)
		}
	}
	if keep.With["path"] != "${{ steps.run.outputs.session-file }}" || !strings.Contains(keep.If, "always()") {
		fail("the session file must be uploaded whatever gemini-ls ended with")
	}
	return errs
}

// TestActionMetadata: action.yml is a composite action by GitHub's rules,
// its key reaches one step, masked there first, and its outputs are the
// runner's.
func TestActionMetadata(t *testing.T) {
	good := readAction(t)
	testMutations(t, func() []byte { return slices.Clone(good) }, actionErrors, []mutation[[]byte]{
		{"not composite", editBytes("using: composite", "using: node20"), `runs.using is "node20"`},
		{"an unknown key", editBytes("runs:\n", "run:\n  x: 1\nruns:\n"), "not an action's metadata"},
		{"a step without its shell", editBytes("      shell: bash\n      env:\n        VERSION:", "      env:\n        VERSION:"),
			`runs with shell "", not bash`},
		{"an expression in a script", editBytes(`"$GEMINI_LS" action`, `"$GEMINI_LS" action --model '${{ inputs.model }}'`),
			"splices an expression"},
		{"an action pinned by tag", editBytes("actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f", "actions/upload-artifact@v7"),
			"not pinned by a full commit"},
		{"an input not declared", editBytes("${{ inputs.model }}", "${{ inputs.modle }}"), "inputs.modle is used but not declared"},
		{"an input never used", editBytes("        INPUT_SESSION: ${{ inputs.session }}\n", ""), "input session is declared but never used"},
		{"the key to another step", editBytes("        VERSION: ${{ inputs.version }}\n", "        VERSION: ${{ inputs.version }}\n        KEY: ${{ inputs.gemini_api_key }}\n"),
			"the key must reach"},
		{"the key not masked", editBytes(`echo "::add-mask::$GEMINI_API_KEY"`, `echo "masked"`), "must mask GEMINI_API_KEY"},
		{"the key optional", editBytes("    required: true\n", "    required: false\n"), "gemini_api_key must be a required input"},
		{"another release", editBytes("https://github.com/gemini-ls/gemini-ls/releases", "https://github.com/someone/else/releases"),
			"downloads from"},
		{"an output not the runner's", editBytes("steps.run.outputs.pr-url", "steps.run.outputs.pr"), "output pr-url is"},
		{"a step's output read before it ran", editBytes("      id: install\n", ""), "reads steps.install before that step ran"},
		{"the session kept on success alone", editBytes("if: always() && ", "if: "), "uploaded whatever gemini-ls ended with"},
	})
}

// editBytes is edit for one file's bytes.
func editBytes(old, new string) func([]byte) []byte {
	return func(data []byte) []byte { return []byte(replace(old, new)(string(data))) }
}

// runnerOf is the runner (RUNNER_OS, RUNNER_ARCH) a platform make dist
// builds for is, as GitHub names them.
func runnerOf(p platform) (string, string) {
	return map[string]string{"linux": "Linux", "darwin": "macOS", "windows": "Windows"}[p.goos],
		map[string]string{"amd64": "X64", "arm64": "ARM64"}[p.goarch]
}

// fakeRelease serves release v<version>'s SHA256SUMS and archives at
// /v<version>/, and records what was asked.
type fakeRelease struct {
	files map[string][]byte
	mu    sync.Mutex
	asked []string
}

func (f *fakeRelease) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.asked = append(f.asked, r.URL.Path)
		f.mu.Unlock()
		data, ok := f.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// fakeServer is the script an archive of p carries as its server: it
// says which it is when asked its version.
func fakeServer(p platform) []byte {
	return []byte("#!/bin/sh\necho \"gemini-ls 0.0.0 for " + p.goos + "/" + p.goarch + "\"\n")
}

// archiveOf is p's archive as make dist lays it out, holding body as the
// server.
func archiveOf(t *testing.T, p platform, body []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if p.goos == "windows" {
		zw := zip.NewWriter(&buf)
		h := &zip.FileHeader{Name: p.exe(), Method: zip.Deflate}
		h.SetMode(0o755)
		w, err := zw.CreateHeader(h)
		if err == nil {
			_, err = w.Write(body)
		}
		if err == nil {
			err = zw.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, data := range map[string][]byte{p.exe(): body, "LICENSE": []byte("license\n")} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	return buf.Bytes()
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// stepRun is what running a step's script printed and its GITHUB_OUTPUT
// and GITHUB_STEP_SUMMARY held.
type stepRun struct {
	out, output, summary string
	err                  error
}

// runActionStep runs script as GitHub runs a composite step's `shell:
// bash` (bash --noprofile --norc -eo pipefail FILE), with env alone and
// PATH path, in a fresh RUNNER_TEMP.
func runActionStep(t *testing.T, script string, env map[string]string, path string) stepRun {
	t.Helper()
	platformtest.UnixShell(t)
	bash := platformtest.Tool(t, "bash")
	dir := t.TempDir()
	file := filepath.Join(dir, "step.sh")
	if err := os.WriteFile(file, []byte(script), 0o666); err != nil {
		t.Fatal(err)
	}
	output, summary := filepath.Join(dir, "output"), filepath.Join(dir, "summary")
	cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", file)
	cmd.Env = []string{"PATH=" + path, "RUNNER_TEMP=" + filepath.Join(dir, "temp"), "GITHUB_OUTPUT=" + output, "GITHUB_STEP_SUMMARY=" + summary}
	if err := os.Mkdir(filepath.Join(dir, "temp"), 0o777); err != nil {
		t.Fatal(err)
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	read := func(p string) string { data, _ := os.ReadFile(p); return string(data) }
	return stepRun{out: string(out), output: read(output), summary: read(summary), err: err}
}

// toolsPath is a folder holding links to the named programs alone, to be
// the whole PATH of a step: a runner that lacks the others.
func toolsPath(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range names {
		if err := os.Symlink(platformtest.Tool(t, name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The tools the install step runs, but sha256sum, which a macOS lacks.
var installTools = []string{"curl", "awk", "rm", "mkdir", "tar", "gzip", "unzip", "shasum"}

// TestActionInstallsTheServerOfEachRunner runs the install step as each
// runner make dist builds for, against a fake release: it downloads the
// archive make dist names for that platform, checks it against
// SHA256SUMS, and says where the server is, which then runs. The macOS
// runs have no sha256sum (shasum checks), as a Mac has none.
func TestActionInstallsTheServerOfEachRunner(t *testing.T) {
	a := parseAction(t)
	script := a.step(t, installStep).Run
	version := sourceVersion(t)
	platforms := distPlatforms(t)
	release := &fakeRelease{files: map[string][]byte{}}
	sums := ""
	for _, p := range platforms {
		archive := archiveOf(t, p, fakeServer(p))
		release.files["/v"+version+"/"+p.archive()] = archive
		sums += sha256Hex(archive) + "  " + p.archive() + "\n"
	}
	release.files["/v"+version+"/SHA256SUMS"] = []byte(sums)
	url := release.start(t)
	full := os.Getenv("PATH")
	for _, p := range platforms {
		osName, arch := runnerOf(p)
		if osName == "" || arch == "" {
			t.Fatalf("make dist builds %s/%s, which no GitHub runner is named for here", p.goos, p.goarch)
		}
		t.Run(osName+"/"+arch, func(t *testing.T) {
			path := full
			if p.goos == "darwin" {
				path = toolsPath(t, installTools...)
			}
			release.mu.Lock()
			release.asked = nil
			release.mu.Unlock()
			r := runActionStep(t, script, map[string]string{
				"RUNNER_OS": osName, "RUNNER_ARCH": arch,
				"VERSION": "v" + version, "GEMINI_LS_RELEASES": url,
			}, path)
			if r.err != nil {
				t.Fatalf("the install step failed: %v\n%s", r.err, r.out)
			}
			exe, ok := strings.CutPrefix(strings.TrimSpace(r.output), "path=")
			if !ok || filepath.Base(exe) != p.exe() {
				t.Fatalf("GITHUB_OUTPUT holds %q, not path=…/%s", r.output, p.exe())
			}
			if got, err := os.ReadFile(exe); err != nil || !bytes.Equal(got, fakeServer(p)) {
				t.Errorf("%s holds %q (%v), not the archive's server", exe, got, err)
			}
			if want := "gemini-ls 0.0.0 for " + p.goos + "/" + p.goarch; !strings.Contains(r.out, want) {
				t.Errorf("the step did not run the server's --version (%q):\n%s", want, r.out)
			}
			release.mu.Lock()
			defer release.mu.Unlock()
			if want := []string{"/v" + version + "/SHA256SUMS", "/v" + version + "/" + p.archive()}; !slices.Equal(release.asked, want) {
				t.Errorf("the step asked for %v, not %v", release.asked, want)
			}
		})
	}
}

// The install step installs nothing and says why when the archive is not
// the one SHA256SUMS names, SHA256SUMS names no archive for the runner,
// the runner is one no release is built for, or the version is not one.
func TestActionInstallRefuses(t *testing.T) {
	a := parseAction(t)
	script := a.step(t, installStep).Run
	p := platform{"linux", "amd64"}
	archive := archiveOf(t, p, fakeServer(p))
	for _, c := range []struct {
		name, sums, arch, version, want string
	}{
		{"another archive", strings.Repeat("0", 64) + "  " + p.archive() + "\n", "X64", "0.1.0",
			"gemini-ls-linux-amd64.tar.gz's sha256 is " + sha256Hex(archive) + ", but the release's SHA256SUMS says " + strings.Repeat("0", 64) + ": not installed"},
		{"no sum for it", sha256Hex(archive) + "  gemini-ls-linux-arm64.tar.gz\n", "X64", "0.1.0", "the SHA256SUMS of v0.1.0 names no gemini-ls-linux-amd64.tar.gz"},
		{"32-bit ARM", sha256Hex(archive) + "  " + p.archive() + "\n", "ARM", "0.1.0",
			"gemini-ls has no release for Linux on ARM: it is built for Linux, macOS and Windows on X64 and ARM64"},
		{"not a version", sha256Hex(archive) + "  " + p.archive() + "\n", "X64", "latest", `version is "latest", not X.Y.Z`},
	} {
		t.Run(c.name, func(t *testing.T) {
			release := &fakeRelease{files: map[string][]byte{
				"/v" + c.version + "/SHA256SUMS":     []byte(c.sums),
				"/v" + c.version + "/" + p.archive(): archive,
			}}
			r := runActionStep(t, script, map[string]string{
				"RUNNER_OS": "Linux", "RUNNER_ARCH": c.arch, "VERSION": c.version, "GEMINI_LS_RELEASES": release.start(t),
			}, os.Getenv("PATH"))
			if r.err == nil {
				t.Fatalf("the install step succeeded:\n%s", r.out)
			}
			if !strings.Contains(r.out, "::error::"+c.want) {
				t.Errorf("the step said:\n%s\nwant ::error::%s", r.out, c.want)
			}
			if r.output != "" {
				t.Errorf("GITHUB_OUTPUT holds %q", r.output)
			}
		})
	}
}

// fakeProgram is a folder holding name, a script printing its arguments
// and then body's output, on PATH after the folder.
func fakeProgram(t *testing.T, name, body string) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"" + name + " $*\" >>\"$FAKE_LOG\"\n" + body + "\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A comment on a pull request whose branch is in a fork, or in a fork
// since deleted, is refused before anything runs with the key: the step
// fails and says so in the log and the summary. This repository's own
// pull request goes on. The head is asked of GitHub's API (a fake gh).
func TestActionRefusesAForksPullRequest(t *testing.T) {
	a := parseAction(t)
	step := a.step(t, forkStep)
	if step.Env["NUMBER"] == "" || step.Env["GH_TOKEN"] != "${{ inputs.github_token }}" {
		t.Fatalf("%s must ask with the action's token about the event's pull request: env %v", forkStep, step.Env)
	}
	gh := fakeProgram(t, "gh", `printf '%s\n' "$FAKE_HEAD"`)
	for _, c := range []struct {
		name, head string
		refused    bool
	}{
		{"a fork", "mallory/widgets", true},
		{"a deleted fork", "", true},
		{"this repository", "acme/widgets", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "log")
			r := runActionStep(t, step.Run, map[string]string{
				"GITHUB_REPOSITORY": "acme/widgets", "NUMBER": "7", "FAKE_HEAD": c.head, "FAKE_LOG": log,
			}, gh+string(os.PathListSeparator)+os.Getenv("PATH"))
			if asked, _ := os.ReadFile(log); string(asked) != "gh api repos/acme/widgets/pulls/7 --jq .head.repo.full_name // \"\"\n" {
				t.Errorf("gh was asked %q", asked)
			}
			if !c.refused {
				if r.err != nil || r.summary != "" {
					t.Errorf("this repository's pull request was refused: %v\n%s%s", r.err, r.out, r.summary)
				}
				return
			}
			want := "gemini-ls does not work on pull request #7: its branch is in " + cmp.Or(c.head, "a deleted fork") +
				", not acme/widgets, and a fork's code never runs with this repository's secrets."
			if r.err == nil || !strings.Contains(r.out, "::error::"+want) || strings.TrimSpace(r.summary) != want {
				t.Errorf("not refused as it should be: %v\nlog:\n%s\nsummary:\n%s", r.err, r.out, r.summary)
			}
		})
	}
}

// The run step masks the key before gemini-ls starts, gives it the key
// and the token, and runs `gemini-ls action`; without a key it runs
// nothing and says which secret to set.
func TestActionRunMasksTheKeyFirst(t *testing.T) {
	a := parseAction(t)
	step := a.step(t, runStep)
	for name, want := range map[string]string{
		"GEMINI_API_KEY": "${{ inputs.gemini_api_key }}",
		"GITHUB_TOKEN":   "${{ inputs.github_token }}",
		"GEMINI_MODEL":   "${{ inputs.model }}",
	} {
		if step.Env[name] != want {
			t.Errorf("%s's %s is %q, not %q", runStep, name, step.Env[name], want)
		}
	}
	bin := fakeProgram(t, "gemini-ls", `echo "ran with key $GEMINI_API_KEY and token $GITHUB_TOKEN"`)
	log := filepath.Join(t.TempDir(), "log")
	env := map[string]string{
		"GEMINI_LS": filepath.Join(bin, "gemini-ls"), "GEMINI_API_KEY": "sekrit-key", "GITHUB_TOKEN": "ghs_token", "FAKE_LOG": log,
	}
	r := runActionStep(t, step.Run, env, os.Getenv("PATH"))
	if r.err != nil {
		t.Fatalf("the run step failed: %v\n%s", r.err, r.out)
	}
	if want := "::add-mask::sekrit-key\nran with key sekrit-key and token ghs_token\n"; r.out != want {
		t.Errorf("the step printed %q, want %q: the mask first", r.out, want)
	}
	if asked, _ := os.ReadFile(log); string(asked) != "gemini-ls action\n" {
		t.Errorf("gemini-ls was run as %q", asked)
	}

	os.Remove(log)
	env["GEMINI_API_KEY"] = ""
	r = runActionStep(t, step.Run, env, os.Getenv("PATH"))
	if r.err == nil || !strings.Contains(r.out, "::error::gemini_api_key is empty: set the repository secret GEMINI_API_KEY") {
		t.Errorf("without a key: %v\n%s", r.err, r.out)
	}
	if _, err := os.Stat(log); err == nil {
		t.Error("gemini-ls ran without a key")
	}
}
