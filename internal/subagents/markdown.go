package subagents

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/frontmatter"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
)

// 0.61's defaults for a Markdown agent's limits (DEFAULT_MAX_TURNS,
// DEFAULT_MAX_TIME_MINUTES, chunk-JDPZ4CE3.js:335786).
const (
	DefaultMaxTurns = 30
	DefaultTimeout  = 10 * time.Minute
)

// LoadError is a Markdown agent file, or a directory of them, that could
// not be used; 0.61's AgentLoadError, worded as it is.
type LoadError struct {
	Path string
	Msg  string
}

func (e *LoadError) Error() string { return "Failed to load agent from " + e.Path + ": " + e.Msg }

// parsed is one agent a Markdown file defines, and its hash (0.61's
// metadata.hash: the file's SHA-256, for acknowledgments).
type parsed struct {
	def  Definition
	hash string
}

// ParseMarkdown reads content, the Markdown file at path, as 0.61's
// parseAgentMarkdown and markdownToAgentDefinition do
// (chunk-JDPZ4CE3.js:338750-338960): front matter checked against its
// strict schema, the body the system prompt. A file of a YAML list
// defines remote agents, one per item.
func ParseMarkdown(path, content string) ([]Definition, error) {
	ps, err := parseMarkdown(path, content)
	var defs []Definition
	for _, p := range ps {
		defs = append(defs, p.def)
	}
	return defs, err
}

func parseMarkdown(path, content string) ([]parsed, error) {
	sum := sha256.Sum256([]byte(content))
	hash := hex.EncodeToString(sum[:])
	front, body, ok := frontmatter.Split(content)
	if !ok {
		return nil, &LoadError{path, "Invalid agent definition: Missing mandatory YAML frontmatter. Agent Markdown files MUST start with YAML frontmatter enclosed in triple-dashes \"---\" (e.g., ---\nname: my-agent\n---)."}
	}
	doc, err := frontmatter.Parse(front)
	if err != nil {
		return nil, &LoadError{path, "YAML frontmatter parsing failed: " + err.Error()}
	}
	if doc.Kind == frontmatter.List {
		var issues []string
		for i, item := range doc.List {
			is := unionIssues(item, []branch{{"Remote Agent", remoteURLIssues}, {"Remote Agent", remoteJSONIssues}}, "")
			for _, s := range is {
				issues = append(issues, prefixPath(s, fmt.Sprint(i)))
			}
		}
		if len(issues) > 0 {
			return nil, &LoadError{path, "Validation failed: Remote Agents List:\n" + strings.Join(dedupe(issues), "\n")}
		}
		var out []parsed
		for _, item := range doc.List {
			out = append(out, parsed{remoteDefinition(item, path), hash})
		}
		return out, nil
	}
	issues := unionIssues(doc, []branch{{"Local Agent", localIssues}, {"Remote Agent", remoteURLIssues}, {"Remote Agent", remoteJSONIssues}}, guessKind(doc))
	if len(issues) > 0 {
		return nil, &LoadError{path, "Validation failed: Agent Definition:\n" + strings.Join(dedupe(issues), "\n")}
	}
	if isRemote(doc) {
		return []parsed{{remoteDefinition(doc, path), hash}}, nil
	}
	return []parsed{{localDefinition(doc, path, strings.TrimSpace(body)), hash}}, nil
}

// markdownInput is a Markdown agent's input, 0.61's inputConfig for them.
var markdownInput = InputParam{Name: "query", Description: "The task for the agent."}

func localDefinition(doc frontmatter.Value, path, body string) Definition {
	d := Definition{
		Name:         text(doc, "name"),
		DisplayName:  text(doc, "display_name"),
		Description:  text(doc, "description"),
		Kind:         Local,
		Path:         path,
		Input:        markdownInput,
		SystemPrompt: body,
		Query:        "${query}",
		Model:        text(doc, "model"),
		Temperature:  ptr(1.0),
		TopP:         ptr(0.95),
		MaxTurns:     DefaultMaxTurns,
		Timeout:      DefaultTimeout,
	}
	if d.Model == "" {
		d.Model = Inherit
	}
	if v, ok := doc.Get("temperature"); ok {
		d.Temperature = ptr(v.Num)
	}
	// Past what an int or a Duration holds, a limit is as good as none:
	// the largest, not a conversion that wraps round to a negative one.
	if v, ok := doc.Get("max_turns"); ok {
		d.MaxTurns = int(min(v.Num, math.MaxInt32))
	}
	if v, ok := doc.Get("timeout_mins"); ok {
		d.Timeout = time.Duration(min(v.Num, float64(math.MaxInt64/int64(time.Minute)))) * time.Minute
	}
	if v, ok := doc.Get("tools"); ok {
		d.Tools = []string{} // an empty list is no tools, not all of them
		for _, t := range v.List {
			d.Tools = append(d.Tools, t.Text)
		}
	}
	return d
}

