package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/fetchsource"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/skills"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Inbox is what Gemini CLI 0.61's auto memory proposed from past
// sessions, waiting for the user in the private memory directory: memory
// patches (.inbox/private and .inbox/global, *.patch, to the private
// memory's files or the global GEMINI.md), and extracted skills
// (skills/<name>/SKILL.md) and patches to skills (skills/*.patch). It
// lists them all and applies or dismisses the memory patches, as 0.61's
// commands/memory.ts does.
type Inbox struct {
	// Dir is the private memory directory; GlobalFile the global
	// GEMINI.md.
	Dir, GlobalFile string
}

// The kinds of memory patch, in 0.61's order.
const (
	KindPrivate = "private"
	KindGlobal  = "global"
)

// maxPatchSize bounds a patch read: a proposal of a few lines.
const maxPatchSize = 1 << 20

// MemoryPatches are one kind's valid patches, together, as the inbox
// shows them (0.61's listInboxMemoryPatches).
type MemoryPatches struct {
	Kind    string
	Entries []PatchEntry
	// Sources are the patch files' names; Latest the newest one's time.
	Sources []string
	Latest  time.Time
}

// PatchEntry is one file a patch changes, and the change as a diff.
type PatchEntry struct {
	Target  string
	NewFile bool
	Diff    string
}

// InboxSkill is a skill the extraction wrote, or a patch to one.
type InboxSkill struct {
	// Dir is a new skill's directory name under skills/.
	Dir               string
	Name, Description string
	// Patch names the files a skill patch changes; "" for a new skill.
	Patch string
}

// Skills lists the extracted skills and the skill patches, by name.
func (in Inbox) Skills() []InboxSkill {
	dir := filepath.Join(in.Dir, "skills")
	entries, err := safefile.ReadDir(dir, 1000)
	if err != nil {
		return nil
	}
	var out, patches []InboxSkill
	for _, e := range entries {
		switch {
		case e.IsDir():
			if s, err := skills.Load(filepath.Join(dir, e.Name(), "SKILL.md")); err == nil {
				out = append(out, InboxSkill{Dir: e.Name(), Name: s.Name, Description: s.Description})
			}
		case strings.HasSuffix(e.Name(), ".patch"):
			if ps, err := readPatch(filepath.Join(dir, e.Name())); err == nil && hasHunks(ps) {
				var targets []string
				for _, p := range ps {
					targets = append(targets, patchTarget(p))
				}
				patches = append(patches, InboxSkill{Name: strings.TrimSuffix(e.Name(), ".patch"), Patch: strings.Join(targets, ", ")})
			}
		}
	}
	return append(out, patches...)
}

// patchTarget is the file p changes, as 0.61 names it in the list.
func patchTarget(p filePatch) string {
	if p.newName != "" {
		return p.newName
	}
	return p.oldName
}

// MemoryPatches lists the valid patches of each kind, invalid ones left
// out as 0.61 leaves them.
func (in Inbox) MemoryPatches(ctx context.Context) ([]MemoryPatches, error) {
	var out []MemoryPatches
	for _, kind := range []string{KindPrivate, KindGlobal} {
		files, err := in.patchFiles(ctx, kind)
		if err != nil {
			return nil, err
		}
		group := MemoryPatches{Kind: kind}
		for _, f := range files {
			targets, ps, err := in.validPatch(kind, f)
			if err != nil {
				continue
			}
			for i, p := range ps {
				group.Entries = append(group.Entries, PatchEntry{Target: targets[i].path, NewFile: targets[i].isNew, Diff: formatPatch(p)})
			}
			group.Sources = append(group.Sources, filepath.Base(f))
			if fi, err := os.Stat(f); err == nil && fi.ModTime().After(group.Latest) {
				group.Latest = fi.ModTime()
			}
		}
		if len(group.Entries) > 0 {
			out = append(out, group)
		}
	}
	return out, nil
}

