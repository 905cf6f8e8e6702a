package acp

// The requests wire answers itself rather than the SDK's connection:
// those the pinned ACP schema (v1.34, testdata/acpschema) has and the
// SDK's v0.13.0 types cannot say (newer.go). session/delete and the
// unstable methods are no methods of the SDK's; session/new, load and
// resume carry a systemPrompt, and session/list an archive filter, its
// types drop; and their capabilities are no fields of the SDK's, so
// initialize's answer is the SDK's with those members added
// (capabilities.go), and initialize's params are read for the client's
// session capabilities the SDK's type lacks.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"
)

// methodSessionDelete is ACP's session/delete, which the SDK lacks.
const methodSessionDelete = "session/delete"

// ownMethod answers one request's params with its result, or an error
// (an *sdk.RequestError says its code).
type ownMethod func(ctx context.Context, params json.RawMessage) (any, error)

// ownMethods are the requests wire answers, each in a goroutine of its
// own under life, as the SDK's connection serves each request.
type ownMethods struct {
	life     context.Context
	handlers map[string]ownMethod
}

// ownMethods are the server's requests that wire answers.
func (s *server) ownMethods() *ownMethods {
	return &ownMethods{life: s.life, handlers: map[string]ownMethod{
		sdk.AgentMethodInitialize:    s.initializeV1,
		methodSessionDelete:          s.deleteSession,
		sdk.AgentMethodSessionNew:    s.newSessionV1,
		sdk.AgentMethodSessionLoad:   s.loadSessionV1,
		sdk.AgentMethodSessionResume: s.resumeSessionV1,
		sdk.AgentMethodSessionList:   s.listSessionsV1,
		methodSessionSetTitle:        s.setTitle,
		methodSessionArchive:         s.archiveSession,
		methodSessionUnarchive:       s.unarchiveSession,
		methodSessionStatus:          s.sessionStatus,
		methodAuthStatus:             s.authStatus,
	}}
}

// ownRequest is what serveOwn reads of a line.
type ownRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// serveOwn takes line when it is a well-formed request of one of wire's
// own methods, and answers it; anything else goes on to pass, which
// answers a malformed request (params that are not an object, say) as
// an invalid request whatever its method.
func (w *wire) serveOwn(line []byte, tooLong bool) bool {
	if w.own == nil || tooLong {
		return false
	}
	if code, _, _ := check(line); code != 0 {
		return false
	}
	var r ownRequest
	if json.Unmarshal(line, &r) != nil || usableID(r.ID) == nil {
		return false
	}
	handle, ok := w.own.handlers[r.Method]
	if !ok {
		return false
	}
	go w.answerOwn(r, handle)
	return true
}

// answerOwn answers request r with what handle says of it.
func (w *wire) answerOwn(r ownRequest, handle ownMethod) {
	if len(r.Params) == 0 {
		r.Params = json.RawMessage("{}")
	}
	result, err := handle(w.own.life, r.Params)
	if err != nil {
		w.answerOwnError(r, err)
		return
	}
	err = w.send(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}{"2.0", r.ID, result})
	if err != nil {
		w.log.Debug("answering "+r.Method, zap.Error(err))
	}
}

// answerOwnError answers r with err: its code when it is a JSON-RPC
// error, else an internal error that says it.
func (w *wire) answerOwnError(r ownRequest, err error) {
	re, ok := errors.AsType[*sdk.RequestError](err)
	if !ok {
		re = sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	e := wireError{JSONRPC: "2.0", ID: r.ID}
	e.Error.Code, e.Error.Message, e.Error.Data = re.Code, re.Message, re.Data
	if serr := w.send(e); serr != nil {
		w.log.Debug("answering "+r.Method, zap.Error(serr))
	}
}

// decodeParams reads a request's params into p, as the SDK's connection
// reads them: an unreadable one is invalid params.
func decodeParams[T any](raw json.RawMessage, p *T) error {
	if err := json.Unmarshal(raw, p); err != nil {
		return invalidParams(fmt.Sprintf("the params cannot be read: %v", err))
	}
	return nil
}

// initializeV1 is Initialize, reading also the client's session
// capabilities, its answer saying also what the SDK's types cannot
// (capabilities.go).
func (s *server) initializeV1(ctx context.Context, raw json.RawMessage) (any, error) {
	var p sdk.InitializeRequest
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, invalidParams(err.Error())
	}
	var session struct {
		ClientCapabilities struct {
			Session *clientSessionCapabilities `json:"session"`
		} `json:"clientCapabilities"`
	}
	if err := decodeParams(raw, &session); err != nil {
		return nil, err
	}
	res, err := s.Initialize(ctx, p)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.clientSession = clientSessionCapabilities{}
	if c := session.ClientCapabilities.Session; c != nil {
		s.clientSession = *c
	}
	s.mu.Unlock()
	return withOwnCapabilities(res)
}
