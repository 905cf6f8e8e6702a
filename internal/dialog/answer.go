package dialog

// AnswerRequest asks a model for one answer to a conversation its
// client keeps (VS Code's language model API): no tools, no session, no
// history of the agent's, nothing recorded. The client sends the whole
// conversation each time.
type AnswerRequest struct {
	// Model is the model to ask, as gemini-ls names it (an alias is
	// resolved as for a prompt that is not routed).
	Model string
	// System is the client's system instruction; "" for none.
	System string
	// Messages are the conversation, oldest first; the last is the
	// user's.
	Messages []AnswerMessage
}

// AnswerMessage is one message of an AnswerRequest's conversation.
type AnswerMessage struct {
	Role AnswerRole
	Text string
}

// AnswerRole says who wrote an AnswerMessage.
type AnswerRole string

const (
	AnswerUser  AnswerRole = "user"
	AnswerModel AnswerRole = "assistant"
)

// Answered is the model's answer to an AnswerRequest.
type Answered struct {
	// Text is the answer's text, its thoughts left out.
	Text string
	// Model is the model that answered.
	Model string
}
