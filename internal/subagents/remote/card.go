package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/gemini-ls/gemini-ls/internal/origin"
)

// Card is what an agent card tells the main agent and the user about a
// remote agent.
type Card struct {
	Name        string
	Description string
	Skills      []Skill
	// Schemes are the card's security schemes, by name.
	Schemes map[string]Scheme

	card *a2a.AgentCard
	// redirectedTo is the URL on another origin a redirect fetched the
	// card from; "" when none did.
	redirectedTo string
}

// Skill is one skill a card lists.
type Skill struct {
	Name, Description string
}

// Scheme is one of a card's security schemes: Type "apiKey" (Name, In),
// "http" (Scheme), "oauth2", "openIdConnect" or "mutualTLS".
type Scheme struct {
	Type   string `json:"type"`
	Scheme string `json:"scheme"`
	Name   string `json:"name"`
	In     string `json:"in"`
}

// Describe is the description the main agent reads of a remote agent, as
// 0.61's registry builds it from the definition's own and the card's
// (registry.js, bundle 341086-341101); "" when both say nothing.
func (c *Card) Describe(userDescription string) string {
	var parts []string
	if s := strings.TrimSpace(userDescription); s != "" {
		parts = append(parts, "User Description: "+s)
	}
	if s := strings.TrimSpace(c.Description); s != "" {
		parts = append(parts, "Agent Description: "+s)
	}
	if len(c.Skills) > 0 {
		lines := make([]string, len(c.Skills))
		for i, s := range c.Skills {
			d := s.Description
			if d == "" {
				d = "No description provided"
			}
			lines[i] = s.Name + ": " + d
		}
		parts = append(parts, "Skills:\n"+strings.Join(lines, "\n"))
	}
	return strings.Join(parts, "\n")
}

// AuthWarning is 0.61's warning when the card asks for authentication the
// definition does not configure (registry.js, bundle 341079-341084,
// A2AAuthProviderFactory.validateAuthConfig and describeRequiredAuth):
// "Agent requires … but no auth is configured. Missing: …"; "" when the
// auth fits.
func (c *Card) AuthWarning(authType, httpScheme string) string {
	if len(c.Schemes) == 0 {
		return ""
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range c.Schemes {
			if !yield(n) {
				return
			}
		}
	})
	var missing, required []string
	if authType == "" {
		missing = []string{"Authentication is required but not configured"}
	}
	for _, n := range names {
		s := c.Schemes[n]
		switch s.Type {
		case "apiKey":
			required = append(required, fmt.Sprintf("API Key (%s): Send %s in %s", n, s.Name, s.In))
		case "http":
			required = append(required, fmt.Sprintf("HTTP %s (%s)", s.Scheme, n))
		case "oauth2":
			required = append(required, fmt.Sprintf("OAuth 2.0 (%s)", n))
		case "openIdConnect":
			required = append(required, fmt.Sprintf("OpenID Connect (%s)", n))
		case "mutualTLS":
			required = append(required, fmt.Sprintf("Mutual TLS (%s)", n))
		default:
			required = append(required, fmt.Sprintf("Unknown (%s): %s", n, s.Type))
		}
		if authType == "" {
			continue
		}
		// Any one scheme will do (findMatchingScheme, bundle 340186).
		switch s.Type {
		case "apiKey":
			if authType == "apiKey" {
				return ""
			}
			missing = append(missing, fmt.Sprintf("Scheme '%s' requires apiKey authentication", n))
		case "http":
			switch {
			case authType == "http" && strings.EqualFold(httpScheme, s.Scheme):
				return ""
			case authType == "http":
				missing = append(missing, fmt.Sprintf("Scheme '%s' requires HTTP %s authentication, but %s was configured", n, s.Scheme, httpScheme))
			case authType == "google-credentials" && strings.EqualFold(s.Scheme, "bearer"):
				return ""
			default:
				missing = append(missing, fmt.Sprintf("Scheme '%s' requires HTTP %s authentication", n, s.Scheme))
			}
		case "oauth2":
			if authType == "oauth2" || authType == "oauth" {
				return ""
			}
			missing = append(missing, fmt.Sprintf("Scheme '%s' requires OAuth 2.0 authentication", n))
		case "openIdConnect":
			if authType == "openIdConnect" {
				return ""
			}
			missing = append(missing, fmt.Sprintf("Scheme '%s' requires OpenID Connect authentication", n))
		case "mutualTLS":
			missing = append(missing, fmt.Sprintf("Scheme '%s' requires mTLS authentication (not yet supported)", n))
		default:
			missing = append(missing, fmt.Sprintf("Unknown security scheme type: %s", s.Type))
		}
	}
	return fmt.Sprintf("Agent requires %s but no auth is configured. Missing: %s", strings.Join(required, " OR "), strings.Join(missing, ", "))
}

// errCardMissing is a card that is JSON's null (0.61 normalizeAgentCard).
var errCardMissing = errors.New("Agent card is missing.")

// errCardStatus is a card URL that answered with an error status.
type errCardStatus struct {
	url    string
	status int
}

// Error is 0.61's DefaultAgentCardResolver.resolve (bundle 373310).
func (e *errCardStatus) Error() string {
	return fmt.Sprintf("Failed to fetch Agent Card from %s: %d", e.url, e.status)
}

// fetchedCard is a card's bytes and where they came from.
type fetchedCard struct {
	data []byte
	// redirectedTo is where on another origin a redirect took the fetch
	// (the last such URL, if several); "" when it stayed at the card
	// URL's origin.
	redirectedTo string
}

