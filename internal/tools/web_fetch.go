package tools

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/tools/web"
)

const (
	// maxFetchURLs is how many URLs one web_fetch call may name.
	maxFetchURLs = 20
	// maxFetchedContent is how many characters of fetched content, all
	// URLs together, go into the summary prompt (Gemini CLI's budget).
	maxFetchedContent = 250000
	// parallelFetches bounds the fetches one call runs at once.
	parallelFetches   = 4
	truncationWarning = "\n\n... [Content truncated due to size limit] ..."
)

// webFetchParams are web_fetch's parameters.
type webFetchParams struct {
	Prompt string `json:"prompt" jsonschema:"A comprehensive prompt that includes the URL(s) (up to 20) to fetch and specific instructions on how to process their content (e.g., \"Summarize https://example.com/article and extract key points from https://another.com/data\"). All URLs to be fetched must be valid and complete, starting with \"http://\" or \"https://\", and be fully-formed with a valid hostname (e.g., a domain name like \"example.com\" or an IP address). For example, \"https://example.com\" is valid, but \"example.com\" is not."`
}

// webFetch is web_fetch, fetching with fetcher and summarising through
// utility's model.
func webFetch(utility Utility, fetcher *web.Fetcher) *Defined[webFetchParams] {
	return Define(Spec{
		Name: WebFetchName,
		Description: "Processes content from URL(s) embedded in a prompt. " +
			"Include up to 20 URLs and instructions (e.g., summarize, extract specific data) directly in the 'prompt' parameter. " +
			"Local and private network addresses (e.g., localhost) are refused.",
		Annotations: Annotations{Kind: dialog.KindFetch, ReadOnly: true, OpenWorld: true},
		Aliases:     []string{"WebFetchTool"},
	}, func(p webFetchParams) (Call, error) {
		if strings.TrimSpace(p.Prompt) == "" {
			return nil, errors.New("The 'prompt' parameter cannot be empty and must contain URL(s) and instructions.")
		}
		urls, problems := promptURLs(p.Prompt)
		if len(problems) > 0 {
			return nil, fmt.Errorf("Error(s) in prompt URLs:\n- %s", strings.Join(problems, "\n- "))
		}
		if len(urls) == 0 {
			return nil, errors.New("The 'prompt' must contain at least one valid URL (starting with http:// or https://).")
		}
		if len(urls) > maxFetchURLs {
			return nil, fmt.Errorf("The 'prompt' contains %d different URLs; at most %d can be fetched in one call.", len(urls), maxFetchURLs)
		}
		return &webFetchCall{utility: utility, fetcher: fetcher, prompt: p.Prompt, urls: urls}, nil
	})
}

var whitespace = lazyregexp.New(`\s+`)

// promptURLs finds the URLs in a prompt as Gemini CLI does (the
// whitespace-separated words containing "://"), turned into what will be
// fetched: GitHub blob pages as their raw files, normalised, without
// duplicates. problems are the words that are not http(s) URLs.
func promptURLs(prompt string) (urls, problems []string) {
	for _, word := range whitespace.Split(prompt, -1) {
		if !strings.Contains(word, "://") {
			continue
		}
		u, err := url.Parse(word)
		switch {
		case err == nil && !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https"):
			problems = append(problems, fmt.Sprintf("Unsupported protocol in URL: %q. Only http and https are supported.", word))
			continue
		case err != nil || u.Hostname() == "":
			problems = append(problems, fmt.Sprintf("Malformed URL detected: %q.", word))
			continue
		}
		if s := normalizeURL(githubRaw(u)); !slices.Contains(urls, s) {
			urls = append(urls, s)
		}
	}
	return urls, problems
}

// githubRaw turns a GitHub blob page into its raw file.
func githubRaw(u *url.URL) *url.URL {
	if !strings.EqualFold(u.Hostname(), "github.com") || !strings.Contains(u.Path, "/blob/") {
		return u
	}
	parts := strings.SplitN(strings.TrimPrefix(u.Path, "/"), "/", 4)
	if len(parts) < 4 || parts[2] != "blob" {
		return u
	}
	raw := *u
	raw.Host = "raw.githubusercontent.com"
	if port := u.Port(); port != "" {
		raw.Host += ":" + port
	}
	raw.Path = "/" + parts[0] + "/" + parts[1] + "/" + parts[3]
	raw.RawPath = ""
	return &raw
}

