// Package agents holds the agents the main agent can hire through
// invoke_agent (Gemini CLI 0.61's subagents): their definitions, built-in
// and the user's, and where they come from.
//
// Invariants:
//   - A project's agents load only from a trusted folder, and are offered
//     only once the user acknowledged them.
//   - It runs nothing: agent runs local agents, agents/remote calls remote
//     ones.
package agents
