package sessionstore

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A session file saved for another root (a runner's checkout) is
// imported into a store of another project and home, and loads there
// as it was saved; imported again, it replaces its copy, not adds one.
func TestImportAnotherMachinesSession(t *testing.T) {
	runner, runnerRoot := sharedStore(t)
	id := NewID()
	turn := Turn{Meta: sharedMeta(runnerRoot, id, 1), History: sharedHistory(1)}
	mustAppend(t, runner, turn)
	saved := chatsFiles(t, runner)
	if len(saved) != 1 {
		t.Fatalf("the runner saved %q", saved)
	}
	artifact := filepath.Join(t.TempDir(), filepath.Base(saved[0]))
	data, err := os.ReadFile(saved[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(artifact, data, 0o644); err != nil {
		t.Fatal(err)
	}

	local, _ := sharedStore(t)
	for range 2 {
		got, err := local.Import(context.Background(), artifact)
		if err != nil || got != id {
			t.Fatalf("Import = %q, %v; want %q", got, err, id)
		}
	}
	if files := chatsFiles(t, local); len(files) != 1 {
		t.Fatalf("the project holds %q, want the one file", files)
	}
	snap := mustLoad(t, local, id)
	if !reflect.DeepEqual(snap.History, turn.History) {
		t.Errorf("the imported session's history differs:\n%v\nwant\n%v", snap.History, turn.History)
	}
}

// What is not a session file is refused, saying which file, and nothing
// is written into the project.
func TestImportRefusesWhatIsNoSession(t *testing.T) {
	local, _ := sharedStore(t)
	dir := t.TempDir()
	for name, content := range map[string]string{
		"notes.jsonl":  "just text\n",
		"badid.jsonl":  `{"sessionId":"../../x","projectHash":"h"}` + "\n",
		"empty.jsonl":  "",
		"object.jsonl": `{"messages":[]}` + "\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := local.Import(context.Background(), path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err %v, want a refusal naming the file", name, err)
		}
	}
	if _, err := local.Import(context.Background(), filepath.Join(dir, "missing.jsonl")); err == nil {
		t.Error("a missing file was imported")
	}
	if files := chatsFiles(t, local); len(files) != 0 {
		t.Errorf("the project holds %q after refusals", files)
	}
}