func remoteDefinition(doc frontmatter.Value, path string) Definition {
	d := Definition{
		Name:        text(doc, "name"),
		DisplayName: text(doc, "display_name"),
		Description: text(doc, "description"),
		Kind:        Remote,
		Path:        path,
		Input:       markdownInput,
		CardURL:     text(doc, "agent_card_url"),
		CardJSON:    text(doc, "agent_card_json"),
	}
	if a, ok := doc.Get("auth"); ok {
		d.Auth = &Auth{
			Type:     text(a, "type"),
			Key:      text(a, "key"),
			Name:     text(a, "name"),
			Scheme:   text(a, "scheme"),
			Token:    text(a, "token"),
			Username: text(a, "username"),
			Password: text(a, "password"),
			Value:    text(a, "value"),
		}
		if s, ok := a.Get("scopes"); ok {
			for _, x := range s.List {
				d.Auth.Scopes = append(d.Auth.Scopes, x.Text)
			}
		}
		// convertFrontmatterAuthToConfig keeps what the scheme uses.
		if d.Auth.Type == "http" {
			switch {
			case d.Auth.Value != "":
				d.Auth.Token, d.Auth.Username, d.Auth.Password = "", "", ""
			case d.Auth.Scheme == "Bearer":
				d.Auth.Username, d.Auth.Password = "", ""
			case d.Auth.Scheme == "Basic":
				d.Auth.Token = ""
			}
		}
	}
	return d
}

func text(v frontmatter.Value, key string) string {
	f, _ := v.Get(key)
	return f.Text
}

func isRemote(doc frontmatter.Value) bool {
	k, _ := doc.Get("kind")
	if k.Text == "remote" {
		return true
	}
	_, url := doc.Get("agent_card_url")
	_, card := doc.Get("agent_card_json")
	return k.Text != "local" && (url || card)
}

// guessKind is 0.61's guessIntendedKind: which of the schema's branches
// the file meant, to report only that branch's issues.
func guessKind(doc frontmatter.Value) string {
	if doc.Kind != frontmatter.Map {
		return ""
	}
	if k, _ := doc.Get("kind"); k.Kind == frontmatter.String && (k.Text == "local" || k.Text == "remote") {
		return k.Text
	}
	has := func(keys ...string) bool {
		return slices.ContainsFunc(keys, func(k string) bool { _, ok := doc.Get(k); return ok })
	}
	local := has("tools", "mcp_servers", "model", "temperature", "max_turns", "timeout_mins")
	remote := has("agent_card_url", "auth", "agent_card_json")
	switch {
	case local && !remote:
		return "local"
	case remote && !local:
		return "remote"
	}
	return ""
}

// branch is one schema of the front matter's union.
type branch struct {
	label  string
	issues func(frontmatter.Value) []string
}

// unionIssues is nil when v fits a branch, else each branch's issues,
// labelled, but for the branches of the kind the file did not mean, as
// 0.61's formatZodError reports a union's failure.
func unionIssues(v frontmatter.Value, branches []branch, kind string) []string {
	var all []string
	for _, b := range branches {
		is := b.issues(v)
		if len(is) == 0 {
			return nil
		}
		if kind == "local" && b.label == "Remote Agent" || kind == "remote" && b.label == "Local Agent" {
			continue
		}
		for _, s := range is {
			all = append(all, "("+b.label+") "+s)
		}
	}
	return all
}

// issue is one of zod's messages: "path: message".
func issue(path, msg string) string {
	if path == "" {
		return msg
	}
	return path + ": " + msg
}

// prefixPath puts p before an issue's path ("(label) path: msg").
func prefixPath(s, p string) string {
	label := ""
	if strings.HasPrefix(s, "(") {
		if i := strings.Index(s, ") "); i >= 0 {
			label, s = s[:i+2], s[i+2:]
		}
	}
	if i := strings.Index(s, ": "); i >= 0 && !strings.Contains(s[:i], " ") {
		return label + p + "." + s
	}
	return label + p + ": " + s
}

