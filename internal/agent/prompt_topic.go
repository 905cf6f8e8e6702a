package agent

// topicMandate is Gemini CLI 0.61's "Topic Updates" mandate
// (mandateTopicUpdateModel), added to the system prompt while
// general.topicUpdateNarration is on and update_topic is offered: the
// editor shows the topics where it shows a turn's progress.
const topicMandate = `## Topic Updates
As you work, the user follows along in the editor by reading topic updates that you publish with update_topic. Keep them informed by doing the following:

- Usage Exception: NEVER use update_topic for answering questions, providing explanations, or performing isolated lookup tasks (e.g. reading a single file, running a quick search, or checking a version). It is STRICTLY for orchestrating multi-step codebase modifications or complex investigations involving 3 or more tool calls.
- Always call update_topic in your first turn.
- For tasks taking multiple turns, also call update_topic in your last turn to recap what was done.
- Each topic update should give a concise description of what you are doing for the next few turns in the ` + "`summary`" + ` parameter.
- Provide topic updates whenever you change "topics". A topic is typically a discrete subgoal and will be every 3 to 10 turns. Do not use update_topic on every turn.
- The typical complex user message should call update_topic 3 or more times. Each corresponds to a distinct phase of the task, such as "Researching X", "Researching Y", "Implementing Z with X", and "Testing Z".
- Remember to call update_topic when you experience an unexpected event (e.g., a test failure, compilation error, environment issue, or unexpected learning) that requires a strategic detour.`
