// Package subagents holds the agents the main agent can hire through
// invoke_agent (Gemini CLI 0.61's subagents): their definitions, built-in
// and the user's, and where they come from.
//
// definition.go is the contract the loader, the runner and the remote
// client share; builtin.go the three built-ins; markdown.go the Markdown
// agents' files and 0.61's schema for them; catalog.go where agents come
// from and which wins a name; ack.go the acknowledgments of a project's
// agents, shared with Gemini CLI; toggle.go /agents enable and disable.
//
// Invariants:
//   - A project's agents load only from a trusted folder, and are offered
//     only once the user acknowledged them at their present content.
//   - A file that fails is reported with its path and field, and costs no
//     other agent.
//   - It runs nothing: agent runs local agents, agents/remote calls remote
//     ones.
package subagents