// Apply applies kind's patch rel (a path under .inbox/<kind>), or all of
// kind's when rel is kind, and says what it did, in 0.61's words.
func (in Inbox) Apply(ctx context.Context, kind, rel string) (string, error) {
	if err := checkKind(kind); err != nil {
		return "", err
	}
	if rel == kind {
		return in.applyAll(ctx, kind)
	}
	src, err := in.patchPath(kind, rel)
	if err != nil {
		return "", err
	}
	return in.applyFile(kind, src, rel)
}

// Dismiss deletes kind's patch rel, or all of kind's valid ones when rel
// is kind.
func (in Inbox) Dismiss(ctx context.Context, kind, rel string) (string, error) {
	if err := checkKind(kind); err != nil {
		return "", err
	}
	if rel == kind {
		files, err := in.validFiles(ctx, kind)
		if err != nil {
			return "", err
		}
		if len(files) == 0 {
			return "", fmt.Errorf("No %s memory patches in inbox.", kind)
		}
		removed := 0
		for _, f := range files {
			if os.Remove(f) == nil {
				removed++
			}
		}
		msg := fmt.Sprintf("Dismissed %d %s memory patch%s from inbox.", removed, kind, plural(removed, "es"))
		if removed == 0 {
			return "", errors.New(msg)
		}
		return msg, nil
	}
	src, err := in.patchPath(kind, rel)
	if err != nil {
		return "", err
	}
	if _, err := os.Lstat(src); err != nil {
		return "", fmt.Errorf("Memory patch %q not found in inbox.", rel)
	}
	if err := os.Remove(src); err != nil {
		return "", fmt.Errorf("dismissing %q: %w", rel, err)
	}
	return fmt.Sprintf("Dismissed %q from inbox.", rel), nil
}

func checkKind(kind string) error {
	if kind != KindPrivate && kind != KindGlobal {
		return fmt.Errorf("unknown memory patch kind %q: it is %s or %s", kind, KindPrivate, KindGlobal)
	}
	return nil
}

func plural(n int, suffix string) string {
	if n == 1 {
		return ""
	}
	return suffix
}

// kindRoot is where kind's patches wait.
func (in Inbox) kindRoot(kind string) string { return filepath.Join(in.Dir, ".inbox", kind) }

