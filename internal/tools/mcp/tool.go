package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// withdrawWait bounds how long a call that lost its server waits for the
// server's tools to be withdrawn; it takes no longer than reading EOF.
const withdrawWait = time.Second

// maxNameLength is the Gemini API's limit on a function name (64), less
// one, as Gemini CLI keeps it.
const maxNameLength = 63

// qualifiedName is the function name of a server's tool, as Gemini CLI
// 0.61 gives it (getFullyQualifiedName): mcp_SERVER_TOOL, made valid.
// Two servers' tools of one name so have two names.
func qualifiedName(server, tool string) string {
	name := server + "_" + tool
	if !strings.HasPrefix(name, mcpPrefix) {
		name = mcpPrefix + name
	}
	return validName(name)
}

// mcpPrefix begins every MCP tool's name.
const mcpPrefix = "mcp_"

// validName makes name a valid function name as Gemini CLI's
// generateValidName does: other characters become _, a name must start
// with a letter or _, and a long one keeps its first and last 30
// characters around "...".
func validName(name string) string {
	name = strings.Map(func(r rune) rune {
		if tools.FunctionNameChar(r) {
			return r
		}
		return '_'
	}, name)
	if name == "" || !tools.ValidFunctionName(name[:1]) {
		name = "_" + name
	}
	if len(name) > maxNameLength {
		name = name[:30] + "..." + name[len(name)-30:]
	}
	return name
}

// tool is one tool of a server, as the model sees it.
type tool struct {
	server  *server
	session *sdk.ClientSession
	name    string // the function name the model uses
	older   []string
	remote  *sdk.Tool
	// decl is made once: the registry asks for it at every model
	// request, and a listing that changes makes new tools.
	decl *genai.FunctionDeclaration
}

func newTool(s *server, session *sdk.ClientSession, name string, remote *sdk.Tool) *tool {
	var schema any = map[string]any{"type": "object", "properties": map[string]any{}}
	if remote.InputSchema != nil {
		schema = remote.InputSchema
	}
	// As Gemini CLI 0.61 declares a server's tool: the argument reaches
	// the server with the rest, as 0.61 passes it on.
	schema = tools.AddWaitForPrevious(schema)
	older := []string{validName(remote.Name), validName(s.alias + "__" + remote.Name)}
	return &tool{server: s, session: session, name: name, older: older, remote: remote, decl: &genai.FunctionDeclaration{
		Name:                 name,
		Description:          remote.Description,
		ParametersJsonSchema: schema,
	}}
}

func (t *tool) Name() string { return t.name }

// OlderNames are the names gemini-ls gave the tool before it named MCP
// tools as Gemini CLI 0.61 does: the server's tool name, and, where that
// was taken, SERVER__TOOL. Calls by them still reach it (tools.Renamed).
func (t *tool) OlderNames() []string { return t.older }

func (t *tool) Declaration() *genai.FunctionDeclaration { return t.decl }

// Build passes the arguments on as they are: the server validates them
// against its schema and says what is wrong.
func (t *tool) Build(args map[string]any) (tools.Call, error) {
	if args == nil {
		args = map[string]any{}
	}
	return &call{tool: t, args: args}, nil
}

type call struct {
	tool *tool
	args map[string]any
}

func (c *call) Title() string {
	args, _ := json.Marshal(c.args)
	title := fmt.Sprintf("%s (%s MCP Server) %s", c.tool.remote.Name, c.tool.server.alias, args)
	if len(title) > 200 {
		title = strings.ToValidUTF8(title[:200], "") + "…"
	}
	return title
}

// Confirmation asks before every call of a server the settings do not
// trust (the agent's approval service decides); "always allow" covers
// this tool of this server for the session.
func (c *call) Confirmation() *tools.Confirmation {
	s := c.tool.server
	details, _ := json.MarshalIndent(c.args, "", "  ")
	return &tools.Confirmation{
		Kind:      dialog.ConfirmMCP,
		Title:     fmt.Sprintf("Allow MCP tool %q from server %q?", c.tool.remote.Name, s.alias),
		Details:   string(details),
		AllowKeys: []string{"mcp:" + s.alias + ":" + c.tool.remote.Name},
		Trusted:   s.cfg.Trust,
	}
}

