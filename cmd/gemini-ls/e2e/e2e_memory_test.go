package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
	"github.com/gemini-ls/gemini-ls/internal/geminidir"
)

// privateMemory writes MEMORY.md and a sibling note in project's private
// memory under home, the directory claimed as Gemini CLI claims it, and
// returns the index's path.
func privateMemory(t *testing.T, home, project, index, note string) string {
	t.Helper()
	dirs, err := geminidir.New(filepath.Join(home, ".gemini"), project)
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := dirs.FindOrClaim()
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, tmp, map[string]string{"memory/MEMORY.md": index, "memory/build.md": note})
	return filepath.Join(tmp, "memory", "MEMORY.md")
}

// contextFilesTag opens the part of a user content that gives the model
// the memory (the GEMINI.md files, MEMORY.md): a part of the session's
// first user content, and of a later prompt's when the memory changed.
// The system instruction holds none of it, so that an edit leaves the
// start of every request, which the model's cache keeps, as it was.
const contextFilesTag = "<context_files>"

func isContextFiles(p *genai.Part) bool { return strings.HasPrefix(p.Text, contextFilesTag) }

// givenMemory is the memory as request r last gives it to the model: the
// text of the last <context_files> part of its user contents, "" when it
// has none.
func givenMemory(r geminitest.Request) string {
	for i := len(r.Contents) - 1; i >= 0; i-- {
		c := r.Contents[i]
		for j := len(c.Parts) - 1; c.Role == genai.RoleUser && j >= 0; j-- {
			if isContextFiles(c.Parts[j]) {
				return c.Parts[j].Text
			}
		}
	}
	return ""
}

// firstMemory is the memory r's first user content gives the model, ""
// when it gives none.
func firstMemory(r geminitest.Request) string {
	if len(r.Contents) == 0 {
		return ""
	}
	return givenMemory(geminitest.Request{Contents: r.Contents[:1]})
}

// userProjectMemory is the <user_project_memory> element of a system
// instruction or of the memory given, "" when it has none.
func userProjectMemory(system string) string {
	start := strings.Index(system, "<user_project_memory>")
	end := strings.Index(system, "</user_project_memory>")
	if start < 0 || end < start {
		return ""
	}
	return system[start : end+len("</user_project_memory>")]
}

// A headless run sends the private MEMORY.md in the first user content
// (not the system instruction), framed as 0.61 frames it, names its path
// for the model to write to in the system instruction, and leaves the
// sibling note it points at to be read on demand.
func TestRunSendsPrivateMemoryIndex(t *testing.T) {
	h := newHeadless(t, map[string]string{"GEMINI.md": "Project rule: use tabs.\n"}, geminitest.TextTurn("ok"))
	home := envValue(h.env, "HOME")
	index := privateMemory(t, home, h.root, "- Builds: see build.md\n", "Run make -j8 before committing.\n")

	h.run("run", "-p", "hi").wantExit(t, 0)

	reqs := h.model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	system, memory := systemText(t, reqs, 0), firstMemory(reqs[0])
	want := "<user_project_memory>\n--- Private Project Memory Index (private, not committed to repo) ---\n" +
		"--- Context from: " + index + " ---\n- Builds: see build.md\n--- End of Context from: " + index + " ---\n" +
		"--- End Private Project Memory Index ---\n</user_project_memory>"
	if got := userProjectMemory(memory); got != want {
		t.Errorf("private memory in the first user content:\n%s\nwant:\n%s\nmemory given:\n%s", got, want, memory)
	}
	if !strings.Contains(memory, "Project rule: use tabs.") {
		t.Errorf("the project's GEMINI.md is gone:\n%s", memory)
	}
	if strings.Contains(system, "<user_project_memory>") || strings.Contains(system, "Project rule: use tabs.") {
		t.Errorf("the memory is in the system instruction:\n%s", system)
	}
	if !strings.Contains(system, "**Private Project Memory** (`"+filepath.ToSlash(index)+"`)") {
		t.Errorf("the prompt does not name the index's path %s:\n%s", index, system)
	}
	if firstDeclares(h.model, "save_memory") {
		t.Error("save_memory is declared; 0.61 has no such tool")
	}
	if body := string(reqs[0].Body); strings.Contains(body, "make -j8") {
		t.Errorf("the sibling note was sent:\n%s", body)
	}
}

// Gemini CLI 0.61 and gemini-ls, given the same MEMORY.md where 0.61
// keeps it, both send it in the same words, 0.61 in its system
// instruction, gemini-ls in the first user content (where its system
// instruction stays the same whatever the memory): a user switching
// between them sees the same memory.
func TestPrivateMemoryAsGeminiCLISendsIt(t *testing.T) {
	project := t.TempDir()
	if p, err := filepath.EvalSymlinks(project); err == nil {
		project = p
	}
	home := geminiCLIHome(t, project)

	// 0.61 claims the project's directory first; the index goes there.
	first := geminitest.NewTestServer(t, geminitest.TextTurn("ok"))
	runGeminiCLI(t, home, project, first.URL)
	index := memoryIndexGeminiCLIMade(t, home, project)
	writeFiles(t, filepath.Dir(index), map[string]string{"MEMORY.md": "- Deploys: see deploy.md\n", "deploy.md": "Deploy with ./ship --prod.\n"})

	theirs := geminitest.NewTestServer(t, geminitest.TextTurn("ok"))
	runGeminiCLI(t, home, project, theirs.URL)
	h := newHeadless(t, nil, geminitest.TextTurn("ok"))
	env := append(h.withoutEnv("HOME"), "HOME="+home, "GEMINI_MODEL=")
	h.runIn(project, env, "run", "-p", "hi").wantExit(t, 0)

	theirSystem := theirs.Requests()[0].SystemInstruction.Parts[0].Text
	ours := firstMemory(h.model.Requests()[0])
	want := userProjectMemory(theirSystem)
	if want == "" || !strings.Contains(want, "- Deploys: see deploy.md") {
		t.Fatalf("0.61 did not send the index:\n%s", theirSystem)
	}
	if got := userProjectMemory(ours); got != want {
		t.Errorf("gemini-ls sends:\n%s\n0.61 sends:\n%s", got, want)
	}
	// Neither declares save_memory: the model edits the files itself.
	for who, model := range map[string]*geminitest.Server{"0.61": theirs, "gemini-ls": h.model} {
		if firstDeclares(model, "save_memory") {
			t.Errorf("%s declares save_memory", who)
		}
	}
	for who, body := range map[string][]byte{"0.61": theirs.Requests()[0].Body, "gemini-ls": h.model.Requests()[0].Body} {
		if bytes.Contains(body, []byte("./ship --prod")) {
			t.Errorf("%s sent the sibling note", who)
		}
	}
}

