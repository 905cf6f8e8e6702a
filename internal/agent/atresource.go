package agent

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Resources finds and reads the MCP resources a prompt's @SERVER:URI
// names, as Gemini CLI 0.61's resource registry and MCP clients do.
type Resources interface {
	// ResourceURI is the URI of the resource identifier (SERVER:URI)
	// names, among those the running MCP servers list; ok false for none.
	ResourceURI(identifier string) (uri string, ok bool)
	// ReadResource reads it from its server (resources/read).
	ReadResource(ctx context.Context, identifier string) ([]ResourceContent, error)
}

// ResourceContent is one piece of a resource read: text, or binary data
// of a MIME type.
type ResourceContent struct {
	Text     string
	Blob     []byte
	MIMEType string
}

// resourceRef is an @SERVER:URI of a prompt that names a resource a
// running MCP server lists.
type resourceRef struct {
	identifier string // SERVER:URI, as typed
	uri        string
}

// splitResources separates the references that name MCP resources from
// the rest, as 0.61's categorizeAtCommands does (after agents, before
// paths): the whole reference as typed, a line range's "#L…" included,
// must be SERVER:URI of a listed resource. One that names none stays a
// path.
func splitResources(prompt string, refs []reference, from Resources) (paths []reference, resources []resourceRef) {
	if from == nil {
		return refs, nil
	}
	for _, r := range refs {
		identifier := unescapePath(prompt[r.start+1 : r.end])
		if uri, ok := from.ResourceURI(identifier); ok {
			resources = append(resources, resourceRef{identifier: identifier, uri: uri})
		} else {
			paths = append(paths, r)
		}
	}
	return paths, resources
}

// readResources reads each resource and lays it out as 0.61's
// readMcpResources does: "\nContent from @URI:\n", then each piece's
// text, binary data as a line naming its type and size. Any failure
// fails them all, with 0.61's words for the first.
func readResources(ctx context.Context, from Resources, refs []resourceRef) ([]*genai.Part, error) {
	var parts []*genai.Part
	for _, r := range refs {
		contents, err := from.ReadResource(ctx, r.identifier)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &dialog.ReferenceError{Msg: fmt.Sprintf("Error reading resource %s: %v", r.uri, err)}
		}
		parts = append(parts, genai.NewPartFromText("\nContent from @"+r.uri+":\n"))
		parts = append(parts, resourceParts(contents)...)
	}
	return parts, nil
}

// resourceParts is 0.61's convertResourceContentsToParts: text as text,
// binary data as a line saying what it is; a piece with neither, nothing.
func resourceParts(contents []ResourceContent) []*genai.Part {
	var parts []*genai.Part
	for _, c := range contents {
		switch {
		case c.Text != "":
			parts = append(parts, genai.NewPartFromText(c.Text))
		case len(c.Blob) > 0:
			mime := c.MIMEType
			if mime == "" {
				mime = "application/octet-stream"
			}
			parts = append(parts, genai.NewPartFromText(fmt.Sprintf("[Binary resource content %s, %d bytes]", mime, len(c.Blob))))
		}
	}
	return parts
}

// isReferenceError reports whether err is a reference that could not be
// read, told to the user in 0.61's words as it is.
func isReferenceError(err error) bool {
	var r *dialog.ReferenceError
	return errors.As(err, &r)
}