func (c *call) Execute(ctx context.Context, info tools.CallInfo) (tools.Result, error) {
	s := c.tool.server
	if s.isDead() {
		return tools.Result{}, fmt.Errorf("MCP server %q is no longer running", s.alias)
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
	defer cancel()
	// A question the server asks in answer (input_required) is the
	// call's user's to answer.
	ctx = withAsker(ctx, info.Ask)
	res, err := c.tool.session.CallTool(ctx, &sdk.CallToolParams{Name: c.tool.remote.Name, Arguments: c.args})
	if err == nil {
		var t *task
		if t, err = taskOf(res); err == nil && t != nil {
			res, err = c.followTask(ctx, t, info.Progress)
		}
	}
	if err != nil {
		var answered *jsonrpc.Error
		if ctx.Err() == nil && !errors.As(err, &answered) && !errors.As(err, new(*askError)) {
			// Not the server's answer: the connection failed, and the
			// server is likely dead. Its tools are withdrawn before the
			// model hears of it, so that its next request does not offer
			// them.
			select {
			case <-s.gone:
			case <-time.After(withdrawWait):
			}
		}
		if b := s.breach(); b != nil {
			err = b // what the SDK says of the cut stream is its consequence
		}
		return tools.Result{}, fmt.Errorf("calling tool %q of MCP server %q: %w", c.tool.remote.Name, s.alias, err)
	}
	// A server that said its tools changed before it answered has them
	// listed again first, so that the model's next request offers them.
	s.relisting.await(ctx, s.gone)
	return toResult(c.tool.remote.Name, res), nil
}

// toResult maps a tool's content to what the model reads and the user
// sees, as Gemini CLI does: text as text, images and audio (and binary
// resources) as inline data announced by a line of text, a resource's
// text as text, a resource link as a line naming it.
func toResult(name string, res *sdk.CallToolResult) tools.Result {
	var text, display []string
	var parts []*genai.Part
	media := func(kind, mime string, data []byte) {
		text = append(text, fmt.Sprintf("[Tool '%s' provided the following %s with mime-type: %s]", name, kind, mime))
		parts = append(parts, &genai.Part{InlineData: &genai.Blob{MIMEType: mime, Data: data}})
	}
	for _, content := range res.Content {
		switch c := content.(type) {
		case *sdk.TextContent:
			text = append(text, c.Text)
			display = append(display, c.Text)
		case *sdk.ImageContent:
			media("image data", c.MIMEType, c.Data)
			display = append(display, "[Image: "+c.MIMEType+"]")
		case *sdk.AudioContent:
			media("audio data", c.MIMEType, c.Data)
			display = append(display, "[Audio: "+c.MIMEType+"]")
		case *sdk.EmbeddedResource:
			r := c.Resource
			switch {
			case r == nil:
			case r.Text != "":
				text = append(text, r.Text)
				display = append(display, r.Text)
			case r.Blob != nil:
				mime := r.MIMEType
				if mime == "" {
					mime = "application/octet-stream"
				}
				media("embedded resource", mime, r.Blob)
				display = append(display, "[Embedded Resource: "+mime+"]")
			}
		case *sdk.ResourceLink:
			title := c.Title
			if title == "" {
				title = c.Name
			}
			text = append(text, fmt.Sprintf("Resource Link: %s at %s", title, c.URI))
			display = append(display, fmt.Sprintf("[Link to %s: %s]", title, c.URI))
		}
	}
	if len(res.Content) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			text = append(text, string(b))
			display = append(display, string(b))
		}
	}
	out := strings.Join(text, "\n")
	if res.IsError {
		msg := fmt.Sprintf("MCP tool '%s' reported an error: %s", name, out)
		return tools.Result{Error: msg, Display: msg}
	}
	return tools.Result{Output: out, Parts: parts, Display: strings.Join(display, "\n")}
}

// MCPOrigin is the server's alias and the tool's name on the server, so
// settings (tools.exclude) can name the tool as Gemini CLI does.
func (t *tool) MCPOrigin() (server, name string) { return t.server.alias, t.remote.Name }

// The toolset reads MCPOrigin through an interface of its own.
var _ interface{ MCPOrigin() (string, string) } = (*tool)(nil)
