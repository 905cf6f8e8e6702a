package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// guard is the door's last word on an edit, v being the rest of the
// door's: an edit of a protected file (internal/protected) asks a person,
// offering no "always", whatever would have let it run unasked (auto_edit,
// a policy rule's allow, settings' tools.allowed, the user's "always
// allow"), in every mode but yolo, where the user chose to be asked
// nothing; a refusal stands (plan mode, a rule's deny), and so does the
// session's own plan file. Where nobody can be asked (a headless run's
// policy engine), the edit is refused, saying why. Only an edit names a
// file (Confirmation.Path); a session without a policy engine asks.
//
// Yolo too asks about a protected file reached through an included
// directory (included: --include-directories, settings'
// includeDirectories, /directory add naming ~ or ~/.gemini), which is
// the user's own configuration outside the project: ~/.gemini's
// settings (hooks), policies and trustedFolders.json, the shell's
// startup files, ~/.ssh, ~/.gitconfig. Yolo is a choice about this
// project's work; a hook or an allow-all policy written there is obeyed
// by every later session in every folder, in every mode, so one yolo
// session would outlast itself everywhere. Claude Code's
// bypassPermissions likewise still asks before writing its own
// configuration directories. A project's own protected files keep
// yolo's rule: what they change is this project, which the user handed
// over. (Gemini CLI 0.61 asks about nothing in yolo.)
func (a *approvals) guard(c *tools.Confirmation, v verdict) verdict {
	if v.refusal != "" || c == nil || c.Path == "" || tools.IsPlanFile(a.plansDir(), c.Path) {
		return v
	}
	yolo := a.mode() == dialog.ApprovalYolo
	if yolo && (a.included == nil || !a.included(c.Path)) {
		return v
	}
	why := a.protected.Why(c.Path)
	switch {
	case why == "":
		return v
	case yolo:
		why += yoloReason
	}
	if a.policy != nil && !a.policy.Interactive() {
		return verdict{refusal: protectedRefusal(c.Path, why, yolo)}
	}
	return verdict{ask: true, protected: why}
}

// yoloReason is added to the protected set's reason for a file yolo
// asks about (guard).
const yoloReason = ", and it lies in a directory included from outside the project, where a change would hold for every later session in every folder"

// forceAsk is v once a BeforeTool hook asked that the user be asked about
// the call (decision "ask"), as Gemini CLI 0.61 forces ask_user over what
// its policy decided: whatever would let the call run unasked (yolo,
// auto_edit, a rule's allow, tools.allowed, an earlier "always allow"),
// the user is asked, offered no "always"; a refusal stands (0.61 asks
// even there). Where nobody can be asked, the call is refused.
func (a *approvals) forceAsk(v verdict) verdict {
	switch {
	case v.refusal != "":
		return v
	case a.policy != nil && !a.policy.Interactive():
		return verdict{refusal: hookAskRefusal}
	}
	return verdict{ask: true, protected: v.protected}
}

// hookAskRefusal tells the model why a headless run did not run a call a
// hook wanted asked about.
const hookAskRefusal = "A BeforeTool hook asked for the user's approval of this call; gemini-ls is running headless with nobody to give it, so the call did not run."

// acrossFiles is the door's word on landing a change across paths
// (rename_symbol's), v being its verdict on the call, which it judged by
// the file the change starts in: in plan mode only plan files are
// written, and each path is guarded as an edit of its own.
func (a *approvals) acrossFiles(paths []string, v verdict) verdict {
	for _, path := range paths {
		if v.refusal != "" {
			return v
		}
		if a.mode() == dialog.ApprovalPlan && !tools.IsPlanFile(a.plansDir(), path) {
			return verdict{refusal: planEditRefusal}
		}
		if g := a.guard(&tools.Confirmation{Path: path}, v); g.refusal != "" || g.protected != "" {
			v = g
		}
	}
	return v
}

// protectedRefusal tells the model why a headless run did not write path:
// why is the protected set's reason; yolo, that yolo did not cover it
// either (guard).
func protectedRefusal(path, why string, yolo bool) string {
	modes := "every approval mode but yolo"
	if yolo {
		modes = "every approval mode, yolo too"
	}
	return fmt.Sprintf("Writing %s needs a person's approval in %s, because %s; "+
		"gemini-ls is running headless with nobody to give it, so the file was not changed. Ask the user to make this change themselves.", path, modes, why)
}

// protectedLanding adds to the reason a front end gave for not landing
// an edit of a protected file (it could not ask) that no mode but yolo
// (or, for one yolo asks about too, no mode) lands it unasked: its
// advice to allow edits does not cover this one. why is the guard's
// reason.
func protectedLanding(reason, why string) string {
	modes := "every approval mode but yolo"
	if strings.HasSuffix(why, yoloReason) {
		modes = "every approval mode, yolo too"
	}
	return reason + "; and this file needs a person's approval in " + modes + ", because " + why
}

// throughIncluded reports whether path lies in a root of the workspace
// that is in none of the project's (Config.ProjectRoots): a directory
// included from outside the project. A root holding a project root (~
// included beside ~/src/app) counts only for what lies outside it.
func (a *Agent) throughIncluded(path string) bool {
	if a.cfg.Workspace == nil || a.cfg.ProjectRoots == nil {
		return false
	}
	holds := func(root string) bool { return workspace.Within(root, path) }
	return slices.ContainsFunc(a.cfg.Workspace.Roots(), holds) && !slices.ContainsFunc(a.cfg.ProjectRoots, holds)
}
