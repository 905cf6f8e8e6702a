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

// TrustOption is one answer to the trust question: its words, what it
// does, and the level it records in trustedFolders.json.
type TrustOption struct {
	Label string
	// Description says what choosing it does, beside the label where a
	// front end shows options with their meaning (gemini/ask): Don't
	// trust is not the same as declining to answer.
	Description string
	Level       string
}

// TrustOptions are the trust question's answers in Gemini CLI's order and
// words. A front end offers exactly these; dismissing the question
// (declining it) is no answer, and records nothing.
func TrustOptions() []TrustOption {
	return []TrustOption{
		{Label: "Trust folder", Level: settings.TrustFolder,
			Description: "Use this folder's own settings, commands, hooks, MCP servers, skills and GEMINI.md, and those of every folder in it; remembered"},
		{Label: "Trust parent folder", Level: settings.TrustParent,
			Description: "The same for the folder that holds this one, and every folder in it; remembered"},
		{Label: "Don't trust", Level: settings.DoNotTrust,
			Description: "Restricted mode: none of this folder's configuration is used; remembered, so you are not asked again"},
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
// what each answer does, and what answering none (declining, closing
// the question) does instead: Don't trust is remembered, declining is
// not.
func (r TrustRequest) Text() string {
	again := ""
	if r.Changed != "" {
		again = "\n\nAsked again: " + r.Changed + ". Look at what changed before you trust the folder again."
	}
	return fmt.Sprintf("%s%s\n\nTrusting a folder allows gemini-ls to load its local configurations, "+
		"including custom commands, hooks, MCP servers, agent skills, and settings. "+
		"These configurations could execute code on your behalf or change the behavior of the agent.\n\n"+
		"Trust folder: this folder and every folder in it. Trust parent folder: %s and every folder in it. "+
		"Don't trust: this folder runs in a restricted mode, and you are not asked again. "+
		"Each answer is remembered in trustedFolders.json; /permissions trust changes it later. "+
		"Declining, or closing the question, answers nothing and remembers nothing: "+
		"the folder stays restricted for now, and you are asked again the next time gemini-ls starts.",
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
