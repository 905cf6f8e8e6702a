package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gemini-ls/gemini-ls/internal/action"
	"github.com/gemini-ls/gemini-ls/internal/conversation"
)

// runAction is gemini-ls action: the whole job of a GitHub Actions step
// (package action), the agent run as `run` runs it, headless.
func runAction(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("action", flag.ContinueOnError)
	mode := "auto_edit"
	fs.Var(&choiceFlag{p: &mode, choices: []string{"auto_edit", "yolo"}}, "approval-mode",
		"What the agent runs without asking: auto_edit (edits; shell commands are refused), or yolo (shell commands too, in the runner)")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	env := action.EnvFrom(os.Getenv)
	return action.Run(ctx, env, action.Options{ApprovalMode: mode}, headlessAgent, stdout, stderr)
}

// headlessAgent runs the agent as `gemini-ls run -o json` does, in this
// process, its log lines to run.Log, and reads how it ended from its
// JSON answer.
func headlessAgent(ctx context.Context, run action.AgentRun) (action.AgentResult, error) {
	args := []string{"-C", run.Dir, "-p", run.Prompt, "-o", "json", "--approval-mode", run.ApprovalMode, "--skip-trust", "--admin-policy", run.PolicyFile}
	if run.Model != "" {
		args = append(args, "-m", run.Model)
	}
	if run.Resume != "" {
		args = append(args, "--resume", run.Resume)
	}
	var out bytes.Buffer
	code := headless(ctx, args, nil, &out, run.Log)
	var answer struct {
		SessionID string     `json:"session_id"`
		Response  string     `json:"response"`
		Stats     stats      `json:"stats"`
		Error     *jsonError `json:"error"`
	}
	res := action.AgentResult{Exit: code}
	if err := json.Unmarshal(out.Bytes(), &answer); err != nil {
		if code == 0 {
			return res, fmt.Errorf("reading the agent's answer: %w", err)
		}
		res.Error = "it said why in the log"
		return res, nil
	}
	res.SessionID, res.Response = answer.SessionID, answer.Response
	if answer.Error != nil {
		res.Error = answer.Error.Message
	}
	for _, m := range answer.Stats.Models {
		res.Requests += m.API.TotalRequests
		res.InputTokens += int(m.Tokens.Prompt)
		res.OutputTokens += int(m.Tokens.Candidates)
		res.TotalTokens += int(m.Tokens.Total)
	}
	if res.SessionID != "" {
		file, err := conversation.SessionFile(os.Getenv, run.Dir, res.SessionID)
		if err != nil {
			fmt.Fprintf(run.Log, "gemini-ls: finding the session's file: %v\n", err)
		}
		res.SessionFile = file
	}
	return res, nil
}
