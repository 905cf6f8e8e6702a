package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
)

// shareChat is Gemini CLI 0.61's /chat share [file] (and /resume
// share): the conversation's history written to file as 0.61 writes it,
// Markdown for .md and its JSON for .json; without a file, to
// gemini-conversation-<Unix milliseconds>.json in the workspace, as 0.61
// names one. 0.61's history starts with its own context message, which
// gemini-ls's has not; the rest is written alike.
func shareChat(_ context.Context, env Env, args string) (Reply, error) {
	name := args
	if name == "" {
		name = fmt.Sprintf("gemini-conversation-%d.json", time.Now().UnixMilli())
	}
	path := userPath(env.Root, name)
	format := extname(path)
	if format != ".md" && format != ".json" {
		return Reply{}, errors.New("Invalid file format. Only .md and .json are supported.")
	}
	history, err := env.Session.History()
	if err != nil {
		return Reply{}, fmt.Errorf("Error sharing conversation: %w", err)
	}
	if len(history) == 0 {
		return Reply{Text: "No conversation found to share."}, nil
	}
	data, err := sharedFile(history, format)
	if err != nil {
		return Reply{}, fmt.Errorf("Error sharing conversation: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return Reply{}, fmt.Errorf("Error sharing conversation: %w", err)
	}
	if err := writeUserFile(path, data); err != nil {
		return Reply{}, fmt.Errorf("Error sharing conversation: %w", err)
	}
	return Reply{Text: "Conversation shared to " + path}, nil
}

// extname is node's path.extname: from the last dot of the base name,
// "" when there is none or the name starts with it (".md").
func extname(path string) string {
	base := filepath.Base(path)
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		return base[i:]
	}
	return ""
}

// sharedFile is history as 0.61 writes it to a .md or a .json file.
func sharedFile(history []*genai.Content, format string) ([]byte, error) {
	contents, err := historyObjects(history)
	if err != nil {
		return nil, err
	}
	if format == ".md" {
		return []byte(historyMarkdown(contents)), nil
	}
	list := make([]any, len(contents))
	for i, c := range contents {
		list[i] = c
	}
	return jsjson.Stringify(list), nil
}

// historyObjects are the contents of history as 0.61 holds them:
// role before parts, a call's and a result's id and name first.
func historyObjects(history []*genai.Content) ([]*jsjson.Object, error) {
	out := make([]*jsjson.Object, 0, len(history))
	for _, c := range history {
		raw, err := json.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("encoding the history: %w", err)
		}
		v, err := jsjson.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("encoding the history: %w", err)
		}
		o, ok := v.(*jsjson.Object)
		if !ok {
			continue // a nil content
		}
		content := reorder(o, "role", "parts")
		for _, part := range objects(content, "parts") {
			reorderField(part, "functionCall", "id", "name", "args")
			reorderField(part, "functionResponse", "id", "name", "response")
		}
		out = append(out, content)
	}
	return out, nil
}

// objects are the objects of o's array key.
func objects(o *jsjson.Object, key string) []*jsjson.Object {
	v, _ := o.Get(key)
	list, _ := v.([]any)
	out := make([]*jsjson.Object, 0, len(list))
	for _, e := range list {
		if eo, ok := e.(*jsjson.Object); ok {
			out = append(out, eo)
		}
	}
	return out
}

// reorderField reorders the object o holds at key, its keys first.
func reorderField(o *jsjson.Object, key string, keys ...string) {
	if v, ok := o.Get(key); ok {
		if field, ok := v.(*jsjson.Object); ok {
			o.Set(key, reorder(field, keys...))
		}
	}
}

// reorder is o with keys first, in that order, then its others.
func reorder(o *jsjson.Object, keys ...string) *jsjson.Object {
	out := jsjson.NewObject()
	for _, k := range keys {
		if v, ok := o.Get(k); ok {
			out.Set(k, v)
		}
	}
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		out.Set(k, v)
	}
	return out
}

// historyMarkdown is 0.61's serializeHistoryToMarkdown: each content
// under its role, its parts' texts and its calls and results as JSON
// blocks, the contents apart by rules.
func historyMarkdown(contents []*jsjson.Object) string {
	sections := make([]string, 0, len(contents))
	for _, content := range contents {
		var text strings.Builder
		for _, part := range objects(content, "parts") {
			text.WriteString(partMarkdown(part))
		}
		role, _ := content.Get("role")
		name, _ := role.(string)
		icon := "✨"
		if name == "user" {
			icon = "\U0001F9D1\u200D\U0001F4BB" // 🧑‍💻
		}
		if name == "" {
			name = "model"
		}
		sections = append(sections, "## "+strings.ToUpper(name)+" "+icon+"\n\n"+text.String())
	}
	return strings.Join(sections, "\n\n---\n\n")
}

// partMarkdown is a part in 0.61's Markdown: its text, else its call or
// result as JSON, else nothing.
func partMarkdown(p *jsjson.Object) string {
	if text, _ := p.Get("text"); text != nil && text != "" {
		s, _ := text.(string)
		return s
	}
	if call, ok := p.Get("functionCall"); ok {
		return "**Tool Command**:\n```json\n" + string(jsjson.Stringify(call)) + "\n```"
	}
	if res, ok := p.Get("functionResponse"); ok {
		return "**Tool Response**:\n```json\n" + string(jsjson.Stringify(res)) + "\n```"
	}
	return ""
}