// fetchCard reads the card at cardURL: first without credentials, then,
// if the server refuses that (401, 403) and auth is configured, with them
// (0.61 A2AClientManager.loadAgent's cardFetch, bundle 378431).
func fetchCard(ctx context.Context, cardURL string, plain, authed *http.Client, limit int64) (fetchedCard, error) {
	get := func(c *http.Client) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		return c.Do(req)
	}
	resp, err := get(plain)
	if err != nil {
		return fetchedCard{}, fmt.Errorf("fetching the agent card from %s: %w", cardURL, err)
	}
	if (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) && authed != nil {
		resp.Body.Close()
		resp, err = get(authed)
		if err != nil {
			return fetchedCard{}, fmt.Errorf("fetching the agent card from %s with credentials: %w", cardURL, err)
		}
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fetchedCard{}, &errCardStatus{url: cardURL, status: resp.StatusCode}
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fetchedCard{}, fmt.Errorf("reading the agent card from %s: %w", cardURL, err)
	}
	if int64(len(data)) > limit {
		return fetchedCard{}, fmt.Errorf("reading the agent card from %s: %w: the agent card exceeds %d bytes", cardURL, ErrTooLarge, limit)
	}
	return fetchedCard{data: data, redirectedTo: redirectedTo(resp.Request)}, nil
}

// redirectedTo is the last URL on another origin than the first
// request's that the redirects bringing req went through; "" when they
// never left it.
func redirectedTo(req *http.Request) string {
	var hops []*url.URL // req's URL first, the first request's last
	for r := req; r != nil; r = previous(r) {
		hops = append(hops, r.URL)
	}
	home := origin.Of(hops[len(hops)-1])
	for _, u := range hops {
		if origin.Of(u) != home {
			return u.Redacted()
		}
	}
	return ""
}

// previous is the request whose redirect brought req; nil for the first.
func previous(req *http.Request) *http.Request {
	if req.Response == nil {
		return nil
	}
	return req.Response.Request
}

// parseCard reads a card as 0.61's normalizeAgentCard does (bundle
// 350124): A2A 1.0's supportedInterfaces and protocolBinding stand for
// 0.3's additionalInterfaces and transport. Security schemes are read
// apart, leniently: one this SDK does not know spoils no card.
func parseCard(data []byte) (*Card, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, errCardMissing
	}
	if _, ok := raw["additionalInterfaces"]; !ok {
		if si, ok := raw["supportedInterfaces"]; ok {
			raw["additionalInterfaces"] = si
		}
	}
	if ai, ok := raw["additionalInterfaces"]; ok {
		var ifaces []map[string]any
		if err := json.Unmarshal(ai, &ifaces); err != nil {
			return nil, fmt.Errorf("additionalInterfaces: %w", err)
		}
		for _, i := range ifaces {
			if _, ok := i["transport"].(string); !ok {
				if b, ok := i["protocolBinding"].(string); ok {
					i["transport"] = b
				}
			}
		}
		raw["additionalInterfaces"], _ = json.Marshal(ifaces)
	}
	schemes := map[string]Scheme{}
	if ss, ok := raw["securitySchemes"]; ok {
		schemes = parseSchemes(ss)
		delete(raw, "securitySchemes")
	}
	norm, _ := json.Marshal(raw)
	var card a2a.AgentCard
	if err := json.Unmarshal(norm, &card); err != nil {
		return nil, err
	}
	c := &Card{Name: card.Name, Description: card.Description, Schemes: schemes, card: &card}
	for _, s := range card.Skills {
		c.Skills = append(c.Skills, Skill{Name: s.Name, Description: s.Description})
	}
	return c, nil
}

// parseSchemes reads security schemes in the JSON schema's form ({"type":
// "http", …}) or the protobuf's ({"httpAuthSecurityScheme": {…}}), as
// 0.61's card resolver does.
func parseSchemes(data json.RawMessage) map[string]Scheme {
	var m map[string]map[string]json.RawMessage
	_ = json.Unmarshal(data, &m)
	proto := map[string]string{
		"apiKeySecurityScheme": "apiKey", "httpAuthSecurityScheme": "http",
		"oauth2SecurityScheme": "oauth2", "openIdConnectSecurityScheme": "openIdConnect",
		"mtlsSecurityScheme": "mutualTLS",
	}
	out := make(map[string]Scheme, len(m))
	for name, fields := range m {
		var s Scheme
		if _, ok := fields["type"]; ok {
			b, _ := json.Marshal(fields)
			_ = json.Unmarshal(b, &s)
		} else {
			for key, typ := range proto {
				if inner, ok := fields[key]; ok {
					_ = json.Unmarshal(inner, &s)
					s.Type = typ
				}
			}
		}
		out[name] = s
	}
	return out
}

// jsonrpcEndpoint is the card's JSON-RPC service URL: its main URL when
// its preferred transport is JSON-RPC (the default, A2A 0.3 §5.6), else
// an additional interface's. a2a-go speaks gRPC too, but a credential
// there would need rules of its own; HTTP+JSON it does not speak.
func jsonrpcEndpoint(card *a2a.AgentCard) (string, error) {
	pref := card.PreferredTransport
	if pref == "" {
		pref = a2a.TransportProtocolJSONRPC
	}
	offered := []string{string(pref)}
	if pref == a2a.TransportProtocolJSONRPC && card.URL != "" {
		return checkServiceURL(card.URL)
	}
	for _, i := range card.AdditionalInterfaces {
		if i.Transport == a2a.TransportProtocolJSONRPC && i.URL != "" {
			return checkServiceURL(i.URL)
		}
		offered = append(offered, string(i.Transport))
	}
	slices.Sort(offered)
	return "", fmt.Errorf("no compatible transports found: the agent offers %s, gemini-ls speaks JSONRPC", strings.Join(slices.Compact(offered), ", "))
}

func checkServiceURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("the agent card's service URL %q is not an http or https URL", s)
	}
	return s, nil
}
