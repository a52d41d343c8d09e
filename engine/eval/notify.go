package eval

// Notifier is implemented by evaluators that may have news for the user
// while they run, such as a plugin evaluator whose process died and which
// goes on with its fallback. The UCI layer passes a function that prints
// each message as an "info string"; the evaluator calls it from the
// goroutine that uses it.
type Notifier interface {
	SetNotify(func(msg string))
}
