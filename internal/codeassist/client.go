package codeassist

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/genai"
)

// DefaultEndpoint is the Code Assist server Gemini CLI talks to.
const DefaultEndpoint = "https://cloudcode-pa.googleapis.com"

// apiVersion is the Code Assist API version Gemini CLI uses.
const apiVersion = "v1internal"

// maxResponseSize bounds a non-streamed answer (an error body included).
const maxResponseSize = 32 << 20

// TokenSource gives the access token for the next request.
type TokenSource interface {
	Token(ctx context.Context) (string, error)
}

// granted is a TokenSource that tells one sign-in from another (Login):
// Grant changes when the user signs in again, maybe as another account,
// whose project the client must then set up anew.
type granted interface {
	Grant() string
}

// Config configures a Client.
type Config struct {
	// Endpoint is the server's base URL (CODE_ASSIST_ENDPOINT);
	// DefaultEndpoint when empty.
	Endpoint string
	// Project is the user's Google Cloud project (GOOGLE_CLOUD_PROJECT or
	// GOOGLE_CLOUD_PROJECT_ID); "" lets the server pick or onboard one.
	Project string
	// Tokens authorizes every request (Login or ADC).
	Tokens TokenSource
	// HTTPClient sends the requests; it adds no credentials.
	// http.DefaultClient when nil.
	HTTPClient *http.Client
	// UserAgent is sent with every request.
	UserAgent string
	// SessionID is sent as request.session_id; random when empty.
	SessionID string
	// PollInterval is the wait between polls of the onboarding operation;
	// 5 s (Gemini CLI's) when zero. MaxPolls bounds them; 60 when zero.
	PollInterval time.Duration
	MaxPolls     int
}

// Client is a Code Assist client with the three calls the agent's
// content generator needs. It is safe for concurrent use.
type Client struct {
	cfg     Config
	base    string
	prompts atomic.Int64

	// settingUp is held while the project is set up or read; a channel
	// rather than a mutex so that a caller whose context ends stops waiting.
	settingUp chan struct{}
	user      *UserData // nil until a setup succeeded
	userGrant string    // the sign-in user was set up for
}

// New returns a Client; nothing is sent until the first call.
func New(cfg Config) *Client {
	if cfg.Endpoint == "" {
		cfg.Endpoint = DefaultEndpoint
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.SessionID == "" {
		cfg.SessionID = randomID()
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 5 * time.Second
	}
	if cfg.MaxPolls <= 0 {
		cfg.MaxPolls = 60
	}
	return &Client{
		cfg:       cfg,
		base:      strings.TrimRight(cfg.Endpoint, "/") + "/" + apiVersion,
		settingUp: make(chan struct{}, 1),
	}
}

func randomID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// promptID names one request as Gemini CLI's user_prompt_id does: the
// session, then a counter.
func (c *Client) promptID() string {
	return c.cfg.SessionID + "########" + strconv.FormatInt(c.prompts.Add(1), 10)
}

// GenerateContentStream streams the model's answer
// (POST :streamGenerateContent?alt=sse), each chunk unwrapped.
func (c *Client) GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		user, err := c.Setup(ctx)
		if err != nil {
			yield(nil, err)
			return
		}
		body := toGenerateRequest(model, user.ProjectID, c.promptID(), c.cfg.SessionID, contents, config)
		resp, err := c.post(ctx, "streamGenerateContent", "alt=sse", body)
		if err != nil {
			yield(nil, err)
			return
		}
		defer resp.Body.Close()
		for data, err := range sseData(resp.Body) {
			if err != nil {
				yield(nil, fmt.Errorf("reading the Code Assist stream: %w", err))
				return
			}
			chunk, err := fromGenerateResponse(data)
			if !yield(chunk, err) || err != nil {
				return
			}
		}
	}
}

// GenerateContent answers in one response (POST :generateContent).
func (c *Client) GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	user, err := c.Setup(ctx)
	if err != nil {
		return nil, err
	}
	body := toGenerateRequest(model, user.ProjectID, c.promptID(), c.cfg.SessionID, contents, config)
	data, err := c.call(ctx, "generateContent", body)
	if err != nil {
		return nil, err
	}
	return fromGenerateResponse(data)
}

// CountTokens counts contents' tokens (POST :countTokens). It needs no
// project, so it does not set one up.
func (c *Client) CountTokens(ctx context.Context, model string, contents []*genai.Content, _ *genai.CountTokensConfig) (*genai.CountTokensResponse, error) {
	body := map[string]any{"request": map[string]any{
		"model":    "models/" + model,
		"contents": toContents(contents),
	}}
	data, err := c.call(ctx, "countTokens", body)
	if err != nil {
		return nil, err
	}
	var out struct {
		TotalTokens int32 `json:"totalTokens"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("decoding the Code Assist countTokens answer: %w", err)
	}
	return &genai.CountTokensResponse{TotalTokens: out.TotalTokens}, nil
}

// call POSTs body to :method and returns the answer's body.
func (c *Client) call(ctx context.Context, method string, body any) ([]byte, error) {
	resp, err := c.post(ctx, method, "", body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := readBounded(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading the Code Assist %s answer: %w", method, err)
	}
	return data, nil
}

// post sends body to :method; an answer that is not a success is returned
// as a genai.APIError.
func (c *Client) post(ctx context.Context, method, query string, body any) (*http.Response, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encoding the Code Assist %s request: %w", method, err)
	}
	url := c.base + ":" + method
	if query != "" {
		url += "?" + query
	}
	return c.do(ctx, http.MethodPost, url, payload)
}

// get reads url (an operation).
func (c *Client) get(ctx context.Context, url string) ([]byte, error) {
	resp, err := c.do(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return readBounded(resp.Body)
}

func (c *Client) do(ctx context.Context, method, url string, payload []byte) (*http.Response, error) {
	if c.cfg.Tokens == nil {
		return nil, errors.New("codeassist: no token source configured")
	}
	token, err := c.cfg.Tokens.Token(ctx)
	if err != nil {
		return nil, err
	}
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, fmt.Errorf("making the Code Assist request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	if c.cfg.UserAgent != "" {
		req.Header.Set("User-Agent", c.cfg.UserAgent)
	}
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, apiError(resp)
	}
	return resp, nil
}

// apiError reads an error answer as the genai SDK does: the Gemini error
// JSON ({"error": {code, message, status, details}}) when there is one,
// else the body as the message.
func apiError(resp *http.Response) error {
	body, err := readBounded(resp.Body)
	if err != nil {
		return genai.APIError{Code: resp.StatusCode, Status: resp.Status, Message: fmt.Sprintf("reading the error body: %v", err)}
	}
	var wrapped struct {
		Error *genai.APIError `json:"error"`
	}
	if json.Unmarshal(body, &wrapped) == nil && wrapped.Error != nil {
		if wrapped.Error.Code == 0 {
			wrapped.Error.Code = resp.StatusCode
		}
		return *wrapped.Error
	}
	return genai.APIError{Code: resp.StatusCode, Status: resp.Status, Message: string(body)}
}

func readBounded(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxResponseSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxResponseSize {
		return nil, fmt.Errorf("answer larger than %d MiB", maxResponseSize>>20)
	}
	return data, nil
}