// patchPath is rel's file under kind's root: a relative, slash-separated
// path ending .patch that stays inside (0.61's
// normalizeInboxMemoryPatchPath).
func (in Inbox) patchPath(kind, rel string) (string, error) {
	clean := path.Clean(rel)
	if rel == "" || path.IsAbs(rel) || strings.Contains(rel, `\`) || clean == "." || clean == ".." ||
		strings.HasPrefix(clean, "../") || !strings.HasSuffix(clean, ".patch") {
		return "", errors.New("Invalid memory patch path.")
	}
	return filepath.Join(in.kindRoot(kind), filepath.FromSlash(clean)), nil
}

// patchFiles lists kind's *.patch files, in subdirectories too, sorted.
func (in Inbox) patchFiles(ctx context.Context, kind string) ([]string, error) {
	var found []string
	err := filepath.WalkDir(in.kindRoot(kind), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: nothing there, as 0.61's walk
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".patch") {
			found = append(found, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(found)
	return found, nil
}

// validFiles are kind's patch files validPatch accepts.
func (in Inbox) validFiles(ctx context.Context, kind string) ([]string, error) {
	files, err := in.patchFiles(ctx, kind)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(files, func(f string) bool {
		_, _, err := in.validPatch(kind, f)
		return err != nil
	}), nil
}

func readPatch(file string) ([]filePatch, error) {
	b, err := safefile.Read(file, maxPatchSize)
	if err != nil {
		return nil, err
	}
	return parsePatch(string(b))
}

func hasHunks(ps []filePatch) bool {
	return len(ps) > 0 && !slices.ContainsFunc(ps, func(p filePatch) bool { return len(p.hunks) == 0 })
}

// target is a file a patch changes.
type target struct {
	path  string
	isNew bool
}

// validPatch reads file and checks it as 0.61 does: hunks, absolute
// headers naming one file (or /dev/null for a new one), each target
// allowed for kind.
func (in Inbox) validPatch(kind, file string) ([]target, []filePatch, error) {
	ps, err := readPatch(file)
	if err != nil {
		return nil, nil, err
	}
	if !hasHunks(ps) {
		return nil, nil, errors.New("contains no valid hunks")
	}
	targets, err := patchTargets(ps)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range targets {
		if !in.allowed(kind, t.path) {
			return nil, nil, fmt.Errorf("targets a file outside the %s memory root or target allowlist: %s", kind, t.path)
		}
	}
	return targets, ps, nil
}

// patchTargets reads the headers: "a/" and "b/" prefixes dropped, an
// absolute path in both (the same one) or /dev/null then the new file's.
func patchTargets(ps []filePatch) ([]target, error) {
	var out []target
	for _, p := range ps {
		oldName, newName := stripGitPrefix(p.oldName), stripGitPrefix(p.newName)
		switch {
		case oldName == "" || newName == "":
			return nil, errors.New("is missing a target file path")
		case oldName == "/dev/null" && filepath.IsAbs(newName) && newName != "/dev/null":
			out = append(out, target{path: newName, isNew: true})
		case oldName != newName || !filepath.IsAbs(newName) || newName == "/dev/null":
			return nil, errors.New("has invalid diff headers")
		default:
			out = append(out, target{path: newName})
		}
	}
	return out, nil
}

func stripGitPrefix(name string) string {
	if strings.HasPrefix(name, "a/") || strings.HasPrefix(name, "b/") {
		return name[2:]
	}
	return name
}

// allowed reports whether kind's patches may change file: for private,
// MEMORY.md or another visible .md directly in the private directory;
// for global, the global GEMINI.md. Both as named and with symlinks
// resolved, so that a link cannot lead elsewhere.
func (in Inbox) allowed(kind, file string) bool {
	real, err := workspace.RealPath(file)
	if err != nil {
		return false
	}
	if kind == KindGlobal {
		if in.GlobalFile == "" {
			return false
		}
		realGlobal, err := workspace.RealPath(in.GlobalFile)
		return err == nil && (file == in.GlobalFile || file == realGlobal) && real == realGlobal
	}
	dirs := []string{filepath.Clean(in.Dir)}
	if realDir, err := workspace.RealPath(in.Dir); err == nil {
		dirs = append(dirs, realDir)
	}
	inDir := func(p string) bool { return slices.Contains(dirs, filepath.Dir(filepath.Clean(p))) }
	name := filepath.Base(file)
	okName := name == IndexFileName || (!strings.HasPrefix(name, ".") && strings.HasSuffix(strings.ToLower(name), ".md"))
	return okName && inDir(file) && inDir(real) && filepath.Base(real) == name
}

// formatPatch is one file's patch as the inbox shows it.
func formatPatch(p filePatch) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", p.oldName, p.newName)
	for _, h := range p.hunks {
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", h.oldStart, h.oldLines, h.newStart, h.newLines)
		for _, l := range h.lines {
			b.WriteString(l + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// applyAll applies each of kind's valid patches in turn.
func (in Inbox) applyAll(ctx context.Context, kind string) (string, error) {
	files, err := in.validFiles(ctx, kind)
	if err != nil {
		return "", err
	}
	if len(files) == 0 {
		return "", fmt.Errorf("No %s memory patches in inbox.", kind)
	}
	var ok []string
	var failed []string
	var pointers []string
	for _, f := range files {
		name := filepath.Base(f)
		msg, err := in.applyFile(kind, f, name)
		if err != nil {
			failed = append(failed, fmt.Sprintf("%q — %v", name, err))
			continue
		}
		ok = append(ok, name)
		if _, after, found := strings.Cut(msg, "Auto-added MEMORY.md pointer for "); found {
			p, _, _ := strings.Cut(after, " so the new")
			if !slices.Contains(pointers, p) {
				pointers = append(pointers, p)
			}
		}
	}
	if len(failed) > 0 {
		return "", fmt.Errorf("Applied %d of %d %s memory patches. %d failed: %s", len(ok), len(files), kind, len(failed), strings.Join(failed, "; "))
	}
	note := ""
	if len(pointers) > 0 {
		note = " Auto-added MEMORY.md pointer(s) for " + strings.Join(pointers, "; ") + "."
	}
	return fmt.Sprintf("Applied all %d %s memory patch%s.%s", len(ok), kind, plural(len(ok), "es"), note), nil
}

// change is a file's new text, and whether it is new.
type change struct {
	path, text string
	isNew      bool
}

// applyFile applies one patch file: every hunk of every file first, in
// memory, then the files written, then the patch removed, so that a
// patch that does not apply changes nothing.
func (in Inbox) applyFile(kind, src, name string) (string, error) {
	if _, err := os.Lstat(src); err != nil {
		return "", fmt.Errorf("Memory patch %q not found in inbox.", name)
	}
	targets, ps, err := in.validPatch(kind, src)
	if err != nil {
		return "", fmt.Errorf("Memory patch %q %v", name, err)
	}
	changes, err := patched(targets, ps)
	if err != nil {
		return "", err
	}
	var pointers []string
	if kind == KindPrivate {
		changes, pointers = in.withPointers(changes)
	}
	for _, c := range changes {
		if c.isNew {
			if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
				return "", fmt.Errorf("creating the directory of %s: %w", c.path, err)
			}
		}
		if err := safefile.Write(c.path, []byte(c.text)); err != nil {
			return "", fmt.Errorf("writing %s: %w", c.path, err)
		}
	}
	if err := os.Remove(src); err != nil {
		return "", fmt.Errorf("the patch was applied but not removed from the inbox: %w", err)
	}
	msg := fmt.Sprintf("Applied memory patch to %d file%s.", len(changes), plural(len(changes), "s"))
	if len(pointers) > 0 {
		quoted := make([]string, len(pointers))
		for i, p := range pointers {
			quoted[i] = fmt.Sprintf("%q", p)
		}
		msg += " Auto-added MEMORY.md pointer for " + strings.Join(quoted, ", ") + " so the new sibling file is discoverable."
	}
	return msg, nil
}

// patched is each target's text with its hunks applied, patches to one
// file applied in turn.
func patched(targets []target, ps []filePatch) ([]change, error) {
	var out []change
	for i, p := range ps {
		t := targets[i]
		at := slices.IndexFunc(out, func(c change) bool { return c.path == t.path })
		var source string
		switch {
		case at >= 0:
			source = out[at].text
		case t.isNew:
			if _, err := os.Lstat(t.path); err == nil {
				return nil, fmt.Errorf("Memory patch declares a new file, but the target already exists: %s", t.path)
			}
		default:
			b, err := safefile.Read(t.path, MaxFileSize)
			if err != nil {
				return nil, fmt.Errorf("Target file not found: %s", t.path)
			}
			source = string(b)
		}
		text, err := apply(source, p)
		if err != nil {
			if errors.Is(err, errTooFar) {
				return nil, fmt.Errorf("Memory patch not applied to %s: %v.", t.path, err)
			}
			if t.isNew {
				return nil, fmt.Errorf("Memory patch failed to apply for new file %s.", t.path)
			}
			return nil, fmt.Errorf("Memory patch does not apply cleanly to %s.", t.path)
		}
		if at >= 0 {
			out[at].text = text
		} else {
			out = append(out, change{path: t.path, text: text, isNew: t.isNew})
		}
	}
	return out, nil
}

// withPointers adds to MEMORY.md a line pointing at each new sibling
// note the changes create that it does not mention yet, so that the
// model, given only the index, finds it (0.61's augmentWithAutoPointers).
func (in Inbox) withPointers(changes []change) ([]change, []string) {
	index := filepath.Join(in.Dir, IndexFileName)
	at := slices.IndexFunc(changes, func(c change) bool { return c.path == index })
	var entry change
	if at >= 0 {
		entry = changes[at]
	} else if b, err := safefile.Read(index, MaxFileSize); err == nil {
		entry = change{path: index, text: string(b)}
	} else {
		entry = change{path: index, text: "# Project Memory\n", isNew: true}
	}
	var added []string
	for _, c := range changes {
		name := filepath.Base(c.path)
		if !c.isNew || filepath.Dir(c.path) != filepath.Clean(in.Dir) || strings.EqualFold(name, IndexFileName) || !strings.HasSuffix(strings.ToLower(name), ".md") {
			continue
		}
		if strings.Contains(entry.text, name) || strings.Contains(entry.text, c.path) {
			continue
		}
		stem := strings.TrimSpace(strings.NewReplacer("-", " ", "_", " ").Replace(name[:len(name)-len(".md")]))
		if stem == "" {
			stem = name
		}
		if !strings.HasSuffix(entry.text, "\n") {
			entry.text += "\n"
		}
		entry.text += "- See " + c.path + " for " + stem + " notes.\n"
		added = append(added, name)
	}
	if len(added) == 0 {
		return changes, nil
	}
	if at >= 0 {
		changes[at] = entry
	} else {
		changes = append(changes, entry)
	}
	return changes, added
}

// skillDir is the inbox directory of the skill named name: by directory,
// else by the name its SKILL.md gives (the name the list shows).
func (in Inbox) skillDir(name string) (string, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return "", errors.New("Invalid skill name.")
	}
	for _, s := range in.Skills() {
		if s.Dir != "" && (s.Dir == name || s.Name == name) {
			return s.Dir, nil
		}
	}
	return "", fmt.Errorf("Skill %q not found in inbox.", name)
}

// MoveSkill moves the extracted skill name into skillsDir (the user's or
// the project's skills directory, label naming it), unless a skill of
// its name is there already, as 0.61's moveInboxSkill does.
func (in Inbox) MoveSkill(name, skillsDir, label string) (string, error) {
	dir, err := in.skillDir(name)
	if err != nil {
		return "", err
	}
	src := filepath.Join(in.Dir, "skills", dir)
	skillName := dir
	if s, err := skills.Load(filepath.Join(src, "SKILL.md")); err == nil {
		skillName = s.Name
	}
	target := filepath.Join(skillsDir, dir)
	taken := func() bool {
		if _, err := os.Lstat(target); err == nil {
			return true
		}
		return slices.ContainsFunc(skills.LoadDir(skillsDir), func(s skills.Skill) bool { return s.Name == skillName })
	}
	if taken() {
		return "", fmt.Errorf("A skill named %q already exists in %s.", skillName, label)
	}
	if err := os.MkdirAll(skillsDir, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", skillsDir, err)
	}
	if err := os.Rename(src, target); err != nil {
		// Another file system: copied, then removed, as 0.61 moves it.
		if err := fetchsource.CopyDir(src, target); err != nil {
			return "", fmt.Errorf("moving the skill %q: %w", dir, err)
		}
		if err := os.RemoveAll(src); err != nil {
			return "", fmt.Errorf("the skill %q was copied to %s but not removed from the inbox: %w", dir, label, err)
		}
	}
	return fmt.Sprintf("Moved %q to %s.", dir, label), nil
}

// DismissSkill deletes the extracted skill name from the inbox.
func (in Inbox) DismissSkill(name string) (string, error) {
	dir, err := in.skillDir(name)
	if err != nil {
		return "", err
	}
	if err := os.RemoveAll(filepath.Join(in.Dir, "skills", dir)); err != nil {
		return "", fmt.Errorf("dismissing the skill %q: %w", dir, err)
	}
	return fmt.Sprintf("Dismissed %q from inbox.", dir), nil
}
