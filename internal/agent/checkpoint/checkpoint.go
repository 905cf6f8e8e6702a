package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/geminidir"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

const (
	// gitTimeout bounds a snapshot or a restore's reading of one: a
	// workspace too big to commit in that time is not checkpointed.
	gitTimeout = 2 * time.Minute
	// maxFileSize bounds a checkpoint file read.
	maxFileSize    = 64 << 20
	checkpointsDir = "checkpoints"
	suffix         = ".json"
)

// ErrNoCheckpoint is wrapped by Load's error for a name no checkpoint has.
var ErrNoCheckpoint = errors.New("no such checkpoint")

// ErrNoGit is why no checkpoint can be taken or restored where git is
// not installed (as on many Windows machines): the shadow repository is
// git's. Gemini CLI says as much and asks to install Git or disable
// checkpointing.
var ErrNoGit = errors.New("checkpointing needs Git, which is not installed: install Git, or disable checkpointing (general.checkpointing.enabled)")

// File is a checkpoint file's content, as Gemini CLI's ToolCallData
// (packages/core/src/utils/checkpointUtils.ts). Gemini CLI's own
// history (its UI's items) is not written, and is ignored when read:
// clientHistory is the conversation.
type File struct {
	ClientHistory []*genai.Content `json:"clientHistory,omitempty"`
	CommitHash    string           `json:"commitHash,omitempty"`
	ToolCall      ToolCall         `json:"toolCall"`
	MessageID     string           `json:"messageId,omitempty"`
	// FilePath is the file the call was about to change.
	FilePath string `json:"filePath,omitempty"`
}

// ToolCall is the call a checkpoint was taken before.
type ToolCall struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// Store keeps one project's checkpoints: an agent.Checkpointer, and
// what /restore reads.
type Store struct {
	dirs geminidir.Dirs
	// root is the workspace root as the workspace names it, for the
	// paths Targets returns.
	root string
	// docs are the editor's open documents, whose text a snapshot takes
	// over disk's; nil for none.
	docs *workspace.Documents
	now  func() time.Time
	// door starts git: the session's, which runs none found in the
	// workspace (nil: no session's rules).
	door *spawn.Door
	// git serialises the runs of git on the shadow repository: the
	// sessions of one process share it, and git's index takes one writer.
	git sync.Mutex
}

// New is the Store of the project at root, its checkpoints under
// geminiDir (~/.gemini); docs (nil for none) are the editor's open
// documents, whose unsaved text is what a snapshot keeps of their files;
// door (the session's, nil for none) starts git.
func New(geminiDir, root string, docs *workspace.Documents, door *spawn.Door) (*Store, error) {
	dirs, err := geminidir.New(geminiDir, root)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("finding the project's root: %w", err)
	}
	return &Store{dirs: dirs, root: abs, docs: docs, door: door, now: time.Now}, nil
}

// Checkpoint snapshots the workspace and writes req's checkpoint file,
// as Gemini CLI does before an edit tool runs.
func (s *Store) Checkpoint(ctx context.Context, req agent.CheckpointRequest) error {
	path, _ := req.Args["file_path"].(string)
	if path == "" {
		return fmt.Errorf("the %s call names no file_path", req.Tool)
	}
	tmp, err := s.dirs.FindOrClaim()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	s.git.Lock()
	defer s.git.Unlock()
	repo := s.repo(tmp)
	if err := repo.ensure(ctx); err != nil {
		return err
	}
	buffers, err := s.buffers()
	if err != nil {
		return err
	}
	hash, err := repo.snapshot(ctx, "Snapshot for "+req.Tool, buffers)
	if err != nil {
		return fmt.Errorf("snapshotting the workspace: %w", err)
	}
	data, err := json.MarshalIndent(File{
		ClientHistory: req.History,
		CommitHash:    hash,
		ToolCall:      ToolCall{Name: req.Tool, Args: req.Args},
		FilePath:      path,
	}, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the checkpoint: %w", err)
	}
	dir := filepath.Join(tmp, checkpointsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("writing the checkpoint: %w", err)
	}
	name := s.name(filepath.Base(path), req.Tool)
	if err := safefile.Replace(filepath.Join(dir, name+suffix), data, 0o600); err != nil {
		return fmt.Errorf("writing the checkpoint: %w", err)
	}
	return nil
}

// name is Gemini CLI's: the time as an ISO string with : and . made
// - and _, the file's base name and the tool's.
func (s *Store) name(file, tool string) string {
	stamp := s.now().UTC().Format("2006-01-02T15:04:05.000Z")
	stamp = strings.NewReplacer(":", "-", ".", "_").Replace(stamp)
	return stamp + "-" + file + "-" + tool
}

func (s *Store) repo(tmp string) shadowRepo {
	return shadowRepo{dir: s.dirs.HistoryOf(tmp), root: s.dirs.Root(), door: s.door}
}

// List is the names of the project's checkpoints, as Gemini CLI shows
// them: the file names without .json, sorted (so oldest first).
func (s *Store) List() ([]string, error) {
	tmp, err := s.dirs.Find()
	if err != nil || tmp == "" {
		return nil, err
	}
	entries, err := safefile.ReadDir(filepath.Join(tmp, checkpointsDir), geminidir.MaxScanned)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing the checkpoints: %w", err)
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), suffix); ok && e.Type().IsRegular() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, nil
}

