package geminitest

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/template"
)

// A chunk's "template" is text made, for each request the turn answers,
// from what the request carries: a scripted model that cannot know in
// advance what a real tool will find (a demo's grep_search on whatever
// checkout it runs in) can still say it. The data and functions are
// templateData's and templateFuncs'.

// templateData is what a chunk's template reads of the request it
// answers.
type templateData struct {
	// Result is the last function response's result as text: its
	// "output", or its "error", when a string; else all of it as JSON.
	// "" when the request carries no function response.
	Result string
	// Tool is the name of the function that result is of.
	Tool string
}

// templateFuncs are the functions a template may call: head N TEXT, the
// first N lines of TEXT and, when that cuts it, a last line saying how
// many more there were.
func templateFuncs() template.FuncMap {
	return template.FuncMap{"head": head}
}

func head(n int, text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if n < 0 || len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	more := len(lines) - n
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… (%d more %s)", more, plural(more, "line", "lines"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// parseChunkTemplate parses a chunk's template; an unknown function or a
// malformed action fails the script at load.
func parseChunkTemplate(text string) (*template.Template, error) {
	t, err := template.New("chunk").Funcs(templateFuncs()).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("template: %w", err)
	}
	return t, nil
}

// dataOf is what req carries that a template reads.
func dataOf(req Request) templateData {
	for i := len(req.Contents) - 1; i >= 0; i-- {
		c := req.Contents[i]
		if c == nil {
			continue
		}
		for j := len(c.Parts) - 1; j >= 0; j-- {
			if p := c.Parts[j]; p != nil && p.FunctionResponse != nil {
				return templateData{Result: resultText(p.FunctionResponse.Response), Tool: p.FunctionResponse.Name}
			}
		}
	}
	return templateData{}
}

// resultText is a function response as text.
func resultText(response map[string]any) string {
	for _, key := range []string{"output", "error"} {
		if s, ok := response[key].(string); ok {
			return s
		}
	}
	b, err := json.Marshal(response)
	if err != nil {
		return fmt.Sprint(response)
	}
	return string(b)
}

// rendered is base with its templated chunks (by index) made from req;
// a template that fails answers with the failure, as a server error the
// client shows, rather than with a guess.
func rendered(base Turn, templates map[int]*template.Template, req Request) Turn {
	out := base
	out.From = nil
	out.Chunks = append([]Chunk(nil), base.Chunks...)
	data := dataOf(req)
	for i, t := range templates {
		var b strings.Builder
		if err := t.Execute(&b, data); err != nil {
			return Turn{Err: &APIError{Code: 500, Message: fmt.Sprintf("geminitest: chunk %d's template: %v", i+1, err)}}
		}
		out.Chunks[i].Text = b.String()
	}
	return out
}