func runGeminiCLI(t *testing.T, home, project, url string, args ...string) {
	t.Helper()
	cmd := geminicli.Command(t, home, project, url, append(args, "-p", "hi", "-o", "text")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("gemini: %v\n%s", err, stderr.String())
	}
}

// memoryIndexGeminiCLIMade is MEMORY.md's path in the project directory
// 0.61 claimed under home (the tmp directory whose .project_root names
// project), found without gemini-ls's code.
func memoryIndexGeminiCLIMade(t *testing.T, home, project string) string {
	t.Helper()
	markers, err := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", ".project_root"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range markers {
		if b, err := os.ReadFile(m); err == nil && strings.TrimSpace(string(b)) == project {
			return filepath.Join(filepath.Dir(m), "memory", "MEMORY.md")
		}
	}
	t.Fatalf("Gemini CLI claimed no directory for %s under %s (markers %v)", project, home, markers)
	return ""
}

// The model keeps a fact in the private memory by writing MEMORY.md at
// the path the prompt gives (in yolo: an edit under .gemini is otherwise
// asked about); the next run is given it.
func TestRunWritesThePrivateMemory(t *testing.T) {
	h := newHeadless(t, nil)
	dirs, err := geminidir.New(filepath.Join(envValue(h.env, "HOME"), ".gemini"), h.root)
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := dirs.FindOrClaim()
	if err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(tmp, "memory", "MEMORY.md")
	h.model.Push(
		geminitest.CallTurn(geminitest.Call("write_file", map[string]any{"file_path": index, "content": "- Prefers table-driven tests\n"})),
		geminitest.TextTurn("noted"),
		geminitest.TextTurn("hello again"),
	)
	h.run("run", "--approval-mode", "yolo", "-p", "remember that I prefer table-driven tests").wantExit(t, 0)
	if fr := h.responses(1); len(fr) != 1 || responseError(fr[0]) != "" {
		t.Fatalf("write_file answered %+v", fr)
	}
	if got, err := os.ReadFile(index); err != nil || string(got) != "- Prefers table-driven tests\n" {
		t.Fatalf("MEMORY.md = %q, %v", got, err)
	}
	h.run("run", "-p", "hi").wantExit(t, 0)
	reqs := h.model.Requests()
	if memory := firstMemory(reqs[len(reqs)-1]); !strings.Contains(userProjectMemory(memory), "- Prefers table-driven tests") {
		t.Errorf("the next run was not given the index:\n%s", memory)
	}
}

// What the prompt says of the memory files is Gemini CLI 0.61's, word
// for word, paths included, as 0.61 tells a Gemini 3 model: 0.61 makes
// it a bullet of its tool usage section, gemini-ls a section of its own.
// Given the same home, both name the same private MEMORY.md.
func TestMemoryPromptAsGeminiCLIs(t *testing.T) {
	project := t.TempDir()
	if p, err := filepath.EvalSymlinks(project); err == nil {
		project = p
	}
	home := geminiCLIHome(t, project)
	theirs := geminitest.NewTestServer(t, geminitest.TextTurn("ok"))
	runGeminiCLI(t, home, project, theirs.URL, "-m", "gemini-3-pro-preview")
	h := newHeadless(t, nil, geminitest.TextTurn("ok"))
	env := append(h.withoutEnv("HOME"), "HOME="+home, "GEMINI_MODEL=")
	h.runIn(project, env, "run", "-p", "hi").wantExit(t, 0)

	// 0.61's lines are indented under its bullet; gemini-ls's, under a
	// heading, are not.
	want := strings.ReplaceAll(memoryFilesText(t, theirs.Requests()[0].SystemInstruction.Parts[0].Text, "- **Instruction and Memory Files:** "), "\n  ", "\n")
	got := memoryFilesText(t, h.model.Requests()[0].SystemInstruction.Parts[0].Text, "# Instruction and Memory Files\n")
	if got != want {
		t.Errorf("gemini-ls says:\n%s\n0.61 says:\n%s", got, want)
	}
}

// memoryFilesText is the memory section of system, from after heading to
// the end of its last sentence.
func memoryFilesText(t *testing.T, system, heading string) string {
	t.Helper()
	start := strings.Index(system, heading)
	if start < 0 {
		t.Fatalf("no %q in:\n%s", heading, system)
	}
	const last = "these files are loaded into every session and must stay lean."
	end := strings.Index(system[start:], last)
	if end < 0 {
		t.Fatalf("the memory section does not end as 0.61's:\n%s", system[start:])
	}
	return system[start+len(heading) : start+end+len(last)]
}
