// Package remote calls remote agents over the Agent2Agent protocol (A2A),
// as Gemini CLI 0.61's RemoteAgentInvocation does: it reads the agent's
// card, sends invoke_agent's prompt as one A2A message, follows the task
// to its end, and gives back the text the main agent reads.
//
// Invariants:
//   - A credential, of any kind, goes only to the origin (scheme, host,
//     port) of the URL the user configured: the agent card's (the inline
//     card's url): to the card when it asks for it, and to the service
//     the card names when it is on that origin. Never to another origin,
//     not after a redirect has once left the origin, as in a browser, and
//     not to the service of a card a redirect brought from another
//     origin. The client says why it withholds it. Nor over plain http
//     to another machine than this one: New refuses a definition whose
//     credential would go there (origin.CheckCleartext).
//   - Every response is bounded in size and in the time it may stay
//     silent: a hostile or broken server ends a run with an error, never a
//     hang or unbounded memory.
//   - Ending a run's context ends the run, and asks the agent to cancel
//     the task (A2A tasks/cancel).
//   - An event costs what it carries: the text is put together as the
//     events come (reassemble.go), never read again whole until the run
//     ends; a progress report carries what the text gained.
package remote