// dedupe is ss without repeats, in order. A set, not a search of what is
// kept: a list of a hundred thousand bad agents has as many problems.
func dedupe(ss []string) []string {
	var out []string
	seen := make(map[string]bool, len(ss))
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// received is zod's name for the type of what it got.
func received(v frontmatter.Value) string {
	if v.Kind == frontmatter.Number && v.Num != math.Trunc(v.Num) {
		return "number"
	}
	return v.Kind.String()
}

// field checks are zod's: each returns the issues of one key.
type fieldCheck func(path string, v frontmatter.Value, present bool) []string

func optional(check fieldCheck) fieldCheck {
	return func(path string, v frontmatter.Value, present bool) []string {
		if !present {
			return nil
		}
		return check(path, v, true)
	}
}

func required(check fieldCheck) fieldCheck {
	return func(path string, v frontmatter.Value, present bool) []string {
		if !present {
			return []string{issue(path, "Required")}
		}
		return check(path, v, true)
	}
}

func isString(extra ...func(string) string) fieldCheck {
	return func(path string, v frontmatter.Value, _ bool) []string {
		if v.Kind != frontmatter.String {
			return []string{issue(path, "Expected string, received "+received(v))}
		}
		var out []string
		for _, check := range extra {
			if check == nil {
				continue
			}
			if msg := check(v.Text); msg != "" {
				out = append(out, issue(path, msg))
			}
		}
		return out
	}
}

func minLen(msg string) func(string) string {
	if msg == "" {
		msg = "String must contain at least 1 character(s)"
	}
	return func(s string) string {
		if s == "" {
			return msg
		}
		return ""
	}
}

// validURL is zod's url(): what the WHATWG URL parser takes, which needs
// a scheme.
func validURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || strings.ContainsAny(s, " \t\n") {
		return "Invalid url"
	}
	return ""
}

var slug = lazyregexp.New(`^[a-z0-9-_]+$`)

func nameCheck(s string) string {
	if !slug.MatchString(s) {
		return "Name must be a valid slug"
	}
	return ""
}

func literal(want string) fieldCheck {
	return func(path string, v frontmatter.Value, _ bool) []string {
		if v.Kind != frontmatter.String || v.Text != want {
			return []string{issue(path, fmt.Sprintf("Invalid literal value, expected %q", want))}
		}
		return nil
	}
}

func isNumber(path string, v frontmatter.Value, _ bool) []string {
	if v.Kind != frontmatter.Number {
		return []string{issue(path, "Expected number, received "+received(v))}
	}
	return nil
}

func positiveInt(path string, v frontmatter.Value, _ bool) []string {
	if v.Kind != frontmatter.Number {
		return []string{issue(path, "Expected number, received "+received(v))}
	}
	var out []string
	if v.Num != math.Trunc(v.Num) {
		out = append(out, issue(path, "Expected integer, received float"))
	}
	if v.Num <= 0 {
		out = append(out, issue(path, "Number must be greater than 0"))
	}
	return out
}

func stringList(item func(string) string) fieldCheck {
	return func(path string, v frontmatter.Value, _ bool) []string {
		if v.Kind != frontmatter.List {
			return []string{issue(path, "Expected array, received "+received(v))}
		}
		var out []string
		for i, x := range v.List {
			out = append(out, isString(item)(fmt.Sprintf("%s.%d", path, i), x, true)...)
		}
		return out
	}
}

func validTool(s string) string {
	if !ValidToolName(s, true) {
		return "Invalid tool name"
	}
	return ""
}

func absent(path string, v frontmatter.Value, _ bool) []string {
	return []string{issue(path, "Expected undefined, received "+received(v))}
}

// mcpServersRefused: gemini-ls does not start an agent's own MCP servers.
func mcpServersRefused(path string, v frontmatter.Value, _ bool) []string {
	if v.Kind != frontmatter.Map {
		return []string{issue(path, "Expected object, received "+received(v))}
	}
	return []string{issue(path, "gemini-ls does not run an agent's own MCP servers; configure the server in settings.json (mcpServers) and name its tools (mcp_SERVER_TOOL) in tools")}
}

// object checks a mapping against fields, in their order, and refuses
// other keys when strict, as zod's object().strict().
func object(v frontmatter.Value, path string, fields []string, checks map[string]fieldCheck, strict bool) []string {
	if v.Kind != frontmatter.Map {
		return []string{issue(path, "Expected object, received "+received(v))}
	}
	var out []string
	sub := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	for _, k := range fields {
		f, ok := v.Get(k)
		out = append(out, checks[k](sub(k), f, ok)...)
	}
	if strict {
		var unknown []string
		for _, k := range v.Keys {
			if _, known := checks[k]; !known {
				unknown = append(unknown, "'"+k+"'")
			}
		}
		if len(unknown) > 0 {
			out = append(out, issue(path, "Unrecognized key(s) in object: "+strings.Join(unknown, ", ")))
		}
	}
	return out
}

var localFields = []string{"kind", "name", "description", "display_name", "tools", "mcp_servers", "model", "temperature", "max_turns", "timeout_mins"}