// Load reads the checkpoint name (with or without .json, as Gemini CLI
// takes it).
func (s *Store) Load(name string) (File, error) {
	name = strings.TrimSuffix(name, suffix)
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return File{}, fmt.Errorf("%w %q", ErrNoCheckpoint, name)
	}
	tmp, err := s.dirs.Find()
	if err != nil {
		return File{}, err
	}
	if tmp == "" {
		return File{}, fmt.Errorf("%w %q", ErrNoCheckpoint, name)
	}
	path := filepath.Join(tmp, checkpointsDir, name+suffix)
	data, err := safefile.Read(path, maxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return File{}, fmt.Errorf("%w %q", ErrNoCheckpoint, name)
	}
	if err != nil {
		return File{}, fmt.Errorf("reading the checkpoint %s: %w", path, err)
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return File{}, fmt.Errorf("the checkpoint %s is invalid: %w", path, err)
	}
	if f.ToolCall.Name == "" {
		return File{}, fmt.Errorf("the checkpoint %s is invalid: it names no tool call", path)
	}
	return f, nil
}

// Targets is what each file that differs from the snapshot commit goes
// back to: its bytes then, or no file when it was created since.
func (s *Store) Targets(ctx context.Context, commit string) ([]agent.FileTarget, error) {
	if commit == "" {
		return nil, errors.New("the checkpoint has no snapshot of the files")
	}
	tmp, err := s.dirs.Find()
	if err != nil {
		return nil, err
	}
	if tmp == "" {
		return nil, errors.New("the project has no shadow repository")
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	s.git.Lock()
	defer s.git.Unlock()
	repo := s.repo(tmp)
	if _, err := os.Stat(filepath.Join(repo.dir, ".git")); err != nil {
		return nil, fmt.Errorf("the project has no shadow repository: %w", err)
	}
	buffers, err := s.buffers()
	if err != nil {
		return nil, err
	}
	diffs, err := repo.differences(ctx, commit, buffers)
	if err != nil {
		return nil, fmt.Errorf("comparing the workspace with the snapshot: %w", err)
	}
	targets := make([]agent.FileTarget, 0, len(diffs))
	for _, d := range diffs {
		t := agent.FileTarget{Path: filepath.Join(s.root, filepath.FromSlash(d.path)), Exists: d.inSnapshot, Executable: d.executable, Skip: d.notAFile}
		if d.inSnapshot && d.notAFile == "" {
			if t.Content, err = repo.content(ctx, commit, d.path); err != nil {
				return nil, fmt.Errorf("reading %s from the snapshot: %w", d.path, err)
			}
		}
		targets = append(targets, t)
	}
	return targets, nil
}

// buffers are the open documents inside the root whose text is not
// what disk holds: the unsaved buffers, as the files would be saved
// (with disk's byte-order mark).
func (s *Store) buffers() ([]buffer, error) {
	if s.docs == nil {
		return nil, nil
	}
	root, err := os.OpenRoot(s.dirs.Root())
	if err != nil {
		return nil, fmt.Errorf("opening the workspace: %w", err)
	}
	defer root.Close()
	var out []buffer
	for _, doc := range s.docs.List() {
		rel, err := filepath.Rel(s.dirs.Root(), doc.Path)
		if err != nil || !filepath.IsLocal(rel) || slices.Contains(strings.Split(rel, string(filepath.Separator)), ".git") {
			continue
		}
		content, saved, err := unsaved(root, rel, doc)
		if err != nil {
			return nil, err
		}
		if !saved {
			out = append(out, buffer{path: filepath.ToSlash(rel), content: content})
		}
	}
	return out, nil
}

// unsaved is the bytes doc, at rel beneath root, would save as (its
// text, after the BOM its file has on disk), and whether disk holds
// them already; a document of no regular file on disk is reported
// saved, as there is no file of it to snapshot. The file is read
// beneath the root, never by name, and no more of it than the document
// holds.
func unsaved(root *os.Root, rel string, doc workspace.Document) (content []byte, saved bool, err error) {
	f, err := root.OpenFile(rel, os.O_RDONLY|openFlags, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", doc.Path, beneath(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", doc.Path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, true, nil
	}
	head := make([]byte, len(bom))
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, false, fmt.Errorf("reading %s: %w", doc.Path, err)
	}
	content = []byte(doc.Text)
	if string(head[:n]) == bom {
		content = append([]byte(bom), content...)
	}
	if fi.Size() != int64(len(content)) {
		return content, false, nil
	}
	disk := make([]byte, len(content))
	copy(disk, head[:n])
	if _, err := io.ReadFull(f, disk[n:]); err != nil {
		return content, false, nil // it changed meanwhile: not what the buffer holds
	}
	return content, bytes.Equal(content, disk), nil
}

const bom = "\ufeff"

// RestorableHistory is f's history made one the conversation can go on
// from: it ends with the call the checkpoint was taken before, which is
// answered as not run, so the model knows.
func (f File) RestorableHistory() []*genai.Content {
	history := slices.Clone(f.ClientHistory)
	n := len(history)
	if n == 0 || history[n-1] == nil || history[n-1].Role != genai.RoleModel {
		return history
	}
	answer := &genai.Content{Role: genai.RoleUser}
	for _, p := range history[n-1].Parts {
		if p != nil && p.FunctionCall != nil {
			answer.Parts = append(answer.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{
				ID: p.FunctionCall.ID, Name: p.FunctionCall.Name,
				Response: map[string]any{"error": "The user restored the checkpoint taken before this call, so it did not run; the files are as they were before it."},
			}})
		}
	}
	if len(answer.Parts) > 0 {
		history = append(history, answer)
	}
	return history
}
