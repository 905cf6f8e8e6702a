package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
)

// webSearchParams are google_web_search's parameters.
type webSearchParams struct {
	Query string `json:"query" jsonschema:"The search query to find information on the web."`
}

// webSearch is google_web_search, searching through utility's model.
func webSearch(utility Utility) *Defined[webSearchParams] {
	return Define(Spec{
		Name: WebSearchName,
		Description: "Performs a web search using Google Search (via the Gemini API) and returns the results. " +
			"This tool is useful for finding information on the internet based on a query.",
		Annotations: Annotations{Kind: dialog.KindSearch, ReadOnly: true, OpenWorld: true},
		Aliases:     []string{"WebSearchTool"},
	}, func(p webSearchParams) (Call, error) {
		if strings.TrimSpace(p.Query) == "" {
			return nil, errors.New("The 'query' parameter cannot be empty.")
		}
		return &webSearchCall{utility: utility, query: p.Query}, nil
	})
}

type webSearchCall struct {
	utility Utility
	query   string
}

func (c *webSearchCall) Title() string { return fmt.Sprintf(`Searching the web for: "%s"`, c.query) }

// Confirmation is nil: a search sends only the query, to the model the
// user already talks to, as Gemini CLI's does.
func (c *webSearchCall) Confirmation() *Confirmation { return nil }

func (c *webSearchCall) Execute(ctx context.Context, _ CallInfo) (Result, error) {
	if c.utility == nil {
		return failure("google_web_search needs a model to search with, and none is configured."), nil
	}
	resp, err := c.utility.GenerateContent(ctx, models.WebSearch, []*genai.Content{genai.NewContentFromText(c.query, genai.RoleUser)},
		&genai.GenerateContentConfig{Tools: []*genai.Tool{{GoogleSearch: &genai.GoogleSearch{}}}})
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		msg := fmt.Sprintf(`Error during web search for query "%s": %v`, c.query, err)
		return Result{Error: msg, Status: dialog.StatusError, Display: "Error performing web search: " + err.Error()}, nil
	}
	text := responseText(resp)
	if strings.TrimSpace(text) == "" {
		return Result{Output: fmt.Sprintf(`No search results or information found for query: "%s"`, c.query), Display: "No information found."}, nil
	}
	if g := groundingOf(resp); g != nil && len(g.GroundingChunks) > 0 {
		text = insertCitations(text, g.GroundingSupports)
		text += "\n\nSources:\n" + strings.Join(sourceList(g.GroundingChunks, "No URI"), "\n")
	}
	return Result{
		Output:  fmt.Sprintf("Web search results for \"%s\":\n\n%s", c.query, text),
		Display: fmt.Sprintf(`Search results for "%s" returned.`, c.query),
	}, nil
}