// localIssues is 0.61's localAgentSchema (chunk-JDPZ4CE3.js:338600).
func localIssues(v frontmatter.Value) []string {
	return object(v, "", localFields, map[string]fieldCheck{
		"kind":         optional(literal("local")),
		"name":         required(isString(nameCheck)),
		"description":  required(isString(minLen(""))),
		"display_name": optional(isString()),
		"tools":        optional(stringList(validTool)),
		"mcp_servers":  optional(mcpServersRefused),
		"model":        optional(isString()),
		"temperature":  optional(isNumber),
		"max_turns":    optional(positiveInt),
		"timeout_mins": optional(positiveInt),
	}, true)
}

var remoteFields = []string{"kind", "name", "description", "display_name", "auth", "agent_card_url", "agent_card_json"}

func remoteChecks() map[string]fieldCheck {
	return map[string]fieldCheck{
		"kind":         optional(literal("remote")),
		"name":         required(isString(nameCheck)),
		"description":  optional(isString()),
		"display_name": optional(isString()),
		"auth":         optional(authCheck),
	}
}

// remoteURLIssues and remoteJSONIssues are 0.61's remoteAgentUrlSchema and
// remoteAgentJsonSchema (chunk-JDPZ4CE3.js:338720).
func remoteURLIssues(v frontmatter.Value) []string {
	checks := remoteChecks()
	checks["agent_card_url"] = required(isString(validURL))
	checks["agent_card_json"] = optional(absent)
	return object(v, "", remoteFields, checks, true)
}

func remoteJSONIssues(v frontmatter.Value) []string {
	checks := remoteChecks()
	checks["agent_card_url"] = optional(absent)
	checks["agent_card_json"] = required(isString(func(s string) string {
		if !json.Valid([]byte(s)) {
			return "agent_card_json must be valid JSON"
		}
		return ""
	}))
	return object(v, "", remoteFields, checks, true)
}

// authCheck is 0.61's authConfigSchema (chunk-JDPZ4CE3.js:338640): a
// union by type, with the http scheme's rules.
func authCheck(path string, v frontmatter.Value, _ bool) []string {
	if v.Kind != frontmatter.Map {
		return []string{issue(path, "Expected object, received "+received(v))}
	}
	t, _ := v.Get("type")
	optStr := optional(isString(minLen("")))
	urlStr := optional(isString(validURL))
	scopes := optional(stringList(nil))
	var fields []string
	var checks map[string]fieldCheck
	switch {
	case t.Kind == frontmatter.String && t.Text == "apiKey":
		fields = []string{"type", "key", "name"}
		checks = map[string]fieldCheck{"type": literal("apiKey"), "key": required(isString(minLen("API key is required"))), "name": optional(isString())}
	case t.Kind == frontmatter.String && t.Text == "http":
		fields = []string{"type", "scheme", "token", "username", "password", "value"}
		checks = map[string]fieldCheck{"type": literal("http"), "scheme": required(isString(minLen(""))), "token": optStr, "username": optStr, "password": optStr, "value": optStr}
	case t.Kind == frontmatter.String && t.Text == "google-credentials":
		fields = []string{"type", "scopes"}
		checks = map[string]fieldCheck{"type": literal("google-credentials"), "scopes": scopes}
	case t.Kind == frontmatter.String && t.Text == "oauth":
		fields = []string{"type", "client_id", "client_secret", "scopes", "authorization_url", "token_url", "issuer", "audiences", "redirect_uri", "token_param_name", "registration_url"}
		checks = map[string]fieldCheck{
			"type": literal("oauth"), "client_id": optional(isString()), "client_secret": optional(isString()), "scopes": scopes,
			"authorization_url": urlStr, "token_url": urlStr, "issuer": urlStr, "audiences": scopes, "redirect_uri": urlStr,
			"token_param_name": optional(isString()), "registration_url": urlStr,
		}
	default:
		return []string{issue(path+".type", "Invalid discriminator value. Expected 'apiKey' | 'http' | 'google-credentials' | 'oauth'")}
	}
	if out := object(v, path, fields, checks, false); len(out) > 0 {
		return out
	}
	if t.Text != "http" || text(v, "value") != "" {
		return nil
	}
	switch scheme := text(v, "scheme"); scheme {
	case "Bearer":
		if text(v, "token") == "" {
			return []string{issue(path+".token", `Bearer scheme requires "token"`)}
		}
	case "Basic":
		var out []string
		if text(v, "username") == "" {
			out = append(out, issue(path+".username", `Basic authentication requires "username"`))
		}
		if text(v, "password") == "" {
			out = append(out, issue(path+".password", `Basic authentication requires "password"`))
		}
		return out
	default:
		return []string{issue(path+".value", fmt.Sprintf("HTTP scheme %q requires \"value\"", scheme))}
	}
	return nil
}