// normalizeURL lower-cases scheme and host, drops the scheme's default
// port and a trailing slash (but not the root's), as Gemini CLI does.
func normalizeURL(u *url.URL) string {
	n := *u
	n.Scheme = strings.ToLower(n.Scheme)
	host, port := strings.ToLower(n.Hostname()), n.Port()
	if (n.Scheme == "http" && port == "80") || (n.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	n.Host = host
	if port != "" {
		n.Host += ":" + port
	}
	if n.Path == "" {
		n.Path = "/"
	}
	if len(n.Path) > 1 && strings.HasSuffix(n.Path, "/") {
		n.Path = strings.TrimSuffix(n.Path, "/")
		n.RawPath = ""
	}
	return n.String()
}

type webFetchCall struct {
	utility Utility
	fetcher *web.Fetcher
	prompt  string
	urls    []string
}

func (c *webFetchCall) Title() string {
	prompt := c.prompt
	if r := []rune(prompt); len(r) > 100 {
		prompt = string(r[:97]) + "..."
	}
	return fmt.Sprintf("Processing URLs and instructions from prompt: %q", prompt)
}

// Confirmation always shows the URLs. "Always allow" remembers their
// hosts, so a later call asks again for any host not allowed yet.
func (c *webFetchCall) Confirmation() *Confirmation {
	var keys []string
	for _, s := range c.urls {
		if u, err := url.Parse(s); err == nil {
			if key := "web_fetch:" + u.Hostname(); !slices.Contains(keys, key) {
				keys = append(keys, key)
			}
		}
	}
	return &Confirmation{
		Kind:      dialog.ConfirmFetch,
		Title:     "Allow fetching these URLs?",
		Details:   strings.Join(c.urls, "\n"),
		Subject:   "Fetch " + strings.Join(c.urls, ", "),
		AllowKeys: keys,
	}
}

// fetched is one URL's outcome.
type fetched struct {
	url  string
	page web.Page
	err  error
}

func (c *webFetchCall) Execute(ctx context.Context, _ CallInfo) (Result, error) {
	if c.utility == nil {
		return failure("web_fetch needs a model to process the fetched content, and none is configured."), nil
	}
	results := c.fetchAll(ctx)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	var failed []string
	for _, r := range results {
		if r.err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", r.url, r.err))
		}
	}
	if len(failed) == len(results) {
		return failure("All fetch attempts failed: " + strings.Join(failed, ", ")), nil
	}
	budget(results)

	var content []string
	for _, r := range results {
		body := r.page.Text
		if r.err != nil {
			body = "Error: " + r.err.Error()
		}
		content = append(content, fmt.Sprintf("<source url=\"%s\">\n%s\n</source>", sanitizeXML(r.url), sanitizeXML(body)))
	}
	prompt := "Follow the user's instructions below using the provided webpage content.\n\n" +
		"<user_instructions>\n" + sanitizeXML(c.prompt) + "\n</user_instructions>\n\n" +
		"The content of the page(s) has been fetched for you. Please use the following content to answer the request. Do not attempt to access the URL(s) again.\n\n" +
		"<content>\n" + strings.Join(content, "\n") + "\n</content>\n"
	resp, err := c.utility.GenerateContent(ctx, models.WebFetchFallback, []*genai.Content{genai.NewContentFromText(prompt, genai.RoleUser)}, nil)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return failure(fmt.Sprintf("Error processing the fetched content: %v", err)), nil
	}
	text := responseText(resp)
	if strings.TrimSpace(text) == "" {
		return failure("The model returned nothing for the fetched content."), nil
	}

	var sources []*genai.GroundingChunk
	for _, r := range results {
		if r.err == nil {
			sources = append(sources, &genai.GroundingChunk{Web: &genai.GroundingChunkWeb{Title: r.page.Title, URI: r.page.URL}})
		}
	}
	text += "\n\nSources:\n" + strings.Join(sourceList(sources, "Unknown URI"), "\n")
	display := fmt.Sprintf("Content processed from %d of %d URL(s).", len(results)-len(failed), len(results))
	if len(failed) > 0 {
		text = "[Warning] The following URLs could not be fetched:\n" + strings.Join(failed, "\n") + "\n\n" + text
		display += "\n\nNot fetched:\n- " + strings.Join(failed, "\n- ")
	}
	return Result{Output: wrapUntrusted(text), Display: display}, nil
}

// fetchAll fetches every URL, a few at a time, results in the URLs' order.
func (c *webFetchCall) fetchAll(ctx context.Context) []fetched {
	results := make([]fetched, len(c.urls))
	slots := make(chan struct{}, parallelFetches)
	var wg sync.WaitGroup
	for i, u := range c.urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			page, err := c.fetcher.Fetch(ctx, u)
			results[i] = fetched{url: u, page: page, err: err}
		}()
	}
	wg.Wait()
	return results
}

// budget shares maxFetchedContent among the fetched pages, the shortest
// first, each taking at most an even share of what is left (Gemini CLI's
// water-filling), and marks what it cuts.
func budget(results []fetched) {
	var order []int
	for i, r := range results {
		if r.err == nil {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return len([]rune(results[a].page.Text)) - len([]rune(results[b].page.Text))
	})
	remaining, left := maxFetchedContent, len(order)
	for _, i := range order {
		text := []rune(results[i].page.Text)
		share := remaining / left
		if len(text) > share {
			results[i].page.Text = string(text[:share]) + truncationWarning
		}
		remaining -= len([]rune(results[i].page.Text))
		left--
	}
}

// sanitizeXML escapes text for the summary prompt's tags. The replacer is
// built here, not at start-up: only a web_fetch summary needs it.
func sanitizeXML(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(s)
}

// wrapUntrusted marks content from the web as data, not instructions, as
// Gemini CLI does.
func wrapUntrusted(s string) string {
	return "<untrusted_context>\n" + strings.ReplaceAll(s, "</untrusted_context>", "&lt;/untrusted_context&gt;") + "\n</untrusted_context>"
}
