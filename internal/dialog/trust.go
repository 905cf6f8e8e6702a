package dialog

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// TrustRequest asks the user whether to trust a folder, as Gemini CLI
// 0.61 asks on its first run in a folder no rule of trustedFolders.json
// decides, and as its /permissions trust asks about any folder.
type TrustRequest struct {
	// SessionID is the session whose prompt or command asks.
	SessionID string
	// Folder is the folder asked about, absolute.
	Folder string
	// Changed, when the folder was trusted but is asked about again, says
	// what a sandboxed command could have changed in its configuration
	// (settings.Trust.Changed).
	Changed string
}

// TrustOption is one answer to the trust question: its words, the
// level it records in trustedFolders.json.
type TrustOption struct {
	Label string
	Level string
}

// TrustOptions are the trust question's answers in Gemini CLI's order and
// words. A front end offers exactly these; dismissing the question is no
// answer, and records nothing.
func TrustOptions() []TrustOption {
	return []TrustOption{
		{Label: "Trust folder", Level: settings.TrustFolder},
		{Label: "Trust parent folder", Level: settings.TrustParent},
		{Label: "Don't trust", Level: settings.DoNotTrust},
	}
}

// TrustLevelOf is the level the answer labelled label records; "" for a
// label that is none of TrustOptions'.
func TrustLevelOf(label string) string {
	for _, o := range TrustOptions() {
		if o.Label == label {
			return o.Level
		}
	}
	return ""
}

// Title is the question, as Gemini CLI's dialog puts it.
func (r TrustRequest) Title() string { return "Do you trust the files in this folder?" }

// Text says which folder, what trusting it means, in Gemini CLI's words,
// and what each answer does.
func (r TrustRequest) Text() string {
	again := ""
	if r.Changed != "" {
		again = "\n\nAsked again: " + r.Changed + ". Look at what changed before you trust the folder again."
	}
	return fmt.Sprintf("%s%s\n\nTrusting a folder allows gemini-ls to load its local configurations, "+
		"including custom commands, hooks, MCP servers, agent skills, and settings. "+
		"These configurations could execute code on your behalf or change the behavior of the agent.\n\n"+
		"Trust folder: this folder and every folder in it. Trust parent folder: %s and every folder in it. "+
		"Don't trust: this folder runs in a restricted mode. /permissions trust changes the answer later.",
		r.Folder, again, filepath.Dir(r.Folder))
}

// TrustAsker puts the trust question to the user. It returns the level
// chosen, "" when the user dismissed the question; an error wrapping
// ErrCannotAsk says this front end cannot put it.
type TrustAsker interface {
	AskTrust(ctx context.Context, req TrustRequest) (level string, err error)
}

// Untrusted is what Gemini CLI tells the user of a folder left untrusted,
// and how to change it.
const Untrusted = "This folder is untrusted, project settings, hooks, MCPs, and GEMINI.md files will not be applied for this folder.\n" +
	"Use the `/permissions` command to change the trust level."
